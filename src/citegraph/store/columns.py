"""The caller's graph as columns: what :class:`~citegraph.store.base.GraphData` holds, as arrays.

Retrieval reads a store of a million sentences; a Python object per span, mention and relation
(what ``GraphData`` holds) costs seconds and gigabytes before the first question. ``GraphColumns``
keeps one numpy array per field instead, and the texts as one list; ``GraphData`` is made from it
on demand (``to_graph_data``) for the commands that list rows (``show``, ``export``), and any
store's ``GraphData`` converts to it (``from_graph_data``), so a backend without a columnar read
still works.

Indices are positions in these arrays: spans in ``(document, version, start, end)`` order, entities
in key order, mentions and relations in the store's row order, exactly as ``GraphData`` numbers them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from citegraph.models import Span
from citegraph.store.base import GraphData, GraphMention, GraphRelation

__all__ = ["GraphColumns"]


@dataclass(frozen=True, eq=False)
class GraphColumns:
    passages: list[tuple[str, str]]  #: ``(document, version)`` of every visible version, in span order of first appearance
    passage_current: np.ndarray  #: bool per passage
    span_passage: np.ndarray  #: int64 per span: its passage
    span_start: np.ndarray  #: int64 character offsets, half-open
    span_end: np.ndarray
    span_text: list[str]
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
