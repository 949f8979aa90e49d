"""The server's own tables (API tokens, upload jobs) in the store, on either backend.

Both backends carry the ``api_tokens`` and ``upload_jobs`` tables (schema migrations 2 and 3). Each
call takes an autocommit connection of its own, so request threads and ingest threads never share
one: on SQLite a new one (opening a file costs microseconds); on PostgreSQL one lent by a pool
(``psycopg_pool``) kept per process and per URL, since a new server connection costs milliseconds and
every API request reads its token. A lent connection is checked before use, so a restarted server
costs one reconnection, not an error; a server that is down is named as such within
``POOL_WAIT`` seconds. Worker processes each have their own pool; a server's app closes its
process's pools at shutdown. Statements are written once, with ``?`` placeholders. The connections,
the pool and the placeholders are the stores' own (:mod:`citegraph.store.connections`).
"""

from __future__ import annotations

import contextlib
import copy
import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from citegraph.errors import store_error
from citegraph.settings import DEFAULTS
from citegraph.store import connections
from citegraph.store.connections import close_pools
from citegraph.store.urls import is_postgres_url

__all__ = ["Tables", "close_pools"]


class Tables:
    """Short connections to the store at ``location`` (a SQLite file or a ``postgresql://`` URL)."""

    def __init__(self, location: str | Path, *, lock_timeout: float = DEFAULTS.lock_timeout) -> None:
        from citegraph.store import open_store

        open_store(location, create=False, lock_timeout=lock_timeout).close()  # brings the schema up to date, or names a missing store
        self.location = str(location)
        self.postgres = is_postgres_url(location)
        self.lock_timeout = lock_timeout

    def probe_write(self) -> None:
        """Raise :class:`~citegraph.errors.StoreLocked` (after the lock timeout) if a write to the
        store could not start now: another process holds a SQLite store's write lock. Nothing is
        written. (PostgreSQL locks rows, not the store: nothing to wait for.)"""
        if self.postgres:
            return
        with self.connect() as db:
            db.raw.execute("BEGIN IMMEDIATE")
            db.raw.execute("ROLLBACK")

    def beside(self, suffix: str, table: str, migration: int) -> Tables:
        """For a SQLite store, the table that schema ``migration`` makes, kept in a file of its own
        beside the store (``STORE`` + ``suffix``, readable by its owner only) instead of in the store:
        writing it never waits on the store's write lock, which an ingest holds for as long as it
        writes. On PostgreSQL (row locks, no file lock) the store's own table: ``self``."""
        if self.postgres:
            return self
        from citegraph.store.base import read_migrations

        side = copy.copy(self)
        side.location = self.location + suffix
        with contextlib.suppress(FileExistsError):
            os.close(os.open(side.location, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        with side.connect() as db:
            db.raw.execute("PRAGMA journal_mode = WAL")

            def made() -> bool:
                return db.raw.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None

            if not made():
                try:
                    db.raw.executescript(dict(read_migrations("migrations"))[migration])
                except sqlite3.OperationalError:
                    if not made():  # not another process making it at the same moment
                        raise
        return side

    @contextlib.contextmanager
    def connect(self) -> Iterator[_Connection]:
        if self.postgres:
            import psycopg
            from psycopg_pool import PoolTimeout

            from citegraph.errors import postgres_error
            from citegraph.store.urls import redact_url

            pool = connections.pool(self.location)
            try:
                pg = pool.getconn()
            except PoolTimeout as exc:
                raise connections.no_connection(self.location, exc) from exc
            try:
                yield _Connection(pg, "%s")
            except psycopg.Error as exc:  # as the store's own errors: a lock is StoreLocked, a lost server BackendUnavailable
                raise postgres_error(redact_url(self.location), exc, waited=self.lock_timeout) from exc
            finally:
                pool.putconn(pg)
        else:
            try:
                db = connections.sqlite_connection(self.location, timeout=self.lock_timeout)
            except sqlite3.Error as exc:
                raise store_error(self.location, exc, waited=self.lock_timeout) from exc
            try:
                yield _Connection(db, "?")
            except sqlite3.Error as exc:  # a write that waited past the lock timeout is StoreLocked, not a raw OperationalError
                if isinstance(exc, sqlite3.IntegrityError):
                    raise  # a taken name: the caller tells it apart (is_duplicate)
                raise store_error(self.location, exc, waited=self.lock_timeout) from exc
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
        return self.raw.execute(connections.placeholders(sql) if self.placeholder != "?" else sql, tuple(params))
