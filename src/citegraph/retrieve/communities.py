"""Communities of the caller's entity graph, and a few cited sentences that sum each one up.

The graph: one node per entity the caller may read; an edge for each relation between two of them
(weight 1) and for each sentence that names several (weight ``1 / (k - 1)`` for a sentence of ``k``
names, so a long list of names does not outweigh a stated relation). Communities are found by
Louvain's method (igraph's ``community_multilevel``, in C, seeded: the same graph gives the same
communities), which yields its partitions from the finest to the coarsest; level 0 here is the
coarsest, as in Microsoft GraphRAG, and every finer community lies inside one of level 0 (its
``parent``). networkx's pure-Python Louvain, used before, took about 5 times longer (4.2 s against
0.9 s for 24,611 entities, the graph's making included). Leiden (GraphRAG's choice) guarantees connected communities and is in
igraph too, but gives one partition: its levels would be Leiden run again inside each community;
Louvain's own levels, whose communities are rarely disconnected on graphs of this size, are kept.
igraph is imported without matplotlib (:func:`_igraph`), and a community's summary reads the view's
per-sentence entity lists and asks the likeness check of the best candidates only: on a 3,000-document
store, communities 1.95 -> 1.02 s, the same communities and summaries (docs/results/2026-12-05/communities-faster/).

A community's summary is a few of its own sentences (:data:`POINTS`), chosen greedily for coverage:
each next sentence is the one naming the most community weight not yet covered (an entity's weight
is ``log(1 + d)`` for its weighted degree ``d`` inside the community: its centrality there, damped so
that one hub, a chat's speaker, does not make any line naming it the lead), a sentence stating a relation
between two members counting one more, a sentence too like one already chosen (cosine above
:data:`REDUNDANT_AT`) never taken (maximal marginal relevance, Carbonell & Goldstein 1998, with
coverage as the relevance). Headings, questions and sentences of fewer than three words are not
candidates. (Refusing instructions here too, as the extractive answerer does, was tried: on the
mixed corpus of bench/overview.py it made a chat community's lead a worse chat line, its points
supported 1.00 -> 0.82, and the first corpus question 2.8 -> 8.1 s; a corpus question "about X"
does skip them, :func:`statement`.) Every summary sentence is a span of a document the caller may read, current
(superseded versions are not in the caller's view): a deleted or relabelled-away sentence cannot be
in a summary, because the communities are computed from the view, which is rebuilt when the store
changes.

Because everything here is computed from the caller's view, neither a community's membership nor
its summary can depend on a document the caller may not read (tests/test_access.py checks it as it
checks every other read).
"""

from __future__ import annotations

import random
import sys
import threading
import weakref
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from citegraph.retrieve.summary import MIN_WORDS
from citegraph.retrieve.view import GraphView
from citegraph.verify.assertion import instruction_frame

__all__ = ["LEVELS", "MIN_SIZE", "POINTS", "Communities", "Community", "candidates", "communities", "quotable", "statement"]

LEVELS = 3  #: the most levels kept (coarsest first)
MIN_SIZE = 2  #: a community of fewer entities is not listed (an entity no relation or shared sentence joins)
POINTS = 3  #: summary sentences per community
REDUNDANT_AT = 0.9  #: a sentence this like (cosine) one already in a summary is not taken
MAX_NAMES = 12  #: a sentence naming more entities than this adds no co-mention edges (a list, a table row)


@dataclass(frozen=True)
class Community:
    """One community: its id (``level.position``, positions by weight), its entities (view indices,
    most central first), the sentences of its summary (span indices, in the order chosen), the
    documents its sentences come from (``(document, sentences)``, most first) and the community of
    level 0 it lies in."""

    id: str
    level: int
    entities: tuple[int, ...]
    summary: tuple[int, ...]
    documents: tuple[tuple[str, int], ...]
    weight: float  #: the weight of its edges inside (its relations and shared sentences)
    parent: str | None = None

    def names(self, view: GraphView, k: int = 5) -> list[str]:
        return [view.names[e] for e in self.entities[:k]]

    def title(self, view: GraphView) -> str:
        return ", ".join(self.names(view, 3))


@dataclass(frozen=True)
class Communities:
    """Every level's communities (level 0 the coarsest), listed ones only (:data:`MIN_SIZE`)."""

    levels: tuple[tuple[Community, ...], ...]

    def level(self, n: int) -> tuple[Community, ...]:
        return self.levels[n] if 0 <= n < len(self.levels) else ()


