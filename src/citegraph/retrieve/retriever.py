"""Question -> entry entities -> multi-source traversal -> ranked candidate evidence.

1. The question is embedded; the ``top_k`` most similar entities are the seeds. An entity's vector
   is its key's embedding plus the mean of the sentence vectors of the mentions the caller may
   see, so a private sentence never shapes what a public caller retrieves.
2. :func:`~citegraph.retrieve.traversal.multi_source_bfs` walks visible relations in both
   directions up to ``hops``; each reached entity keeps its best depth and route.
3. Candidate evidence is the spans of reached entities' mentions and of relations between reached
   entities, plus the sentences most similar to the question. Each is scored
   ``similarity * (1 - depth_penalty * depth)`` and keeps the route that found it.

Access labels filter the graph the traversal walks (the store returns only visible rows) and are
checked again on every evidence span before it can enter the context.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from citegraph.embed.base import Embedder, ExactIndex, normalise
from citegraph.errors import NotFound
from citegraph.extract.keys import entity_key
from citegraph.models import Evidence, Hop, ReachedNode, Retrieval, Span
from citegraph.retrieve.traversal import multi_source_bfs
from citegraph.store.base import GraphData, Store

__all__ = ["GraphView", "Retriever"]


@dataclass
class GraphView:
    """The visible graph for one caller, with per-entity vectors and adjacency lists."""

    data: GraphData
    entity_vectors: np.ndarray
    names: list[str]
    index: dict[str, int]
    adjacency: dict[str, list[Hop]]
    mention_spans: list[list[int]]
    relation_spans: list[tuple[int, int, int]]  # (source index, target index, span index)

    @classmethod
    def build(cls, data: GraphData) -> GraphView:
        n = len(data.keys)
        sums = np.zeros_like(data.key_vectors)
        counts = np.zeros(n, dtype=np.float32)
        surfaces: list[Counter[str]] = [Counter() for _ in range(n)]
        mention_spans: list[set[int]] = [set() for _ in range(n)]
        for entity, span, surface, _inferred in data.mentions:
            if span not in mention_spans[entity]:
                mention_spans[entity].add(span)
                sums[entity] += data.span_vectors[span]
                counts[entity] += 1
            surfaces[entity][surface] += 1
        vectors = data.key_vectors + sums / np.maximum(counts, 1)[:, None] if n else data.key_vectors
        names = [min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] if c else data.keys[i] for i, c in enumerate(surfaces)]
        adjacency: dict[str, list[Hop]] = defaultdict(list)
        for _rid, src, dst, type_, span in data.relations:
            s, t, sp = data.keys[src], data.keys[dst], data.spans[span]
            adjacency[s].append(Hop(s, type_, "out", t, sp))
            if s != t:
                adjacency[t].append(Hop(t, type_, "in", s, sp))
        return cls(
            data,
            normalise(vectors) if n else vectors,
            names,
            {k: i for i, k in enumerate(data.keys)},
            dict(adjacency),
            [sorted(s) for s in mention_spans],
            [(src, dst, span) for _r, src, dst, _t, span in data.relations],
        )


class Retriever:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        top_k: int = 3,
        hops: int = 2,
        context_size: int = 8,
        depth_penalty: float = 0.1,
        min_evidence_words: int = 3,
        nlp: object | None = None,
    ) -> None:
        self.min_evidence_words = min_evidence_words
        self.store = store
        self.embedder = embedder
        self.top_k = top_k
        self.hops = hops
        self.context_size = context_size
        self.depth_penalty = depth_penalty
        self.nlp = nlp
        self._cache: dict[tuple, GraphView] = {}

    def view(self, labels: Collection[str] | None, include_superseded: bool = False) -> GraphView:
        token = (self.store.change_token(), None if labels is None else frozenset(labels), include_superseded)
        if token not in self._cache:
            self._cache.clear()
            self._cache[token] = GraphView.build(self.store.graph(labels, include_superseded))
        return self._cache[token]

    def clear_cache(self) -> None:
        self._cache.clear()

    def resolve(self, names: Sequence[str], view: GraphView) -> list[str]:
        """Entity keys for names typed by a person; unknown names raise NotFound with suggestions."""
        keys = []
        for name in names:
            key = entity_key(name, self.nlp)
            if key not in view.index:
                folded = " ".join(name.casefold().split())
                if folded in view.index:
                    key = folded
                else:
                    raise NotFound.among("entity", name, view.data.keys, match=key)
            keys.append(key)
        return keys

    def traverse(self, view: GraphView, seeds: Sequence[str], hops: int) -> list[ReachedNode]:
        reached = multi_source_bfs(seeds, view.adjacency, hops)
        nodes = [
            ReachedNode(key, view.names[view.index[key]], depth, route[0].source if route else key, route)
            for key, (depth, route) in reached.items()
        ]
        return sorted(nodes, key=lambda n: (n.depth, n.entity))

    def retrieve(
        self,
        question: str,
        labels: Collection[str] | None,
        *,
        hops: int | None = None,
        top_k: int | None = None,
        include_superseded: bool = False,
    ) -> Retrieval:
        hops = self.hops if hops is None else hops
        top_k = self.top_k if top_k is None else top_k
        view = self.view(labels, include_superseded)
        data = view.data
        query = self.embedder.embed([question])[0]
        seeds = [data.keys[i] for i, _ in ExactIndex(view.entity_vectors).search(query, top_k)]
        nodes = self.traverse(view, seeds, hops)
        similarity = ExactIndex(data.span_vectors).scores(query)

        best: dict[int, Evidence] = {}

        def offer(span: int, found_by: str, entity: str | None, depth: int | None, route: tuple[Hop, ...]) -> None:
            if len(data.spans[span].text.split()) < self.min_evidence_words:
                return  # a heading or a fragment: kept in the store, but not evidence for a claim
            sim = float(similarity[span])
            score = sim * (1.0 - self.depth_penalty * depth) if depth else sim
            held = best.get(span)
            if held is None or (score, found_by != "sentence") > (held.score, held.found_by != "sentence"):
                best[span] = Evidence(data.spans[span], score, sim, found_by, entity, depth, route)

        reached = {n.entity: n for n in nodes}
        for node in nodes:
            for span in view.mention_spans[view.index[node.entity]]:
                offer(span, "entity", node.entity, node.depth, node.route)
        for src, dst, span in view.relation_spans:
            a, b = reached.get(data.keys[src]), reached.get(data.keys[dst])
            if a and b:
                deeper = a if (a.depth, a.entity) >= (b.depth, b.entity) else b
                offer(span, "relation", deeper.entity, deeper.depth, deeper.route)
        for span, _ in ExactIndex.top(similarity, self.context_size):  # the scores computed above, not again
            offer(span, "sentence", None, None, ())

        # Checked again here, on every span, before anything can enter the context.
        allowed = self.store.visible(labels, include_superseded)
        evidence = [e for e in best.values() if (e.span.document, e.span.version) in allowed]
        evidence.sort(key=lambda e: (-round(e.score, 6), _span_order(e.span)))
        return Retrieval(question, tuple(sorted(set(seeds))), hops, tuple(nodes), tuple(evidence))


def _span_order(span: Span) -> tuple[str, str, int, int]:
    return (span.document, span.version, span.start, span.end)
