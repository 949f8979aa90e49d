"""The exception tree. Every error citegraph raises on purpose is one of these.

::

    CitegraphError
    ├── UserError               the caller's mistake: bad path, bad flag, malformed input file  (exit 1)
    │   ├── InputFileError      a file the user gave cannot be used (names the file and the fix)
    │   └── NotFound            a named entity, document or model does not exist
    ├── BackendUnavailable      a store, server or model that should answer does not             (exit 2)
    │   └── ModelUnavailable    a model file is missing, corrupt (sha256) or its runtime is absent
    ├── ModelOutputError        a model answered, but not in the shape asked for
    └── StoreError              the store is unreadable or from an unknown schema version

"Model unavailable" is an error; "the documents contain nothing" is a result (an ``empty``
document status), and the two never mix. Edges (CLI, HTTP) translate these exactly once.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "BackendUnavailable",
    "CitegraphError",
    "InputFileError",
    "ModelOutputError",
    "ModelUnavailable",
    "NotFound",
    "StoreError",
    "UserError",
]


class CitegraphError(Exception):
    """Base of every error citegraph raises on purpose."""

    exit_code = 1


class UserError(CitegraphError):
    exit_code = 1


class InputFileError(UserError):
    def __init__(self, path: str, problem: str, fix: str = "") -> None:
        self.path = path
        self.problem = problem
        self.fix = fix
        super().__init__(f"{path}: {self.reason}")

    @property
    def reason(self) -> str:
        """The problem and its fix without the path (a report shows the path in its own field)."""
        return f"{self.problem} ({self.fix})" if self.fix else self.problem


class NotFound(UserError):
    def __init__(self, what: str, name: str, suggestions: list[str] | None = None) -> None:
        self.what = what
        self.name = name
        self.suggestions = suggestions or []
        message = f"no {what} named {name!r}"
        if self.suggestions:
            message += "; did you mean " + ", ".join(repr(s) for s in self.suggestions) + "?"
        super().__init__(message)

    @classmethod
    def among(cls, what: str, name: str, candidates: Iterable[str], *, match: str | None = None) -> NotFound:
        """NotFound with up to 3 close matches of ``match`` (default ``name``) among ``candidates``."""
        import difflib

        return cls(what, name, difflib.get_close_matches(match or name, sorted(set(candidates)), n=3))


class BackendUnavailable(CitegraphError):
    exit_code = 2


class ModelUnavailable(BackendUnavailable):
    pass


class ModelOutputError(CitegraphError):
    exit_code = 2


class StoreError(CitegraphError):
    exit_code = 2
