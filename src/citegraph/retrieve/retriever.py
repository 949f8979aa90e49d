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

Speed at scale. The caller's graph is read once per store state as columns
(:class:`~citegraph.store.columns.GraphColumns`: arrays, no Python object per row) and kept, per
caller and store state, as a :class:`~citegraph.retrieve.view.GraphView` (the visible graph's
arrays, vector indexes and traversal: see :mod:`citegraph.retrieve.view`); a span is made into a
:class:`~citegraph.models.Span` only when it becomes evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from citegraph.embed.base import Embedder
from citegraph.errors import NotFound, UserError
from citegraph.extract.keys import entity_key
from citegraph.models import ReachedNode, Retrieval
from citegraph.question import Question, marked, own_asking_sentence, unwrapped
from citegraph.retrieve.abbreviations import spell_out
from citegraph.retrieve.communities import Community, communities
from citegraph.retrieve.indexes import CallerReader
from citegraph.retrieve.modes import Query, make_mode
from citegraph.retrieve.names import cased, named_ngrams
from citegraph.retrieve.overview import Overview, overview_evidence, overview_request
from citegraph.retrieve.summary import Request, Target, find_target, summary_evidence, summary_request
from citegraph.retrieve.traversal import Reach
from citegraph.retrieve.view import APPROXIMATE_ABOVE, GraphView
from citegraph.sentences import SentenceSplitter
from citegraph.settings import DEFAULTS
from citegraph.store.base import Store, current_on
from citegraph.store.columns import GraphColumns
from citegraph.store.snapshots import Derived

#: The question :meth:`Retriever.prepare` retrieves for: any text makes the same indexes and arrays.
PREPARE_QUESTION = "What do the documents say?"

__all__ = ["APPROXIMATE_ABOVE", "SCOPES", "GraphView", "Reach", "Retriever"]  # the view's names, re-exported where they lived


SCOPES = ("auto", "global", "local")  #: what a question is answered from (:meth:`Retriever.retrieve`)


class _Retrieval(Retrieval):
    """A :class:`Retrieval` whose ``nodes`` (every entity the traversal reached, with its route) are
    made when first read: ``ask`` shows them, a ranking does not need them, and at a hundred thousand
    entities two hops from a well-connected seed reach most of the graph. The value read is the same."""

    @property  # type: ignore[override]
    def nodes(self) -> tuple[ReachedNode, ...]:
        value = self.__dict__["_nodes"]
        if callable(value):
            value = self.__dict__["_nodes"] = value()
        return value  # type: ignore[no-any-return]

    @nodes.setter
    def nodes(self, value: tuple[ReachedNode, ...] | Callable[[], tuple[ReachedNode, ...]]) -> None:
        self.__dict__["_nodes"] = value


