"""The ``bridge`` modes: passages by similarity and by the names the question gives, each followed by
the passage about an entity it mentions (the second hop), sentences chosen per passage.

Why this file is long (about 510 lines): the walk is one ranking (passage scores, bridges, the
mention hop, the sentences each passage gives, a chat window's lines), each step reading what the one
before it chose; split, the steps would pass half-made rankings between files."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from citegraph.embed.base import ExactIndex, dot_rows, top_indices
from citegraph.models import SUBJECT, Evidence, Hop
from citegraph.question import Question, asks_what_said, holds_type, parse
from citegraph.retrieve.arrays import gather
from citegraph.retrieve.days import days_named
from citegraph.retrieve.modes.base import Lazy, Mode, Query, may_be_evidence
from citegraph.retrieve.modes.replies import bring_replies, keep_replies, subjects_before
from citegraph.retrieve.names import name_run, relation_stems
from citegraph.retrieve.view import GraphView
from citegraph.sentences import message_speaker, same_paragraph, speaker_named, speakers_named

COMMON_NAME_SHARE = 0.1  #: a name more than this share of the passages mention is no bridge …
COMMON_NAME_PASSAGES = 10  #: … when they are more than this many (in a small store every name is in a tenth)
SAID_BY_AMONG = 200  #: asked what someone said, the best passages read for that speaker's lines
LINES_AMONG = 50  #: the best passages whose sentences are read for the passage's score (:meth:`Bridge._best_lines`)


class Bridge(Mode):
    """Passages by similarity, each top passage followed by the passage *about* an entity it mentions
    (the bridge of a multi-hop question), then sentences chosen per passage.

    1. Passage score: the cosine of the passage centroid (its sentence vectors' mean) or, with
       ``embedded``, of its embedded text, to the question, plus the best sentence's cosine, plus
       the question-entity seeds' bonus (:meth:`seed_bonus`: a passage about a name the question
       gives, or mentioning it, lifted by how rare that name is); among the best passages, the best
       sentence counts as it ranks in step 3 (:meth:`_best_lines`).
    2. For each of the ``first_hops`` best passages, every entity it mentions is a candidate bridge;
       a passage that is a whole document (:attr:`GraphView.whole`) and whose first sentence mentions
       that entity is *about* it (a Wikipedia article, a one-page note that names its subject first; a
       section of a long document or a window of a chat log opens with whatever came before it ended,
       and is reached through a name by the mention hop instead). The best such passage by its own
       score follows the passage that named the entity: the second hop, which by nature resembles the
       question less.
    3. Sentences: for each passage in that order, up to ``per_passage`` of its sentences first (the
       one naming the bridge entity, or the passage's first sentence for a bridge passage, then the
       most similar), then the rest. A heading over body text is never one of them. A window of a
       chat log (:meth:`GraphView.is_log`) is about no one thing its first line names: as a bridge
       passage it gives its most similar lines; and a line whose speaker the question names ranks
       in its window as if ``speakers`` more similar ("What does JakeWatson think…"), and a line
       ``lexical`` × the share of the question's word stems it holds more, the window itself
       ``said_by`` higher in step 1 when the question asks what they said.

    The order is the ranking; each span's ``score`` is its own similarity to the question (what an
    answerer weighs), so scores do not decrease along the list. A bridge passage's evidence carries
    the route: the first passage's subject, the sentence of it that mentions the bridge entity, and
    that entity.

    A candidate bridge passage ``c``, reached through entity ``e`` from a first passage, scores
    ``score(c) + specificity × log(1 + passages / passages naming e) + naming × (similarity of the
    sentence naming e) + subject × [e is the first thing c names]``: a rare name, mentioned where the
    first passage answers the question, that the second passage is about. A name more than a tenth
    of the passages mention (and more than :data:`COMMON_NAME_PASSAGES`) is no bridge at all.
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
        speakers: float = 0.0,
        said_by: float = 0.0,
        dates: float = 0.0,
        continuation: bool = False,
        lexical: float = 0.0,
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
        #: in a chat log's window, a line whose speaker the question names ranks as if this much more similar
        self.speakers = speakers
        #: asked what someone said, a chat window holding a line of theirs scores this much more (:meth:`_said_by_named`)
        self.said_by = said_by
        #: a passage naming a day the question names ("on 20260930", "on 4 March"), in a sentence or its document's name, gains this
        self.dates = dates
        #: the sentence after the first-ranked one, in the same paragraph, read right after it (:meth:`_continued`)
        self.continuation = continuation
        #: in a chat log's window, a line ranks as if this much more similar times the share of the
        #: question's word stems it holds (:func:`relation_stems`): a long message's vector is diluted by
        #: its other sentences ("Escalating #4471: Kestrel Outdoor say recurring tasks are being created
        #: twice …"), its words are not
        self.lexical = lexical

    topic_cap = 256  #: in an approximate view, a name more passages are about is followed only into passages near the question
    mention_cap = 2048  #: the mention hop follows no name given by more sentences than this (a bounded read per name)

    def passage_scores(self, query: Query, view: GraphView) -> np.ndarray:
        vectors = view.passage_vectors(query.embed) if self.embedded and query.embed is not None else view.passage_centroids
        cos = ExactIndex(vectors).scores(query.vector)
        best = np.full(len(view.passages), -1.0, dtype=np.float32)
        np.maximum.at(best, view.span_doc, query.similarity(view))
        score = (cos + best).astype(np.float32)
        for d, bonus in self.seed_bonus(query, view).items():
            score[d] += bonus
        if self.said_by:
            for d in self._said_by_named(query, view, score):
                score[d] += self.said_by
        if self.lexical or self.speakers:
            self._best_lines(query, view, score)
        return score

    def _best_lines(self, query: Query, view: GraphView, score: np.ndarray) -> None:
        """Each of the :data:`LINES_AMONG` best passages scores its best sentence with ``lexical`` x the
        share of the question's word stems it holds, and in a window of messages
        (:meth:`GraphView.is_chat`) with ``speakers`` when the question names its speaker: what a chat
        line gains when its window's lines are ranked (step 3). The line "Helios: "Red Dead Redemption 2"
        is a masterpiece! That game really makes you feel connected to the characters…" lifts its window,
        whose other lines are about other games, for "Which game does Helios call a masterpiece for
        making players feel connected to the characters?". A document's passage gains the same for its
        words, or a chat window sharing "a whole carrier bag" would outrank the table row "Longest
        booking: 4 hours" for "Can I book a 3D printer for a whole afternoon?"; a checklist's
        ``Tour of the branch: …`` items are no one's messages, so no speaker lift. In an exact view
        only: an approximate one (a large store) scores a passage when first read, without it."""
        speaks = speakers_named(query.text) if self.speakers else None
        stems = relation_stems(query.text) if self.lexical else frozenset()
        if speaks is None and not stems:
            return
        sims = query.similarity(view)
        for d in top_indices(score, min(LINES_AMONG, len(score))).tolist():
            in_passage = view.spans_in(d).tolist()
            if not in_passage:  # a passage none of whose sentences this caller sees
                continue
            speakers = speaks if speaks is not None and view.is_chat(d) else None
            plain = max(float(sims[i]) for i in in_passage)
            lifted = plain
            for i in in_passage:
                lifted = max(lifted, float(sims[i]) + self._lift(view, i, speakers, stems))
            score[d] += lifted - plain

    def _lift(self, view: GraphView, span: int, speaks: Callable[[str], bool] | None, stems: frozenset[str]) -> float:
        """How much more similar a sentence ranks than its cosine: ``speakers`` when ``speaks`` (the
        question's speakers, where they count) says its line is theirs, plus ``lexical`` x the share of
        the question's word ``stems`` it holds."""
        lift = self.speakers if speaks is not None and speaks(view.columns.span_text[span]) else 0.0
        if stems:
            lift += self.lexical * len(stems & view.stems(span)) / len(stems)
        return lift

    def _said_by_named(self, query: Query, view: GraphView, score: np.ndarray) -> list[int]:
        """Asked what someone said ("What does Jake suggest…", :func:`~citegraph.question.asks_what_said`),
        the chat windows among the :data:`SAID_BY_AMONG` best passages holding a line of a speaker the
        question names (:func:`~citegraph.sentences.speaker_named`): where what they said is. Read among
        the best only, so that a question costs the same at any size; an approximate view (a large
        store) reads no speakers."""
        named = speaker_named(query.text) if asks_what_said(query.text) else None
        if named is None:
            return []
        among = top_indices(score, min(SAID_BY_AMONG, len(score))).tolist()
        return [d for d in among if view.is_log(d) and any(named(s) for s in view.speakers_in(d))]

    def seed_bonus(self, query: Query, view: GraphView) -> dict[int, float]:
        """Passage -> its bonus for the entities the question names (linked by key or a document's
        title): ``seeds`` x the entity's specificity relative to the rarest possible name for a passage
        about it, ``mentions`` x the same for one that only mentions it, ``titles`` x the same for a
        passage whose title the question names as written; the largest per passage. Added to it,
        ``dates`` for a passage naming a day the question names."""
        bonus = self._name_bonus(query, view)
        if self.dates:
            for d in {d for day in days_named(query.text) for d in view.passages_on(day).tolist()}:
                bonus[d] = bonus.get(d, 0.0) + self.dates
        return bonus

    def _name_bonus(self, query: Query, view: GraphView) -> dict[int, float]:
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

    def _scores(self, query: Query, view: GraphView) -> np.ndarray | PassageScores:
        """Every passage's score (an exact view), or each one's when first read (an approximate view)."""
        if view.approximate:
            embedded = self.embedded and query.embed is not None
            vectors = view.passage_vectors(query.embed) if embedded and query.embed is not None else view.passage_centroids
            return PassageScores(view, query, self.seed_bonus(query, view), vectors, embedded)
        return self.passage_scores(query, view)

    def _dense(self, view: GraphView, query: Query, scores: np.ndarray | PassageScores, limit: int) -> list[int]:
        """Passages by score, best first (ties by index): all of them, or in an approximate view the
        passages near the question by the indexes (their sentences' and their centroids'), enough to
        fill ``limit`` sentences, each placed by its exact score."""
        if isinstance(scores, np.ndarray):
            return top_indices(scores, len(scores)).tolist()
        eligible = may_be_evidence(view, query)
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
        scores: np.ndarray | PassageScores,
        sims: Any,
        placed: set[int],
        asked: frozenset[str] = frozenset(),
    ) -> tuple[float, int, int] | None:
        """The best bridge from passage ``d``: ``(score, passage, entity)``, the largest score, then the
        smallest passage, then the first entity (ascending) naming it; None when there is none.
        ``asked``: the question's word stems (:func:`relation_stems`), for following the relation it names."""
        entities, naming = view.naming(d, sims)
        # a name a tenth of the passages mention ("time" in a year of chats, "customer" in a handbook)
        # links nothing in particular: no bridge goes through it
        common = np.log1p(len(view.passages) / max(COMMON_NAME_PASSAGES, COMMON_NAME_SHARE * len(view.passages)))
        # a day, a month or a year links texts by the calendar ("saturday": the opening hours of every
        # branch, a chat's summer social), not by what the question is about
        keep = (view.specificity[entities] >= common) & ~view.calendar[entities]
        entities, naming = entities[keep], naming[keep]
        if not len(entities):
            return None
        lift = self.specificity * view.specificity[entities] + self.naming * naming
        if self.relations and asked:
            lift = lift + self.relations * np.isin(entities, view.related(d, asked))
        pointers, about = view.topic
        if isinstance(scores, PassageScores):
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
        # about a name only as a whole document: a section of a long one, or a window of a chat log,
        # opens with whatever came next, which is no subject ("It is open Monday to Saturday…")
        keep = view.whole[candidates] & ~np.isin(candidates, np.fromiter(placed, dtype=np.int64, count=len(placed)))
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
        eligible = may_be_evidence(view, query)
        dense = self._dense(view, query, scores, limit)
        order: list[int] = []
        placed: set[int] = set()
        expanded: set[int] = set()
        via: dict[int, tuple[int, int]] = {}  # bridge passage -> (the passage that named its entity, entity)
        asked = relation_stems(query.text) if self.relations else frozenset()
        replying: dict[int, int] = {}  # a reply -> the question it answers (see replies.bring_replies)
        speaks = speakers_named(query.text) if self.speakers else None
        stems = relation_stems(query.text) if self.lexical else frozenset()

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
            log = view.is_log(d)
            if log and (speaks is not None or stems):
                for i in spans:
                    local[i] += self._lift(view, i, speaks, stems)
            # a question in a passage ("How long does a battery last?") never stands for it: its answer does
            spans.sort(key=lambda i: (view.asks(i), -local[i], i))
            lead: list[int] = []
            if d in via:  # a bridge passage: its first sentence names the entity (a chat window's does not)
                first_span = int(view.first_spans[d])
                if not log and eligible[first_span] and not view.asks(first_span):
                    lead.append(first_span)
            elif d in bridge_entity:  # the sentence that names the bridge entity
                lead += [i for i in spans if bridge_entity[d] in view.entities_of(i)][:1]
            lead += [i for i in spans if i not in lead]
            lead = bring_replies(view, lead, eligible, replying, set(picked) | set(rest))
            # a reply that follows the line it answers comes with it, in no slot of its own
            slots = np.cumsum([not (i in replying and replying[i] in lead) for i in lead])
            cut = int(np.searchsorted(slots, self.per_passage, side="right"))
            picked += lead[:cut]
            rest += lead[cut:]
            if len(picked) >= limit:
                break
        ranked = (picked + rest)[:limit]
        if self.continuation and ranked:
            ranked = self._continued(view, ranked, eligible, query.context_size)[:limit]
        hop = self._mention_hop(view, query, ranked[: query.context_size], eligible, sims) if self.mention_hop and ranked else None
        if hop is not None:  # read with the first passage's sentences, before the rest
            rest_ranked = [i for i in ranked if i != hop[0]]
            ranked = [*rest_ranked[: self.per_passage], hop[0], *rest_ranked[self.per_passage :]][:limit]
        ranked = keep_replies(ranked, replying, query.context_size)
        subjects = subjects_before(view, ranked, eligible, query.context_size)
        out = []
        for i in ranked:
            if i in subjects:  # the sentence naming what this one's pronoun stands for, just before it
                j = subjects[i]
                out.append(Evidence(view.span(j), 0.0, float(sims[j]), SUBJECT))
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
    def _continued(view: GraphView, ranked: list[int], eligible: np.ndarray, context_size: int) -> list[int]:
        """``ranked`` with the sentence after its first one read right after it, when that sentence
        goes on in the same paragraph (no line between them) of a document that is no chat log, may be
        evidence, asks nothing and is not in the context yet: a passage's best sentence often
        introduces what the next one says ("Millbrook Branch has one step at the entrance." / "A
        portable ramp is available: ring the bell beside the door…")."""
        top = ranked[0]
        after = view.next_span(top)
        if after is None or view.is_log(int(view.span_doc[top])) or not eligible[after] or view.asks(after):
            return ranked
        c = view.columns
        if not same_paragraph(int(c.span_end[top]), int(c.span_start[after])) or after in ranked[:context_size]:
            return ranked
        return [top, after, *(i for i in ranked[1:] if i != after)]

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
                # a chat's mention ("@Sofia") is the name it mentions
                words = _name_words(name_run(view.names[e]) if e in view.same_names else view.names[e])
                if not words or not all(w[:1].isupper() for w in words) or {w.casefold() for w in words} <= asked_folded:
                    continue
                if view.calendar[e]:  # "Saturday", "March": a time, not a subject (see _best_bridge)
                    continue
                mentions = view.spans_naming(e)  # "Hannah" in a chat line reaches the handbook's "Hannah Lindqvist"
                if len(mentions) > Bridge.mention_cap:
                    continue  # a name that many sentences give is no way to the one that answers (and reading them all is slow)
                mentions = mentions.tolist()
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
        scored: list[tuple[float, int, int, int]] = []  # (score, sentence, first hop, name): each job's best few
        for first, e, found in jobs:
            rows = np.array(found)
            score = view.span_vectors[rows] @ vectors[first] if vectors is not None else np.asarray(sims[rows], dtype=np.float64)
            for top in np.argsort(-score, kind="stable")[:_TYPED_AMONG].tolist():
                scored.append((float(score[top]), int(rows[top]), first, e))
        if not scored:
            return None
        scored.sort(key=lambda c: -c[0])
        # the second hop is where the answer is: of the nearest, the first that holds what the question
        # asks for ("Leo Marchetti is the Makerspace Coordinator" for "Who will present…?", not the
        # minutes' action row "Makerspace Coordinator | 17 September 2025")
        holding = _holding_type(query.text, [(view.columns.span_text[c[1]], view.names[c[3]]) for c in scored[:_TYPED_AMONG]])
        best = next((c for c, held in zip(scored, holding, strict=False) if held), scored[0])
        return best[1:]

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


