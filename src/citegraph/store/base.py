"""The store interface. SQLite (one file) is the embedded default; other backends implement this.

Writes come as one :class:`DocumentStream` per document version, applied in one transaction: a
crash leaves either the whole document or none of it. A stream hands its rows over in parts, so a
large document is parsed, embedded and stored a bounded piece at a time (its memory does not grow
with its length); :class:`DocumentWrite` is the one-part stream of a small document.

A backend implements the abstract methods; :meth:`Store.graph_columns` and :meth:`Store.visible_among`
work through :meth:`Store.graph` and :meth:`Store.visible` unless it overrides them with a faster read.
:func:`citegraph.store.open_store` picks the backend from a ``--db`` value: a ``postgresql://`` URL is
:class:`~citegraph.store.postgres.PostgresStore`, anything else a SQLite file.

Labels belong to the document, not to a version, and a write never changes them: a write whose
labels differ from a stored document's is refused (:class:`~citegraph.errors.AccessConflict`);
relabelling is :meth:`Store.relabel`, an explicit act. Reads are filtered by access labels and by
currency (superseded versions are left out unless asked for) inside the store, so a caller never
holds rows it may not see.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from citegraph.models import Document, ExtractedRelation, Rejection, Span
from citegraph.store.columns import GraphColumns, GraphData
from citegraph.store.snapshots import ViewCache

__all__ = [
    "DeleteResult",
    "DocumentStream",
    "DocumentWrite",
    "Documents",
    "GraphReader",
    "MentionRow",
    "Problem",
    "RelabelResult",
    "SpanHit",
    "Store",
    "StoreState",
    "StoredDocument",
    "WritePart",
    "WriteResult",
    "as_seen_by",
    "as_seen_in",
    "current_on",
    "sees_replacement",
    "vector_problems",
]


@dataclass(frozen=True)
class MentionRow:
    key: str
    span: Span
    surface: str
    type: str
    start: int | None = None
    end: int | None = None
    description: str = ""
    inferred: bool = False


@dataclass(frozen=True)
class WritePart:
    """Rows of one piece of a document. Mentions and relations point at spans of the same part."""

    spans: tuple[tuple[Span, str], ...]  #: (span, kind) with kind ``sentence`` | ``imported``
    span_vectors: np.ndarray  #: one row per span, same order
    mentions: tuple[MentionRow, ...] = ()
    relations: tuple[ExtractedRelation, ...] = ()
    key_vectors: Mapping[str, np.ndarray] = field(default_factory=dict)  #: for keys the store may not have
    #: the embeddings of the version's passages (:func:`~citegraph.sentences.section_texts`), one
    #: row each in order, on one part of a document (the last); the store keeps them with the version
    passage_vector: np.ndarray | None = None


class DocumentStream(ABC):
    """One document version to store, handed over part by part inside the store's transaction.

    The store reads :meth:`parts` to the end, then :meth:`outcome`: the status and rejections are
    known only once every part was made. An exception raised while making a part rolls the whole
    document back.
    """

    document: Document
    extractor: str  #: recorded on the document and on each of its mentions and relations

    @abstractmethod
    def parts(self) -> Iterator[WritePart]: ...

    @abstractmethod
    def outcome(self) -> tuple[str, tuple[Rejection, ...]]:
        """``(status, rejections)``, valid once :meth:`parts` is exhausted."""


@dataclass(frozen=True)
class DocumentWrite(DocumentStream):
    """A whole document in one part."""

    document: Document
    status: str
    extractor: str
    spans: tuple[tuple[Span, str], ...]
    span_vectors: np.ndarray
    mentions: tuple[MentionRow, ...] = ()
    relations: tuple[ExtractedRelation, ...] = ()
    key_vectors: Mapping[str, np.ndarray] = field(default_factory=dict)
    rejections: tuple[Rejection, ...] = ()
    passage_vector: np.ndarray | None = None

    def parts(self) -> Iterator[WritePart]:
        yield WritePart(self.spans, self.span_vectors, self.mentions, self.relations, self.key_vectors, self.passage_vector)

    def outcome(self) -> tuple[str, tuple[Rejection, ...]]:
        return self.status, self.rejections


@dataclass(frozen=True)
class WriteResult:
    relations: int  #: relation rows stored (duplicates of one triple from one sentence count once)
    superseded: str | None  #: the version this write made non-current
    unchanged: bool = False  #: this version was already stored complete (another ingest got there first): nothing written


@dataclass(frozen=True)
class RelabelResult:
    """What ``citegraph relabel`` changed: who could read the document before, and who can now."""

    doc_id: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    versions: int  #: stored versions, all relabelled

    @property
    def gained(self) -> tuple[str, ...]:
        """Labels whose holders can read the document now and could not before."""
        return tuple(sorted(set(self.after) - set(self.before)))

    @property
    def lost(self) -> tuple[str, ...]:
        """Labels whose holders could read the document before and cannot now."""
        return tuple(sorted(set(self.before) - set(self.after)))


@dataclass(frozen=True)
class DeleteResult:
    """What ``citegraph rm`` removed: every version of one document and what only it supported."""

    doc_id: str
    versions: int
    spans: int
    mentions: int
    relations: int
    entities: int  #: entities left with no supporting span, removed with their vectors
    purged: bool = True  #: the removed text is gone from the store's files (False: another connection held it; see Store.purge)


@dataclass(frozen=True)
class Problem:
    """One finding of ``citegraph check``."""

    kind: str  #: e.g. ``offsets``, ``dangling_reference``, ``vector``, ``orphan_entity``, ``no_current_version``
    detail: str


def vector_problems(what: str, blob: bytes, dims: set[int]) -> list[Problem]:
    """``check``'s finding for one stored vector (float32 bytes), if any; adds its size to ``dims``."""
    if len(blob) % 4 or not blob:
        return [Problem("vector", f"{what}: vector of {len(blob)} bytes is not float32")]
    vector = np.frombuffer(blob, dtype=np.float32)
    dims.add(len(vector))
    norm = float(np.linalg.norm(vector)) if np.all(np.isfinite(vector)) else float("nan")
    # Unit length; or zero, which an embedder may return for a text with no words (e.g. "3.").
    if not (abs(norm - 1.0) <= 1e-3 or norm == 0.0):
        return [Problem("vector", f"{what}: vector is not finite and unit-length (norm {norm:.4g})")]
    return []


