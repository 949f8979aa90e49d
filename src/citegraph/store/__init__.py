"""Stage: persistence. SQLite is the embedded default; backends implement :class:`Store`."""

from citegraph.store.base import DocumentWrite, GraphData, MentionRow, Store, StoredDocument
from citegraph.store.sqlite import SQLiteStore

__all__ = ["DocumentWrite", "GraphData", "MentionRow", "SQLiteStore", "Store", "StoredDocument"]
