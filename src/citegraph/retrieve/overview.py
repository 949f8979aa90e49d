"""Questions about the whole corpus: "What are the main topics of these documents?", "What is this
collection about?", "What do our documents say about SSO?".

Ranking sentences by their likeness to such a question finds sentences that talk about documents or
topics, not what the documents say. Here the question is recognised by its form
(:func:`overview_request`: a rule set, measured on the questions of tests/data/scope_questions.json,
written before the rules were tuned), or forced (``--scope global``), and answered from the communities of the caller's
graph (:mod:`citegraph.retrieve.communities`): one sentence per community, the community's own
summary lead for "the main topics", the community's sentence nearest the question for "about X".

Which communities: for "the main topics", level 0's, heaviest first, but one whose sentence comes
from a document already drawn on waits until every community from a new document has been taken
(so that a corpus of several sources is not summed up from its largest one alone); for "about X",
those whose nearest sentence is at least :data:`TOPIC_SHARE` as like the question as the best one's,
and the nearest :data:`TOPIC_AT_LEAST` in any case (an overview is several points, not one quote).
At most ``limit`` points either way (the context size).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from citegraph.models import Evidence
from citegraph.retrieve.communities import Communities, Community, candidates, statement
from citegraph.retrieve.view import GraphView

__all__ = ["TOPIC_SHARE", "Overview", "overview_evidence", "overview_request"]

TOPIC_SHARE = 0.8  #: for "about X": a community is drawn on if its best sentence is this share as like X as the best community's
TOPIC_AT_LEAST = 3  #: ... and the nearest three communities are, if their sentence is at all like X (an overview, not one quote)

_CORPUS = (
    r"(?:(?:all|each|every|any)(?: of)? )?(?:the |these |those |our |my |your |this |its )?(?:whole |entire )?"
    r"(?:documents?|docs|files|corpus|collection|sources|notes|texts|materials|records|knowledge base|library|archive|data ?set)"
)
_TOPICS = r"(?:topics?|themes?|subjects?|areas?|issues?|ideas?|threads?|concerns?)"
_ASKS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        # what are the main topics / themes (of / in / across these documents)
        rf"^(?:what|which) (?:are|were) (?:the |some of the )?(?:main|key|major|common|recurring|central|overall|top|biggest|most important) "
        rf"{_TOPICS}(?: (?:of|in|across|covered (?:in|by)|discussed in|from|throughout) {_CORPUS})?(?: (?:covered|discussed|mentioned))?$",
        rf"^(?:what|which) {_TOPICS} (?:are|do|does|did|were) (?:covered|discussed|mentioned|addressed|in|across|{_CORPUS})(?: .*)?$",
        rf"^(?:list|name|give me|show me|tell me) (?:the )?(?:main |key |major )?{_TOPICS}(?: (?:of|in|across) {_CORPUS})?$",
        # what is this collection about / what do the documents cover
        rf"^what(?:'s|’s| is| are) {_CORPUS}(?: all)? about$",
        rf"^what (?:do|does|did) {_CORPUS} (?:cover|contain|discuss|talk about|deal with)$",
        rf"^(?:summari[sz]e|sum up|recap|give (?:me |us )?an? (?:short |brief |quick )?(?:overview|summary) of|(?:an? )?(?:overview|summary) of) "
        rf"(?:everything|{_CORPUS})$",
        # what do the documents say about X
        rf"^what (?:do|does|did) {_CORPUS} (?:say|tell (?:me |us )?|mention|state|cover) about (?P<topic>.+)$",
        rf"^(?:summari[sz]e|give (?:me |us )?an? overview of) (?:everything|what {_CORPUS} says?) about (?P<topic>.+)$",
        r"^(?:summari[sz]e|give (?:me |us )?an? overview of) everything (?:on|about|related to) (?P<topic>.+)$",
    )
)


@dataclass(frozen=True)
class Overview:
    """A question about the whole corpus; ``topic`` when it asks what the corpus says about one thing."""

    topic: str = ""

    @property
    def name(self) -> str:
        return f"what the documents say about {self.topic}" if self.topic else "the documents you may read"


def overview_request(question: str) -> Overview | None:
    """The corpus question ``question`` asks, or None for any other question."""
    text = " ".join(question.strip().rstrip("?.!").split())
    text = re.sub(r"^(?:please |can you |could you |so |ok(?:ay)?,? )+", "", text, flags=re.IGNORECASE)
    for pattern in _ASKS:
        found = pattern.match(text)
        if found is not None:
            topic = found.groupdict().get("topic") or ""
            return Overview(topic.strip())
    return None


def overview_evidence(
    view: GraphView, found: Communities, overview: Overview, vector: np.ndarray, limit: int
) -> tuple[list[Evidence], list[Community]]:
    """One evidence sentence per community drawn on (:mod:`this module <citegraph.retrieve.overview>`
    says which and in what order), and those communities."""
    top = found.level(0)
    if not top:
        return [], []
    picks: list[tuple[Community, int, float]] = []
    if overview.topic:
        ranked = []  # per community, its sentences nearest X first
        for c in top:
            spans = np.asarray(candidates(view, set(c.entities)), dtype=np.int64)
            if len(spans):
                sims = view.span_vectors[spans] @ vector
                order = np.argsort(-sims, kind="stable")
                ranked.append((c, [(int(spans[i]), float(sims[i])) for i in order]))
        ranked.sort(key=lambda t: (-t[1][0][1], t[0].id))
        taken: set[int] = set()
        scored = []
        for c, nearest in ranked:  # a sentence naming two communities' entities stands for the nearer one only
            pick = next(((s, sim) for s, sim in nearest if s not in taken and statement(view, s)), None)
            if pick is not None:
                taken.add(pick[0])
                scored.append((c, pick[0], pick[1]))
        if scored:
            floor = TOPIC_SHARE * scored[0][2]
            picks = [t for i, t in enumerate(scored) if t[2] >= floor or (i < TOPIC_AT_LEAST and t[2] > 0)][:limit]
    else:
        ordered = [c for c in top if c.summary]
        seen: set[str] = set()
        first: list[Community] = []
        later: list[Community] = []
        for c in ordered:
            document = view.span(c.summary[0]).document
            (later if document in seen else first).append(c)
            seen.add(document)
        used: set[int] = set()
        for c in first + later:
            span = next((s for s in c.summary if s not in used), None)  # a sentence stands for one community
            if span is None:
                continue
            used.add(span)
            picks.append((c, span, float(view.span_vectors[span] @ vector)))
            if len(picks) == limit:
                break
    evidence = [
        Evidence(view.span(span), 1.0 - rank / (len(picks) + 1), sim, "community", view.keys[c.entities[0]], None, (), c.id)
        for rank, (c, span, sim) in enumerate(picks)
    ]
    return evidence, [c for c, _s, _sim in picks]
