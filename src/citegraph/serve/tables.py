"""The server's own tables (API tokens, upload jobs) in the store, on either backend.

Both backends carry the ``api_tokens`` and ``upload_jobs`` tables (schema migrations 2 and 3). Each
call takes a short autocommit connection of its own, so request threads, ingest threads and worker
processes never share one. Statements are written once, with ``?`` placeholders; for PostgreSQL they
become ``%s``.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from citegraph.settings import DEFAULTS
from citegraph.store.urls import is_postgres_url

__all__ = ["Tables"]


class Tables:
    """Short connections to the store at ``location`` (a SQLite file or a ``postgresql://`` URL)."""

    def __init__(self, location: str | Path, *, lock_timeout: float = DEFAULTS.lock_timeout) -> None:
        from citegraph.store import open_store

        open_store(location, create=False, lock_timeout=lock_timeout).close()  # brings the schema up to date, or names a missing store
        self.location = str(location)
        self.postgres = is_postgres_url(location)
        self.lock_timeout = lock_timeout

    @contextlib.contextmanager
    def connect(self) -> Iterator[_Connection]:
        if self.postgres:
            import psycopg

            pg = psycopg.connect(self.location, autocommit=True, connect_timeout=max(1, int(self.lock_timeout)))
            try:
                yield _Connection(pg, "%s")
            finally:
                pg.close()
        else:
            db = sqlite3.connect(self.location, isolation_level=None, timeout=self.lock_timeout)
            try:
                yield _Connection(db, "?")
            finally:
                db.close()

    def is_duplicate(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a unique-constraint violation (a name taken)."""
        if isinstance(exc, sqlite3.IntegrityError):
            return True
        if self.postgres:
            from psycopg import errors

            return isinstance(exc, errors.UniqueViolation)
        return False


class _Connection:
    def __init__(self, raw: Any, placeholder: str) -> None:
        self.raw = raw
        self.placeholder = placeholder

    def execute(self, sql: str, params: Sequence[object] = ()) -> Any:
        """The cursor of ``sql`` (written with ``?`` placeholders) run with ``params``."""
        return self.raw.execute(sql.replace("?", self.placeholder) if self.placeholder != "?" else sql, tuple(params))
