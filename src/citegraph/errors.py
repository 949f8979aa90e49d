"""The exception tree. Every error citegraph raises on purpose is one of these.

::

    CitegraphError
    ├── UserError               the caller's mistake: bad path, bad flag, malformed input file  (exit 1)
    │   ├── InputFileError      a file the user gave cannot be used (names the file and the fix)
    │   ├── NotFound            a named entity, document or model does not exist
    │   ├── LimitExceeded       an input over a configured limit (question, answer length), naming it
    │   ├── AccessConflict      an ingest would change who may read a stored document
    │   └── AccessDenied        a caller may read a document but not change it (it lacks one of its labels)
    ├── BackendUnavailable      a store, server or model that should answer does not             (exit 2)
    │   └── ModelUnavailable    a model file is missing, corrupt (sha256) or its runtime is absent
    ├── ModelOutputError        a model answered, but not in the shape asked for
    └── StoreError              the store is unreadable or from an unknown schema version        (exit 2)
        ├── StoreLocked         another process holds the store's write lock
        └── StaleWrite          a write's rows rest on stored state another writer removed meanwhile

"Model unavailable" is an error; "the documents contain nothing" is a result (an ``empty``
document status), and the two never mix. Edges (CLI, HTTP) translate these exactly once;
:func:`store_error` turns a ``sqlite3`` error into one of them, :func:`postgres_error` a ``psycopg``
one. Any other exception is a bug: the CLI reports it as an internal error (exit 5).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "AccessConflict",
    "AccessDenied",
    "BackendUnavailable",
    "CitegraphError",
    "InputFileError",
    "LimitExceeded",
    "MissingExtra",
    "ModelOutputError",
    "ModelUnavailable",
    "NotFound",
    "StaleWrite",
    "StoreError",
    "StoreLocked",
    "UnsupportedFile",
    "UserError",
    "postgres_error",
    "store_error",
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


class UnsupportedFile(InputFileError):
    """A file of a type (or, for JSON, a layout) citegraph does not read: reported as ``skipped``, never an abort."""


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


class LimitExceeded(UserError):
    """An input over one of the settings' limits (``max-question-chars``, ``max-answer-chars``,
    ``max-claims``); the message names the setting and how to raise it."""


class AccessConflict(UserError):
    """A document id is stored with other labels than an ingest asks for. An ingest never changes
    who may read a stored document's text; relabelling is its own command."""

    def __init__(self, doc_id: str, stored: tuple[str, ...], asked: tuple[str, ...]) -> None:
        self.doc_id = doc_id
        self.stored = stored
        self.asked = asked
        super().__init__(
            f"document {doc_id!r} is stored with access {','.join(stored)}, and this ingest asks for {','.join(asked)}: "
            "an ingest never changes who may read a stored document. To change its labels, run "
            f"`citegraph relabel {doc_id} --access {','.join(asked)}`; to keep both, ingest under other ids "
            "(--prefix NAME/, or --id for one file)"
        )


class AccessDenied(UserError):
    """A caller asked to change a document it may read but whose every label it does not hold."""


class BackendUnavailable(CitegraphError):
    exit_code = 2


class ModelUnavailable(BackendUnavailable):
    pass


class MissingExtra(ModelUnavailable):
    """An optional part that is not installed (the server, the PostgreSQL driver, Ray, the local
    model runtime): exit 1 naming the ``pip install 'citegraph[extra]'`` that brings it, never exit 5
    "a bug". A model stage that needs it is skipped and says so, as for any unavailable model."""

    exit_code = 1

    def __init__(self, what: str, module: str, extra: str, note: str = "") -> None:
        self.module, self.extra = module, extra
        super().__init__(
            f"{what} needs {module}, which is not installed: pip install 'citegraph[{extra}]'" + (f" ({note})" if note else "")
        )


class ModelOutputError(CitegraphError):
    exit_code = 2


class StoreError(CitegraphError):
    exit_code = 2