def read_migrations(folder: str) -> list[tuple[int, str]]:
    """The ``NNNN_name.sql`` scripts of ``citegraph/store/FOLDER``, as ``(NNNN, text)`` in version order."""
    from importlib import resources

    found = []
    for entry in (resources.files("citegraph.store") / folder).iterdir():
        if entry.name.endswith(".sql"):
            found.append((int(entry.name.split("_", 1)[0]), entry.read_text(encoding="utf-8")))
    return sorted(found)


def graph_problems(execute: Callable[[str], Iterable[Sequence[Any]]]) -> list[Problem]:
    """``check``'s findings that are plain SQL on either backend (``execute`` runs one statement and
    returns its rows): an entity with no mention left, a relation whose endpoint is not mentioned in
    its own sentence."""
    problems = [
        Problem("orphan_entity", f"entity {key!r} has no mention left (its vector would outlive its sources)")
        for (key,) in execute(
            "SELECT key FROM entities e WHERE NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id) ORDER BY key"
        )
    ]
    problems += [
        Problem(
            "relation_endpoint",
            f"relation {src!r} -[{type_}]-> {dst!r} in {doc_id}@{version[:8]}:{start}-{end} has an endpoint "
            "not mentioned in its own sentence",
        )
        for src, type_, dst, doc_id, version, start, end in execute(
            """SELECT es.key, r.type, et.key, s.doc_id, s.version, s.start_char, s.end_char FROM relations r
            JOIN spans s ON s.id = r.span_id
            LEFT JOIN entities es ON es.id = r.source_id LEFT JOIN entities et ON et.id = r.target_id
            WHERE NOT EXISTS (SELECT 1 FROM mentions m WHERE m.span_id = r.span_id AND m.entity_id = r.source_id)
               OR NOT EXISTS (SELECT 1 FROM mentions m WHERE m.span_id = r.span_id AND m.entity_id = r.target_id)
            ORDER BY s.doc_id, s.start_char"""
        )
    ]
    return problems


