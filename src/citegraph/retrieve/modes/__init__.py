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
                    two sentences of each passage first; in a chat window, a line by a speaker the
                    question names, or holding more of its words, before the rest
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

from collections.abc import Callable

from citegraph.retrieve.modes.base import Mode, Query
from citegraph.retrieve.modes.bridge import Bridge
from citegraph.retrieve.modes.dense import DensePassage, DenseSentence, Notebook
from citegraph.retrieve.modes.graph import BFS, Hybrid, PersonalizedPageRank

__all__ = [
    "BFS",
    "MODES",
    "Bridge",
    "DensePassage",
    "DenseSentence",
    "Hybrid",
    "Mode",
    "Notebook",
    "PersonalizedPageRank",
    "Query",
    "make_mode",
]


MODES: dict[str, Callable[[], Mode]] = {
    "dense-sentence": DenseSentence,
    "dense-passage": DensePassage,
    "notebook": Notebook,
    "bfs": BFS,
    "ppr": PersonalizedPageRank,
    "hybrid": Hybrid,
    "bridge": Bridge,
    "bridge-embedded": lambda: Bridge(
        embedded=True,
        seeds=0.5,
        mentions=0.1,
        titles=1.0,
        per_passage=2,
        mention_hop=True,
        speakers=0.1,
        said_by=0.1,
        dates=0.5,
        continuation=True,
        # chosen on the mean of the development corpora's dev halves and LiHua-World dev (0.2, 0.3 and
        # 0.4 within two questions of each other; HotpotQA and HaluEval have no chat log):
        # docs/results/2026-12-07/chat-line-words/
        lexical=0.4,
    ),
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
