"""Retrieval modes: ways to rank the caller's sentences for a question, behind one interface.

Every mode reads only the caller's :class:`~citegraph.retrieve.view.GraphView` (the store
already dropped what the caller may not read), so term statistics, PageRank mass and vectors never
come from a private sentence. Each returns :class:`~citegraph.models.Evidence` best first; a span a
graph mode brings in carries the route that found it.

=================  ==================================================================================
``dense-sentence``  cosine of each sentence to the question (the baseline every peer is compared with)
``dense-passage``   cosine of each whole passage (document) to the question; its sentences by similarity
``notebook``        the seed lesson's design: 3 entities by similarity, 2-hop BFS along outgoing
                    relations with one visited set shared by the seeds in order, their sentences
``bfs``             multi-source BFS from the seeds (both directions), ranked by similarity × depth
                    penalty: the graph only filters, the ranking is the dense one
``ppr``             personalized PageRank over the entity–sentence–passage graph, restarting at the
                    entities the question names (linked by key, then by similarity) and at the
                    sentences most similar to the question (HippoRAG 2's recipe)
``hybrid``          reciprocal-rank fusion of dense-sentence, BM25 over sentences and ``ppr``
``bridge``          passages by similarity, lifted when they are about (or mention) a name the question
                    gives, each top passage followed by the passage about an entity it mentions (the
                    second hop); a few sentences per passage first
``bridge-embedded`` ``bridge`` with passages scored by their embedded text instead of their centroid,
                    two sentences of each passage first
=================  ==================================================================================

A passage is a short document version whole, or a part of a long one cut by its own structure
(:func:`~citegraph.sentences.sections`: its headings, its paragraphs, a chat's conversations, about
1,000 characters each); a heading names its passage and is never evidence (:attr:`GraphView.not_evidence`).

In an approximate view (above :data:`~citegraph.retrieve.view.APPROXIMATE_ABOVE` visible
sentences) ``bridge``, ``bfs`` and ``dense-sentence`` score only what the view's indexes find near the
question (each score still exact); below it, and in every other mode, every sentence is scored, and
the rankings are exactly those of the per-row code they replaced.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from citegraph.embed.base import ExactIndex, dot_rows, top_indices
from citegraph.models import Evidence, Hop
from citegraph.retrieve.arrays import firsts, gather
from citegraph.retrieve.view import GraphView, relation_stems
from citegraph.settings import DEFAULTS

__all__ = ["MODES", "Mode", "Query", "make_mode"]


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
    _some_scores: _SpanScores | None = None

    def linked_keys(self) -> list[str]:
        if self.link is not None:
            self.linked, self.link = self.link(), None
        return self.linked

    def similarity(self, view: GraphView) -> np.ndarray:
        """Every visible sentence's cosine to the question (one product over all of them)."""
        if self._sentence_scores is None:
            self._sentence_scores = ExactIndex(view.span_vectors).scores(self.vector)
        return self._sentence_scores

    def sims(self, view: GraphView) -> np.ndarray | _SpanScores:
        """Sentence cosines, indexable by span: all of them for an exact view; in an approximate
        view (a million sentences) only those a mode reads, each computed when first read."""
        if not view.approximate or self._sentence_scores is not None:
            return self.similarity(view)
        if self._some_scores is None:
            self._some_scores = _SpanScores(view.span_vectors, self.vector)
        return self._some_scores


class _Lazy:
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


class _SpanScores(_Lazy):
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


def _eligible(view: GraphView, query: Query) -> np.ndarray:
    """Spans that may be evidence: enough words, and not a passage's heading."""
    return (view.word_counts >= query.min_words) & ~view.not_evidence


def _evidence(view: GraphView, query: Query, order: Sequence[int], score: Callable[[int], float], found_by: str) -> list[Evidence]:
    sims = query.sims(view)
    return [Evidence(view.span(i), float(score(i)), float(sims[i]), found_by) for i in order]


def _top(scores: np.ndarray, eligible: np.ndarray, limit: int) -> list[int]:
    masked = np.where(eligible, scores, -np.inf)
    return [i for i, s in ExactIndex.top(masked, limit) if np.isfinite(s)]