def sees_replacement(replacement_access: Collection[str] | None, labels: Collection[str] | None) -> bool:
    """Whether a caller holding ``labels`` (None: unrestricted) sees a supersession whose replacing
    document carries ``replacement_access`` (None: not stored): only one that may read the
    replacement does. For any other caller the old document is current and nothing about the
    replacement exists, its name included."""
    return replacement_access is not None and (labels is None or not set(replacement_access).isdisjoint(labels))


def as_seen_by(document: Document, labels: Collection[str] | None, replacement_access: Collection[str] | None) -> Document:
    """``document`` as a caller holding ``labels`` sees it: only the labels it holds, not the names of
    the others, and ``superseded_by`` only where it may read the replacement (:func:`sees_replacement`,
    given that document's labels)."""
    if labels is None:
        return document
    held = set(labels)
    superseded_by = document.superseded_by if sees_replacement(replacement_access, labels) else None
    return replace(document, access=tuple(a for a in document.access if a in held), superseded_by=superseded_by)


def as_seen_in(store: Documents, labels: Collection[str] | None) -> Callable[[Span], Document | None]:
    """The stored version a span is from, as a caller holding ``labels`` sees it (:func:`as_seen_by`:
    a replacement it cannot read is not named), each version read once: what an answer's staleness
    and dates read."""
    docs: dict[tuple[str, str], Document | None] = {}

    def document(span: Span) -> Document | None:
        key = (span.document, span.version)
        if key not in docs:
            doc = store.get_document(*key)
            replacing = None if doc is None or doc.superseded_by is None else store.document_access(doc.superseded_by)
            docs[key] = None if doc is None else as_seen_by(doc, labels, replacing)
        return docs[key]

    return document


def only_held_labels(
    documents: list[StoredDocument], labels: Collection[str] | None, replacement_access: Mapping[str, Collection[str]]
) -> list[StoredDocument]:
    """``documents`` as a caller holding ``labels`` sees them (:func:`as_seen_by`; None: unrestricted,
    all of them); ``replacement_access`` holds the labels of every document that supersedes another."""
    if labels is None:
        return documents
    return [replace(d, document=as_seen_by(d.document, labels, replacement_access.get(d.document.superseded_by or ""))) for d in documents]


@dataclass(frozen=True)
class StoredDocument:
    document: Document
    status: str
    extractor: str
    sentences: int
    entities: int
    relations: int
    rejections: int


class SpanHit(NamedTuple):
    """One sentence found by :meth:`Store.nearest_spans`: the store's span id, where it is, its cosine score."""

    span_id: int
    doc_id: str
    version: str
    start: int
    end: int
    score: float