class Retriever:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        top_k: int = DEFAULTS.top_k,
        hops: int = DEFAULTS.hops,
        context_size: int = DEFAULTS.context_size,
        depth_penalty: float = DEFAULTS.depth_penalty,
        min_evidence_words: int = 3,
        nlp: object | None = None,
        mode: str = "bfs",
        approximate_above: int = APPROXIMATE_ABOVE,
        nlp_of: SentenceSplitter | None = None,
    ) -> None:
        """``nlp``: the parser that links a question's names, or ``nlp_of``: a splitter whose parser is
        read when a question first needs it (opening a graph to list its documents loads no model)."""
        self.mode = make_mode(mode)
        self.min_evidence_words = min_evidence_words
        self.store = store
        self.embedder = embedder
        self.top_k = top_k
        self.hops = hops
        self.context_size = context_size
        self.depth_penalty = depth_penalty
        self._nlp, self._nlp_of = nlp, nlp_of
        self.approximate_above = approximate_above  #: visible sentences above which vector search is approximate
        self._cache: dict[tuple, GraphView] = {}

    def view(self, labels: Collection[str] | None, include_superseded: bool = False) -> GraphView:
        token = (self.store.change_token(), None if labels is None else frozenset(labels), include_superseded)
        if token not in self._cache:
            self._cache.clear()
            columns, derived = self._columns(labels, include_superseded)
            reader = None
            if len(columns.span_text) > self.approximate_above and self.store.offers_nearest_spans:
                # The store's index (pgvector), asked with this caller's labels: it filters them in SQL.
                reader = CallerReader(self.store, labels, include_superseded)
            self._cache[token] = GraphView.build(columns, approximate_above=self.approximate_above, store=reader, derived=derived)
        return self._cache[token]

    def _columns(self, labels: Collection[str] | None, include_superseded: bool) -> tuple[GraphColumns, Derived | None]:
        """The caller's graph: saved by an earlier process for this store generation, or read from
        the store (and saved, when large, for the next one: :mod:`citegraph.store.snapshots`); and
        where a view of a saved graph keeps its indexes and arrays for the next process."""
        cache = self.store.view_cache()
        if cache is None:
            return self.store.graph_columns(labels, include_superseded), None
        with self.store.snapshot():  # the generation and the rows of one state
            generation = self.store.generation()
            if generation is None:  # contents no saved graph can be named by
                return self.store.graph_columns(labels, include_superseded), None
            columns = cache.load(generation, labels, include_superseded)
            if columns is None:
                columns = self.store.graph_columns(labels, include_superseded)
                cache.save(generation, labels, include_superseded, columns)
        return columns, cache.derived(generation, labels, include_superseded)

    def clear_cache(self) -> None:
        self._cache.clear()

    def prepare(self, callers: Sequence[tuple[Collection[str] | None, bool]]) -> int:
        """For each caller ``(labels, include_superseded)``: read its graph as the store now is and make
        what a first question of each kind makes of it (the mode's indexes and arrays, through one
        retrieval of :data:`PREPARE_QUESTION`; the communities' membership; the names that name one
        entity), kept with the graph where the store saves graphs (:mod:`citegraph.store.snapshots`), so
        that the first ``ask`` after a write maps them instead of making them. Returns how many callers
        were prepared."""
        for labels, include_superseded in callers:
            self.retrieve(PREPARE_QUESTION, labels, include_superseded=include_superseded, scope="local")
            view = self.view(labels, include_superseded)
            communities(view)
            view.same_names  # noqa: B018 -- made here (kept with the graph), not by the first question whose mention hop reads it
        return len(callers)

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
                    raise NotFound.among("entity", name, view.keys, match=key)
            keys.append(key)
        return keys

    def traverse(self, view: GraphView, seeds: Sequence[str], hops: int) -> list[ReachedNode]:
        return list(view.reach(seeds, hops).nodes())

    def link(self, question: str | Question, view: GraphView, *, as_written: bool = True) -> list[str]:
        """Entity keys the question names: its named entities and noun chunks, keyed as the spaCy
        extractor keys mentions (a chunk also by its head noun), and with ``as_written`` the
        capitalised runs of words that are a key as they stand, or the name the documents write an
        entity by (:attr:`GraphView.aliases`) (:func:`named_ngrams`: a film title the parser does not
        read as a name), that the caller's graph holds."""
        asked = Question.of(question)
        written: list[str] = []
        if as_written:  # a key as written, or another way the documents write that entity (an alias)
            aliases = view.aliases
            for name in named_ngrams(asked.text, lambda n: n in view.index or n in aliases):
                written += [name] if name in view.index else aliases[name]
        doc = asked.doc
        if self.nlp is None or doc is None:
            return written
        from citegraph.extract.keys import key_from_tokens

        keys: list[str] = []
        for ent in doc.ents:
            keys.append(key_from_tokens(ent, lemmatise=ent.label_ not in {"PERSON", "ORG", "GPE"}))
        for chunk in doc.noun_chunks:
            root = chunk.root
            if root.pos_ == "PRON":
                continue
            parts = sorted([root, *(c for c in root.children if c.dep_ == "compound")], key=lambda t: t.i)
            keys.extend([key_from_tokens(parts), key_from_tokens([root])])
        return [k for k in dict.fromkeys([*keys, *written]) if k and k in view.index]

    def retrieve(
        self,
        question: str | Question,
        labels: Collection[str] | None,
        *,
        hops: int | None = None,
        top_k: int | None = None,
        include_superseded: bool = False,
        mode: str | None = None,
        limit: int | None = None,
        as_of: str | None = None,
        scope: str = "auto",
    ) -> Retrieval:
        """Rank the caller's sentences for ``question`` with a retrieval mode (default: this
        retriever's), at most ``limit`` of them (default: enough for twice the context). With
        ``as_of`` (an ISO 8601 day), only the document versions current on that day
        (:func:`~citegraph.store.base.current_on`) may give evidence. A :class:`~citegraph.question.Question`
        is read as parsed; a text is parsed when a mode first needs its names. ``scope``: ``auto`` (a
        question about the whole corpus, :func:`~citegraph.retrieve.overview.overview_request`, is
        answered from the communities; one about a named document from its sections; any other by the
        mode), ``global`` (from the communities, whatever its form) or ``local`` (by the mode)."""
        if scope not in SCOPES:
            raise UserError(f"unknown scope {scope!r}; choose one of {', '.join(SCOPES)}")
        hops = self.hops if hops is None else hops
        top_k = self.top_k if top_k is None else top_k
        ranker = self.mode if mode is None else make_mode(mode)
        limit = limit or max(2 * self.context_size, 20)
        then: set[tuple[str, str]] | None = None
        if as_of is not None:
            then = current_on(as_of, *self.store.history(labels))  # the supersessions this caller sees
            include_superseded, limit = True, 3 * limit  # every version is a candidate; the day decides
        view = self.view(labels, include_superseded)
        asked_as = question.text if isinstance(question, Question) else question
        read_as, spelled = spell_out(cased(marked(unwrapped(asked_as)), view.proper), view.abbreviations)
        # the question as read: a request around it dropped ("Can you tell me …"), its "?", the capitals the
        # documents give its names when typed in lower case, abbreviations spelled out (docs/results/2026-12-05/question-framings);
        # a text is parsed only if a mode links its names
        reading: str | Question = question if isinstance(question, Question) and read_as == asked_as else read_as
        question = read_as
        query = Query(
            question,
            question_vector(self.embedder, question),
            link=lambda: self.link(reading, view),
            top_k=top_k,
            hops=hops,
            depth_penalty=self.depth_penalty,
            min_words=self.min_evidence_words,
            embed=self.embedder.embed,
            context_size=self.context_size,
        )
        # a question about a whole document or section (citegraph.retrieve.summary) is answered from its structure
        summary: str | None = None
        seeds: list[str] = []
        drawn: list[Community] = []
        overview = None if scope == "local" else overview_request(question) or (Overview() if scope == "global" else None)
        asked = None if scope != "auto" or overview is not None else summary_request(question)
        target = None if asked is None else self.summary_target(view, asked, then)
        if overview is not None:  # a question about the whole corpus: one sentence per community drawn on
            evidence, drawn = overview_evidence(view, communities(view), overview, query.vector, self.context_size)
            summary = overview.name if evidence else None
        elif target is not None and asked is not None:
            evidence = summary_evidence(view, target, asked, query.vector, embedder=self.embedder.name)
            summary = target.name if evidence else None
        if summary is None:
            evidence, seeds = ranker.rank(query, view, limit)
        # Checked again here, on every span, before anything can enter the context.
        allowed = self._readable(labels, include_superseded, {(e.span.document, e.span.version) for e in evidence})
        if then is not None:
            allowed &= then
        evidence = [e for e in evidence if (e.span.document, e.span.version) in allowed]
        # What the documents' structure does not assert (kept at ingest), with the spans the checks will read.
        frames = self.store.span_frames([e.span for e in evidence])
        if frames:
            evidence = [
                replace(e, span=replace(e.span, frame=frames[key]))
                if (key := (e.span.document, e.span.version, e.span.start, e.span.end)) in frames
                else e
                for e in evidence
            ]
        nodes: Any = lambda: view.reach(seeds, hops).nodes()  # noqa: E731  (made when first read: see _Retrieval)
        kept = {e.community for e in evidence}
        named = tuple((c.id, c.title(view)) for c in drawn if c.id in kept)
        return _Retrieval(
            asked_as,
            tuple(sorted(set(seeds))),
            hops,
            nodes,
            tuple(evidence),
            summary,
            read_as if read_as != asked_as else None,
            spelled,
            named,
        )

    @property
    def nlp(self) -> object | None:
        if self._nlp is None and self._nlp_of is not None:
            self._nlp, self._nlp_of = self._nlp_of.nlp_or_none(), None
        return self._nlp

    @nlp.setter
    def nlp(self, value: object | None) -> None:
        self._nlp, self._nlp_of = value, None

    def summary_target(self, view: GraphView, asked: Request, then: set[tuple[str, str]] | None = None) -> Target | None:
        """The document or section a summary question names, among the versions this caller may read
        (on the day asked, with ``then``); a Markdown heading's level read from its document's text."""
        texts: dict[tuple[str, str], str] = {}
        c = view.columns

        def level(span: int) -> int | None:
            key = c.passages[int(c.span_passage[span])]
            if key not in texts:
                doc = self.store.get_document(*key)
                texts[key] = "" if doc is None or doc.media_type != "text/markdown" else doc.text
            text, start = texts[key], int(c.span_start[span])
            line = text[text.rfind("\n", 0, start) + 1 : start]
            hashes = len(line) - len(line.lstrip("#"))
            return hashes if text and hashes and not line.lstrip("#").strip() else None

        return find_target(view, asked, allowed=lambda d, v: then is None or (d, v) in then, heading_level=level)

    def _readable(self, labels: Collection[str] | None, include_superseded: bool, versions: set[tuple[str, str]]) -> set[tuple[str, str]]:
        return self.store.visible_among(labels, include_superseded, versions)  # the cited versions, not a list of all


def question_vector(embedder: Embedder, question: str) -> Any:
    """The vector retrieval ranks by: the question's, and for a question typed after something said
    before it ("Quick question from a new starter. How many days of holiday do I get?", "I'm off
    sick. After how many days do I need a note?") the mean of the whole text's vector and the asking
    sentence's (:func:`~citegraph.question.asking_sentence`): what is asked weighs more than the words
    around it, which still count (the second example's "off sick" is what it is about). An asking
    sentence that points back ("What is his name?") is read with the rest, whole."""
    asking = own_asking_sentence(question)
    if asking is None:  # one sentence, or "… What is his name?": its subject is what was said before
        return embedder.embed([question])[0]
    whole, asked = embedder.embed([question, asking])
    mean = np.asarray(whole, dtype=np.float32) + np.asarray(asked, dtype=np.float32)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm else whole