def _nearest(view: GraphView, query: Query, eligible: np.ndarray, limit: int) -> list[int]:
    """The ``limit`` eligible sentences most similar to the question: exact, or in an approximate view
    the best of the approximate index's candidates (each with its exact cosine)."""
    if not view.approximate:
        return _top(query.similarity(view), eligible, limit)
    k = max(4 * limit, 100)
    while True:
        hits = [(i, s) for i, s in view.span_index.search(query.vector, k) if eligible[i]]
        if len(hits) >= limit or k >= view.n_spans:
            return [i for i, _s in sorted(hits, key=lambda h: (-h[1], h[0]))[:limit]]
        k *= 4


class DenseSentence(Mode):
    name = "dense-sentence"

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        sims = query.sims(view)
        return _evidence(view, query, _nearest(view, query, _eligible(view, query), limit), lambda i: sims[i], "sentence"), []


class DensePassage(Mode):
    """Passages (documents) by the cosine of their whole text; each passage's sentences follow it,
    most similar first, so ``limit`` sentences cover as few passages as the passage order gives."""

    name = "dense-passage"

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        if query.embed is None:
            raise ValueError("dense-passage needs an embedder to embed passages")
        doc_scores = ExactIndex(view.passage_vectors(query.embed)).scores(query.vector)
        sims = query.similarity(view)
        eligible = _eligible(view, query)
        order: list[int] = []
        for d, _s in ExactIndex.top(doc_scores, len(doc_scores)):
            spans = [int(i) for i in view.spans_in(d) if eligible[i]]
            order.extend(sorted(spans, key=lambda i: (-sims[i], i)))
            if len(order) >= limit:
                break
        return _evidence(view, query, order[:limit], lambda i: doc_scores[view.span_doc[i]], "passage"), []


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
        eligible = _eligible(view, query)
        out: list[Evidence] = []
        seen: set[int] = set()
        for key, depth, route in reached:
            for span in view.mention_spans[view.index[key]]:
                if span in seen or not eligible[span]:
                    continue
                seen.add(span)
                out.append(Evidence(view.span(span), float(sims[span]), float(sims[span]), "entity", key, depth, route))
        return out[:limit], seeds


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
        eligible = _eligible(view, query)
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
        top = _top(sims, _eligible(view, query), self.dense_seeds)
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
        order = _by_passage(view, query, doc_scores, span_scores, limit)
        return _routed(view, query, seeds, order, lambda i: doc_scores[view.span_doc[i]], "ppr"), seeds


class Hybrid(Mode):
    """Reciprocal-rank fusion (k = 60) of dense-sentence, BM25 over sentences, and ppr's passages."""

    name = "hybrid"

    def __init__(self, ppr: PersonalizedPageRank | None = None, k: int = 60, depth: int = 200) -> None:
        self.ppr = ppr or PersonalizedPageRank()
        self.k = k
        self.depth = depth

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        eligible = _eligible(view, query)
        dense = _top(query.similarity(view), eligible, self.depth)
        lexical = _top(view.bm25(query.text), eligible, self.depth)
        scores, seeds = self.ppr.scores(query, view)
        n_e, n_s = view.n_entities, view.n_spans
        graph = _by_passage(view, query, scores[n_e + n_s :], scores[n_e : n_e + n_s], self.depth)
        fused: dict[int, float] = {}
        for ranking in (dense, lexical, graph):
            for r, span in enumerate(ranking):
                fused[span] = fused.get(span, 0.0) + 1.0 / (self.k + r + 1)
        order = [i for i, _ in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))][:limit]
        return _routed(view, query, seeds, order, lambda i: fused[i], "hybrid"), seeds


