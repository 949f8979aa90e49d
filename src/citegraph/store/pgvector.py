"""pgvector for the PostgreSQL store: a second copy of every span vector in ``span_embeddings
(span_id, embedding vector(dim))`` with an HNSW index (``vector_cosine_ops``), and the one graph read
it serves, the spans nearest a vector (:meth:`~citegraph.store.base.GraphReader.nearest_spans`),
filtered by the caller's labels in the same statement.

The store (:class:`~citegraph.store.postgres.PostgresStore`) holds one :class:`PgvectorIndex` when
its server offers the extension, and calls it inside its own transactions: at open (:meth:`setup`),
in each write (:meth:`add`), in ``check`` and ``purge`` (:meth:`dim`) and when retrieval asks
(:meth:`nearest`). The copy is made by the first write that has vectors, or at open for a store
written without it; the ``bytea`` vectors stay, so the store still opens where the extension is gone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, suppress
from typing import Any, Protocol

import numpy as np

from citegraph.errors import StoreError, UserError
from citegraph.store.base import SpanHit

__all__ = ["PgvectorIndex", "vector_text"]


def vector_text(vector: object) -> str:
    """A float32 vector as pgvector's text input (exact: each float32 is written as its double)."""
    return "[" + ",".join(map(repr, np.asarray(vector, np.float32).reshape(-1).tolist())) + "]"


class _Host(Protocol):
    """What the index needs of its store: the connection, its transactions and a batched read."""

    conn: Any

    def _writing(self) -> AbstractContextManager[None]: ...

    def _reading(self) -> AbstractContextManager[None]: ...

    def _batches(self, sql: str, params: dict[str, Any]) -> Iterator[list[tuple[Any, ...]]]: ...


class PgvectorIndex:
    """The pgvector copy of a store's span vectors. ``schema_lock`` is the advisory lock class the
    store migrates under (the copy is made under it too); ``readable`` the store's SQL condition on
    ``documents d`` for what a caller may read (parameters ``labels`` and ``superseded``)."""

    def __init__(self, host: _Host, *, schema_lock: int, readable: str) -> None:
        self.host = host
        self.schema_lock = schema_lock
        self.readable = readable

    def setup(self) -> bool:
        """Create the extension; for a store that holds spans but no copy yet, make the copy. False
        when the extension cannot be had (a role that may not create it, where nobody has). On a store
        that has both (every open but the first), this only reads: no lock is taken, so a reader
        opening the store never waits for a writer."""
        conn = self.host.conn
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
            try:
                with self.host._writing():
                    conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (self.schema_lock,))
                    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except UserError:  # insufficient privilege, or a read-only server
                if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
                    return False  # bytea and numpy only
        if self.dim() is None:
            row = conn.execute("SELECT length(vector) / 4 FROM spans LIMIT 1").fetchone()
            if row is not None:
                # A read-only role or server: no copy until a writer opens the store.
                with suppress(UserError), self.host._writing():
                    self._create(int(row[0]))
        return True

    def dim(self) -> int | None:
        """The size of the copy's vectors, or None while there is no copy."""
        row = self.host.conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass('span_embeddings') AND attname = 'embedding'"
        ).fetchone()
        return int(row[0]) if row else None

    def _create(self, dim: int) -> int:
        """Inside a write transaction: make the copy (``dim`` values a vector) unless another writer
        has, copying in every stored span's vector. Returns the copy's size. Under the schema lock: a
        concurrent writer that finds no table waits here, then adds its own rows (its spans were not
        committed when this one copied)."""
        conn = self.host.conn
        conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (self.schema_lock,))
        found = self.dim()
        if found is not None:
            return found
        conn.execute(
            f"CREATE TABLE span_embeddings (span_id BIGINT PRIMARY KEY REFERENCES spans (id) ON DELETE CASCADE, embedding vector({int(dim)}) NOT NULL)"
        )
        for batch in self.host._batches("SELECT id, vector FROM spans ORDER BY id", {}):
            self._insert([r[0] for r in batch], [np.frombuffer(r[1], np.float32) for r in batch])
        conn.execute("CREATE INDEX span_embeddings_hnsw ON span_embeddings USING hnsw (embedding vector_cosine_ops)")
        return dim

    def add(self, document: str, span_ids: Sequence[int], vectors: np.ndarray | Sequence[np.ndarray]) -> None:
        """Inside ``document``'s write transaction: its spans' vectors into the copy (made now if this is
        the first write with vectors). Vectors of another size than the copy's are refused."""
        if not span_ids:
            return
        size = np.asarray(vectors).shape[-1]
        dim = self.dim() or self._create(size)
        if size != dim:
            raise StoreError(f"{document}: vectors of size {size}, but the store's are of size {dim}")
        self._insert(span_ids, [np.asarray(v, np.float32) for v in vectors])

    def _insert(self, span_ids: Sequence[int], vectors: Sequence[np.ndarray]) -> None:
        self.host.conn.execute(
            "INSERT INTO span_embeddings (span_id, embedding) SELECT i, v::vector FROM unnest(%s::bigint[], %s::text[]) AS u(i, v)"
            " ON CONFLICT (span_id) DO NOTHING",
            (list(span_ids), [vector_text(v) for v in vectors]),
        )

    def nearest(self, query_vector: np.ndarray, k: int, params: dict[str, Any]) -> list[SpanHit]:
        """The ``k`` readable spans nearest ``query_vector`` (cosine), best first, from the HNSW
        index; ``params`` (the caller's labels and currency) filter them in the same statement."""
        conn = self.host.conn
        with self.host._reading():
            # ef_search bounds the candidates a scan keeps (pgvector allows 1..1000); the iterative scan
            # goes on past it while filtered-out rows leave fewer than k.
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(min(1000, max(40, k))),))
            conn.execute("SELECT set_config('hnsw.iterative_scan', 'strict_order', true)")
            conn.execute("SELECT set_config('hnsw.max_scan_tuples', %s, true)", (str(max(20000, 20 * k)),))
            rows = conn.execute(
                f"""SELECT s.id, s.doc_id, s.version, s.start_char, s.end_char, 1 - (e.embedding <=> %(q)s::vector)
                FROM span_embeddings e
                JOIN spans s ON s.id = e.span_id
                JOIN documents d ON d.doc_id = s.doc_id AND d.version = s.version
                WHERE {self.readable}
                ORDER BY e.embedding <=> %(q)s::vector
                LIMIT %(k)s""",
                {**params, "q": vector_text(query_vector), "k": int(k)},
            ).fetchall()
        return [SpanHit(int(r[0]), r[1], r[2], int(r[3]), int(r[4]), float(r[5])) for r in rows]
