"""A vector index a caller's view can search instead of its own: the store's (pgvector's HNSW,
:meth:`~citegraph.store.base.GraphReader.nearest_spans`), already filtered by the caller's labels.

:class:`CallerReader` is the graph reader with the caller's scope bound to it (an object a view
holds, not a closure), and :class:`StoreSpanIndex` the vector index a view searches through it."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from citegraph.embed.base import VectorIndex
from citegraph.store.base import GraphReader, SpanHit

if TYPE_CHECKING:
    from citegraph.retrieve.view import GraphView

__all__ = ["CallerReader", "StoreSpanIndex"]


@dataclass(frozen=True)
class CallerReader:
    """A store's graph reads for one caller: the reader, and the labels and currency it sees. The
    store filters in its own query (SQL), so a caller's search never returns another's sentence."""

    reader: GraphReader
    labels: Collection[str] | None
    include_superseded: bool = False

    def nearest_spans(self, vector: np.ndarray, k: int) -> list[SpanHit]:
        return self.reader.nearest_spans(vector, k, labels=self.labels, include_superseded=self.include_superseded)


class StoreSpanIndex(VectorIndex):
    """Nearest sentences from the store's own vector index (``GraphReader.nearest_spans``, already filtered
    by the caller's labels in SQL). A hit is kept only if it is one of this view's sentences (a span
    written or relabelled since the view was read is left out) and is scored with this view's
    vector, as :class:`ExactIndex` would score it."""

    approximate = True

    def __init__(self, view: GraphView, reader: CallerReader) -> None:
        self.vectors = view.span_vectors
        self.reader = reader
        c = view.columns
        self._position = {
            (c.passages[p], start, end): i
            for i, (p, start, end) in enumerate(zip(c.span_passage.tolist(), c.span_start.tolist(), c.span_end.tolist(), strict=True))
        }

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        vector = np.asarray(query, dtype=np.float32)
        found = [self._position.get(((h.doc_id, h.version), h.start, h.end)) for h in self.reader.nearest_spans(vector, k)]
        rows = [i for i in dict.fromkeys(found) if i is not None]
        scored = [(i, float(self.vectors[i] @ vector)) for i in rows]
        return sorted(scored, key=lambda h: (-h[1], h[0]))
