"""Modes that walk the graph: BFS from the seed entities, personalized PageRank over entities,
sentences and passages, and their fusion with dense and BM25 rankings."""

from __future__ import annotations

import numpy as np

from citegraph.embed.base import top_indices
from citegraph.models import Evidence
from citegraph.retrieve.arrays import firsts, gather
from citegraph.retrieve.modes.base import Mode, Query, by_passage, may_be_evidence, routed, top_eligible
from citegraph.retrieve.view import GraphView


class BFS(Mode):
    """Multi-source BFS from the seeds; every reached entity's spans, the relations between reached
    entities and the most similar sentences, scored ``similarity × (1 - depth_penalty × depth)``."""

    name = "bfs"

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        # The rules are those of one offer per (span, reason) in turn, kept when it scores higher:
        # every mention of a reached entity (entities in traversal order), then every relation between
        # reached entities (in store order), then the ``limit`` most similar sentences. Computed here
        # for all spans at once; in an approximate view only over the sentences nearest the question
        # (a span's score is at most its similarity, so the ranking's head comes from them).
        seeds = view.seeds(query.vector, query.top_k)
        reach = view.reach(seeds, query.hops)
        eligible = may_be_evidence(view, query)
        sims = query.sims(view)
        if view.approximate:
            hits = view.span_index.search(query.vector, max(20 * limit, 2000))
            candidates = np.array(sorted(i for i, _s in hits), dtype=np.int64)
            nearest = [i for i, _s in hits[:limit]]
        else:
            candidates = np.arange(view.n_spans)
            nearest = top_indices(np.asarray(sims), limit).tolist()
        candidates = candidates[eligible[candidates]]
        position = np.full(view.n_spans, -1, dtype=np.int64)
        position[candidates] = np.arange(len(candidates))
        similarity = np.asarray(sims[candidates], dtype=np.float64)
        penalty = query.depth_penalty

        def scored(sim: np.ndarray, depth: np.ndarray) -> np.ndarray:
            return np.where(depth > 0, sim * (1.0 - penalty * depth), sim)

        n = len(candidates)
        score = np.full(n, -np.inf)
        offered = np.zeros(n, dtype=bool)
        found = np.zeros(n, dtype=np.int8)  # 0 entity, 1 relation, 2 sentence
        entity = np.full(n, -1, dtype=np.int64)
        # Mentions: per span the best score, the entity first in traversal order among equals.
        ents, owner = gather(view.span_ptr, view.span_ents, candidates)
        reached = reach.depth[ents] >= 0
        ents, owner = ents[reached], owner[reached]
        if len(ents):
            s = scored(similarity[owner], reach.depth[ents])
            order = np.lexsort((reach.position[ents], -s, owner))
            first = firsts(owner[order])
            at, winner = owner[order][first], order[first]
            score[at], entity[at], offered[at] = s[winner], ents[winner], True
        # Relations: the deeper endpoint (then the larger key) is the one reached; a relation replaces
        # a mention's offer only with a higher score, the first relation among equals.
        c = view.columns
        spot = position[c.relation_span] if len(c.relation_span) else np.zeros(0, dtype=np.int64)
        rows = np.flatnonzero((spot >= 0) & (reach.depth[c.relation_source] >= 0) & (reach.depth[c.relation_target] >= 0))
        if len(rows):
            a, b = c.relation_source[rows], c.relation_target[rows]
            da, db = reach.depth[a], reach.depth[b]
            take_b = (db > da) | ((db == da) & (view.key_rank[b] > view.key_rank[a]))
            end, depth = np.where(take_b, b, a), np.where(take_b, db, da)
            s = scored(similarity[spot[rows]], depth)
            order = np.lexsort((rows, -s, spot[rows]))
            first = firsts(spot[rows][order])
            at, winner = spot[rows][order][first], order[first]
            better = ~offered[at] | (s[winner] > score[at])
            at, winner = at[better], winner[better]
            score[at], entity[at], found[at], offered[at] = s[winner], end[winner], 1, True
        for span in nearest:  # the most similar sentences, kept only if better than what found them
            j = position[span]
            if j >= 0 and (not offered[j] or similarity[j] > score[j]):
                score[j], entity[j], found[j], offered[j] = similarity[j], -1, 2, True
        kept = np.flatnonzero(offered)
        ranked = _by_rounded_score(score[kept], view.span_rank[candidates[kept]], limit)
        out = []
        for j in kept[ranked].tolist():
            span, e = int(candidates[j]), int(entity[j])
            if found[j] == 2:
                out.append(Evidence(view.span(span), float(score[j]), float(sims[span]), "sentence"))
            else:
                out.append(
                    Evidence(
                        view.span(span),
                        float(score[j]),
                        float(sims[span]),
                        "entity" if found[j] == 0 else "relation",
                        view.keys[e],
                        int(reach.depth[e]),
                        reach.route(e),
                    )
                )
        return out, seeds