_DETERMINERS = frozenset({"the", "a", "an"})
#: the mention hop's nearest sentences read for the type the question asks for
_TYPED_AMONG = 3


def _holding_type(question: str, texts: list[tuple[str, str]]) -> list[bool]:
    """Per ``(text, the name it was reached through)``, whether the text holds an answer of the type
    ``question`` asks for (a person for "who", a place for "where", a date for "when", a number for
    "how many") that neither the question nor that name gives; all True when it asks for none, or
    without a spaCy model, and True for a chat line (its speaker or its time may answer, and the
    parse of a chat line's names is not to be trusted)."""
    asked = Question.read(question)
    if asked.expected is None or not texts:
        return [True] * len(texts)
    parsed = parse([text for text, _name in texts])
    if parsed is None:
        return [True] * len(texts)
    expected = asked.expected
    out = []
    for doc, (text, name) in zip(parsed, texts, strict=True):
        # a chat line: its speaker, its time may be the answer; it is not read here
        out.append(message_speaker(text) is not None or holds_type(doc, expected, f"{question} {name}".casefold(), name.casefold()))
    return out


def _name_words(name: str) -> list[str]:
    """A name's words without a determiner it was written with: "the Building Safety Lead" is a
    name (every word capitalised) as "Building Safety Lead" is."""
    words = name.split()
    return words[1:] if len(words) > 1 and words[0] in _DETERMINERS else words


class PassageScores(Lazy):
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
