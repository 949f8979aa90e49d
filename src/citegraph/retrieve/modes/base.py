"""What every retrieval mode shares: the prepared :class:`Query`, the :class:`Mode` interface, scores
computed on first read (:class:`Lazy`), and the helpers that pick eligible sentences and give them
routes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from citegraph.embed.base import ExactIndex, dot_rows
from citegraph.models import Evidence
from citegraph.retrieve.view import GraphView
from citegraph.settings import DEFAULTS


@dataclass
class Query:
    """One question, prepared once for whichever mode ranks it."""

    text: str
    vector: np.ndarray
    linked: list[str] = field(default_factory=list)  #: entity keys the question names (NER and noun chunks)
    top_k: int = DEFAULTS.top_k
    hops: int = DEFAULTS.hops
    depth_penalty: float = DEFAULTS.depth_penalty
    min_words: int = 3  #: shorter spans (headings, fragments) stay in the store but are not evidence
    embed: Callable[[Sequence[str]], np.ndarray] | None = None  #: for modes that embed passages
    link: Callable[[], list[str]] | None = None  #: makes ``linked`` on first use (a parse), when given
    context_size: int = DEFAULTS.context_size  #: how many of the ranked sentences the answer will read

    _sentence_scores: np.ndarray | None = None
    _some_scores: SpanScores | None = None

    def linked_keys(self) -> list[str]:
        if self.link is not None:
            self.linked, self.link = self.link(), None
        return self.linked

    def similarity(self, view: GraphView) -> np.ndarray:
        """Every visible sentence's cosine to the question (one product over all of them)."""
        if self._sentence_scores is None:
            self._sentence_scores = ExactIndex(view.span_vectors).scores(self.vector)
        return self._sentence_scores

    def sims(self, view: GraphView) -> np.ndarray | SpanScores:
        """Sentence cosines, indexable by span: all of them for an exact view; in an approximate
        view (a million sentences) only those a mode reads, each computed when first read."""
        if not view.approximate or self._sentence_scores is not None:
            return self.similarity(view)
        if self._some_scores is None:
            self._some_scores = SpanScores(view.span_vectors, self.vector)
        return self._some_scores


class Lazy:
    """Per-row values computed on first read and kept (NaN: not yet computed), indexable like an
    array; a subclass says how to compute the rows still missing."""

    def __init__(self, size: int) -> None:
        self.known = np.full(size, np.nan, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.known)

    def __getitem__(self, rows: Any) -> Any:
        values = self.known[rows]
        if np.isnan(values).any():
            wanted = np.atleast_1d(np.asarray(rows))
            missing = np.unique(wanted[np.isnan(self.known[wanted])])
            self.known[missing] = self._compute(missing)
            values = self.known[rows]
        return values

    def _compute(self, missing: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class SpanScores(Lazy):
    """Cosines of a fixed query to rows of a matrix, computed on first read and kept."""

    def __init__(self, vectors: np.ndarray, query: np.ndarray) -> None:
        super().__init__(len(vectors))
        self.vectors = vectors
        self.query = np.asarray(query, dtype=np.float32)

    def _compute(self, missing: np.ndarray) -> np.ndarray:
        return dot_rows(self.vectors, missing, self.query)


class Mode(ABC):
    name: str

    @abstractmethod
    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        """At most ``limit`` evidence spans, best first, and the seed entity keys used (if any)."""


def may_be_evidence(view: GraphView, query: Query) -> np.ndarray:
    """Spans that may be evidence: enough words, and not a passage's heading."""
    return (view.word_counts >= query.min_words) & ~view.not_evidence


def as_evidence(view: GraphView, query: Query, order: Sequence[int], score: Callable[[int], float], found_by: str) -> list[Evidence]:
    sims = query.sims(view)
    return [Evidence(view.span(i), float(score(i)), float(sims[i]), found_by) for i in order]


def top_eligible(scores: np.ndarray, eligible: np.ndarray, limit: int) -> list[int]:
    masked = np.where(eligible, scores, -np.inf)
    return [i for i, s in ExactIndex.top(masked, limit) if np.isfinite(s)]


def nearest_eligible(view: GraphView, query: Query, eligible: np.ndarray, limit: int) -> list[int]:
    """The ``limit`` eligible sentences most similar to the question: exact, or in an approximate view
    the best of the approximate index's candidates (each with its exact cosine)."""
    if not view.approximate:
        return top_eligible(query.similarity(view), eligible, limit)
    k = max(4 * limit, 100)
    while True:
        hits = [(i, s) for i, s in view.span_index.search(query.vector, k) if eligible[i]]
        if len(hits) >= limit or k >= view.n_spans:
            return [i for i, _s in sorted(hits, key=lambda h: (-h[1], h[0]))[:limit]]
        k *= 4


def by_passage(view: GraphView, query: Query, doc_scores: np.ndarray, span_scores: np.ndarray, limit: int) -> list[int]:
    eligible = may_be_evidence(view, query)
    order: list[int] = []
    for d, _s in ExactIndex.top(doc_scores.astype(np.float32), len(doc_scores)):
        spans = [int(i) for i in view.spans_in(d) if eligible[i]]
        order.extend(sorted(spans, key=lambda i: (-span_scores[i], i)))
        if len(order) >= limit:
            break
    return order[:limit]


def routed(
    view: GraphView, query: Query, seeds: list[str], order: Sequence[int], score: Callable[[int], float], found_by: str
) -> list[Evidence]:
    """Evidence for ``order``, each span with the shortest route from a seed to an entity it mentions
    (within the hop limit), so a graph-found span still says how it was reached."""
    reach = view.reach(seeds, query.hops)
    sims = query.similarity(view)
    out = []
    for i in order:
        best: tuple[int, str, int] | None = None
        for e in view.entities_of(i).tolist():
            key, depth = view.keys[e], int(reach.depth[e])
            if depth >= 0 and (best is None or (depth, key) < (best[0], best[1])):
                best = (depth, key, e)
        if best is None:
            out.append(Evidence(view.span(i), float(score(i)), float(sims[i]), found_by))
        else:
            out.append(Evidence(view.span(i), float(score(i)), float(sims[i]), found_by, best[1], best[0], reach.route(best[2])))
    return out
