"""Bearer tokens for the HTTP API: a name, the access labels it grants, and only its sha256 stored.

``citegraph token add NAME --labels staff,public`` makes a token (``secrets.token_urlsafe``), stores
its digest in the store's ``api_tokens`` table and prints the token once; it cannot be shown again.
A request with no token reads as ``public``; a request with an unknown or revoked token is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citegraph.errors import NotFound, UserError
from citegraph.serve.tables import Tables
from citegraph.settings import DEFAULTS

__all__ = ["Token", "TokenStore", "digest"]


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Token:
    name: str
    labels: tuple[str, ...]
    created_at: str
    revoked_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``citegraph token list --json``'s row: name, labels and dates, never the token itself."""
        return {"name": self.name, "labels": list(self.labels), "created_at": self.created_at, "revoked_at": self.revoked_at}


class TokenStore:
    """The ``api_tokens`` table of a store (schema migration 2): a SQLite file or a ``postgresql://`` URL."""

    def __init__(self, db: str | Path, *, lock_timeout: float = DEFAULTS.lock_timeout) -> None:
        self.tables = Tables(db, lock_timeout=lock_timeout)
        self.path = self.tables.location  #: the store's location (a URL keeps its password: never print it)

    def _connect(self) -> contextlib.AbstractContextManager[Any]:
        return self.tables.connect()

    def add(self, name: str, labels: tuple[str, ...]) -> str:
        """A new token for ``name`` granting ``labels``; the token itself is returned once, never stored."""
        if not name.strip():
            raise UserError("a token needs a name, e.g. citegraph token add support-team --labels staff,public")
        if not labels or any(not label.strip() for label in labels):
            raise UserError("a token needs at least one access label, e.g. --labels staff,public")
        token = secrets.token_urlsafe(32)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._connect() as db:
            try:
                db.execute(
                    "INSERT INTO api_tokens (name, digest, labels, created_at) VALUES (?, ?, ?, ?)",
                    (name, digest(token), json.dumps(list(labels)), now),
                )
            except Exception as exc:
                if not self.tables.is_duplicate(exc):
                    raise
                raise UserError(
                    f"a token named {name!r} exists; revoke it first (citegraph token revoke {name}) or pick another name"
                ) from exc
        return token

    def list(self) -> list[Token]:
        with self._connect() as db:
            rows = db.execute("SELECT name, labels, created_at, revoked_at FROM api_tokens ORDER BY name").fetchall()
        return [Token(n, tuple(json.loads(labels)), created, revoked) for n, labels, created, revoked in rows]

    def revoke(self, name: str) -> Token:
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._connect() as db:
            changed = db.execute("UPDATE api_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (now, name)).rowcount
        if not changed:
            raise NotFound.among("active token", name, [t.name for t in self.list() if t.revoked_at is None])
        return next(t for t in self.list() if t.name == name)

    def labels(self, token: str) -> tuple[str, ...] | None:
        """The labels an active ``token`` grants, or None for an unknown or revoked one."""
        with self._connect() as db:
            row = db.execute("SELECT labels FROM api_tokens WHERE digest = ? AND revoked_at IS NULL", (digest(token),)).fetchone()
        return tuple(json.loads(row[0])) if row else None

    def any_active(self) -> bool:
        with self._connect() as db:
            return db.execute("SELECT 1 FROM api_tokens WHERE revoked_at IS NULL LIMIT 1").fetchone() is not None