class Bridge(Mode):
    """Passages by similarity, each top passage followed by the passage *about* an entity it mentions
    (the bridge of a multi-hop question), then sentences chosen per passage.

    1. Passage score: the cosine of the passage centroid (its sentence vectors' mean) or, with
       ``embedded``, of its embedded text, to the question, plus the best sentence's cosine, plus
       the question-entity seeds' bonus (:meth:`seed_bonus`: a passage about a name the question
       gives, or mentioning it, lifted by how rare that name is).
    2. For each of the ``first_hops`` best passages, every entity it mentions is a candidate bridge;
       a passage whose first sentence mentions that entity is *about* it (a Wikipedia article, a
       handbook page that names its subject first). The best such passage by its own score follows
       the passage that named the entity: the second hop, which by nature resembles the question less.
    3. Sentences: for each passage in that order, up to ``per_passage`` of its sentences first (the
       one naming the bridge entity, or the passage's first sentence for a bridge passage, then the
       most similar), then the rest. A heading over body text is never one of them.

    The order is the ranking; each span's ``score`` is its own similarity to the question (what an
    answerer weighs), so scores do not decrease along the list. A bridge passage's evidence carries
    the route: the first passage's subject, the sentence of it that mentions the bridge entity, and
    that entity.

    A candidate bridge passage ``c``, reached through entity ``e`` from a first passage, scores
    ``score(c) + specificity × log(1 + passages / passages naming e) + naming × (similarity of the
    sentence naming e) + subject × [e is the first thing c names]``: a rare name, mentioned where the
    first passage answers the question, that the second passage is about.
    """

    name = "bridge"

    # The walk's weights were chosen on the dev half of HotpotQA-100 (docs/results/2026-11-30/retrieval/grid.md);
    # bridge-embedded's sentences per passage on the mean of four dev sets (docs/results/2026-12-03/passages/);
    # the seeds' by the mean over the dev halves of HotpotQA-100 and the HaluEval-QA multi-hop set
    # (docs/results/2026-12-02/retrieval/); the test halves were run once, with these.
    def __init__(
        self,
        first_hops: int = 5,
        per_passage: int = 1,
        depth: int = 2,
        embedded: bool = False,
        specificity: float = 0.1,
        naming: float = 0.5,
        subject: float = 0.2,
        seeds: float = 0.5,
        mentions: float = 0.3,
        titles: float = 0.0,
        relations: float = 0.0,
        mention_hop: bool = False,
    ) -> None:
        self.first_hops = first_hops
        self.per_passage = per_passage
        self.depth = depth  #: bridges followed in a chain from each first passage (2: the bridge's own bridge too)
        self.embedded = embedded
        self.specificity = specificity  #: weight of the bridge entity's specificity
        self.naming = naming  #: weight of the similarity to the question of the sentence naming the entity
        self.subject = subject  #: bonus when the entity is the first one the bridge passage names
        #: question-entity seeds: a passage *about* an entity the question names gains up to ``seeds``
        #: (the rarest name the most), one that only mentions it up to ``mentions``
        self.seeds = seeds
        self.mentions = mentions
        #: a passage whose title the question names as written (:meth:`GraphView.titled`) gains up to
        #: ``titles`` (a title few passages share the most)
        self.titles = titles
        #: a bridge entity joined, by a relation a sentence of the first passage asserts, whose type
        #: names what the question asks ("directed by" for "the director of"), gains ``relations``
        self.relations = relations
        #: the second hop through a name wherever it is mentioned, not only in a passage about it (a
        #: handbook's "…is managed by Sofia Almeida, who works from Lisbon" in the middle of a section):
        #: see :meth:`_mention_hop`
        self.mention_hop = mention_hop

    topic_cap = 256  #: in an approximate view, a name more passages are about is followed only into passages near the question

    def passage_scores(self, query: Query, view: GraphView) -> np.ndarray:
        vectors = view.passage_vectors(query.embed) if self.embedded and query.embed is not None else view.passage_centroids
        cos = ExactIndex(vectors).scores(query.vector)
        best = np.full(len(view.passages), -1.0, dtype=np.float32)
        np.maximum.at(best, view.span_doc, query.similarity(view))
        score = (cos + best).astype(np.float32)
        for d, bonus in self.seed_bonus(query, view).items():
            score[d] += bonus
        return score

    def seed_bonus(self, query: Query, view: GraphView) -> dict[int, float]:
        """Passage -> its bonus for the entities the question names (linked by key or a document's
        title): ``seeds`` x the entity's specificity relative to the rarest possible name for a passage
        about it, ``mentions`` x the same for one that only mentions it, ``titles`` x the same for a
        passage whose title the question names as written; the largest per passage."""
        top = float(np.log1p(max(len(view.passages), 1))) or 1.0
        bonus: dict[int, float] = {}
        if self.titles:
            for d in view.titled(query.text):
                shared = view.title_shared(d)
                bonus[d] = self.titles * float(np.log1p(len(view.passages) / shared)) / top
        if not (self.seeds or self.mentions):
            return bonus
        linked = [view.index[k] for k in query.linked_keys() if k in view.index]
        if not linked:
            return bonus
        pointers, about = view.topic
        for e in linked:
            weight = float(view.specificity[e]) / top
            if self.mentions:
                for d in np.unique(view.span_doc[view.spans_of(e)]).tolist():
                    bonus[d] = max(bonus.get(d, 0.0), self.mentions * weight)
            if self.seeds:
                for d in about[pointers[e] : pointers[e + 1]].tolist():
                    bonus[d] = max(bonus.get(d, 0.0), self.seeds * weight)
        return bonus

    def _scores(self, query: Query, view: GraphView) -> np.ndarray | _PassageScores:
        """Every passage's score (an exact view), or each one's when first read (an approximate view)."""
        if view.approximate:
            embedded = self.embedded and query.embed is not None
            vectors = view.passage_vectors(query.embed) if embedded and query.embed is not None else view.passage_centroids
            return _PassageScores(view, query, self.seed_bonus(query, view), vectors, embedded)
        return self.passage_scores(query, view)

    def _dense(self, view: GraphView, query: Query, scores: np.ndarray | _PassageScores, limit: int) -> list[int]:
        """Passages by score, best first (ties by index): all of them, or in an approximate view the
        passages near the question by the indexes (their sentences' and their centroids'), enough to
        fill ``limit`` sentences, each placed by its exact score."""
        if isinstance(scores, np.ndarray):
            return top_indices(scores, len(scores)).tolist()
        eligible = _eligible(view, query)
        k = max(4 * limit, 200)
        while True:
            near = np.concatenate(
                [
                    view.span_doc[[i for i, _s in view.span_index.search(query.vector, k)]],
                    np.array([d for d, _s in scores.index.search(query.vector, k // 2)], dtype=np.int64),
                ]
            )
            pool = np.unique(np.concatenate([near, np.fromiter(scores.bonus, dtype=np.int64, count=len(scores.bonus))]))
            spans, owner = gather(view.doc_ptr, view.doc_order, pool)
            filled = len(np.unique(owner[eligible[spans]]))
            if filled >= limit + self.first_hops * (self.depth + 1) or len(pool) >= len(view.passages):
                break
            k *= 4
        scores.pool[pool] = True
        value = scores[pool]
        return pool[np.lexsort((pool, -value))].tolist()

    def _best_bridge(
        self,
        view: GraphView,
        d: int,
        scores: np.ndarray | _PassageScores,
        sims: Any,
        placed: set[int],
        asked: frozenset[str] = frozenset(),
    ) -> tuple[float, int, int] | None:
        """The best bridge from passage ``d``: ``(score, passage, entity)``, the largest score, then the
        smallest passage, then the first entity (ascending) naming it; None when there is none.
        ``asked``: the question's word stems (:func:`relation_stems`), for following the relation it names."""
        entities, naming = view.naming(d, sims)
        if not len(entities):
            return None
        lift = self.specificity * view.specificity[entities] + self.naming * naming
        if self.relations and asked:
            lift = lift + self.relations * np.isin(entities, view.related(d, asked))
        pointers, about = view.topic
        if isinstance(scores, _PassageScores):
            # A name hundreds of passages are about ("city"): only those of them near the question.
            hub = (pointers[entities + 1] - pointers[entities]) > self.topic_cap
            small = np.flatnonzero(~hub)
            candidates, owner = gather(pointers, about, entities[small])
            owner = small[owner]
            pool = np.flatnonzero(scores.pool)
            named, by = gather(view.span_ptr, view.span_ents, view.first_spans[pool])
            at = np.searchsorted(entities, named)
            hit = (at < len(entities)) & (entities[np.minimum(at, len(entities) - 1)] == named)
            hit[hit] &= hub[at[hit]]
            candidates, owner = np.concatenate([candidates, pool[by[hit]]]), np.concatenate([owner, at[hit]])
            order = np.lexsort((candidates, owner))  # entity by entity, passages ascending, as the lists are
            candidates, owner = candidates[order], owner[order]
        else:
            candidates, owner = gather(pointers, about, entities)
        keep = ~np.isin(candidates, np.fromiter(placed, dtype=np.int64, count=len(placed)))
        candidates, owner = candidates[keep], owner[keep]
        if not len(candidates):
            return None
        bonus = np.where(view.subjects[candidates] == entities[owner], self.subject, 0.0)
        score = np.asarray(scores[candidates], dtype=np.float64) + lift[owner] + bonus
        top = np.flatnonzero(score == score.max())
        top = top[candidates[top] == candidates[top].min()]
        return float(score[top[0]]), int(candidates[top[0]]), int(entities[owner[top[0]]])

    def rank(self, query: Query, view: GraphView, limit: int) -> tuple[list[Evidence], list[str]]:
        scores = self._scores(query, view)
        sims = query.sims(view)
        eligible = _eligible(view, query)
        dense = self._dense(view, query, scores, limit)
        order: list[int] = []
        placed: set[int] = set()
        expanded: set[int] = set()
        via: dict[int, tuple[int, int]] = {}  # bridge passage -> (the passage that named its entity, entity)
        asked = relation_stems(query.text) if self.relations else frozenset()
        replying: dict[int, int] = {}  # a reply -> the question it answers (see _replies)

        def place(d: int, level: int) -> None:
            if d not in placed:
                order.append(d)
                placed.add(d)
            if level >= self.depth or d in expanded:  # a top passage placed as a bridge still gets its own
                return
            expanded.add(d)
            best = self._best_bridge(view, d, scores, sims, placed, asked)
            if best is not None:
                via[best[1]] = (d, best[2])
                place(best[1], level + 1)  # a chain: its own bridge follows it when depth allows

        for first in dense[: self.first_hops]:
            place(first, 0)
        order += [d for d in dense if d not in placed]
        picked: list[int] = []
        rest: list[int] = []
        bridge_entity = {named_by: e for _c, (named_by, e) in via.items()}
        for d in order:
            in_passage = view.spans_in(d)
            local = dict(zip(in_passage.tolist(), np.asarray(sims[in_passage]).tolist(), strict=True))
            spans = [i for i in local if eligible[i]]
            # a question in a passage ("How long does a battery last?") never stands for it: its answer does
            spans.sort(key=lambda i: (view.asks(i), -local[i], i))
            lead: list[int] = []
            if d in via:  # a bridge passage: its first sentence names the entity
                first_span = int(view.first_spans[d])
                if eligible[first_span] and not view.asks(first_span):
                    lead.append(first_span)
            elif d in bridge_entity:  # the sentence that names the bridge entity
                lead += [i for i in spans if bridge_entity[d] in view.entities_of(i)][:1]
            lead += [i for i in spans if i not in lead]
            lead = self._replies(view, lead, eligible, replying, set(picked) | set(rest))
            # a reply that follows the line it answers comes with it, in no slot of its own
            slots = np.cumsum([not (i in replying and replying[i] in lead) for i in lead])
            cut = int(np.searchsorted(slots, self.per_passage, side="right"))
            picked += lead[:cut]
            rest += lead[cut:]
            if len(picked) >= limit:
                break
        ranked = (picked + rest)[:limit]
        hop = self._mention_hop(view, query, ranked[: query.context_size], eligible, sims) if self.mention_hop and ranked else None
        if hop is not None:  # read with the first passage's sentences, before the rest
            rest_ranked = [i for i in ranked if i != hop[0]]
            ranked = [*rest_ranked[: self.per_passage], hop[0], *rest_ranked[self.per_passage :]][:limit]
        out = []
        for i in ranked:
            d = int(view.span_doc[i])
            if hop is not None and i == hop[0]:
                out.append(self._mentioned(view, query, *hop))
            elif d in via:
                first, e = via[d]
                out.append(self._bridged(view, query, i, first, e))
            elif i in replying:  # reached as the reply to a question: ranked as the question was
                out.append(Evidence(view.span(i), float(sims[replying[i]]), float(sims[i]), "passage"))
            else:
                out.append(Evidence(view.span(i), float(sims[i]), float(sims[i]), "passage"))
        return out, [view.keys[via[d][1]] for d in via]

    @staticmethod
    def _replies(view: GraphView, lead: list[int], eligible: np.ndarray, replying: dict[int, int], taken: set[int]) -> list[int]:
        """``lead`` with each question in it (an FAQ's "How long is data kept?") standing for the
        sentence after it in its document, its answer, and each line that asks something on the way
        ("who's doing the Thursday dinner? the venue only does lunch") followed by the line after it,
        its reply (recorded in ``replying``), where that one is evidence, no question itself, and not
        taken yet."""
        out: list[int] = []
        for i in lead:
            if i in taken:
                continue
            question = view.asks(i)
            j = view.next_span(i) if question or "?" in view.columns.span_text[i] else None
            if not question and i not in out:
                out.append(i)
            if j is not None and eligible[j] and not view.asks(j) and j not in taken and j not in out:
                replying[j] = i
                out.append(j)  # moved up, when the passage's order had it later
            elif question and i not in out:
                out.append(i)
        return out

    @staticmethod
    def _mention_hop(view: GraphView, query: Query, ranked: list[int], eligible: np.ndarray, sims: Any) -> tuple[int, int, int] | None:
        """``(sentence, first-hop sentence, name)``: a second hop through a proper name (every word
        capitalised, never written in lower case) that one of the three sentences closest to the
        question gives and the question does not, to the sentence mentioning it anywhere that is
        closest to what that first hop leaves unasked (the question's words it does not hold: "Sofia
        Almeida will lead the Gantt rewrite" leaves "Which city is the person based in"), reaching
        "…managed by Sofia Almeida, who works from Lisbon" in the middle of a handbook section for
        "Which city is the person leading the Gantt rewrite based in?". None when no such name is
        mentioned by a sentence not yet ranked."""
        asked = re.findall(r"\w+", query.text)
        asked_folded = {w.casefold() for w in asked}
        taken = set(ranked)
        firsts = sorted(ranked, key=lambda i: (-float(sims[i]), i))[:3]
        jobs: list[tuple[int, int, list[int]]] = []  # (first hop, name, sentences mentioning it)
        rests: dict[int, str] = {}  # first hop -> the question's words it does not hold
        for first in firsts:
            held = {w.casefold() for w in re.findall(r"\w+", view.columns.span_text[first])}
            rests[first] = " ".join(w for w in asked if w.casefold() not in held) or query.text
            for e in view.entities_of(first).tolist():
                words = view.names[e].split()
                if not words or not all(w[:1].isupper() for w in words) or {w.casefold() for w in words} <= asked_folded:
                    continue
                mentions = view.spans_of(e).tolist()
                # a common noun capitalised where a sentence opens ("Snapshot exports stay…") is written
                # in lower case elsewhere ("the workspace snapshots"): no name
                lower = re.compile(rf"\b{re.escape(view.names[e].lower())}")
                if any(lower.search(view.columns.span_text[i]) for i in mentions):
                    continue
                found = [i for i in mentions if i not in taken and eligible[i] and not view.asks(i)]
                if found:
                    jobs.append((first, int(e), found))
        if not jobs:
            return None
        unasked = sorted({first for first, _e, _found in jobs})  # one embedding per first hop, all in one call
        vectors = dict(zip(unasked, query.embed([rests[f] for f in unasked]), strict=True)) if query.embed is not None else None
        best: tuple[float, int, int, int] | None = None
        for first, e, found in jobs:
            rows = np.array(found)
            score = view.span_vectors[rows] @ vectors[first] if vectors is not None else np.asarray(sims[rows], dtype=np.float64)
            top = int(np.argmax(score))
            if best is None or float(score[top]) > best[0]:
                best = (float(score[top]), int(rows[top]), first, e)
        return None if best is None else best[1:]

    @staticmethod
    def _mentioned(view: GraphView, query: Query, span: int, first: int, entity: int) -> Evidence:
        """The mention hop's evidence: reached from sentence ``first`` through ``entity``."""
        return Bridge._hop_evidence(view, query, span, first, first, entity)

    @staticmethod
    def _hop_evidence(view: GraphView, query: Query, span: int, subject_span: int, via_span: int, entity: int) -> Evidence:
        """``span`` as ``bridge`` evidence: one hop from the first thing ``subject_span`` names (other
        than ``entity``) through ``entity``, named in ``via_span``."""
        key = view.keys[entity]
        subject = next((view.keys[e] for e in view.entities_of(subject_span).tolist() if e != entity), key)
        route = (Hop(subject, "mentions", "out", key, view.span(via_span)),)
        similarity = float(query.sims(view)[span])
        return Evidence(view.span(span), similarity, similarity, "bridge", key, 1, route)

    @staticmethod
    def _bridged(view: GraphView, query: Query, span: int, first: int, entity: int) -> Evidence:
        naming = [int(i) for i in view.spans_in(first) if entity in view.entities_of(int(i))]
        via_span = min(naming, key=lambda i: view.span_rank[i]) if naming else int(view.first_spans[first])
        return Bridge._hop_evidence(view, query, span, int(view.first_spans[first]), via_span, entity)


class _PassageScores(_Lazy):
    """``Bridge``'s passage scores in an approximate view: the passage vector's cosine (its centroid,
    or with ``embedded`` its whole text's) plus the best sentence's, computed for a passage when
    first read (a million-sentence view has no full array). ``pool`` marks the passages the indexes
    found near the question; ``index`` is the passages' own (over the same vectors)."""

    def __init__(self, view: GraphView, query: Query, bonus: dict[int, float], vectors: np.ndarray, embedded: bool = False) -> None:
        super().__init__(len(view.passages))
        self.view, self.query = view, query
        self.bonus = bonus  #: question-entity seeds' bonus per passage (Bridge.seed_bonus)
        self.vectors = vectors
        self.index = view.passage_text_index(vectors) if embedded else view.passage_index
        self.pool = np.zeros(len(view.passages), dtype=bool)

    def _compute(self, missing: np.ndarray) -> np.ndarray:
        view = self.view
        cos = dot_rows(self.vectors, missing, self.query.vector)
        spans, owner = gather(view.doc_ptr, view.doc_order, missing)
        best = np.full(len(missing), -1.0, dtype=np.float32)
        np.maximum.at(best, owner, np.asarray(self.query.sims(view)[spans], dtype=np.float32))
        extra = np.array([self.bonus.get(d, 0.0) for d in missing.tolist()], dtype=np.float32)
        return (cos + best + extra).astype(np.float32)


def _by_passage(view: GraphView, query: Query, doc_scores: np.ndarray, span_scores: np.ndarray, limit: int) -> list[int]:
    eligible = _eligible(view, query)
    order: list[int] = []
    for d, _s in ExactIndex.top(doc_scores.astype(np.float32), len(doc_scores)):
        spans = [int(i) for i in view.spans_in(d) if eligible[i]]
        order.extend(sorted(spans, key=lambda i: (-span_scores[i], i)))
        if len(order) >= limit:
            break
    return order[:limit]


def _routed(
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


MODES: dict[str, Callable[[], Mode]] = {
    "dense-sentence": DenseSentence,
    "dense-passage": DensePassage,
    "notebook": Notebook,
    "bfs": BFS,
    "ppr": PersonalizedPageRank,
    "hybrid": Hybrid,
    "bridge": Bridge,
    "bridge-embedded": lambda: Bridge(embedded=True, seeds=0.5, mentions=0.1, titles=1.0, per_passage=2, mention_hop=True),
}


def make_mode(name: str) -> Mode:
    from citegraph.errors import UserError

    if name not in MODES:
        import difflib

        hint = difflib.get_close_matches(name, list(MODES), n=1)
        raise UserError(
            f"unknown retrieval mode {name!r}; choose one of {', '.join(MODES)}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
        )
    return MODES[name]()
