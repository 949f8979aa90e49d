"""The caller's graph as columns, and as rows: :class:`GraphColumns` and :class:`GraphData`.

Retrieval reads a store of a million sentences; a Python object per span, mention and relation
(what ``GraphData`` holds) costs seconds and gigabytes before the first question. ``GraphColumns``
keeps one numpy array per field instead, and the texts as one list; ``GraphData`` is made from it
on demand (``to_graph_data``) for the commands that list rows (``show``, ``export``), and rows
convert back (``from_graph_data``: a view built from rows). A SQL backend reads its rows in
batches straight into the arrays (``from_rows``). Below :mod:`citegraph.store.base`, which reads
these records, so the two never import each other.

Indices are positions in these arrays: spans in ``(document, version, start, end)`` order, entities
in key order, mentions and relations in the store's row order, exactly as ``GraphData`` numbers them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from citegraph.errors import StoreError
from citegraph.models import Span

__all__ = ["GraphColumns", "GraphData", "GraphMention", "GraphRelation"]


class GraphMention(NamedTuple):
    """One mention row of :class:`GraphData`: an entity named in a span."""

    entity: int  #: index into ``keys``
    span: int  #: index into ``spans``
    surface: str  #: the words as written
    inferred: bool  #: added by the dangling rule, not extracted


class GraphRelation(NamedTuple):
    """One relation row of :class:`GraphData`: a typed edge asserted by one span."""

    id: int  #: the store's relation id
    source: int  #: index into ``keys``
    target: int  #: index into ``keys``
    type: str
    span: int  #: index into ``spans``: the sentence that asserts it


@dataclass(frozen=True)
class GraphData:
    """The part of the graph one caller may see, one record per row (indices are list positions)."""

    spans: list[Span]
    span_vectors: np.ndarray
    span_current: list[bool]
    keys: list[str]
    key_vectors: np.ndarray
    mentions: list[GraphMention]
    relations: list[GraphRelation]


@dataclass(frozen=True, eq=False)
class GraphColumns:
    passages: list[tuple[str, str]]  #: ``(document, version)`` of every visible version, in span order of first appearance
    passage_current: np.ndarray  #: bool per passage
    span_passage: np.ndarray  #: int64 per span: its passage
    span_start: np.ndarray  #: int64 character offsets, half-open
    span_end: np.ndarray
    span_text: Sequence[str]  #: a list, or a saved graph's :class:`~citegraph.store.snapshots.TextColumn`
    span_vectors: np.ndarray  #: float32 ``[spans, dim]``
    keys: list[str]  #: entity keys, sorted
    key_vectors: np.ndarray  #: float32 ``[entities, dim]``
    mention_entity: np.ndarray  #: int64 per mention row (store order)
    mention_span: np.ndarray
    mention_surface: np.ndarray  #: int64 code into ``surfaces``
    mention_inferred: np.ndarray  #: bool
    surfaces: list[str]
    relation_id: np.ndarray  #: int64 per relation row (store order): the store's relation id
    relation_source: np.ndarray  #: entity index
    relation_target: np.ndarray
    relation_type: np.ndarray  #: int64 code into ``types``
    relation_span: np.ndarray
    types: list[str]
    #: float32 ``[rows, dim]``: the vectors stored with the versions, one per passage of each
    #: (:func:`~citegraph.sentences.sections`), version by version; None: the source keeps none
    passage_vectors: np.ndarray | None = None
    #: int64 ``[versions + 1]``: version ``v``'s rows of ``passage_vectors`` are ``ptr[v]:ptr[v + 1]``
    #: (none: no vector stored, as for a version ingested before the store kept them)
    passage_vector_ptr: np.ndarray | None = None

    def span(self, i: int) -> Span:
        document, version = self.passages[int(self.span_passage[i])]
        return Span(document, version, int(self.span_start[i]), int(self.span_end[i]), self.span_text[i])

    def to_graph_data(self) -> GraphData:
        """The same rows as ``GraphData`` (one object per span, mention and relation)."""
        current = self.passage_current[self.span_passage].tolist()
        surfaces = self.surfaces
        types = self.types
        return GraphData(
            [self.span(i) for i in range(len(self.span_text))],
            self.span_vectors,
            [bool(c) for c in current],
            list(self.keys),
            self.key_vectors,
            [
                GraphMention(e, s, surfaces[c], bool(inferred))
                for e, s, c, inferred in zip(
                    self.mention_entity.tolist(),
                    self.mention_span.tolist(),
                    self.mention_surface.tolist(),
                    self.mention_inferred.tolist(),
                    strict=True,
                )
            ],
            [
                GraphRelation(r, a, b, types[t], s)
                for r, a, b, t, s in zip(
                    self.relation_id.tolist(),
                    self.relation_source.tolist(),
                    self.relation_target.tolist(),
                    self.relation_type.tolist(),
                    self.relation_span.tolist(),
                    strict=True,
                )
            ],
        )

    @classmethod
    def from_graph_data(cls, data: GraphData) -> GraphColumns:
        passages: dict[tuple[str, str], int] = {}
        current: list[bool] = []
        span_passage = np.zeros(len(data.spans), dtype=np.int64)
        for i, (span, is_current) in enumerate(zip(data.spans, data.span_current, strict=True)):
            key = (span.document, span.version)
            if key not in passages:
                passages[key] = len(passages)
                current.append(bool(is_current))
            span_passage[i] = passages[key]
        surfaces: dict[str, int] = {}
        types: dict[str, int] = {}
        dim = data.span_vectors.shape[1] if data.span_vectors.ndim == 2 else 0
        mentions = [GraphMention(*m) for m in data.mentions]  # named, also when a caller built plain tuples
        relations = [GraphRelation(*r) for r in data.relations]
        return cls(
            list(passages),
            np.array(current, dtype=bool),
            span_passage,
            np.array([s.start for s in data.spans], dtype=np.int64),
            np.array([s.end for s in data.spans], dtype=np.int64),
            [s.text for s in data.spans],
            np.asarray(data.span_vectors, dtype=np.float32).reshape(len(data.spans), dim),
            list(data.keys),
            np.asarray(data.key_vectors, dtype=np.float32).reshape(len(data.keys), -1 if len(data.keys) else dim),
            np.array([m.entity for m in mentions], dtype=np.int64),
            np.array([m.span for m in mentions], dtype=np.int64),
            np.array([surfaces.setdefault(m.surface, len(surfaces)) for m in mentions], dtype=np.int64),
            np.array([m.inferred for m in mentions], dtype=bool),
            list(surfaces),
            np.array([r.id for r in relations], dtype=np.int64),
            np.array([r.source for r in relations], dtype=np.int64),
            np.array([r.target for r in relations], dtype=np.int64),
            np.array([types.setdefault(r.type, len(types)) for r in relations], dtype=np.int64),
            np.array([r.span for r in relations], dtype=np.int64),
            list(types),
        )

    @classmethod
    def from_rows(
        cls,
        versions: Sequence[Sequence[Any]],
        spans: Iterable[Sequence[Sequence[Any]]],
        mentions: Iterable[Sequence[Sequence[Any]]],
        entities: Callable[[list[int]], dict[int, tuple[str, bytes]]],
        relations: Iterable[Sequence[Sequence[Any]]],
        where: str,
    ) -> GraphColumns:
        """The columns from a SQL store's rows, read a batch at a time (no Python object per row kept).

        ``versions``: ``(document, version, current, spans, passage vector bytes or None)`` of every
        visible version, sorted by document and version; ``spans``: batches of ``(id, start, end, text, float32 vector bytes)`` in
        that order, then by start and end; ``mentions``: batches of ``(entity id, span id, surface,
        inferred)`` and ``relations``: batches of ``(id, source id, target id, type, span id)``, both in
        the store's row order and of visible spans only; ``entities(ids)``: ``{id: (key, vector bytes)}``.
        Each iterable is read only after the one before it, so it may run its query lazily.
        ``where`` names the store in an error."""
        versions = [r for r in versions if r[3]]  # a version without spans is no passage
        passages = [(str(r[0]), str(r[1])) for r in versions]
        counts = np.array([r[3] for r in versions], dtype=np.int64)
        span_passage = np.repeat(np.arange(len(passages)), counts)
        n = int(counts.sum())
        span_ids = np.zeros(n, dtype=np.int64)
        starts = np.zeros(n, dtype=np.int64)
        ends = np.zeros(n, dtype=np.int64)
        texts: list[str] = []
        vectors = np.zeros((0, 0), dtype=np.float32)
        at = 0
        for rows in spans:
            ids, first, last_char, text, blobs = zip(*rows, strict=True)
            if at == 0:
                vectors = np.zeros((n, len(blobs[0]) // 4), dtype=np.float32)
            m = len(rows)
            span_ids[at : at + m] = ids
            starts[at : at + m] = first
            ends[at : at + m] = last_char
            texts.extend(text)
            if any(len(b) != len(blobs[0]) for b in blobs):
                raise StoreError(f"{where}: span vectors of different sizes; run citegraph check")
            vectors[at : at + m] = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(m, -1)
            at += m
        dim = vectors.shape[1]
        mention_rows: list[np.ndarray] = []
        codes: dict[str, int] = {}
        for rows in mentions:
            entity, span, surface, inferred = zip(*rows, strict=True)
            mention_rows.append(np.array([entity, span, [codes.setdefault(x, len(codes)) for x in surface], inferred], dtype=np.int64))
        mention_array = np.concatenate(mention_rows, axis=1) if mention_rows else np.zeros((4, 0), dtype=np.int64)
        entity_ids = np.unique(mention_array[0])
        key_rows = entities(entity_ids.tolist())
        # Entities are ordered by key, not by id, so the view does not depend on insertion order.
        ordered = sorted(entity_ids.tolist(), key=lambda i: key_rows[i][0])
        keys = [key_rows[i][0] for i in ordered]
        key_vectors = (
            np.frombuffer(b"".join(key_rows[i][1] for i in ordered), dtype=np.float32).reshape(len(ordered), -1).copy()
            if ordered
            else np.zeros((0, dim), np.float32)
        )
        entity_of = _Lookup(np.array(ordered, dtype=np.int64))
        span_of = _Lookup(span_ids)
        relation_rows: list[np.ndarray] = []
        types: dict[str, int] = {}
        for rows in relations:
            rid, src, dst, type_, span = zip(*rows, strict=True)
            relation_rows.append(np.array([rid, src, dst, [types.setdefault(t, len(types)) for t in type_], span], dtype=np.int64))
        relation_array = np.concatenate(relation_rows, axis=1) if relation_rows else np.zeros((5, 0), dtype=np.int64)
        # A relation whose endpoint no visible sentence mentions is left out, as it always was.
        known = entity_of.contains(relation_array[1]) & entity_of.contains(relation_array[2])
        relation_array = relation_array[:, known]
        # One row per passage of a version; another size is no vector of this store's: embedded again
        stored = [r[4] if r[4] is not None and dim and len(r[4]) % (4 * dim) == 0 else b"" for r in versions]
        ptr = np.zeros(len(versions) + 1, dtype=np.int64)
        np.cumsum([len(b) // (4 * dim) if dim else 0 for b in stored], out=ptr[1:])
        passage_vectors = np.frombuffer(b"".join(stored), dtype=np.float32).reshape(-1, dim).copy() if dim else None
        return cls(
            passages,
            np.array([bool(r[2]) for r in versions], dtype=bool),
            span_passage,
            starts,
            ends,
            texts,
            vectors,
            keys,
            key_vectors,
            entity_of(mention_array[0]),
            span_of(mention_array[1]),
            mention_array[2],
            mention_array[3].astype(bool),
            list(codes),
            relation_array[0],
            entity_of(relation_array[1]),
            entity_of(relation_array[2]),
            relation_array[3],
            span_of(relation_array[4]),
            list(types),
            passage_vectors,
            ptr,
        )


class _Lookup:
    """Store row ids -> positions in ``ids`` (vectorised)."""

    def __init__(self, ids: np.ndarray) -> None:
        self.sorter = np.argsort(ids, kind="stable")
        self.sorted = ids[self.sorter]

    def contains(self, ids: np.ndarray) -> np.ndarray:
        at = np.minimum(np.searchsorted(self.sorted, ids), max(len(self.sorted) - 1, 0))
        return self.sorted[at] == ids if len(self.sorted) else np.zeros(len(ids), dtype=bool)

    def __call__(self, ids: np.ndarray) -> np.ndarray:
        return self.sorter[np.searchsorted(self.sorted, ids)].astype(np.int64) if len(ids) else np.zeros(0, dtype=np.int64)
