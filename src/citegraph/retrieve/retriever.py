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
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from citegraph.embed.base import Embedder, normalise
from citegraph.errors import NotFound
from citegraph.extract.keys import entity_key
from citegraph.models import Hop, ReachedNode, Retrieval, Span
from citegraph.retrieve.modes import Query, make_mode
from citegraph.retrieve.traversal import multi_source_bfs
from citegraph.store.base import GraphData, Store

__all__ = ["GraphView", "Retriever"]


@dataclass
class GraphView:
    """The visible graph for one caller, with per-entity vectors and adjacency lists.

    The structures only some retrieval modes need (passages, the PageRank matrix, BM25) are built
    on first use and live as long as the view, which is cached per caller and store state.
    """

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

    # -- built on first use ---------------------------------------------------------------------------
    @cached_property
    def word_counts(self) -> np.ndarray:
        return np.fromiter((len(s.text.split()) for s in self.data.spans), dtype=np.int32, count=len(self.data.spans))

    @cached_property
    def span_id(self) -> dict[Span, int]:
        return {s: i for i, s in enumerate(self.data.spans)}

    @cached_property
    def span_order(self) -> list[tuple[str, str, int, int]]:
        return [_span_order(s) for s in self.data.spans]

    @cached_property
    def passages(self) -> list[tuple[str, str]]:
        """``(document, version)`` of every passage (a document version), in span order."""
        return list(dict.fromkeys((s.document, s.version) for s in self.data.spans))

    @cached_property
    def span_doc(self) -> np.ndarray:
        index = {p: i for i, p in enumerate(self.passages)}
        return np.fromiter((index[(s.document, s.version)] for s in self.data.spans), dtype=np.int64, count=len(self.data.spans))

    @cached_property
    def doc_spans(self) -> list[np.ndarray]:
        order = np.argsort(self.span_doc, kind="stable")
        bounds = np.searchsorted(self.span_doc[order], np.arange(len(self.passages) + 1))
        return [order[bounds[d] : bounds[d + 1]] for d in range(len(self.passages))]

    @cached_property
    def span_entities(self) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in self.data.spans]
        for entity, spans in enumerate(self.mention_spans):
            for span in spans:
                out[span].append(entity)
        return out

    @cached_property
    def specificity(self) -> np.ndarray:
        """Per entity, ``log(1 + passages / passages that mention it)``: high for a rare name."""
        counts = np.fromiter(
            (len({int(self.span_doc[s]) for s in spans}) for spans in self.mention_spans), dtype=np.float64, count=len(self.mention_spans)
        )
        return np.log1p(len(self.passages) / np.maximum(counts, 1))

    @cached_property
    def ppr_matrix(self) -> Any:
        from citegraph.retrieve.modes import ppr_matrix

        mentions = [(e, s) for e, s, _surface, _inferred in self.data.mentions]
        relations = [(src, dst) for _r, src, dst, _t, _s in self.data.relations]
        return ppr_matrix(len(self.data.keys), len(self.data.spans), len(self.passages), mentions, relations, self.span_doc)

    @cached_property
    def _bm25(self) -> Any:
        from citegraph.retrieve.modes import BM25

        return BM25.build([s.text for s in self.data.spans])

    def bm25(self, query: str) -> np.ndarray:
        return self._bm25.scores(query)  # type: ignore[no-any-return]

    @cached_property
    def passage_centroids(self) -> np.ndarray:
        """One vector per passage without a model call: the normalised mean of its sentence vectors."""
        dim = self.data.span_vectors.shape[1] if self.data.span_vectors.ndim == 2 else 0
        out = np.zeros((len(self.passages), dim), dtype=np.float32)
        np.add.at(out, self.span_doc, self.data.span_vectors)
        return normalise(out) if len(out) else out

    @cached_property
    def first_spans(self) -> np.ndarray:
        """Per passage, its first span (in document order): where a passage names what it is about."""
        return np.array([min(spans, key=lambda i: self.span_order[i]) for spans in self.doc_spans], dtype=np.int64)

    @cached_property
    def topic_passages(self) -> dict[int, list[int]]:
        """Entity index -> the passages whose first sentence mentions it: the passages *about* it."""
        out: dict[int, list[int]] = defaultdict(list)
        for d, span in enumerate(self.first_spans):
            for e in self.span_entities[int(span)]:
                out[e].append(d)
        return dict(out)

    def subject_of(self, passage: int) -> int | None:
        """The first entity a passage's first sentence names (by mention position), if any."""
        return self._subjects[passage]

    @cached_property
    def _subjects(self) -> list[int | None]:
        first: dict[int, tuple[int, int]] = {}  # passage -> (position in its first sentence, entity)
        for entity, span, surface, _inferred in self.data.mentions:
            d = int(self.span_doc[span])
            if span != int(self.first_spans[d]):
                continue
            at = self.data.spans[span].text.casefold().find(surface.casefold())
            candidate = (at if at >= 0 else len(self.data.spans[span].text), entity)
            if d not in first or candidate < first[d]:
                first[d] = candidate
        return [first[d][1] if d in first else None for d in range(len(self.passages))]

    def naming_similarity(self, passage: int, sims: np.ndarray) -> dict[int, float]:
        """Per entity a passage mentions, the best similarity to the question of a sentence naming it."""
        out: dict[int, float] = {}
        for s in self.doc_spans[passage]:
            for e in self.span_entities[int(s)]:
                out[e] = max(out.get(e, -1.0), float(sims[int(s)]))
        return out

    @cached_property
    def passage_entities(self) -> list[list[int]]:
        """Per passage, the entities its sentences mention (each once)."""
        return [sorted({e for s in spans for e in self.span_entities[int(s)]}) for spans in self.doc_spans]

    def passage_vectors(self, embed: Callable[[Sequence[str]], np.ndarray]) -> np.ndarray:
        """One vector per passage, of its whole text (its visible sentences, in order), embedded once."""
        if self._passage_vectors is None:
            texts = [" ".join(self.data.spans[i].text for i in sorted(spans, key=lambda i: self.span_order[i])) for spans in self.doc_spans]
            self._passage_vectors = embed(texts) if texts else np.zeros((0, self.data.span_vectors.shape[1]), np.float32)
        return self._passage_vectors

    _passage_vectors: np.ndarray | None = None


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
        mode: str = "bfs",
    ) -> None:
        self.mode = make_mode(mode)
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

    def link(self, question: str, view: GraphView) -> list[str]:
        """Entity keys the question names: its named entities and noun chunks, keyed as the spaCy
        extractor keys mentions (a chunk also by its head noun), that the caller's graph holds."""
        if self.nlp is None:
            return []
        from citegraph.extract.keys import key_from_tokens

        doc = self.nlp(question)  # type: ignore[operator]
        keys: list[str] = []
        for ent in doc.ents:
            keys.append(key_from_tokens(ent, lemmatise=ent.label_ not in {"PERSON", "ORG", "GPE"}))
        for chunk in doc.noun_chunks:
            root = chunk.root
            if root.pos_ == "PRON":
                continue
            parts = sorted([root, *(c for c in root.children if c.dep_ == "compound")], key=lambda t: t.i)
            keys.extend([key_from_tokens(parts), key_from_tokens([root])])
        return [k for k in dict.fromkeys(keys) if k and k in view.index]

    def retrieve(
        self,
        question: str,
        labels: Collection[str] | None,
        *,
        hops: int | None = None,
        top_k: int | None = None,
        include_superseded: bool = False,
        mode: str | None = None,
        limit: int | None = None,
    ) -> Retrieval:
        """Rank the caller's sentences for ``question`` with a retrieval mode (default: this
        retriever's), at most ``limit`` of them (default: enough for twice the context)."""
        hops = self.hops if hops is None else hops
        top_k = self.top_k if top_k is None else top_k
        ranker = self.mode if mode is None else make_mode(mode)
        view = self.view(labels, include_superseded)
        query = Query(
            question,
            self.embedder.embed([question])[0],
            self.link(question, view),
            top_k=top_k,
            hops=hops,
            depth_penalty=self.depth_penalty,
            min_words=self.min_evidence_words,
            embed=self.embedder.embed,
        )
        evidence, seeds = ranker.rank(query, view, limit or max(2 * self.context_size, 20))
        nodes = self.traverse(view, seeds, hops)
        # Checked again here, on every span, before anything can enter the context.
        allowed = self.store.visible(labels, include_superseded)
        evidence = [e for e in evidence if (e.span.document, e.span.version) in allowed]
        return Retrieval(question, tuple(sorted(set(seeds))), hops, tuple(nodes), tuple(evidence))


def _span_order(span: Span) -> tuple[str, str, int, int]:
    return (span.document, span.version, span.start, span.end)
