"""A store in a PostgreSQL database (psycopg 3), with the contract of the SQLite store.

``--db postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE`` (or ``CITEGRAPH_DB``) selects it. The
database must exist (``createdb NAME``); the first write-capable open creates the schema in it from
``migrations_pg/`` (the same version numbers as SQLite's ``migrations/``). ``pip install
'citegraph[postgres]'`` installs psycopg.

The guarantees, and how they are kept with several processes writing at once:

* **One transaction per document.** A write runs in one READ COMMITTED transaction under a
  transaction-scoped advisory lock on its document id, so two writers of one document take turns
  and the second finds the version stored (``unchanged``, never a duplicate: the content hash is
  the version, the primary key ``(doc_id, version)`` the backstop). Writers of different documents
  run side by side.
* **Shared entities do not race.** A key is inserted with ``INSERT ... ON CONFLICT DO NOTHING``
  (a concurrent insert of the same key waits for the other transaction, then does nothing), then
  read back ``FOR KEY SHARE``, so a concurrent ``rm`` cannot drop an entity this write is about to
  mention; ``rm`` locks its orphan candidates ``FOR UPDATE`` before it checks they are orphans.
  Writers insert a part's keys in sorted order. A deadlock between the parts of two long documents
  (each over ``CHUNK_CHARS``) is still possible; PostgreSQL then rolls one back, and that ingest
  stops with a message to run it again (what was stored stays).
* **Consistent reads.** A read runs in one REPEATABLE READ, READ ONLY transaction; ``snapshot()``
  holds one across several reads.
* **Access labels are filtered in SQL**, as in SQLite.
* **Caches see every commit.** Each write transaction bumps the row of ``changes`` just before it
  commits; :meth:`change_token` reads it.
* **Secure deletion.** PostgreSQL leaves a deleted row's bytes in its page until the page is
  rewritten; a plain VACUUM frees the space but leaves the bytes of a page's last row in place
  (measured: a deleted sentence stayed readable in the table file after ``VACUUM``). So ``rm``
  runs ``VACUUM (FULL)`` on the tables that held the document (documents, document_access, spans,
  mentions, relations, entities, rejections, with their TOAST tables and indexes): each is
  rewritten without the deleted rows. It takes each table's ACCESS EXCLUSIVE lock in turn (readers
  and writers wait, up to ``wait_ms``) and costs a rewrite of the store, so ``rm`` on a large store
  is slow. Rows another connection's open snapshot can still see are kept by the rewrite: then
  ``purged`` is False and the next ``rm`` (or :meth:`purge`) finishes the job. PostgreSQL's
  write-ahead log, its archive and base backups keep the text until they are recycled or deleted:
  that is the server's administration, not the store's.

Vectors are ``bytea`` columns holding float32, as in SQLite, and search runs in Python over the
caller's visible graph (:class:`~citegraph.store.columns.GraphColumns`), exactly as for SQLite.

**pgvector.** At open the store notes whether the server offers the pgvector extension
(:attr:`pgvector`: ``vector`` in ``pg_available_extensions``). Without it nothing else changes:
``bytea`` and numpy, as above. With it, the open runs ``CREATE EXTENSION IF NOT EXISTS vector``
(a role that may not create it, on a database where nobody has, leaves :attr:`pgvector` False) and
the store keeps a second copy of every span vector in ``span_embeddings (span_id, embedding
vector(dim))``, with an HNSW index (``vector_cosine_ops``). The table is made by the first write
(or, for a store that already holds spans, by the open, which copies them in), with the size of
the stored vectors; each write fills it in the document's transaction, and its rows go with their
spans (``ON DELETE CASCADE``), so ``rm`` and a partial retry remove them; ``rm``'s ``VACUUM (FULL)``
rewrites it too. The ``bytea`` column stays the source of truth (the graph read, ``check``);
``check`` reports a span with no copy. :meth:`nearest_spans` then answers "the k sentences nearest
this vector that this caller may read" in the server: the access labels and currency are filtered
in the same SQL statement (the HNSW scan is iterative, ``hnsw.iterative_scan = strict_order``, so
a filter that drops most candidates still yields k rows). Retrieval uses it only on its approximate
path (more than ``APPROXIMATE_ABOVE`` visible sentences), in place of the IVF index it would build
from the caller's vectors; below that it scores every visible vector exactly, as for SQLite. The
``bytea`` copy is not dropped: a store written with pgvector opens and works on a server without it.

Why this file is long (~590 lines): it is one backend's whole contract in PostgreSQL's SQL (its
reads, its writes under advisory locks, purge, check), and each statement is written against the
same transaction rules; what is shared with SQLite is :mod:`~citegraph.store.sql`, and pgvector is
:mod:`~citegraph.store.pgvector`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from itertools import count
from typing import Any

import numpy as np
import psycopg
from psycopg import pq
from psycopg.conninfo import conninfo_to_dict

from citegraph.errors import StaleWrite, StoreError, UserError, postgres_error
from citegraph.models import Document
from citegraph.settings import DEFAULTS
from citegraph.store.base import (
    Problem,
    SpanHit,
    StoredDocument,
    WritePart,
    graph_problems,
    only_held_labels,
    read_migrations,
    vector_problems,
)
from citegraph.store.connections import placeholders
from citegraph.store.pgvector import PgvectorIndex
from citegraph.store.sql import DOCUMENT_COUNTS, SQLStore
from citegraph.store.urls import redact_url

__all__ = ["SCHEMA_VERSION", "PostgresStore"]


def _migrations() -> list[tuple[int, str]]:
    return read_migrations("migrations_pg")


SCHEMA_VERSION = _migrations()[-1][0]

# Advisory lock classes (the first key of pg_advisory_xact_lock(int, int)): one document's writes,
# and the migration of a new store.
_DOCUMENT_LOCK = 0x63677264
_SCHEMA_LOCK = 0x63677273
# The tables that hold a document's text and what was extracted from it: rewritten by purge().
_DOCUMENT_TABLES = ("documents", "document_access", "spans", "mentions", "relations", "entities", "rejections")
# Every reference ``check`` verifies (PostgreSQL enforces them; a superuser can switch that off):
# (table, how a row is named, [(column, parent column)], parent table).
_REFERENCES = (
    ("spans", "c.id::text", (("doc_id", "doc_id"), ("version", "version")), "documents"),
    ("document_access", "c.doc_id || '@' || c.version || ' ' || c.label", (("doc_id", "doc_id"), ("version", "version")), "documents"),
    ("rejections", "c.id::text", (("doc_id", "doc_id"), ("version", "version")), "documents"),
    ("mentions", "c.id::text", (("entity_id", "id"),), "entities"),
    ("mentions", "c.id::text", (("span_id", "id"),), "spans"),
    ("relations", "c.id::text", (("source_id", "id"),), "entities"),
    ("relations", "c.id::text", (("target_id", "id"),), "entities"),
    ("relations", "c.id::text", (("span_id", "id"),), "spans"),
)

# Documents the caller may read: current ones (or all versions), and, unless the caller is
# unrestricted (labels NULL), only those carrying at least one of the caller's labels.
# A supersession hides the old document only from a caller who may read the replacement: for any
# other caller nothing about the replacement exists, and the old document stays current.
_READABLE = """(d.current OR %(superseded)s)
      AND (%(superseded)s OR NOT EXISTS (
          SELECT 1 FROM supersessions s WHERE s.old_id = d.doc_id AND (%(labels)s::text[] IS NULL OR EXISTS (
              SELECT 1 FROM document_access n WHERE n.doc_id = s.new_id AND n.label = ANY(%(labels)s::text[])))))
      AND (%(labels)s::text[] IS NULL OR EXISTS (
          SELECT 1 FROM document_access a
          WHERE a.doc_id = d.doc_id AND a.version = d.version AND a.label = ANY(%(labels)s::text[])))"""
_VISIBLE = f"""
WITH visible(doc_id, version) AS MATERIALIZED (
    SELECT d.doc_id, d.version FROM documents d
    WHERE {_READABLE}
)
"""
_DOC_COLUMNS = (
    "d.doc_id, d.version, d.label, d.source, d.media_type, d.ingested_at, d.text, d.current, "
    "ARRAY(SELECT a.label FROM document_access a WHERE a.doc_id = d.doc_id AND a.version = d.version ORDER BY a.label), "
    "d.dated, (SELECT s.new_id FROM supersessions s WHERE s.old_id = d.doc_id)"
)
_DOC_WIDTH = 11
_ROWS = 16384  # rows fetched at a time by the columnar read and the check
_MAX_KEY_ROUNDS = 100  # insert-then-lock rounds for a part's entity keys (a key another writer removes meanwhile comes back)
_cursor_names = count()


def _document(row: Sequence[Any]) -> Document:
    doc_id, version, label, source, media_type, ingested_at, text, current, access, dated, superseded_by = row
    return Document(
        doc_id, version, text, source, tuple(access), label, ingested_at, bool(current), media_type, dated, superseded_by=superseded_by
    )


def _f32(vector: object) -> bytes:
    return np.asarray(vector, np.float32).tobytes()


class PostgresStore(SQLStore):
    """The store in the PostgreSQL database at ``url`` (see the module's docstring for its guarantees)."""

    _VISIBLE = _VISIBLE  #: the versions a caller may read, as a WITH clause

    def __init__(self, url: str, *, create: bool = True, lock_timeout: float = DEFAULTS.lock_timeout) -> None:
        """Connect to ``url``; with ``create=False`` (what read commands use) a database without the
        citegraph schema is an error rather than a new empty store. A write waits up to
        ``lock_timeout`` seconds for a lock another writer holds, then raises :class:`StoreLocked`."""
        self.url = url
        self.path = redact_url(url)
        self.lock_timeout = lock_timeout
        self._deleted: str | None = None  # the transaction id of this connection's last delete (purge checks against it)
        try:
            given = conninfo_to_dict(url)
            options: dict[str, Any] = {k: v for k, v in (("connect_timeout", 10), ("application_name", "citegraph")) if k not in given}
            self.conn = psycopg.connect(url, autocommit=True, **options)
        except psycopg.Error as exc:
            raise postgres_error(self.path, exc, connecting=True) from exc
        try:
            self._set_lock_timeout(lock_timeout * 1000)
            #: whether the server offers pgvector and the store keeps a pgvector copy of its span vectors
            self.pgvector = self.conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone() is not None
            if not create and self._schema_version_or_0() == 0:
                raise UserError(
                    f"{self.path}: not a citegraph store (the database has no citegraph schema); ingest documents first or check --db"
                )
            self._migrate()
            self._vectors = PgvectorIndex(self, schema_lock=_SCHEMA_LOCK, readable=_READABLE)
            if self.pgvector:
                self.pgvector = self._vectors.setup()  # False: a role that may not create the extension
        except psycopg.Error as exc:
            self.conn.close()
            raise postgres_error(self.path, exc, waited=lock_timeout) from exc
        except BaseException:
            self.conn.close()
            raise

    def _set_lock_timeout(self, ms: float) -> None:
        # 0 is "wait forever" to PostgreSQL; to citegraph (as to SQLite) it is "do not wait".
        self.conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{max(1, int(ms))}ms",))

    # -- transactions -----------------------------------------------------------------------------
    @contextmanager
    def _errors(self) -> Iterator[None]:
        """A psycopg error inside leaves as the citegraph error its user can act on, naming the store."""
        try:
            yield
        except psycopg.Error as exc:
            raise postgres_error(self.path, exc, waited=self.lock_timeout) from exc

    @contextmanager
    def _transaction(self, begin: str, *, join: bool = False) -> Iterator[None]:
        """``begin`` ... ``COMMIT``, rolled back on any exception. With ``join``, inside an open
        transaction (a :meth:`snapshot`) it joins that one."""
        if self.conn.info.transaction_status != pq.TransactionStatus.IDLE:
            if not join:  # PostgreSQL would only warn, and the COMMIT below would end the outer transaction
                raise StoreError(f"{self.path}: a write cannot run inside snapshot() (a read-only transaction)")
            with self._errors():
                yield
            return
        with self._errors():
            self.conn.execute(begin)
        try:
            yield
        except BaseException as exc:
            with suppress(psycopg.Error):  # the connection is gone: the server rolled back
                self.conn.execute("ROLLBACK")
            if isinstance(exc, psycopg.Error):
                raise postgres_error(self.path, exc, waited=self.lock_timeout) from exc
            raise
        with self._errors():
            self.conn.execute("COMMIT")

    def _writing(self) -> AbstractContextManager[None]:
        """One write transaction (READ COMMITTED: a statement sees what other writers committed, so
        ``INSERT ... ON CONFLICT DO NOTHING`` then ``SELECT`` finds a key another writer just stored)."""
        return self._transaction("BEGIN ISOLATION LEVEL READ COMMITTED")

    def _reading(self) -> AbstractContextManager[None]:
        """One read transaction: every SELECT inside sees the same snapshot, whatever a writer commits.
        Inside :meth:`snapshot` it joins that one."""
        return self._transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", join=True)

    def snapshot(self) -> AbstractContextManager[None]:
        """``with store.snapshot():`` makes several reads (documents, graph, check) see one state."""
        return self._reading()

    def _execute(self, sql: str, params: Sequence[object] = ()) -> Any:
        return self.conn.execute(placeholders(sql), tuple(params))

    def _execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        with self.conn.cursor() as cursor:
            cursor.executemany(placeholders(sql), rows)

    def _after_delete(self) -> None:
        # What purge checks against: whether a snapshot older than this delete can still see its rows.
        (self._deleted,) = self.conn.execute("SELECT pg_current_xact_id()::xid::text").fetchone() or (None,)

    def _lock_document(self, doc_id: str) -> None:
        """Hold ``doc_id``'s advisory lock until this transaction ends (waits up to ``lock_timeout``)."""
        self.conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_DOCUMENT_LOCK, doc_id))

    def _changed(self) -> None:
        """Bump the change counter: last in a write transaction, so its row lock is held only to COMMIT."""
        self.conn.execute("UPDATE changes SET n = n + 1")

    # -- schema -----------------------------------------------------------------------------------
    def _migrations(self) -> list[tuple[int, str]]:
        return _migrations()

    def _schema_lock(self) -> None:
        self.conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (_SCHEMA_LOCK,))

    def _run_script(self, script: str) -> None:
        self.conn.execute(script.encode("utf-8"))  # no parameters: the whole script, in this transaction

    # -- pgvector (citegraph.store.pgvector) -------------------------------------------------------
    @property
    def offers_nearest_spans(self) -> bool:  # type: ignore[override]
        """Whether :meth:`nearest_spans` answers: pgvector, and a copy of the span vectors to search."""
        if not self.pgvector:
            return False
        with self._errors():
            return self._vectors.dim() is not None

    def nearest_spans(
        self, query_vector: np.ndarray, k: int, labels: Collection[str] | None, include_superseded: bool = False
    ) -> list[SpanHit]:
        """The ``k`` readable spans nearest ``query_vector`` (cosine), best first, from pgvector's HNSW
        index; the caller's labels and currency are filtered in the same statement."""
        if k <= 0 or not self.offers_nearest_spans:
            return []
        return self._vectors.nearest(query_vector, k, self._params(labels, include_superseded))

    def _schema_version_or_0(self) -> int:
        if self.conn.execute("SELECT to_regclass('meta')").fetchone() == (None,):  # a new store
            return 0
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def schema_version(self) -> int:
        with self._errors():
            return self._schema_version_or_0()

    def close(self) -> None:
        self.conn.close()

    def change_token(self) -> object:
        with self._errors():
            row = self.conn.execute("SELECT n FROM changes").fetchone()
        return row[0] if row else None

    def embedder_name(self) -> str | None:
        with self._errors():
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        return row[0] if row else None

    def set_embedder_name(self, name: str) -> None:
        with self._writing():
            self.conn.execute(
                "INSERT INTO meta (key, value) VALUES ('embedder', %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", (name,)
            )
            self._changed()

    # -- documents --------------------------------------------------------------------------------
    def get_document(self, doc_id: str, version: str | None = None) -> Document | None:
        with self._reading():
            if version is None:
                row = self.conn.execute(f"SELECT {_DOC_COLUMNS} FROM documents d WHERE d.doc_id = %s AND d.current", (doc_id,)).fetchone()
            else:
                row = self.conn.execute(
                    f"SELECT {_DOC_COLUMNS} FROM documents d WHERE d.doc_id = %s AND d.version = %s", (doc_id, version)
                ).fetchone()
        return _document(row) if row else None

    def document_status(self, doc_id: str, version: str) -> str | None:
        with self._errors():
            row = self.conn.execute("SELECT status FROM documents WHERE doc_id = %s AND version = %s", (doc_id, version)).fetchone()
        return row[0] if row else None

    def document_access(self, doc_id: str) -> tuple[str, ...] | None:
        with self._errors():
            return self._document_access(doc_id)

    def _set_access(self, doc_id: str, access: Sequence[str]) -> None:
        # Labels are the document's, not one version's (see SQLiteStore._set_access).
        self.conn.execute("DELETE FROM document_access WHERE doc_id = %s", (doc_id,))
        self.conn.execute(
            "INSERT INTO document_access (doc_id, version, label)"
            " SELECT d.doc_id, d.version, l.label FROM documents d CROSS JOIN unnest(%s::text[]) AS l(label) WHERE d.doc_id = %s",
            (sorted(set(access)), doc_id),
        )

    # -- writes -----------------------------------------------------------------------------------
    def _stored_keys(self, keys: list[str]) -> set[str]:
        with self._errors():
            return {r[0] for r in self.conn.execute("SELECT key FROM entities WHERE key = ANY(%s::text[])", (keys,))}

    def _write_part(self, doc: Document, extractor: str, part: WritePart) -> int:
        """Insert one part's rows; returns the relation rows stored."""
        for span, _kind in part.spans:
            if doc.text[span.start : span.end] != span.text:
                raise StoreError(f"{doc.id}: span {span.start}-{span.end} does not slice to its text")
        vectors = [_f32(v) for v in part.span_vectors]
        if len(vectors) != len(part.spans):
            raise StoreError(f"{doc.id}: {len(part.spans)} spans and {len(vectors)} vectors")
        rows = self.conn.execute(
            "INSERT INTO spans (doc_id, version, start_char, end_char, text, kind, vector, frame)"
            " SELECT %s, %s, * FROM unnest(%s::int[], %s::int[], %s::text[], %s::text[], %s::bytea[], %s::text[])"
            " RETURNING start_char, end_char, id",
            (
                doc.id,
                doc.version,
                [s.start for s, _ in part.spans],
                [s.end for s, _ in part.spans],
                [s.text for s, _ in part.spans],
                [k for _, k in part.spans],
                vectors,
                [s.frame for s, _ in part.spans],
            ),
        ).fetchall()
        span_ids = {(start, end): sid for start, end, sid in rows}
        if self.pgvector and rows:
            self._vectors.add(doc.id, [span_ids[(s.start, s.end)] for s, _ in part.spans], part.span_vectors)
        keys = {m.key for m in part.mentions} | {k for r in part.relations for k in (r.source_key, r.target_key)}
        entity_ids = self._entity_ids(doc, sorted(keys), part)
        mentions = part.mentions
        self.conn.execute(
            "INSERT INTO mentions (entity_id, span_id, start_char, end_char, surface, type, description, inferred, extractor)"
            " SELECT *, %s FROM unnest(%s::bigint[], %s::bigint[], %s::int[], %s::int[], %s::text[], %s::text[], %s::text[], %s::bool[])",
            (
                extractor,
                [entity_ids[m.key] for m in mentions],
                [span_ids[(m.span.start, m.span.end)] for m in mentions],
                [m.start for m in mentions],
                [m.end for m in mentions],
                [m.surface for m in mentions],
                [m.type for m in mentions],
                [m.description for m in mentions],
                [m.inferred for m in mentions],
            ),
        )
        relations = part.relations
        cursor = self.conn.execute(
            "INSERT INTO relations (source_id, target_id, type, span_id, source_name, target_name, description, extractor)"
            " SELECT *, %s FROM unnest(%s::bigint[], %s::bigint[], %s::text[], %s::bigint[], %s::text[], %s::text[], %s::text[])"
            " ON CONFLICT DO NOTHING",  # one triple asserted twice by one sentence is one row
            (
                extractor,
                [entity_ids[r.source_key] for r in relations],
                [entity_ids[r.target_key] for r in relations],
                [r.type for r in relations],
                [span_ids[(r.sentence.start, r.sentence.end)] for r in relations],
                [r.source_name for r in relations],
                [r.target_name for r in relations],
                [r.description for r in relations],
            ),
        )
        return max(cursor.rowcount, 0)

    def _entity_ids(self, doc: Document, keys: list[str], part: WritePart) -> dict[str, int]:
        """The ids of ``keys`` (sorted), inserting those no entity row has yet, each row locked
        ``FOR KEY SHARE`` until this transaction ends so no concurrent ``rm`` drops it meanwhile."""
        if not keys:
            return {}
        for _ in range(_MAX_KEY_ROUNDS):
            found: dict[str, int] = dict(
                self.conn.execute("SELECT key, id FROM entities WHERE key = ANY(%s::text[]) ORDER BY key FOR KEY SHARE", (keys,)).fetchall()
            )
            missing = [k for k in keys if k not in found]
            if not missing:
                return found
            vectors = []
            for key in missing:
                vector = part.key_vectors.get(key)
                if vector is None:
                    raise StaleWrite(doc.id, key)  # deemed stored when indexed, removed since
                vectors.append(_f32(vector))
            # A key another writer is inserting right now: this waits for it, then does nothing.
            self.conn.execute(
                "INSERT INTO entities (key, key_vector) SELECT * FROM unnest(%s::text[], %s::bytea[]) ON CONFLICT (key) DO NOTHING",
                (missing, vectors),
            )
        raise StoreError(f"{doc.id}: entity keys kept disappearing while this document was written; run the ingest again")

    def _drop_orphans(self, candidates: Collection[int]) -> int:
        """Delete those of ``candidates`` that no mention or relation supports any more. Returns how
        many went. Locked first, so a writer that holds one (``FOR KEY SHARE``) commits its mentions
        before this looks for them."""
        if not candidates:
            return 0
        ids = sorted(candidates)
        self.conn.execute("SELECT id FROM entities WHERE id = ANY(%s::bigint[]) ORDER BY id FOR UPDATE", (ids,))
        cursor = self.conn.execute(
            "DELETE FROM entities e WHERE e.id = ANY(%s::bigint[])"
            " AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id)"
            " AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.source_id = e.id OR r.target_id = e.id)",
            (ids,),
        )
        return max(cursor.rowcount, 0)

    def purge(self, wait_ms: int = 5000) -> bool:
        """Rewrite the tables that hold documents (``VACUUM (FULL)``), so deleted rows are not left in
        their pages. False if it could not finish: an open transaction here, a lock held elsewhere past
        ``wait_ms``, or another connection's snapshot that may still see deleted rows (the rewrite keeps
        those); the next purge finishes the job."""
        if self.conn.info.transaction_status != pq.TransactionStatus.IDLE:
            return False  # VACUUM cannot run inside a transaction (a snapshot() around rm)
        with self._errors():
            if self._readers_of_deleted_rows():
                return False
            self._set_lock_timeout(wait_ms)
            try:
                tables = _DOCUMENT_TABLES + (("span_embeddings",) if self._vectors.dim() is not None else ())
                self.conn.execute(f"VACUUM (FULL) {', '.join(tables)}")
            except psycopg.errors.LockNotAvailable:
                return False
            finally:
                self._set_lock_timeout(self.lock_timeout * 1000)
            return not self._readers_of_deleted_rows()

    def _readers_of_deleted_rows(self) -> bool:
        """Whether another connection to this database holds a snapshot (or a transaction) old enough
        to see rows this connection deleted last (any snapshot, if it deleted none)."""
        row = self.conn.execute(
            """SELECT count(*) FROM pg_stat_activity
            WHERE datname = current_database() AND pid != pg_backend_pid() AND backend_type = 'client backend'
              AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
              AND (%(deleted)s::text IS NULL
                   OR greatest(age(backend_xmin), age(backend_xid)) >= age(%(deleted)s::text::xid))""",
            {"deleted": self._deleted},
        ).fetchone()
        return bool(row and row[0])

    # -- check ------------------------------------------------------------------------------------
    def check(self) -> list[Problem]:
        problems: list[Problem] = []
        with self._reading():
            for table, name, columns, parent in _REFERENCES:
                match = " AND ".join(f"p.{pc} = c.{cc}" for cc, pc in columns)
                problems += [
                    Problem("dangling_reference", f"{table} row {row} points at a missing {parent} row")
                    for (row,) in self.conn.execute(
                        f"SELECT {name} FROM {table} c WHERE NOT EXISTS (SELECT 1 FROM {parent} p WHERE {match}) ORDER BY 1"
                    )
                ]
            problems += [
                Problem("no_current_version", f"document {d!r} has versions but none is current")
                for (d,) in self.conn.execute("SELECT doc_id FROM documents GROUP BY doc_id HAVING count(*) FILTER (WHERE current) != 1")
            ]
            # PostgreSQL counts characters (code points) in substr, as Python slices a str.
            problems += [
                Problem("offsets", f"span {sid} ({doc_id}@{version} {start}-{end}) does not slice to its sentence")
                for sid, doc_id, version, start, end in self.conn.execute(
                    """SELECT s.id, s.doc_id, s.version, s.start_char, s.end_char FROM spans s
                    LEFT JOIN documents d ON d.doc_id = s.doc_id AND d.version = s.version
                    WHERE substr(coalesce(d.text, ''), s.start_char + 1, s.end_char - s.start_char) IS DISTINCT FROM s.text
                    ORDER BY s.doc_id, s.version, s.id"""
                )
            ]
            dims: set[int] = set()
            for batch in self._batches("SELECT 'span ' || id, vector FROM spans ORDER BY doc_id, version, id", {}):
                for what, blob in batch:
                    problems += vector_problems(what, blob, dims)
            if self._vectors.dim() is not None:
                problems += [
                    Problem("vector", f"span {sid} has no pgvector copy (written by a process without the extension?)")
                    for (sid,) in self.conn.execute(
                        "SELECT s.id FROM spans s WHERE NOT EXISTS (SELECT 1 FROM span_embeddings e WHERE e.span_id = s.id) ORDER BY s.id"
                    )
                ]
            for batch in self._batches("SELECT key, key_vector FROM entities ORDER BY key", {}):
                for key, blob in batch:
                    problems += vector_problems(f"entity {key!r}", blob, dims)
            problems += graph_problems(self.conn.execute)
            if len(dims) > 1:
                problems.append(Problem("vector", f"vectors of different sizes in one store: {sorted(dims)}"))
        return problems

    def _batches(self, sql: str, params: dict[str, Any]) -> Iterator[list[tuple[Any, ...]]]:
        """The rows of ``sql``, ``_ROWS`` at a time, from a server-side cursor (inside a read
        transaction): the client holds one batch, not the whole result. Runs its query when first read."""
        with self.conn.cursor(name=f"citegraph_{next(_cursor_names)}", binary=True) as cursor:
            cursor.execute(sql, params)
            while rows := cursor.fetchmany(_ROWS):
                yield rows

    # -- reads ------------------------------------------------------------------------------------
    @staticmethod
    def _params(labels: Collection[str] | None, include_superseded: bool) -> dict[str, Any]:
        return {"labels": None if labels is None else sorted(labels), "superseded": bool(include_superseded)}

    def documents(self, labels: Collection[str] | None, include_superseded: bool = True, doc_id: str | None = None) -> list[StoredDocument]:
        with self._reading():
            rows = self.conn.execute(
                _VISIBLE
                + f"""
                SELECT {_DOC_COLUMNS}, d.status, d.extractor,
                    {DOCUMENT_COUNTS}
                FROM documents d JOIN visible v ON v.doc_id = d.doc_id AND v.version = d.version
                WHERE %(doc_id)s::text IS NULL OR d.doc_id = %(doc_id)s::text
                ORDER BY d.doc_id, d.current DESC, d.seq DESC  -- newest ingest first
                """,
                {**self._params(labels, include_superseded), "doc_id": doc_id},
            ).fetchall()
            access = self._replacement_access()
        out = [StoredDocument(_document(r[:_DOC_WIDTH]), *r[_DOC_WIDTH : _DOC_WIDTH + 6]) for r in rows]
        return only_held_labels(out, labels, access)

    def visible(self, labels: Collection[str] | None, include_superseded: bool = False) -> set[tuple[str, str]]:
        with self._errors():
            rows = self.conn.execute(_VISIBLE + "SELECT doc_id, version FROM visible", self._params(labels, include_superseded))
            return {(r[0], r[1]) for r in rows}

    def visible_among(
        self, labels: Collection[str] | None, include_superseded: bool, versions: Collection[tuple[str, str]]
    ) -> set[tuple[str, str]]:
        """Those of ``versions`` the caller may read, without listing every readable version."""
        if not versions:
            return set()
        wanted = sorted(set(versions))
        with self._errors():
            rows = self.conn.execute(
                f"""SELECT d.doc_id, d.version FROM unnest(%(docs)s::text[], %(versions)s::text[]) AS w(doc_id, version)
                JOIN documents d ON d.doc_id = w.doc_id AND d.version = w.version
                WHERE {_READABLE}""",
                {**self._params(labels, include_superseded), "docs": [w[0] for w in wanted], "versions": [w[1] for w in wanted]},
            )
            return {(r[0], r[1]) for r in rows}

    def _entity_rows(self, ids: list[int]) -> dict[int, tuple[str, bytes]]:
        rows = self.conn.execute("SELECT id, key, key_vector FROM entities WHERE id = ANY(%s::bigint[])", (ids,), binary=True)
        return {r[0]: (r[1], r[2]) for r in rows}