class Documents(ABC):
    """Documents and their lifecycle: write, delete, relabel, supersede, list, what a caller may
    read, and the store's own upkeep. What the ingester and the lifecycle commands use."""

    path: str  #: the store named in a message: a file path, or a URL without its password
    lock_timeout: float  #: seconds a write waits for another writer's lock before :class:`~citegraph.errors.StoreLocked`

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def schema_version(self) -> int:
        """The version of the store's schema (the last migration applied)."""

    @abstractmethod
    def purge(self, wait_ms: int = 5000) -> bool:
        """Make text removed by :meth:`delete_document` (which calls this) unrecoverable from the store's
        own files. False if another connection kept it from finishing within ``wait_ms``; the next purge
        finishes the job."""

    @abstractmethod
    def embedder_name(self) -> str | None:
        """The embedder the stored vectors came from (None for an empty store)."""

    @abstractmethod
    def set_embedder_name(self, name: str) -> None: ...

    @abstractmethod
    def get_document(self, doc_id: str, version: str | None = None) -> Document | None:
        """A stored version (the current one when ``version`` is None)."""

    @abstractmethod
    def document_status(self, doc_id: str, version: str) -> str | None:
        """The ingest status stored with a version (``ok``, ``empty``, ``partial``), or None."""

    @abstractmethod
    def document_access(self, doc_id: str) -> tuple[str, ...] | None:
        """The labels of a stored document (all its versions carry them), or None if it is not stored."""

    @abstractmethod
    def relabel(self, doc_id: str, access: Sequence[str]) -> RelabelResult:
        """Give every stored version of a document ``access``, in one transaction (NotFound if none)."""

    @abstractmethod
    def make_current(self, doc_id: str, version: str) -> str | None:
        """Make a stored version current again; returns the version it superseded."""

    @abstractmethod
    def supersede(self, old_id: str, new_id: str | None, marked_at: str) -> str | None:
        """Mark document ``old_id`` (every version) superseded by ``new_id``, or with None no longer
        superseded; returns the document that superseded it before, if any."""

    @abstractmethod
    def write_document(self, write: DocumentStream) -> WriteResult:
        """Store one document version, its spans, mentions and relations, in one transaction.

        Checked inside that transaction, so concurrent writers cannot race past them:
        a stored document with other labels refuses the write (AccessConflict); a version already
        stored complete is left alone (``unchanged``, its parts never read); a version stored
        ``partial`` (a retry) is replaced in the same transaction.
        """

    @abstractmethod
    def delete_document(self, doc_id: str) -> DeleteResult:
        """Remove every version of a document in one transaction: its spans, the mentions and relations
        they support, and each entity no remaining span supports (provenance reference counting)."""

    @abstractmethod
    def check(self) -> list[Problem]:
        """Integrity: offsets slice to sentences, no dangling references, vectors match their rows."""

    def refuse_if_damaged(self) -> None:
        """Raise :class:`~citegraph.errors.StoreError` naming ``citegraph check`` if the store's files
        are damaged, before an ingest writes into them (a write into a damaged file can spread the
        damage, and an ingest that touched no damaged page would otherwise end well). A backend whose
        server checks its own pages (PostgreSQL) has nothing to add."""

    @abstractmethod
    def documents(
        self, labels: Collection[str] | None, include_superseded: bool = True, doc_id: str | None = None
    ) -> list[StoredDocument]: ...

    @abstractmethod
    def visible(self, labels: Collection[str] | None, include_superseded: bool = False) -> set[tuple[str, str]]:
        """``(document id, version)`` of every document version the caller may read."""

    def visible_among(
        self, labels: Collection[str] | None, include_superseded: bool, versions: Collection[tuple[str, str]]
    ) -> set[tuple[str, str]]:
        """Those of ``versions`` (``(document id, version)``) the caller may read: the check an answer's
        cited versions pass. This filters :meth:`visible`; a backend can ask about the few versions alone."""
        return self.visible(labels, include_superseded) & set(versions)

    @abstractmethod
    def history(self, labels: Collection[str] | None = None) -> tuple[list[tuple[str, str, str, str | None]], list[tuple[str, str]]]:
        """What ``ask --as-of`` needs, without any text: ``(document id, version, ingested_at, dated)``
        of every stored version, and ``(old id, new id)`` of every supersession a caller holding
        ``labels`` sees (:func:`sees_replacement`; None: every one)."""