_made: weakref.WeakKeyDictionary[GraphView, Communities] = weakref.WeakKeyDictionary()


def communities(view: GraphView) -> Communities:
    """The communities of ``view``, made once per view (their membership is kept with a saved graph)."""
    found = _made.get(view)
    if found is None:
        weights = edge_weights(view)
        membership = view.derived.array("community_membership", lambda: _membership(view, weights))
        found = _made[view] = _describe(view, membership, weights)
    return found


def edge_weights(view: GraphView) -> dict[tuple[int, int], float]:
    """``(a, b) -> weight`` with ``a < b``: relations and shared sentences, as the module says."""
    weights: dict[tuple[int, int], float] = defaultdict(float)
    c = view.columns
    for s, t in zip(c.relation_source.tolist(), c.relation_target.tolist(), strict=True):
        if s != t:
            weights[(min(s, t), max(s, t))] += 1.0
    for names in view.span_entities:
        if 2 <= len(names) <= MAX_NAMES:
            share = 1.0 / (len(names) - 1)
            for i, a in enumerate(names):
                for b in names[i + 1 :]:
                    weights[(a, b)] += share
    return weights


def _membership(view: GraphView, weights: dict[tuple[int, int], float]) -> np.ndarray:
    """``[LEVELS, entities]``: per level (coarsest first) each entity's community number, -1 for
    none (an entity in no listed community, or a level Louvain did not reach)."""
    igraph = _igraph()

    out = np.full((LEVELS, view.n_entities), -1, dtype=np.int64)
    if not weights:
        return out
    nodes = sorted({e for pair in weights for e in pair})
    index = {e: i for i, e in enumerate(nodes)}
    edges = sorted(weights.items())
    graph = igraph.Graph(n=len(nodes), edges=[(index[a], index[b]) for (a, b), _w in edges])
    graph.es["weight"] = [w for _pair, w in edges]
    with _SEEDED:  # igraph draws from one process-wide generator: seeded for this call, then given back
        igraph.set_random_number_generator(random.Random(0))
        try:
            levels = graph.community_multilevel(weights="weight", return_levels=True)
        finally:
            igraph.set_random_number_generator(random)
    for level, clustering in enumerate(levels[::-1][:LEVELS]):
        parts = [sorted(nodes[i] for i in members) for members in clustering if len(members) >= MIN_SIZE]
        for number, members in enumerate(sorted(parts, key=lambda p: p[0])):
            out[level, members] = number
    return out


_SEEDED = threading.Lock()
_IMPORTING = threading.Lock()


def _igraph() -> Any:
    """igraph, imported without matplotlib. igraph's package imports its drawing code, which imports
    ``matplotlib.pyplot`` wherever matplotlib is installed (the ``dev`` and ``eval`` extras install it):
    0.6 s of the first corpus question in a process, for plots this module never draws. While igraph
    is first imported, ``import matplotlib`` fails (igraph then keeps a stand-in that says plotting
    needs matplotlib); where matplotlib is already imported, nothing is changed."""
    with _IMPORTING:
        if "igraph" in sys.modules or "matplotlib" in sys.modules:
            import igraph

            return igraph
        sys.modules["matplotlib"] = None  # type: ignore[assignment]  # "import matplotlib" raises ImportError
        try:
            import igraph
        finally:
            if sys.modules.get("matplotlib", 0) is None:
                del sys.modules["matplotlib"]
        return igraph


