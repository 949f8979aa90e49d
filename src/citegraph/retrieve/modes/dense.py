"""Modes that rank by similarity alone: each sentence, each passage, and the seed notebook's design
(the baseline to beat)."""

from __future__ import annotations

from citegraph.embed.base import ExactIndex
from citegraph.models import Evidence, Hop
from citegraph.retrieve.modes.base import Mode, Query, as_evidence, may_be_evidence, nearest_eligible
from citegraph.retrieve.view import GraphView


class DenseSentence(Mode):
    name = "dense-sentence"

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        sims = query.sims(view)
        return as_evidence(
            view, query, nearest_eligible(view, query, may_be_evidence(view, query), limit), lambda i: sims[i], "sentence"
        ), []


class DensePassage(Mode):
    """Passages (documents) by the cosine of their whole text; each passage's sentences follow it,
    most similar first, so ``limit`` sentences cover as few passages as the passage order gives."""

    name = "dense-passage"

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        if query.embed is None:
            raise ValueError("dense-passage needs an embedder to embed passages")
        doc_scores = ExactIndex(view.passage_vectors(query.embed)).scores(query.vector)
        sims = query.similarity(view)
        eligible = may_be_evidence(view, query)
        order: list[int] = []
        for d, _s in ExactIndex.top(doc_scores, len(doc_scores)):
            spans = [int(i) for i in view.spans_in(d) if eligible[i]]
            order.extend(sorted(spans, key=lambda i: (-sims[i], i)))
            if len(order) >= limit:
                break
        return as_evidence(view, query, order[:limit], lambda i: doc_scores[view.span_doc[i]], "passage"), []


class Notebook(Mode):
    """The seed notebook's retrieval, kept as the baseline to beat: it shares one visited set across
    seeds taken in order (seed-order shadowing) and follows outgoing relations only."""

    name = "notebook"

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        seeds = [view.keys[i] for i, _ in ExactIndex(view.key_vectors).search(query.vector, 3)]
        visited: set[str] = set()
        reached: list[tuple[str, int, tuple[Hop, ...]]] = []
        for seed in seeds:
            if seed in visited:
                continue
            visited.add(seed)
            frontier: list[tuple[str, tuple[Hop, ...]]] = [(seed, ())]
            reached.append((seed, 0, ()))
            for depth in range(1, 3):
                nxt: list[tuple[str, tuple[Hop, ...]]] = []
                for node, route in frontier:
                    for hop in view.adjacency.get(node, ()):
                        if hop.direction == "out" and hop.target not in visited:
                            visited.add(hop.target)
                            nxt.append((hop.target, (*route, hop)))
                            reached.append((hop.target, depth, (*route, hop)))
                frontier = nxt
        sims = query.similarity(view)
        eligible = may_be_evidence(view, query)
        out: list[Evidence] = []
        seen: set[int] = set()
        for key, depth, route in reached:
            for span in view.mention_spans[view.index[key]]:
                if span in seen or not eligible[span]:
                    continue
                seen.add(span)
                out.append(Evidence(view.span(span), float(sims[span]), float(sims[span]), "entity", key, depth, route))
        return out[:limit], seeds