class StoreLocked(StoreError):
    def __init__(self, path: str, waited: float | None = None) -> None:
        self.path = path
        waited_text = "" if waited is None else f" (waited {waited:g} s)"
        super().__init__(
            f"{path}: another process holds the store's write lock{waited_text}; run this again when it has finished, "
            "or wait longer with --lock-timeout SECONDS"
        )


class StaleWrite(StoreError):
    """A document indexed while an entity key it uses was stored, written after another writer
    (``rm``) removed that entity: its vector was never computed. The ingest indexes the document
    again (the transaction rolled back, nothing of it was written)."""

    def __init__(self, doc_id: str, key: str) -> None:
        self.doc_id = doc_id
        self.key = key
        super().__init__(f"{doc_id}: entity {key!r} was removed by another writer while this document was indexed; run the ingest again")


def store_error(path: str, exc: Exception, *, waited: float | None = None) -> CitegraphError:
    """A ``sqlite3`` error from the store at ``path`` as the error its user can act on. Told apart by
    SQLite's error name (``sqlite_errorname``), so this module needs no sqlite3 import."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreLocked(path, waited)
    if name.startswith("SQLITE_READONLY"):
        return UserError(
            f"{path}: the store is read-only ({exc}); make the file and its folder writable (chmod u+w), or choose another --db"
        )
    if name.startswith("SQLITE_CANTOPEN"):
        return UserError(f"{path}: cannot open the store ({exc}); check that the file and its folder exist and are writable")
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return StoreError(
            f"{path}: not a readable citegraph store ({exc}); `citegraph check --db {path}` lists what is damaged; "
            "restore the file from a backup or ingest into a new store"
        )
    if name.startswith("SQLITE_FULL"):
        return StoreError(f"{path}: the disk is full ({exc}); free some space and run this again")
    return StoreError(f"{path}: the store failed ({exc})")


def postgres_error(location: str, exc: Exception, *, waited: float | None = None, connecting: bool = False) -> CitegraphError:
    """A ``psycopg`` error from the PostgreSQL store at ``location`` (a URL without its password) as the
    error its user can act on. Told apart by SQLSTATE (``exc.sqlstate``), so this module needs no psycopg
    import; a failed connection carries none, so it is told apart by libpq's message."""
    state = str(getattr(exc, "sqlstate", "") or "")
    message = " ".join(str(exc).split())
    if connecting and not state:
        if "database" in message and "does not exist" in message:
            return UserError(
                f"{location}: {message.rsplit('FATAL: ', 1)[-1]}; create it (createdb NAME, or CREATE DATABASE NAME) or check --db"
            )
        if "password authentication failed" in message or ("role" in message and "does not exist" in message):
            return UserError(f"{location}: the server refused the login ({message.rsplit('FATAL: ', 1)[-1]}); check the user and password")
        return BackendUnavailable(
            f"{location}: cannot reach the PostgreSQL server ({message}); start it, or check the host and port in --db"
        )
    if state == "55P03":  # lock_not_available: lock_timeout ran out
        return StoreLocked(location, waited)
    if state in ("40P01", "40001"):  # deadlock_detected, serialization_failure
        return StoreError(f"{location}: this write collided with another writer and was rolled back ({message}); run it again")
    if state.startswith("08") or state in ("57P01", "57P02", "57P03") or (not state and "connection" in message):
        # connection lost (libpq gives no SQLSTATE for that), server shutting down
        return BackendUnavailable(f"{location}: lost the PostgreSQL server ({message}); check that it is running, then run this again")
    if state in ("42501", "25006"):  # insufficient_privilege, read_only_sql_transaction
        return UserError(f"{location}: the store is read-only for this user ({message}); grant write access, or choose another --db")
    if state.startswith("53"):  # insufficient_resources: disk full, out of memory, too many connections
        return StoreError(f"{location}: the PostgreSQL server is out of resources ({message}); free some, then run this again")
    if state.startswith("XX"):  # internal_error, data_corrupted, index_corrupted
        return StoreError(f"{location}: the PostgreSQL server reports damage ({message}); `citegraph check --db URL` lists what it can")
    return StoreError(f"{location}: the store failed ({message})")