class GraphReader(ABC):
    """The graph as retrieval and indexing read it: a caller's graph as columns, the spans nearest
    a vector (where the store has a vector index of its own), the entity keys and sentence vectors
    already stored (so ingest makes only what is new), and the frames kept with spans."""

    @abstractmethod
    def graph_columns(self, labels: Collection[str] | None, include_superseded: bool = False) -> GraphColumns:
        """The part of the graph the caller may see, as arrays (no Python object per row), read in
        one snapshot: retrieval's read."""

    def graph(self, labels: Collection[str] | None, include_superseded: bool = False) -> GraphData:
        """What :meth:`graph_columns` returns, one record per row (export, tests, the crash reader)."""
        return self.graph_columns(labels, include_superseded).to_graph_data()

    @abstractmethod
    def missing_keys(self, keys: Collection[str]) -> set[str]:
        """The keys that have no entity row yet."""

    def stored_vectors(self, documents: Collection[str], texts: Collection[str]) -> dict[str, np.ndarray]:
        """Text -> stored vector, for those of ``texts`` that are already a span of one of
        ``documents`` (any version): ingest re-embeds only the sentences a new version changed.
        A store that cannot say returns nothing, and every sentence is embedded."""
        return {}

    def span_frames(self, spans: Collection[Span]) -> dict[tuple[str, str, int, int], str]:
        """``(document, version, start, end) -> frame`` of those of ``spans`` whose document's structure
        does not assert them (:attr:`~citegraph.models.Span.frame`, kept at ingest). A store that keeps
        none returns nothing."""
        return {}

    #: whether :meth:`nearest_spans` answers (a server-side vector index, e.g. pgvector's HNSW)
    offers_nearest_spans: bool = False

    def nearest_spans(
        self, query_vector: np.ndarray, k: int, labels: Collection[str] | None, include_superseded: bool = False
    ) -> list[SpanHit]:
        """The ``k`` spans (approximately) most similar to ``query_vector`` among those the caller may
        read, best first, filtered by access labels inside the store. Only where
        :attr:`offers_nearest_spans`; retrieval otherwise searches the caller's vectors itself."""
        raise NotImplementedError(f"{type(self).__name__} has no server-side vector index")


class StoreState(ABC):
    """What names a state of the store, for caches and consistent reads: one snapshot for several
    reads, a token that changes with the data, the generation and where saved views live."""

    @abstractmethod
    def snapshot(self) -> AbstractContextManager[None]:
        """A context in which every read sees the same state of the store."""

    @abstractmethod
    def change_token(self) -> object:
        """A value that changes whenever the stored data may have changed (for caches)."""

    def generation(self) -> str | None:
        """What names the store's present contents: ``COUNT-TOKEN``, a counter every write transaction
        raises and a random token it writes anew, so a name never repeats across a restored backup,
        another store at the same path or another machine's copy (None: this store keeps none, and
        nothing is saved for it)."""
        return None

    def view_cache(self) -> ViewCache | None:
        """Where callers' graphs read from this store are saved for later processes, if anywhere."""
        return None


class Store(Documents, GraphReader, StoreState):
    """A store: the three interfaces above, which both backends (:mod:`~citegraph.store.sqlite`,
    :mod:`~citegraph.store.postgres`) implement. A part of citegraph takes the one it uses: the
    ingester writes :class:`Documents`, the indexer reads a :class:`GraphReader`, retrieval reads a
    :class:`GraphReader` under a :class:`StoreState` and filters by :class:`Documents`' visibility."""


def current_on(
    day: str, versions: Iterable[tuple[str, str, str, str | None]], supersessions: Iterable[tuple[str, str]]
) -> set[tuple[str, str]]:
    """The ``(document id, version)`` current on ``day`` (ISO 8601): of each document, its latest
    version dated (or, with no date of its own, ingested) on or before that day; none when all are
    later; and none of a document superseded by one that existed by then."""
    latest: dict[str, tuple[str, str, str]] = {}
    for doc_id, version, ingested_at, dated in versions:
        when = dated or ingested_at[:10]
        if when <= day and (doc_id not in latest or (when, ingested_at) >= latest[doc_id][:2]):
            latest[doc_id] = (when, ingested_at, version)
    gone = {old for old, new in supersessions if new in latest}
    return {(doc_id, v) for doc_id, (_w, _i, v) in latest.items() if doc_id not in gone}
