"""A vector index a caller's view can search instead of its own: the store's (pgvector's HNSW,
:meth:`~citegraph.store.base.GraphReader.nearest_spans`), already filtered by the caller's labels."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from citegraph.embed.base import VectorIndex
from citegraph.store.base import SpanHit

if TYPE_CHECKING:
    from citegraph.retrieve.view import GraphView

__all__ = ["StoreSpanIndex"]


class StoreSpanIndex(VectorIndex):
    """Nearest sentences from the store's own vector index (``Store.nearest_spans``, already filtered
    by the caller's labels in SQL). A hit is kept only if it is one of this view's sentences (a span
    written or relabelled since the view was read is left out) and is scored with this view's
    vector, as :class:`ExactIndex` would score it."""

    approximate = True

    def __init__(self, view: GraphView, nearest_spans: Callable[[np.ndarray, int], list[SpanHit]]) -> None:
        self.vectors = view.span_vectors
        self.nearest_spans = nearest_spans
        c = view.columns
        self._position = {
            (c.passages[p], start, end): i
            for i, (p, start, end) in enumerate(zip(c.span_passage.tolist(), c.span_start.tolist(), c.span_end.tolist(), strict=True))
        }

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        vector = np.asarray(query, dtype=np.float32)
        found = [self._position.get(((h.doc_id, h.version), h.start, h.end)) for h in self.nearest_spans(vector, k)]
        rows = [i for i in dict.fromkeys(found) if i is not None]
        scored = [(i, float(self.vectors[i] @ vector)) for i in rows]
        return sorted(scored, key=lambda h: (-h[1], h[0]))