def _describe(view: GraphView, membership: np.ndarray, weights: dict[tuple[int, int], float]) -> Communities:
    first = np.fromiter((a for a, _b in weights), dtype=np.int64, count=len(weights))
    second = np.fromiter((b for _a, b in weights), dtype=np.int64, count=len(weights))
    weight = np.fromiter(weights.values(), dtype=np.float64, count=len(weights))
    levels: list[tuple[Community, ...]] = []
    top: dict[int, str] = {}  # level 0's community numbers -> ids
    parents = membership[0]
    for level in range(LEVELS):
        row = membership[level]
        if not (row >= 0).any():
            break
        groups: dict[int, list[int]] = defaultdict(list)
        for e in np.flatnonzero(row >= 0).tolist():
            groups[int(row[e])].append(e)
        # per entity, its weighted degree inside its community (an entity is in one per level); per community, its weight
        inside = (row[first] >= 0) & (row[first] == row[second])
        degree = np.zeros(view.n_entities)
        np.add.at(degree, first[inside], weight[inside])
        np.add.at(degree, second[inside], weight[inside])
        degree = np.round(degree, 9)  # equal degrees stay equal whatever the order they were summed in
        total = np.bincount(row[first[inside]], weights=weight[inside], minlength=len(groups)) if inside.any() else np.zeros(len(groups))
        # per community, the sentences that state a relation between two of its members
        c = view.columns
        source, target = row[c.relation_source], row[c.relation_target]
        stated: dict[int, Counter[int]] = defaultdict(Counter)
        joined = (source >= 0) & (source == target) & (c.relation_source != c.relation_target)
        for number, span in zip(source[joined].tolist(), c.relation_span[joined].tolist(), strict=True):
            stated[number][span] += 1
        damped = np.log1p(degree).tolist()
        degrees = degree.tolist()
        made = []
        for number, members in groups.items():
            entities = tuple(sorted(members, key=lambda e: (-degrees[e], view.keys[e])))
            made.append((number, entities, float(total[number]), *_summary(view, set(members), damped, stated[number])))
        made.sort(key=lambda m: (-m[2], view.keys[m[1][0]]))
        if level == 0:
            top = {number: f"0.{i}" for i, (number, *_rest) in enumerate(made)}
        levels.append(
            tuple(
                Community(f"{level}.{i}", level, entities, summary, documents, w, top.get(int(parents[entities[0]])) if level else None)
                for i, (_number, entities, w, summary, documents) in enumerate(made)
            )
        )
    return Communities(tuple(levels))


def candidates(view: GraphView, inside: set[int]) -> list[int]:
    """The sentences that may stand for a community: those naming a member, :func:`quotable`."""
    spans = sorted({s for e in inside for s in view.mention_spans[e]})
    ok = quotable(view)
    return [s for s in spans if ok[s]]


def quotable(view: GraphView) -> np.ndarray:
    """Per sentence of the view: not a heading, not a question, of three words or more. Kept with the
    view. (Whether it is an instruction, which the extractive answerer would not quote as a claim, is
    asked only of the sentences about to be chosen, :func:`statement`: it takes a parse.)"""

    def make() -> np.ndarray:
        return np.fromiter(
            (not view.not_evidence[s] and view.word_counts[s] >= MIN_WORDS and not view.asks(s) for s in range(view.n_spans)),
            dtype=bool,
            count=view.n_spans,
        )

    found = _quotable.get(view)
    if found is None:  # once per view: a view of an unsaved graph keeps no derived array, and this is asked per community
        found = _quotable[view] = view.derived.array("quotable", make)
    return found


_quotable: weakref.WeakKeyDictionary[GraphView, np.ndarray] = weakref.WeakKeyDictionary()


def statement(view: GraphView, span: int) -> bool:
    """The sentence states something: it is no instruction (an answer quotes it as a claim)."""
    return instruction_frame(view.columns.span_text[span]) is None


def _summary(
    view: GraphView, inside: set[int], damped: Sequence[float], relation_spans: Counter[int]
) -> tuple[tuple[int, ...], tuple[tuple[str, int], ...]]:
    """Up to :data:`POINTS` sentences chosen greedily (the module says how); ``damped``: per entity,
    ``log(1 + degree inside its community)``; ``relation_spans``: the sentences stating a relation
    inside the community."""
    found = candidates(view, inside)
    c = view.columns
    per_document = Counter(c.passages[int(c.span_passage[s])][0] for s in found)
    documents = tuple(sorted(per_document.items(), key=lambda kv: (-kv[1], kv[0])))
    names = {s: [e for e in view.span_entities[s] if e in inside] for s in found}
    rank = view.span_rank
    stated = {s: float(relation_spans[s] > 0) for s in found}
    vectors = view.span_vectors
    covered: set[int] = set()
    chosen: list[int] = []
    while len(chosen) < POINTS:
        gains = [
            (gain, s) for s in found if s not in chosen and (gain := sum(damped[e] for e in names[s] if e not in covered) + stated[s]) > 0
        ]
        # the best gain, ties by reading order, that is not too like a sentence already chosen: the
        # likeness is asked of the best candidates only, in that order, until one passes
        best = next(
            (
                s
                for _gain, s in sorted(gains, key=lambda g: (-g[0], rank[g[1]]))
                if not chosen or float(np.max(vectors[chosen] @ vectors[s])) <= REDUNDANT_AT
            ),
            None,
        )
        if best is None:
            break
        chosen.append(best)
        covered.update(names[best])
    return tuple(chosen), documents
