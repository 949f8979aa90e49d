"""The server's own tables (API tokens, upload jobs) in the store, on either backend.

Both backends carry the ``api_tokens`` and ``upload_jobs`` tables (schema migrations 2 and 3). Each
call takes an autocommit connection of its own, so request threads and ingest threads never share
one: on SQLite a new one (opening a file costs microseconds); on PostgreSQL one lent by a pool
(``psycopg_pool``) kept per process and per URL, since a new server connection costs milliseconds and
every API request reads its token. A lent connection is checked before use, so a restarted server
costs one reconnection, not an error; a server that is down is named as such within
:data:`POOL_WAIT` seconds. Worker processes each have their own pool; a server's app closes its
process's pools at shutdown. Statements are written
once, with ``?`` placeholders; for PostgreSQL they become ``%s``.
"""

from __future__ import annotations

import atexit
import contextlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from citegraph.errors import store_error
from citegraph.settings import DEFAULTS
from citegraph.store.urls import is_postgres_url

__all__ = ["Tables", "close_pools"]

POOL_SIZE = 8  #: connections one process keeps to one PostgreSQL server at most (a request holds one for a statement or two)
POOL_WAIT = 5.0  #: seconds a call waits for a connection before the cause is looked for (all lent out, or no server)
_pools: dict[str, Any] = {}
_pools_lock = threading.Lock()


def _pool(url: str) -> Any:
    """The process's connection pool for ``url``, opened at its first use."""
    with _pools_lock:
        pool = _pools.get(url)
        if pool is None:
            from psycopg_pool import ConnectionPool

            # min_size 0: no connection is made, or remade in the background, before a call needs one
            pool = ConnectionPool(
                url,
                min_size=0,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True, "connect_timeout": int(POOL_WAIT)},
                check=ConnectionPool.check_connection,
                timeout=POOL_WAIT,
                name="citegraph-tables",
                open=True,
            )
            if not _pools:
                atexit.register(close_pools)
            _pools[url] = pool
        return pool


def close_pools() -> None:
    """Close every pool this process opened (at exit, when a server shuts down, before a test drops its database)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.close()


def _no_connection(url: str, exc: Exception) -> Exception:
    """Why no pooled connection came: connect once directly, so libpq names the cause (no server, no
    database, a refused login) as the store's own errors do; if that works, every connection was lent."""
    import psycopg

    from citegraph.errors import StoreError, postgres_error
    from citegraph.store.urls import redact_url

    try:
        psycopg.connect(url, connect_timeout=int(POOL_WAIT)).close()
    except psycopg.Error as direct:
        return postgres_error(redact_url(url), direct, connecting=True)
    return StoreError(f"{redact_url(url)}: all {POOL_SIZE} pooled connections stayed busy for {POOL_WAIT:g} s ({exc})")


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
            from psycopg_pool import PoolTimeout

            from citegraph.errors import postgres_error
            from citegraph.store.urls import redact_url

            pool = _pool(self.location)
            try:
                pg = pool.getconn()
            except PoolTimeout as exc:
                raise _no_connection(self.location, exc) from exc
            try:
                yield _Connection(pg, "%s")
            except psycopg.Error as exc:  # as the store's own errors: a lock is StoreLocked, a lost server BackendUnavailable
                raise postgres_error(redact_url(self.location), exc, waited=self.lock_timeout) from exc
            finally:
                pool.putconn(pg)
        else:
            try:
                db = sqlite3.connect(self.location, isolation_level=None, timeout=self.lock_timeout)
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
        return self.raw.execute(sql.replace("?", self.placeholder) if self.placeholder != "?" else sql, tuple(params))