def _by_rounded_score(score: np.ndarray, rank: np.ndarray, limit: int) -> np.ndarray:
    """Indices of the ``limit`` best by ``(-round(score, 6), rank)``, Python's ``round`` exactly.

    ``np.round`` can differ from ``round`` by one unit in the sixth decimal, so it only narrows the
    field (with a margin); the survivors are ordered with ``round`` itself."""
    keep = np.arange(len(score))
    if len(score) > limit > 0:
        approx = np.round(score, 6)
        kth = -np.partition(-approx, limit - 1)[limit - 1]
        keep = np.flatnonzero(approx >= kth - 2e-6)
    return keep[sorted(range(len(keep)), key=lambda i: (-round(float(score[keep[i]]), 6), int(rank[keep[i]])))[:limit]]


class PersonalizedPageRank(Mode):
    """Personalized PageRank over one graph of entities, sentences and passages.

    Edges: entity–sentence for each mention, entity–entity for each relation, sentence–passage for
    each sentence of a passage. The restart vector puts ``1 - dense_mass`` on the entities the
    question names (linked by key; the ``top_k`` most similar entities when none is named) and
    ``dense_mass`` on the ``dense_seeds`` sentences most similar to the question, by similarity. A
    passage the question does not resemble is still reached through an entity a relevant passage
    mentions: the second hop of a multi-hop question. Sentences are ranked by their passage's score
    and then their own, so the context holds whole passages, best first.
    """

    name = "ppr"

    def __init__(self, damping: float = 0.5, dense_mass: float = 0.5, dense_seeds: int = 20, iterations: int = 30) -> None:
        self.damping = damping
        self.dense_mass = dense_mass
        self.dense_seeds = dense_seeds
        self.iterations = iterations

    def scores(self, query: Query, view: GraphView) -> tuple[np.ndarray, list[str]]:
        """PageRank of every node (entities, then spans, then passages), and the seed entities."""
        n_e = view.n_entities
        seeds = [k for k in query.linked_keys() if k in view.index]
        if not seeds:
            seeds = view.seeds(query.vector, query.top_k)
        restart = np.zeros(view.ppr_matrix.shape[0], dtype=np.float64)
        # An entity few passages mention says more about the question than one many do ("city"):
        # seeds are weighted by specificity, log(1 + passages / passages mentioning it).
        specificity = np.array([view.specificity[view.index[key]] for key in seeds])
        restart[[view.index[key] for key in seeds]] += (1.0 - self.dense_mass) * specificity / specificity.sum()
        sims = query.similarity(view)
        top = top_eligible(sims, may_be_evidence(view, query), self.dense_seeds)
        if top:
            weights = np.maximum(sims[top], 0) + 1e-6
            restart[n_e + np.asarray(top)] += self.dense_mass * weights / weights.sum()
        restart /= restart.sum() or 1.0
        rank = restart.copy()
        matrix = view.ppr_matrix
        for _ in range(self.iterations):
            rank = (1 - self.damping) * restart + self.damping * (matrix @ rank)
        return rank, seeds

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        scores, seeds = self.scores(query, view)
        n_e, n_s = view.n_entities, view.n_spans
        span_scores, doc_scores = scores[n_e : n_e + n_s], scores[n_e + n_s :]
        order = by_passage(view, query, doc_scores, span_scores, limit)
        return routed(view, query, seeds, order, lambda i: doc_scores[view.span_doc[i]], "ppr"), seeds


class Hybrid(Mode):
    """Reciprocal-rank fusion (k = 60) of dense-sentence, BM25 over sentences, and ppr's passages."""

    name = "hybrid"

    def __init__(self, ppr: PersonalizedPageRank | None = None, k: int = 60, depth: int = 200) -> None:
        self.ppr = ppr or PersonalizedPageRank()
        self.k = k
        self.depth = depth

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        eligible = may_be_evidence(view, query)
        dense = top_eligible(query.similarity(view), eligible, self.depth)
        lexical = top_eligible(view.bm25(query.text), eligible, self.depth)
        scores, seeds = self.ppr.scores(query, view)
        n_e, n_s = view.n_entities, view.n_spans
        graph = by_passage(view, query, scores[n_e + n_s :], scores[n_e : n_e + n_s], self.depth)
        fused: dict[int, float] = {}
        for ranking in (dense, lexical, graph):
            for r, span in enumerate(ranking):
                fused[span] = fused.get(span, 0.0) + 1.0 / (self.k + r + 1)
        order = [i for i, _ in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))][:limit]
        return routed(view, query, seeds, order, lambda i: fused[i], "hybrid"), seeds
