"""Stage: persistence. SQLite is the embedded default; backends implement :class:`Store`.

:func:`open_store` picks the backend from a ``--db`` value: a ``postgresql://`` URL opens
:class:`~citegraph.store.postgres.PostgresStore` (``pip install 'citegraph[postgres]'``), anything
else a SQLite file.
"""

from __future__ import annotations

from pathlib import Path

from citegraph.errors import MissingExtra
from citegraph.settings import DEFAULTS
from citegraph.store.base import DocumentWrite, MentionRow, Store, StoredDocument
from citegraph.store.columns import GraphData
from citegraph.store.sqlite import SQLiteStore
from citegraph.store.urls import is_postgres_url, redact_url

__all__ = ["DocumentWrite", "GraphData", "MentionRow", "SQLiteStore", "Store", "StoredDocument", "is_postgres_url", "open_store"]


def open_store(db: str | Path, *, create: bool = True, lock_timeout: float = DEFAULTS.lock_timeout) -> Store:
    """The store ``db`` names: a ``postgresql://`` (or ``postgres://``) URL, or a SQLite file path.
    With ``create=False`` a missing store is an error naming it (never its password)."""
    if is_postgres_url(db):
        try:
            from citegraph.store.postgres import PostgresStore
        except ImportError as exc:
            raise MissingExtra(f"{redact_url(db)}: a PostgreSQL store", exc.name or "psycopg", "postgres") from exc
        return PostgresStore(str(db), create=create, lock_timeout=lock_timeout)
    return SQLiteStore(db, create=create, lock_timeout=lock_timeout)
