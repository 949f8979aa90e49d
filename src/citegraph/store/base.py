"""The store interface. SQLite (one file) is the embedded default; other backends implement this.

Writes come as one :class:`DocumentWrite` per document version, applied in one transaction: a
crash leaves either the whole document or none of it. Reads are filtered by access labels and by
currency (superseded versions are left out unless asked for) inside the store, so a caller never
holds rows it may not see.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

import numpy as np

from citegraph.models import Document, ExtractedRelation, Rejection, Span

__all__ = ["DeleteResult", "DocumentWrite", "GraphData", "MentionRow", "Problem", "Store", "StoredDocument", "WriteResult"]


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
class DocumentWrite:
    document: Document
    status: str
    extractor: str  #: recorded on the document and on each of its mentions and relations
    spans: tuple[tuple[Span, str], ...]  #: (span, kind) with kind ``sentence`` | ``imported``
    span_vectors: np.ndarray  #: one row per span, same order
    mentions: tuple[MentionRow, ...] = ()
    relations: tuple[ExtractedRelation, ...] = ()
    key_vectors: dict[str, np.ndarray] = field(default_factory=dict)  #: for keys the store may not have
    rejections: tuple[Rejection, ...] = ()


@dataclass(frozen=True)
class WriteResult:
    relations: int  #: relation rows stored (duplicates of one triple from one sentence count once)
    superseded: str | None  #: the version this write made non-current


@dataclass(frozen=True)
class DeleteResult:
    """What ``citegraph rm`` removed: every version of one document and what only it supported."""

    doc_id: str
    versions: int
    spans: int
    mentions: int
    relations: int
    entities: int  #: entities left with no supporting span, removed with their vectors
    purged: bool = True  #: the write-ahead log was folded into the zeroed file (False: another connection held it)


@dataclass(frozen=True)
class Problem:
    """One finding of ``citegraph check``."""

    kind: str  #: e.g. ``offsets``, ``dangling_reference``, ``vector``, ``orphan_entity``, ``no_current_version``
    detail: str


@dataclass(frozen=True)
class StoredDocument:
    document: Document
    status: str
    extractor: str
    sentences: int
    entities: int
    relations: int
    rejections: int


@dataclass(frozen=True)
class GraphData:
    """The part of the graph one caller may see, as flat arrays for retrieval.

    ``mentions`` rows are ``(entity index, span index, surface, inferred)`` and ``relations`` rows
    are ``(relation id, source entity index, target entity index, type, span index)``.
    """

    spans: list[Span]
    span_vectors: np.ndarray
    span_current: list[bool]
    keys: list[str]
    key_vectors: np.ndarray
    mentions: list[tuple[int, int, str, bool]]
    relations: list[tuple[int, int, int, str, int]]


class Store(ABC):
    @abstractmethod
    def close(self) -> None: ...

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
    def set_access(self, doc_id: str, access: Sequence[str]) -> None:
        """Labels belong to the document: every stored version of it gets ``access``."""

    @abstractmethod
    def make_current(self, doc_id: str, version: str, access: Sequence[str] | None = None) -> str | None:
        """Make a stored version current again (and, with ``access``, relabel the document) in one
        transaction; returns the version it superseded."""

    @abstractmethod
    def missing_keys(self, keys: Collection[str]) -> set[str]:
        """The keys that have no entity row yet."""

    @abstractmethod
    def write_document(self, write: DocumentWrite) -> WriteResult:
        """Store one document version, its spans, mentions and relations, in one transaction.

        A version already stored (a partial ingest being retried) is replaced in the same transaction.
        """

    @abstractmethod
    def delete_document(self, doc_id: str) -> DeleteResult:
        """Remove every version of a document in one transaction: its spans, the mentions and relations
        they support, and each entity no remaining span supports (provenance reference counting)."""

    @abstractmethod
    def check(self) -> list[Problem]:
        """Integrity: offsets slice to sentences, no dangling references, vectors match their rows."""

    @abstractmethod
    def documents(
        self, labels: Collection[str] | None, include_superseded: bool = True, doc_id: str | None = None
    ) -> list[StoredDocument]: ...

    @abstractmethod
    def visible(self, labels: Collection[str] | None, include_superseded: bool = False) -> set[tuple[str, str]]:
        """``(document id, version)`` of every document version the caller may read."""

    @abstractmethod
    def graph(self, labels: Collection[str] | None, include_superseded: bool = False) -> GraphData: ...

    @abstractmethod
    def snapshot(self) -> AbstractContextManager[None]:
        """A context in which every read sees the same state of the store."""

    @abstractmethod
    def change_token(self) -> object:
        """A value that changes whenever the stored data may have changed (for caches)."""
