"""The write protocol of a SQL store, written once: write, delete, relabel and make current.

Both backends (:mod:`~citegraph.store.sqlite`, :mod:`~citegraph.store.postgres`) keep the same
rules; they differ only in the hooks below, which this class calls:

* ``_writing()``: one write transaction (SQLite: ``BEGIN IMMEDIATE``, the file's write lock;
  PostgreSQL: ``READ COMMITTED``), rolled back on any exception, its errors the store's own.
* ``_lock_document(doc_id)``: hold that document's lock until the transaction ends (PostgreSQL: an
  advisory lock; SQLite: nothing, its write lock already serialises writers).
* ``_changed()``: mark the store changed, last in the transaction (PostgreSQL's change counter).
* ``_execute(sql, params)`` and ``_execute_many``: a statement written with ``?`` placeholders.
* ``_set_access``, ``_write_part``, ``_drop_orphans``: the statements whose SQL
  differs (JSON arrays against PostgreSQL arrays, bulk inserts, row locks).
* ``_after_delete()``: what a backend records about a delete (PostgreSQL: its transaction id, to
  tell whether an older snapshot can still see the deleted rows).

The rules: labels belong to the document, not to a version, and a write never changes them (an
ingest with other labels is :class:`~citegraph.errors.AccessConflict`, checked under the
document's lock); a version already stored complete is ``unchanged``; retrying a ``partial``
version replaces its rows in the same transaction; an entity goes when no mention or relation
supports it any more.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from itertools import chain
from typing import Any

import numpy as np

from citegraph.errors import AccessConflict, NotFound, StoreError, UserError
from citegraph.models import Document, Span
from citegraph.store.base import (
    DeleteResult,
    DocumentStream,
    RelabelResult,
    Store,
    WritePart,
    WriteResult,
    sees_replacement,
    vector_problems,
)
from citegraph.store.columns import GraphColumns

__all__ = ["DOCUMENT_COUNTS", "SQLStore"]

#: a document version's counts, as ``documents()`` lists them: sentences, entities, relations, rejections
DOCUMENT_COUNTS = """
    (SELECT count(*) FROM spans s WHERE s.doc_id = d.doc_id AND s.version = d.version AND s.kind = 'sentence'),
    (SELECT count(DISTINCT m.entity_id) FROM mentions m JOIN spans s ON s.id = m.span_id
        WHERE s.doc_id = d.doc_id AND s.version = d.version),
    (SELECT count(*) FROM relations r JOIN spans s ON s.id = r.span_id WHERE s.doc_id = d.doc_id AND s.version = d.version),
    (SELECT count(*) FROM rejections j WHERE j.doc_id = d.doc_id AND j.version = d.version)"""
# The columnar read (after the backend's ``visible`` CTE): the versions first, each with its number of
# spans, in the order the spans are read (both sorted by document and version), so no span row carries
# its document's name; then the spans, mentions and relations of those versions.
_VISIBLE_SPANS = "JOIN visible v ON v.doc_id = s.doc_id AND v.version = s.version"
_VERSIONS = """
    SELECT d.doc_id, d.version, d.current, (SELECT count(*) FROM spans s WHERE s.doc_id = d.doc_id AND s.version = d.version),
        d.passage_vector
    FROM documents d JOIN visible v ON v.doc_id = d.doc_id AND v.version = d.version
    ORDER BY d.doc_id, d.version"""
_SPANS = f"SELECT s.id, s.start_char, s.end_char, s.text, s.vector FROM spans s {_VISIBLE_SPANS} ORDER BY s.doc_id, s.version, s.start_char, s.end_char"
_MENTIONS = (
    f"SELECT m.entity_id, m.span_id, m.surface, m.inferred FROM mentions m JOIN spans s ON s.id = m.span_id {_VISIBLE_SPANS} ORDER BY m.id"
)
_RELATIONS = f"SELECT r.id, r.source_id, r.target_id, r.type, r.span_id FROM relations r JOIN spans s ON s.id = r.span_id {_VISIBLE_SPANS} ORDER BY r.id"


class SQLStore(Store):
    """A store over SQL tables: the protocol here, the dialect in the backend's hooks."""

    #: the ``WITH visible(doc_id, version) AS (...)`` clause: the versions a caller may read, in the
    #: backend's dialect, its parameters named ``labels`` and ``superseded`` (see :meth:`_params`)
    _VISIBLE: str
    path: str  #: where the store is, as it may be printed (a PostgreSQL URL without its password)

    # -- hooks ------------------------------------------------------------------------------------
    @abstractmethod
    def _reading(self) -> AbstractContextManager[None]:
        """One read transaction: every statement inside sees one snapshot."""

    @staticmethod
    @abstractmethod
    def _params(labels: Collection[str] | None, include_superseded: bool) -> dict[str, Any]:
        """The parameters of :attr:`_VISIBLE` for a caller holding ``labels`` (None: unrestricted)."""

    @abstractmethod
    def _batches(self, sql: str, params: dict[str, Any]) -> Iterator[list[tuple[Any, ...]]]:
        """The rows of ``sql`` (named parameters), a bounded batch at a time, when first read."""

    @abstractmethod
    def _entity_rows(self, ids: list[int]) -> dict[int, tuple[str, bytes]]:
        """``id -> (key, key vector)`` of the entities ``ids``."""

    @abstractmethod
    def _stored_keys(self, keys: list[str]) -> set[str]:
        """Those of ``keys`` an entity row has."""

    @abstractmethod
    def _migrations(self) -> list[tuple[int, str]]:
        """``(version, script)`` of every schema migration, in order."""

    @abstractmethod
    def _schema_version_or_0(self) -> int: ...

    def _schema_lock(self) -> None:
        """Inside a migration's transaction: hold the schema's lock (nothing where the write lock is the file's)."""

    @abstractmethod
    def _run_script(self, script: str) -> None:
        """Run one migration script inside the open transaction."""

    @abstractmethod
    def _writing(self) -> AbstractContextManager[None]: ...

    def _lock_document(self, doc_id: str) -> None:
        """Hold ``doc_id``'s lock until this transaction ends (nothing where the transaction locks all)."""

    def _changed(self) -> None:
        """Mark the store changed, last in a write transaction (nothing where the backend counts itself)."""

    def _after_delete(self) -> None:
        """Inside a delete's transaction, after its rows went."""

    @abstractmethod
    def _execute(self, sql: str, params: Sequence[object] = ()) -> Any:
        """The cursor of ``sql``, written with ``?`` placeholders."""

    @abstractmethod
    def _execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None: ...

    @abstractmethod
    def _set_access(self, doc_id: str, access: Sequence[str]) -> None:
        """Give every stored version of ``doc_id`` exactly the labels ``access``."""

    @abstractmethod
    def _write_part(self, doc: Document, extractor: str, part: WritePart) -> int:
        """Insert one part's rows; returns the relation rows stored."""

    @abstractmethod
    def _drop_orphans(self, candidates: Collection[int]) -> int:
        """Delete those of ``candidates`` that no mention or relation supports any more; how many went."""

    # -- schema -----------------------------------------------------------------------------------
    def _migrate(self) -> None:
        """Bring the schema up to date under the schema's lock, so two processes opening a new store
        at once cannot both run a migration (the second waits, then finds it done). A store already
        current is only read."""
        migrations = self._migrations()
        latest = migrations[-1][0]
        current = self._schema_version_or_0()
        self._refuse_newer(current, latest)
        if current == latest:
            return
        with self._writing():
            self._schema_lock()
            self._execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            current = self._schema_version_or_0()  # read again under the lock
            self._refuse_newer(current, latest)
            for version, script in migrations:
                if version > current:
                    self._run_script(script)
                    self._execute(
                        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (str(version),),
                    )

    def _refuse_newer(self, current: int, latest: int) -> None:
        if current > latest:
            raise StoreError(f"{self.path}: store schema v{current} is newer than this citegraph (v{latest}); upgrade citegraph")

    # -- reads ------------------------------------------------------------------------------------
    def missing_keys(self, keys: Collection[str]) -> set[str]:
        keys = set(keys)
        return keys - self._stored_keys(sorted(keys)) if keys else set()

    def stored_vectors(self, documents: Collection[str], texts: Collection[str]) -> dict[str, np.ndarray]:
        documents, wanted = sorted(set(documents)), sorted(set(texts))
        out: dict[str, np.ndarray] = {}
        if not documents or not wanted:
            return out
        with self._reading():
            if not self._execute(
                f"SELECT 1 FROM documents WHERE doc_id IN ({', '.join('?' * len(documents))}) LIMIT 1", documents
            ).fetchone():
                return out  # new documents (the usual case): nothing to look up
            for at in range(0, len(wanted), 500):
                batch = wanted[at : at + 500]
                rows = self._execute(
                    f"SELECT text, vector FROM spans WHERE doc_id IN ({', '.join('?' * len(documents))})"
                    f" AND text IN ({', '.join('?' * len(batch))})",
                    [*documents, *batch],
                )
                for text, vector in rows:
                    damage = vector_problems(f"a stored vector of {text[:40]!r}", bytes(vector), set())
                    if damage:  # copied into the new version, the damage would spread
                        raise self.damaged(damage[0].detail)
                    out[text] = np.frombuffer(bytes(vector), dtype=np.float32)
        return out

    def span_frames(self, spans: Collection[Span]) -> dict[tuple[str, str, int, int], str]:
        """``(document, version, start, end) -> frame`` for those of ``spans`` stored with a frame
        (:mod:`citegraph.ingest.structure`): asked for the few spans of one answer's context."""
        found: dict[tuple[str, str, int, int], str] = {}
        with self._reading():
            for key in sorted({(s.document, s.version, s.start, s.end) for s in spans}):  # each by the spans' unique index
                row = self._execute(
                    "SELECT frame FROM spans WHERE doc_id = ? AND version = ? AND start_char = ? AND end_char = ? AND frame != ''", key
                ).fetchone()
                if row is not None:
                    found[key] = row[0]
        return found

    def damaged(self, finding: str) -> StoreError:
        """The error that refuses a write into a store found damaged (``finding`` says where)."""
        where = self.path
        return StoreError(
            f"{where}: the store is damaged ({finding}); ingest will not write into it. "
            f"`citegraph check --db {where}` lists what is damaged; restore it from a backup"
            + (f", or recover what is readable with: sqlite3 {where} .recover" if "://" not in where else "")
        )

    def graph_columns(self, labels: Collection[str] | None, include_superseded: bool = False) -> GraphColumns:
        """What :meth:`graph` returns, as arrays (no Python object per row): retrieval's read, in one snapshot."""
        params = self._params(labels, include_superseded)
        with self._reading():
            versions = list(chain.from_iterable(self._batches(self._VISIBLE + _VERSIONS, params)))
            return GraphColumns.from_rows(
                versions,
                self._batches(self._VISIBLE + _SPANS, params),
                self._batches(self._VISIBLE + _MENTIONS, params),
                self._entity_rows,
                self._batches(self._VISIBLE + _RELATIONS, params),
                self.path,
            )

    # -- reads the protocol needs -----------------------------------------------------------------
    def _document_access(self, doc_id: str) -> tuple[str, ...] | None:
        if self._execute("SELECT 1 FROM documents WHERE doc_id = ? LIMIT 1", (doc_id,)).fetchone() is None:
            return None
        rows = self._execute("SELECT DISTINCT label FROM document_access WHERE doc_id = ? ORDER BY label", (doc_id,))
        return tuple(r[0] for r in rows)

    def _entities_of(self, doc_id: str, version: str | None = None) -> list[int]:
        """Ids of the entities mentioned in a document (one version, or all of them)."""
        mentioned = "SELECT DISTINCT m.entity_id FROM mentions m JOIN spans s ON s.id = m.span_id WHERE s.doc_id = ?"
        if version is None:
            return [r[0] for r in self._execute(mentioned, (doc_id,))]
        return [r[0] for r in self._execute(mentioned + " AND s.version = ?", (doc_id, version))]

    def _known_documents(self) -> list[str]:
        return [r[0] for r in self._execute("SELECT DISTINCT doc_id FROM documents")]

    def _count(self, sql: str, params: Sequence[object]) -> int:
        row = self._execute(sql, params).fetchone()
        return int(row[0]) if row else 0

    # -- the protocol -----------------------------------------------------------------------------
    def relabel(self, doc_id: str, access: Sequence[str]) -> RelabelResult:
        with self._writing():
            self._lock_document(doc_id)
            before = self._document_access(doc_id)
            if before is None:
                raise NotFound.among("document", doc_id, self._known_documents())
            self._set_access(doc_id, access)
            versions = self._count("SELECT count(*) FROM documents WHERE doc_id = ?", (doc_id,))
            self._changed()
        return RelabelResult(doc_id, before, tuple(sorted(set(access))), versions)

    def history(self, labels: Collection[str] | None = None) -> tuple[list[tuple[str, str, str, str | None]], list[tuple[str, str]]]:
        with self._reading():
            versions = [tuple(r) for r in self._execute("SELECT doc_id, version, ingested_at, dated FROM documents")]
            moved = [(r[0], r[1]) for r in self._execute("SELECT old_id, new_id FROM supersessions")]
            access = self._replacement_access()
        return versions, [(old, new) for old, new in moved if sees_replacement(access.get(new), labels)]  # type: ignore[return-value]

    def _replacement_access(self) -> dict[str, set[str]]:
        """The labels of every document that supersedes another: who sees each supersession."""
        access: dict[str, set[str]] = {}
        for doc_id, label in self._execute(
            "SELECT DISTINCT a.doc_id, a.label FROM document_access a JOIN supersessions s ON s.new_id = a.doc_id"
        ):
            access.setdefault(doc_id, set()).add(label)
        return access

    def supersede(self, old_id: str, new_id: str | None, marked_at: str) -> str | None:
        """Mark every version of ``old_id`` superseded by ``new_id`` (both stored documents), or, with
        ``new_id`` None, no longer superseded. Returns what superseded it before (None: nothing)."""
        with self._writing():
            known = self._known_documents()
            for doc_id in (old_id, new_id):
                if doc_id is not None and doc_id not in known:
                    raise NotFound.among("document", doc_id, known)
            if new_id == old_id:
                raise UserError(f"a document cannot supersede itself: {old_id!r}")
            self._lock_document(old_id)
            row = self._execute("SELECT new_id FROM supersessions WHERE old_id = ?", (old_id,)).fetchone()
            if new_id is None:
                self._execute("DELETE FROM supersessions WHERE old_id = ?", (old_id,))
            else:
                self._mark_superseded(old_id, new_id, marked_at)
            self._changed()
        return row[0] if row else None

    def _mark_superseded(self, old_id: str, new_id: str, marked_at: str) -> None:
        if old_id == new_id:
            return
        self._execute("DELETE FROM supersessions WHERE old_id = ?", (old_id,))
        self._execute("INSERT INTO supersessions (old_id, new_id, marked_at) VALUES (?, ?, ?)", (old_id, new_id, marked_at))

    def make_current(self, doc_id: str, version: str) -> str | None:
        with self._writing():
            self._lock_document(doc_id)
            superseded = self._make_current(doc_id, version)
            self._changed()
        return superseded

    def _make_current(self, doc_id: str, version: str) -> str | None:
        row = self._execute("SELECT version FROM documents WHERE doc_id = ? AND current AND version != ?", (doc_id, version)).fetchone()
        self._execute("UPDATE documents SET current = FALSE WHERE doc_id = ? AND current", (doc_id,))
        self._execute("UPDATE documents SET current = TRUE WHERE doc_id = ? AND version = ?", (doc_id, version))
        return row[0] if row else None

    def write_document(self, write: DocumentStream) -> WriteResult:
        doc = write.document
        with self._writing():
            # Under the document's lock, so two ingests racing on one id cannot both pass the checks.
            self._lock_document(doc.id)
            stored = self._document_access(doc.id)
            if stored is not None and stored != tuple(sorted(set(doc.access))):
                raise AccessConflict(doc.id, stored, tuple(sorted(set(doc.access))))
            row = self._execute("SELECT status FROM documents WHERE doc_id = ? AND version = ?", (doc.id, doc.version)).fetchone()
            if row is not None and row[0] != "partial":
                return WriteResult(0, None, unchanged=True)  # stored complete by another ingest meanwhile
            # Retrying a partial ingest: the old rows of this version (cascading to its spans, mentions
            # and relations) go in the same transaction as the new ones arrive.
            replaced = self._entities_of(doc.id, doc.version)
            self._execute("DELETE FROM documents WHERE doc_id = ? AND version = ?", (doc.id, doc.version))
            self._execute(
                "INSERT INTO documents (doc_id, version, label, source, media_type, ingested_at, text, current, extractor, status, dated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, FALSE, ?, '', ?)",
                (doc.id, doc.version, doc.label, doc.source, doc.media_type, doc.ingested_at, doc.text, write.extractor, doc.dated),
            )
            for old_id in doc.supersedes:  # the new document's own word: it replaces these
                self._mark_superseded(old_id, doc.id, doc.ingested_at)
            superseded = self._make_current(doc.id, doc.version)
            self._set_access(doc.id, doc.access)
            stored_relations, passage = 0, None
            for part in write.parts():
                stored_relations += self._write_part(doc, write.extractor, part)
                passage = part.passage_vector if part.passage_vector is not None else passage
            if passage is not None:
                self._execute(
                    "UPDATE documents SET passage_vector = ? WHERE doc_id = ? AND version = ?",
                    (np.asarray(passage, np.float32).tobytes(), doc.id, doc.version),
                )
            status, rejections = write.outcome()
            self._execute("UPDATE documents SET status = ? WHERE doc_id = ? AND version = ?", (status, doc.id, doc.version))
            self._drop_orphans(replaced)
            if rejections:
                self._execute_many(
                    "INSERT INTO rejections (doc_id, version, kind, reason, detail, record) VALUES (?, ?, ?, ?, ?, ?)",
                    [(doc.id, doc.version, r.kind, r.reason, r.detail, r.record) for r in rejections],
                )
            self._changed()
        return WriteResult(stored_relations, superseded)

    def delete_document(self, doc_id: str) -> DeleteResult:
        with self._writing():
            self._lock_document(doc_id)
            versions = self._count("SELECT count(*) FROM documents WHERE doc_id = ?", (doc_id,))
            if not versions:
                raise NotFound.among("document", doc_id, self._known_documents())
            spans = self._count("SELECT count(*) FROM spans WHERE doc_id = ?", (doc_id,))
            mentions = self._count("SELECT count(*) FROM mentions m JOIN spans s ON s.id = m.span_id WHERE s.doc_id = ?", (doc_id,))
            relations = self._count("SELECT count(*) FROM relations r JOIN spans s ON s.id = r.span_id WHERE s.doc_id = ?", (doc_id,))
            candidates = self._entities_of(doc_id)
            # Cascades: documents -> spans -> mentions, relations; document_access; rejections.
            self._execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
            self._execute("DELETE FROM supersessions WHERE old_id = ? OR new_id = ?", (doc_id, doc_id))
            entities = self._drop_orphans(candidates)
            self._changed()
            self._after_delete()
        return DeleteResult(doc_id, versions, spans, mentions, relations, entities, self.purge())
