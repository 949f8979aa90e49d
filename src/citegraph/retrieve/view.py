"""The caller's visible graph: what one set of access labels may read of the store, held as arrays.

:class:`GraphView` is read alike by retrieval (seeds, traversal, the ranking modes), by ``show``
(:meth:`GraphView.entity`, :meth:`GraphView.relations`) and by ``export``: none of them reads the
store's rows another way, so none can see more than the others.

It is built from the store's read of that caller's graph (:class:`~citegraph.store.columns.GraphColumns`,
arrays with no Python object per row, or any store's :class:`~citegraph.store.base.GraphData`):
sparse matrices for mentions and relations, one vector per entity and per passage, and a span made
into a :class:`~citegraph.models.Span` only when it is shown. :attr:`GraphView.data` gives every row
as a named record (:class:`~citegraph.store.base.GraphMention`, :class:`~citegraph.store.base.GraphRelation`).
:class:`Reach` is :func:`~citegraph.retrieve.traversal.multi_source_bfs` over those arrays (same
depths, same routes, routes made only for the entities that are shown). Above ``approximate_above``
visible sentences a view also answers nearest-sentence and nearest-passage queries with an
approximate index (:class:`~citegraph.embed.base.IVFIndex`) built from the caller's own vectors, so
it can hold nothing the caller may not read; where the store offers a server-side index
(:meth:`~citegraph.store.base.Store.nearest_spans`, pgvector's HNSW), the nearest sentences come from
it instead (:class:`StoreSpanIndex`), filtered by the caller's labels in the store's SQL and then
to this view's own sentences.

The name helpers are :mod:`~citegraph.retrieve.names`, the walk :mod:`~citegraph.retrieve.traversal`,
the store's index :mod:`~citegraph.retrieve.indexes`. Why this file is long (~700 lines): a
:class:`GraphView` is one object of arrays each derived on first read from others (the title,
subject and topic tables read the passages, the mentions and the first sentences; the indexes read
the vectors and what a saved graph kept); divided further, each part would reach into the others'
private arrays.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from citegraph.embed.base import ExactIndex, IVFIndex, VectorIndex, normalise, top_indices
from citegraph.models import Entity, EntityMention, Hop, Relation, Span
from citegraph.retrieve import scoring
from citegraph.retrieve.abbreviations import definitions
from citegraph.retrieve.arrays import csr, firsts, gather, rank_of
from citegraph.retrieve.days import DAY_DIGITS, DAY_WORDS, calendar_name, day_of, days_named
from citegraph.retrieve.indexes import CallerReader, StoreSpanIndex
from citegraph.retrieve.names import capitalised, loose_key, named_ngrams, relation_stems, same_names, title_key
from citegraph.retrieve.traversal import Hops, Reach
from citegraph.sentences import asks, chat_speaker, evidence_words, message_speaker, section_texts, sections, time_line
from citegraph.store.columns import GraphColumns, GraphData
from citegraph.store.snapshots import Derived, NothingKept

#: what ``GraphView.__init__`` makes of the mention rows (kept with a saved graph)
_MENTION_ARRAYS = ("pair_entity", "pair_span", "entity_vectors", "entity_ptr", "entity_spans", "span_ptr", "span_ents")


__all__ = ["APPROXIMATE_ABOVE", "GraphView"]

#: Visible sentences above which a view searches vectors approximately. At 200,000 sentences an exact
#: scan of every sentence vector costs ~25 ms on two cores; an IVF probe costs ~2 ms.
APPROXIMATE_ABOVE = 200_000
PROPER_READS = 64  #: the most sentences :meth:`GraphView.proper` reads for one word


_NONE = np.zeros(0, dtype=np.int64)


class GraphView:
    """The visible graph for one caller: arrays over its spans, entities, mentions and relations.

    Built from :class:`GraphColumns` in a few vectorised passes; the structures only some modes
    need (passages, the PageRank matrix, BM25, adjacency lists of :class:`Hop`) are built on first
    use and live as long as the view, which is cached per caller and store state.
    """

    def __init__(
        self,
        columns: GraphColumns,
        *,
        approximate_above: int = APPROXIMATE_ABOVE,
        store: CallerReader | None = None,
        derived: Derived | None = None,
    ) -> None:
        c = self.columns = columns
        self.store = store  #: the store's reads for this caller, where it offers a nearest-sentence search
        #: where this view keeps what it computes (a saved graph's folder), so a later process maps it
        self.derived: Derived = derived if derived is not None else NothingKept()
        self.keys = c.keys
        self.index = {k: i for i, k in enumerate(c.keys)}
        self._proper: dict[str, str | None] = {}  #: :meth:`proper`'s answers, by word
        self.span_vectors = c.span_vectors
        self.key_vectors = c.key_vectors
        self.n_entities, self.n_spans = len(c.keys), len(c.span_text)
        # Passages: a document version cut by its own structure (sentences.sections), a short one whole
        cut = self.derived.arrays("sections", ("span_section", "section_version", "heading"), self._sections)
        self.span_doc: np.ndarray = cut["span_section"]  #: per span, its passage
        self.section_version: np.ndarray = cut["section_version"]  #: per passage, its version (index into ``columns.passages``)
        self.heading: np.ndarray = cut["heading"]  #: per span: a heading, the title of its passage, never evidence
        #: ``(document, version)`` of every passage, in span order (the passages of a version one after another)
        self.passages: list[tuple[str, str]] = [c.passages[v] for v in self.section_version.tolist()]
        self.approximate_above = approximate_above
        self.approximate = self.n_spans > approximate_above
        made = self.derived.arrays("mentions", _MENTION_ARRAYS, self._mention_graph)
        self.pair_entity, self.pair_span, self.entity_vectors = made["pair_entity"], made["pair_span"], made["entity_vectors"]
        self.entity_ptr, self.entity_spans = made["entity_ptr"], made["entity_spans"]
        self.span_ptr, self.span_ents = made["span_ptr"], made["span_ents"]
        self.names: Sequence[str] = self.derived.texts("names", self._names)

    def _sections(self) -> dict[str, np.ndarray]:
        """Each version's passages (:func:`~citegraph.sentences.sections` of its spans in order)."""
        c = self.columns
        order = np.lexsort((c.span_end, c.span_start, c.span_passage))
        span_section = np.zeros(self.n_spans, dtype=np.int64)
        heading = np.zeros(self.n_spans, dtype=bool)
        versions: list[int] = []
        bounds = np.flatnonzero(np.diff(c.span_passage[order])) + 1
        for group in np.split(order, bounds) if len(order) else []:
            owner, heads = sections([(int(c.span_start[i]), int(c.span_end[i]), c.span_text[i]) for i in group.tolist()])
            span_section[group] = len(versions) + np.asarray(owner, dtype=np.int64)
            heading[group] = heads
            versions += [int(c.span_passage[group[0]])] * (owner[-1] + 1)
        return {"span_section": span_section, "section_version": np.asarray(versions, dtype=np.int64), "heading": heading}

    def _mention_graph(self) -> dict[str, np.ndarray]:
        """The mention pairs, the entity vectors and the mention graph both ways (what ``__init__`` needs)."""
        c = self.columns
        n_e, n_s = len(c.keys), len(c.span_text)
        out: dict[str, np.ndarray] = {}
        # Distinct (entity, span) mention pairs, in the order each first occurs.
        pairs = c.mention_entity * max(n_s, 1) + c.mention_span
        first = np.sort(np.unique(pairs, return_index=True)[1])
        pair_entity, pair_span = out["pair_entity"], out["pair_span"] = c.mention_entity[first], c.mention_span[first]
        # Entity vector: key vector + mean of its distinct mention spans' vectors. The sum runs over the
        # spans in first-occurrence order, in float32, as the per-mention loop it replaces did, so the
        # vectors are bit-identical to it.
        from scipy import sparse

        pointers, spans = csr(pair_entity, pair_span, n_e)
        if n_e:
            summed = sparse.csr_matrix((np.ones(len(spans), dtype=np.float32), spans, pointers), shape=(n_e, n_s)) @ self.span_vectors
            summed /= np.maximum(np.diff(pointers).astype(np.float32), 1)[:, None]
            out["entity_vectors"] = normalise(np.add(self.key_vectors, summed, out=summed), out=summed)
        else:
            out["entity_vectors"] = np.asarray(self.key_vectors, dtype=np.float32)
        # Entity -> spans (ascending) and span -> entities (ascending): the mention graph both ways.
        by_entity = np.lexsort((pair_span, pair_entity))
        out["entity_ptr"], out["entity_spans"] = csr(pair_entity[by_entity], pair_span[by_entity], n_e)
        by_span = np.lexsort((pair_entity, pair_span))
        out["span_ptr"], out["span_ents"] = csr(pair_span[by_span], pair_entity[by_span], n_s)
        return out

    @classmethod
    def build(
        cls,
        data: GraphData | GraphColumns,
        *,
        approximate_above: int = APPROXIMATE_ABOVE,
        store: CallerReader | None = None,
        derived: Derived | None = None,
    ) -> GraphView:
        columns = data if isinstance(data, GraphColumns) else GraphColumns.from_graph_data(data)
        return cls(columns, approximate_above=approximate_above, store=store, derived=derived)

    def _names(self) -> list[str]:
        """Per entity, its most frequent surface form (ties: the smallest), its key if it has none."""
        c = self.columns
        n_codes = max(len(c.surfaces), 1)
        pairs, counts = np.unique(c.mention_entity * n_codes + c.mention_surface, return_counts=True)
        entity, code = pairs // n_codes, pairs % n_codes
        surface_rank = rank_of(c.surfaces)
        best = np.lexsort((surface_rank[code] if len(code) else code, -counts, entity))
        names = list(self.keys)
        taken = entity[best]
        keep = firsts(taken)
        for e, s in zip(taken[keep].tolist(), code[best][keep].tolist(), strict=True):
            names[e] = c.surfaces[s]
        return names

    # -- rows as records ------------------------------------------------------------------------------
    def span(self, i: int) -> Span:
        return self.columns.span(int(i))

    @cached_property
    def data(self) -> GraphData:
        """Every visible row as a named record (``show``, ``export``); retrieval itself does not need it."""
        return self.columns.to_graph_data()

    def entity(self, key: str) -> Entity:
        """Every visible mention of one entity (``show entity``), current ones first, each with its span;
        its name is the surface most of its current mentions use (ties: the smallest)."""
        index = self.index[key]
        data = self.data
        mentions = tuple(
            sorted(
                (
                    EntityMention(data.spans[m.span], m.surface, "", data.span_current[m.span], m.inferred)
                    for m in data.mentions
                    if m.entity == index
                ),
                key=lambda m: (not m.current, m.span.document, m.span.version, m.span.start),
            )
        )
        current = [m for m in mentions if m.current] or list(mentions)
        name_counts = Counter(m.surface for m in current)
        best_name = min(name_counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        return Entity(key, best_name, "", mentions, all(m.inferred for m in mentions))

    def relations(self, between: Collection[str] | None = None) -> list[Relation]:
        """Every visible relation row (``show relations``), one per asserting span, sorted; with
        ``between`` (entity keys) only those joining them (one key: its self-loops)."""
        data = self.data
        wanted = set(between) if between is not None else None
        out = []
        for r in data.relations:
            s, t = data.keys[r.source], data.keys[r.target]
            if wanted is not None and {s, t} != wanted and not (len(wanted) == 1 and s == t):
                continue
            out.append(Relation(r.id, s, t, r.type, data.spans[r.span], data.span_current[r.span]))
        return sorted(out, key=lambda r: (r.source, r.target, r.type, r.span.document, r.span.start))

    def entities_of(self, span: int) -> np.ndarray:
        """The entities a span mentions, ascending."""
        return self.span_ents[self.span_ptr[span] : self.span_ptr[span + 1]]

    def spans_of(self, entity: int) -> np.ndarray:
        """The spans that mention an entity, ascending."""
        return self.entity_spans[self.entity_ptr[entity] : self.entity_ptr[entity + 1]]

    def spans_naming(self, entity: int) -> np.ndarray:
        """The spans that mention an entity or another name for it (:attr:`same_names`: "Hannah" in a
        chat line and "Hannah Lindqvist" in the handbook), ascending."""
        others = self.same_names.get(entity)
        if not others:
            return self.spans_of(entity)
        return np.unique(np.concatenate([self.spans_of(entity), *(self.spans_of(o) for o in others)]))

    @cached_property
    def same_names(self) -> dict[int, tuple[int, ...]]:
        """Per entity, the other visible entities naming the same one (:func:`~citegraph.retrieve.names.same_names`),
        a name that is only a time ("March") never among them. Read from every name once (about a
        second for 300,000), so kept beside a saved graph as pairs, made when a write prepares it."""
        pairs = self.derived.array("same_names", self._same_name_pairs)
        out: dict[int, list[int]] = {}
        for e, other in pairs.tolist():
            out.setdefault(e, []).append(other)
        return {e: tuple(others) for e, others in out.items()}

    def _same_name_pairs(self) -> np.ndarray:
        calendar = self.calendar
        pairs = [(e, o) for e, others in same_names(self.names).items() if not calendar[e] for o in others if not calendar[o]]
        return np.array(pairs, dtype=np.int64).reshape(-1, 2)

    def spans_in(self, passage: int) -> np.ndarray:
        """The spans of a passage, ascending."""
        return self.doc_order[self.doc_ptr[passage] : self.doc_ptr[passage + 1]]

    # -- built on first use ---------------------------------------------------------------------------
    @cached_property
    def key_rank(self) -> np.ndarray:
        """Each entity's position in key order (its index, for a store that lists keys sorted)."""
        return rank_of(self.keys)

    @cached_property
    def span_rank(self) -> np.ndarray:
        return self.derived.array("span_rank", self._span_rank)

    def _span_rank(self) -> np.ndarray:
        """Each span's position in ``(document, version, start, end)`` order."""
        c = self.columns
        order = np.lexsort((c.span_end, c.span_start, rank_of(c.passages)[c.span_passage]))
        out = np.zeros(self.n_spans, dtype=np.int64)
        out[order] = np.arange(self.n_spans)
        return out

    @cached_property
    def _by_rank(self) -> np.ndarray:
        out = np.zeros(self.n_spans, dtype=np.int64)
        out[self.span_rank] = np.arange(self.n_spans)
        return out

    def next_span(self, span: int) -> int | None:
        """The span after ``span`` in its document version, if any (the reply to a chat line)."""
        at = int(self.span_rank[span]) + 1
        if at >= self.n_spans:
            return None
        j = int(self._by_rank[at])
        return j if self.columns.span_passage[j] == self.columns.span_passage[span] else None

    def previous_span(self, span: int) -> int | None:
        """The span before ``span`` in its passage, if any (the sentence a "She joined in 2015." leans on)."""
        at = int(self.span_rank[span]) - 1
        if at < 0:
            return None
        j = int(self._by_rank[at])
        return j if self.columns.span_passage[j] == self.columns.span_passage[span] else None

    def passages_on(self, day: str) -> np.ndarray:
        """The passages that name ``day`` ("September 30", :func:`~citegraph.retrieve.days.days_named`)
        in a sentence, or whose document's name does ("week40/20260930_1600.txt"), ascending."""
        return self._days.get(day, _NONE)

    @cached_property
    def _days(self) -> dict[str, np.ndarray]:
        """Day -> the passages naming it: one scan of every sentence (the first question naming a day)."""
        texts = self.columns.span_text
        joined = "\n".join(texts)
        ends = np.cumsum(np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts)))
        found: dict[str, set[int]] = defaultdict(set)
        for pattern in (DAY_DIGITS, DAY_WORDS):
            for m in pattern.finditer(joined):
                day = day_of(m)
                if day is not None:
                    found[day].add(int(self.span_doc[int(np.searchsorted(ends, m.start(), side="right"))]))
        names: dict[int, set[str]] = {}
        for d, v in enumerate(self.section_version.tolist()):
            if v not in names:
                document = self.columns.passages[v][0]
                names[v] = days_named(document)
            for day in names[v]:
                found[day].add(d)
        return {day: np.array(sorted(ps), dtype=np.int64) for day, ps in found.items()}

    @cached_property
    def whole(self) -> np.ndarray:
        """Per passage: it is the whole of its document version (a short document, one passage), not one
        section of a long one or one window of a chat log."""
        versions = self.section_version
        return np.bincount(versions)[versions] == 1 if len(versions) else np.zeros(0, dtype=bool)

    def is_log(self, passage: int) -> bool:
        """The passage is lines of a chat log or transcript: two or more spans, most of them shaped
        ``Speaker: text`` (:func:`~citegraph.sentences.message_speaker`). Such a passage is a window of
        a conversation, about no one thing its first line names. Computed per passage when first asked."""
        known = self._logs.get(passage)
        if known is None:
            spans = self.spans_in(passage).tolist()
            speaking = sum(1 for i in spans if message_speaker(self.columns.span_text[i]) is not None)
            known = self._logs[passage] = len(spans) >= 2 and speaking >= 0.6 * len(spans)
        return known

    @cached_property
    def _logs(self) -> dict[int, bool]:
        return {}

    def is_chat(self, passage: int) -> bool:
        """The passage is a window of messages: a log (:meth:`is_log`) most of whose lines have a
        speaker that reads as a name (:func:`~citegraph.sentences.chat_speaker`), not a checklist's
        ``Tour of the branch: …`` items nor a table's rows written out. Computed per passage when first asked."""
        known = self._chats.get(passage)
        if known is None:
            spans = self.spans_in(passage).tolist()
            known = self.is_log(passage) and sum(1 for i in spans if chat_speaker(self.columns.span_text[i]) is not None) >= 0.6 * len(
                spans
            )
            self._chats[passage] = known
        return known

    @cached_property
    def _chats(self) -> dict[int, bool]:
        return {}

    def stems(self, span: int) -> frozenset[str]:
        """The span's word stems (:func:`~citegraph.retrieve.names.relation_stems`), read when first
        asked and kept: what the question's words are matched against, question after question."""
        known = self._stems.get(span)
        if known is None:
            known = self._stems[span] = relation_stems(self.columns.span_text[span])
        return known

    @cached_property
    def _stems(self) -> dict[int, frozenset[str]]:
        return {}

    def speakers_in(self, passage: int) -> frozenset[str]:
        """The speakers of the passage's chat lines (:func:`~citegraph.sentences.message_speaker`), a
        conversation's time line being no one's. Computed per passage when first asked."""
        known = self._passage_speakers.get(passage)
        if known is None:
            texts = [self.columns.span_text[i] for i in self.spans_in(passage).tolist()]
            speakers = (message_speaker(t) for t in texts if not time_line(t))  # "Time: 20260506_12:00" is no one's line
            known = self._passage_speakers[passage] = frozenset(s for s in speakers if s is not None)
        return known

    @cached_property
    def _passage_speakers(self) -> dict[int, frozenset[str]]:
        return {}

    def asks(self, span: int) -> bool:
        """The span only asks (:func:`~citegraph.sentences.asks`): a question, not a message that
        states something and then asks what the others think."""
        return asks(self.columns.span_text[span])

    @cached_property
    def not_evidence(self) -> np.ndarray:
        """Per span: a heading over body text of its passage (:attr:`heading`), which names what
        the passage is about and is never evidence; a passage of headings alone keeps them."""
        body = np.bincount(self.span_doc, weights=~self.heading, minlength=len(self.passages))
        return self.heading & (body[self.span_doc] > 0)

    @cached_property
    def word_counts(self) -> np.ndarray:
        return self.derived.array("word_counts", self._word_counts)

    def _word_counts(self) -> np.ndarray:
        return np.fromiter((evidence_words(t) for t in self.columns.span_text), dtype=np.int32, count=self.n_spans)

    @cached_property
    def _doc_csr(self) -> tuple[np.ndarray, np.ndarray]:
        return csr(self.span_doc, np.arange(self.n_spans), len(self.passages))

    @property
    def doc_ptr(self) -> np.ndarray:
        return self._doc_csr[0]

    @property
    def doc_order(self) -> np.ndarray:
        return self._doc_csr[1]

    @cached_property
    def doc_spans(self) -> list[np.ndarray]:
        """Per passage, its spans ascending (views into one array)."""
        return [self.spans_in(d) for d in range(len(self.passages))]

    @cached_property
    def span_entities(self) -> list[list[int]]:
        return [self.entities_of(i).tolist() for i in range(self.n_spans)]

    @cached_property
    def mention_spans(self) -> list[list[int]]:
        return [self.spans_of(e).tolist() for e in range(self.n_entities)]

    @cached_property
    def adjacency(self) -> dict[str, list[Hop]]:
        """Entity key -> the hops leaving it, both directions, in relation order (for :func:`multi_source_bfs`)."""
        c = self.columns
        out: dict[str, list[Hop]] = defaultdict(list)
        for src, dst, type_, span in zip(
            c.relation_source.tolist(), c.relation_target.tolist(), c.relation_type.tolist(), c.relation_span.tolist(), strict=True
        ):
            s, t, sp = self.keys[src], self.keys[dst], self.span(span)
            out[s].append(Hop(s, c.types[type_], "out", t, sp))
            if s != t:
                out[t].append(Hop(t, c.types[type_], "in", s, sp))
        return dict(out)

    @cached_property
    def calendar(self) -> np.ndarray:
        """Per entity, whether its name is only a time (:func:`~citegraph.retrieve.days.calendar_name`)."""
        return self.derived.array("calendar", lambda: np.fromiter((calendar_name(k) for k in self.keys), dtype=bool, count=len(self.keys)))

    @cached_property
    def specificity(self) -> np.ndarray:
        return self.derived.array("specificity", self._specificity)

    def _specificity(self) -> np.ndarray:
        """Per entity, ``log(1 + passages / passages that mention it)``: high for a rare name."""
        n_docs = max(len(self.passages), 1)
        distinct = np.unique(self.pair_entity * n_docs + self.span_doc[self.pair_span])
        counts = np.bincount(distinct // n_docs, minlength=self.n_entities).astype(np.float64)
        return np.log1p(len(self.passages) / np.maximum(counts, 1))

    @cached_property
    def ppr_matrix(self) -> Any:
        c = self.columns
        return scoring.ppr_matrix(
            self.n_entities,
            self.n_spans,
            len(self.passages),
            np.stack([self.pair_entity, self.pair_span], axis=1),
            np.stack([c.relation_source, c.relation_target], axis=1),
            self.span_doc,
        )

    @cached_property
    def _bm25(self) -> Any:
        return scoring.BM25.build(self.columns.span_text)

    def bm25(self, query: str) -> np.ndarray:
        return self._bm25.scores(query)  # type: ignore[no-any-return]

    @cached_property
    def passage_centroids(self) -> np.ndarray:
        """One vector per passage without a model call: the normalised mean of its sentence vectors.

        Summed in span order in float32 (a sparse product whose rows list the spans ascending), as
        ``np.add.at`` over the spans did, so the vectors are bit-identical to it."""
        from scipy import sparse

        dim = self.span_vectors.shape[1] if self.span_vectors.ndim == 2 else 0
        if not len(self.passages):
            return np.zeros((0, dim), dtype=np.float32)
        matrix = sparse.csr_matrix(
            (np.ones(self.n_spans, dtype=np.float32), self.doc_order, self.doc_ptr), shape=(len(self.passages), self.n_spans)
        )
        summed = np.asarray(matrix @ self.span_vectors, dtype=np.float32)
        return normalise(summed, out=summed)

    @cached_property
    def first_spans(self) -> np.ndarray:
        return self.derived.array("first_spans", self._first_spans)

    def _first_spans(self) -> np.ndarray:
        """Per passage, its first span (in document order): where a passage names what it is about."""
        order = np.lexsort((self.span_rank, self.span_doc))
        first = firsts(self.span_doc[order])
        out = np.zeros(len(self.passages), dtype=np.int64)
        out[self.span_doc[order][first]] = order[first]
        return out

    def proper(self, word: str) -> str | None:
        """``word`` as this caller's sentences write it as a name ("lisbon" -> "Lisbon", "sso" ->
        "SSO"; :func:`~citegraph.retrieve.names.capitalised`), read from the sentences that mention
        the entity keyed by it (at most :data:`PROPER_READS` of them); None for a word no entity is
        keyed by, or one they write in lower case. How a question typed in lower case is read."""
        if word not in self._proper:
            entity = self.index.get(word.casefold())
            texts = [] if entity is None else [self.columns.span_text[i] for i in self.spans_of(int(entity))[:PROPER_READS].tolist()]
            self._proper[word] = capitalised(word, texts) if texts else None
        return self._proper[word]

    @cached_property
    def abbreviations(self) -> dict[str, str]:
        """The short forms this caller's sentences define, each with its long form
        (:mod:`citegraph.retrieve.abbreviations`): one scan of the sentences, kept beside a saved graph
        so that a later process (each CLI question) reads it instead of scanning again."""
        lines = self.derived.texts(
            "abbreviations", lambda: [f"{short}\t{long}" for short, long in definitions(self.columns.span_text).items()]
        )
        return dict(line.split("\t", 1) for line in lines)

    @cached_property
    def topic(self) -> tuple[np.ndarray, np.ndarray]:
        made = self.derived.arrays(
            "topic", ("pointers", "passages"), lambda: dict(zip(("pointers", "passages"), self._topic(), strict=True))
        )
        return made["pointers"], made["passages"]

    @cached_property
    def title_keys(self) -> Sequence[str]:
        """Per passage, its title (:func:`title_key` of its document id)."""
        return self.derived.texts("title_keys", lambda: [title_key(doc) for doc, _v in self.passages])

    def _topic(self) -> tuple[np.ndarray, np.ndarray]:
        """Entity -> the passages about it, each once, ascending, as a CSR pair: those whose first
        sentence mentions it, and those whose title (the document id read as a name, :func:`title_key`)
        is its key, for a passage that does not open with its subject."""
        entities, passages = gather(self.span_ptr, self.span_ents, self.first_spans)  # owner i is passage i
        titled = [(self.index[k], d) for d, k in enumerate(self.title_keys) if k in self.index]
        if titled:
            pairs = np.array(titled, dtype=np.int64)
            entities, passages = np.concatenate([entities, pairs[:, 0]]), np.concatenate([passages, pairs[:, 1]])
        # each (entity, passage) once, entity by entity, passages ascending: one sort of a combined key
        n = max(len(self.passages), 1)
        key = np.unique(entities.astype(np.int64) * n + passages.astype(np.int64))
        return csr(key // n, key % n, self.n_entities)

    @cached_property
    def topic_passages(self) -> dict[int, list[int]]:
        """Entity index -> the passages *about* it (:attr:`topic`, as lists)."""
        pointers, passages = self.topic
        return {e: passages[pointers[e] : pointers[e + 1]].tolist() for e in np.flatnonzero(np.diff(pointers)).tolist()}

    @cached_property
    def titles(self) -> dict[str, list[int]]:
        """Title, matched loosely (:func:`loose_key` of :func:`title_key` of the document id) -> the
        passages of that title, ascending."""
        out: dict[str, list[int]] = {}
        for d, key in enumerate(self.derived.texts("loose_titles", lambda: [loose_key(k) for k in self.title_keys])):
            if key:
                out.setdefault(key, []).append(d)
        return out

    def titled(self, question: str) -> list[int]:
        """The passages whose title the question names as written (:func:`named_ngrams`), with case,
        accents and punctuation ignored, ascending: "Which came first, Arthur's Magazine or First for
        Women?" names both magazines' pages, whether or not the parser found either as a name, and
        "Beyonce" names "Beyoncé"."""
        titles = self.titles
        found = named_ngrams(question, lambda name: loose_key(name) in titles)
        return sorted({d for name in found for d in titles[loose_key(name)]})

    def title_shared(self, passage: int) -> int:
        """How many visible document versions have this passage's title (loosely): its specificity as
        a name (the passages of one long document share one title)."""
        passages = self.titles.get(loose_key(self.title_keys[passage]), ())
        return len(np.unique(self.section_version[list(passages)])) or 1

    @cached_property
    def aliases(self) -> dict[str, list[str]]:
        """How the documents most often write an entity (its name: case folded, "the" dropped), where
        that differs from its key -> the keys of the entities so written: a name a question may use for
        an entity whose key is its lemma or another form ("Exports" for "export")."""
        out: dict[str, list[str]] = {}
        for key, name in zip(self.keys, self.names, strict=True):
            folded = " ".join(name.casefold().split())
            folded = folded[4:] if folded.startswith("the ") else folded
            if folded and folded != key:
                out.setdefault(folded, []).append(key)
        return out

    def subject_of(self, passage: int) -> int | None:
        """The first entity a passage's first sentence names (by mention position), if any."""
        s = int(self.subjects[passage])
        return None if s < 0 else s

    @cached_property
    def subjects(self) -> np.ndarray:
        return self.derived.array("subjects", self._subjects)

    def _subjects(self) -> np.ndarray:
        """Per passage, :meth:`subject_of` (``-1`` for none)."""
        c = self.columns
        out = np.full(len(self.passages), -1, dtype=np.int64)
        held: dict[int, tuple[int, int]] = {}
        rows = np.flatnonzero(self.first_spans[self.span_doc[c.mention_span]] == c.mention_span) if len(c.mention_span) else c.mention_span
        for entity, span, code in zip(
            c.mention_entity[rows].tolist(), c.mention_span[rows].tolist(), c.mention_surface[rows].tolist(), strict=True
        ):
            d = int(self.span_doc[span])
            text = c.span_text[span]
            at = text.casefold().find(c.surfaces[code].casefold())
            candidate = (at if at >= 0 else len(text), entity)
            if d not in held or candidate < held[d]:
                held[d] = candidate
        for d, (_at, entity) in held.items():
            out[d] = entity
        return out

    @cached_property
    def _relations_by_passage(self) -> tuple[np.ndarray, np.ndarray]:
        c = self.columns
        return csr(self.span_doc[c.relation_span], np.arange(len(c.relation_span)), len(self.passages))

    @cached_property
    def _type_stems(self) -> list[frozenset[str]]:
        return [relation_stems(t) for t in self.columns.types]

    def related(self, passage: int, asked: frozenset[str]) -> np.ndarray:
        """The entities joined by a relation a sentence of ``passage`` asserts whose type shares a
        word stem with ``asked`` (the question's), ascending."""
        pointers, rows = self._relations_by_passage
        c, stems = self.columns, self._type_stems
        hit = [r for r in rows[pointers[passage] : pointers[passage + 1]].tolist() if stems[int(c.relation_type[r])] & asked]
        if not hit:
            return np.zeros(0, dtype=np.int64)
        return np.unique(np.concatenate([c.relation_source[hit], c.relation_target[hit]]))

    def naming(self, passage: int, sims: Any) -> tuple[np.ndarray, np.ndarray]:
        """The passage's entities (ascending) and, for each, the best similarity to the question of a
        sentence naming it."""
        spans = self.spans_in(passage)
        entities, owner = gather(self.span_ptr, self.span_ents, spans)
        distinct = np.unique(entities)
        best = np.full(len(distinct), -np.inf, dtype=np.float64)
        np.maximum.at(best, np.searchsorted(distinct, entities), np.asarray(sims[spans], dtype=np.float64)[owner])
        return distinct, best

    def passage_vectors(self, embed: Callable[[Sequence[str]], np.ndarray]) -> np.ndarray:
        """One vector per passage, of its text (:func:`~citegraph.sentences.section_texts`): the ones
        stored with its version at ingest, or, for a version stored without them (or cut into another
        number of passages by an older citegraph), embedded here once for the life of the view."""
        if self._passage_vectors is None:
            c = self.columns
            dim = self.span_vectors.shape[1] if self.span_vectors.ndim == 2 else 0
            n = len(self.passages)
            vectors = np.zeros((n, dim), np.float32)
            first = np.searchsorted(self.section_version, np.arange(len(c.passages) + 1))  # each version's first passage
            stored, ptr = c.passage_vectors, c.passage_vector_ptr
            if stored is not None and ptr is not None and stored.ndim == 2 and stored.shape[1] == dim and len(ptr) == len(c.passages) + 1:
                fits = np.flatnonzero(np.diff(ptr) == np.diff(first))  # versions stored with one row per passage
                rows, owner = gather(first, np.arange(n), fits)
                vectors[rows] = stored[ptr[fits][owner] + rows - first[fits][owner]]
            missing = np.flatnonzero(~vectors.any(axis=1))
            if len(missing):
                texts = self.columns.span_text
                rank = self.span_rank
                made: list[str] = []
                for v in np.unique(self.section_version[missing]).tolist():
                    spans = sorted(np.concatenate([self.spans_in(d) for d in range(first[v], first[v + 1])]).tolist(), key=rank.__getitem__)
                    cut = section_texts([(int(c.span_start[i]), int(c.span_end[i]), texts[i]) for i in spans], c.passages[v][0])
                    made += [cut[d - first[v]] for d in missing[self.section_version[missing] == v].tolist()]
                order = missing[np.argsort(self.section_version[missing], kind="stable")]
                vectors[order] = embed(made)
            self._passage_vectors = vectors
        return self._passage_vectors

    _passage_vectors: np.ndarray | None = None

    # -- vector search --------------------------------------------------------------------------------
    @cached_property
    def span_index(self) -> VectorIndex:
        """Nearest sentences: exact, or above the threshold the store's index (where it offers one) or
        an IVF built from this caller's vectors."""
        if not self.approximate:
            return ExactIndex(self.span_vectors)
        return StoreSpanIndex(self, self.store) if self.store is not None else self._ivf("span_ivf", self.span_vectors)

    def _ivf(self, name: str, vectors: np.ndarray) -> IVFIndex:
        """An inverted file over ``vectors``: the one kept with the saved graph, or built (and kept)."""
        return IVFIndex.restore(
            vectors, self.derived.arrays(name, ("centroids", "order", "bounds", "probe"), lambda: IVFIndex(vectors).state())
        )

    def passage_text_index(self, vectors: np.ndarray) -> VectorIndex:
        """Nearest passages by their texts' vectors (:meth:`passage_vectors`), built once."""
        if self._passage_text_index is None:
            self._passage_text_index = self._ivf("passage_text_ivf", vectors) if self.approximate else ExactIndex(vectors)
        return self._passage_text_index

    _passage_text_index: VectorIndex | None = None

    @cached_property
    def passage_index(self) -> VectorIndex:
        return IVFIndex(self.passage_centroids) if self.approximate else ExactIndex(self.passage_centroids)

    @cached_property
    def entity_index(self) -> VectorIndex:
        # Entities are fewer than sentences (100,000 at a million sentences: ~5 ms exact), and an entity
        # vector (its key's embedding plus its sentences' mean) clusters poorly: exact below the threshold.
        return IVFIndex(self.entity_vectors) if self.n_entities > self.approximate_above else ExactIndex(self.entity_vectors)

    def vector_indexes(self) -> dict[str, VectorIndex]:
        """The vector indexes built so far, by name (``bench/query.py`` reports an approximate one's recall)."""
        built: dict[str, VectorIndex] = {n: self.__dict__[n] for n in ("span_index", "passage_index", "entity_index") if n in self.__dict__}
        if self._passage_text_index is not None:
            built["passage_text_index"] = self._passage_text_index
        return built

    def seeds(self, vector: np.ndarray, k: int) -> list[str]:
        """The ``k`` entities most similar to ``vector``."""
        if self.n_entities > self.approximate_above:
            return [self.keys[i] for i, _ in self.entity_index.search(vector, k)]
        return [self.keys[i] for i in top_indices(ExactIndex(self.entity_vectors).scores(vector), k)]

    # -- traversal ------------------------------------------------------------------------------------
    @cached_property
    def hops(self) -> Hops:
        return Hops(self)

    def reach(self, seeds: Collection[str], hops: int) -> Reach:
        return Reach(self, seeds, hops)
