"""Connections to a store's database, made one way for the stores and for the server's own tables
(:mod:`citegraph.serve.tables`): a SQLite connection in autocommit with the store's lock timeout;
a PostgreSQL connection lent by one pool per process and URL (``psycopg_pool``, opened at first
use); and statements written once with ``?`` placeholders, which :func:`placeholders` turns into
psycopg's ``%s``."""

from __future__ import annotations

import atexit
import sqlite3
import threading
from typing import Any

__all__ = ["POOL_SIZE", "POOL_WAIT", "close_pools", "no_connection", "placeholders", "pool", "sqlite_connection"]


def sqlite_connection(path: str, *, timeout: float) -> sqlite3.Connection:
    """An autocommit connection (citegraph begins its own transactions) that waits ``timeout``
    seconds for another writer's lock; usable from any thread."""
    return sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=timeout)


def placeholders(sql: str) -> str:
    """A statement written with ``?`` placeholders, for psycopg (``%s``)."""
    return sql.replace("?", "%s")


POOL_SIZE = 8  #: connections one process keeps to one PostgreSQL server at most (a request holds one for a statement or two)
POOL_WAIT = 5.0  #: seconds a call waits for a connection before the cause is looked for (all lent out, or no server)
_pools: dict[str, Any] = {}
_pools_lock = threading.Lock()


def pool(url: str) -> Any:
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


def no_connection(url: str, exc: Exception) -> Exception:
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
