"""One answer, composed: the numbered context from what retrieval found, whether it answers the
question at all (:mod:`citegraph.answer.answerable`: if not, the answer is ``not_found`` and nothing
is written), the answer (written by the answerer, or given; a generator's "NOT FOUND" is an
abstention too), its claims resolved to their spans and checked, the warnings (claims and sources
that disagree), the status and whether it addresses the question. Every limit on the cost of an answer is checked here, before the
work it bounds."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from citegraph.answer.answerable import LEAD_IN, assess
from citegraph.answer.base import Answerer
from citegraph.answer.citations import answer_status, cited_markers, parse_markers, resolve_claims, source_conflict_warnings, split_claims
from citegraph.answer.currency import quoted_stale, stale_warnings, unquoted_current
from citegraph.answer.extractive import quote, reply_to
from citegraph.answer.llm_answerer import is_abstention
from citegraph.answer.relevance import check_relevance
from citegraph.errors import LimitExceeded, UserError
from citegraph.models import (
    OPENER,
    SUBJECT,
    Answer,
    Answerability,
    AnswerStatus,
    AnswerWarning,
    Claim,
    ContextItem,
    Document,
    Evidence,
    Lead,
    Located,
    Relevance,
    Retrieval,
    Span,
    context_of,
)
from citegraph.question import AGENT, DATE, Question, asks_who_started, writing_request
from citegraph.sentences import (
    chat_speaker,
    conversation_opener,
    conversation_time,
    is_line_document,
    leans_on_previous,
    message_header,
    message_stamp,
    sentence_before,
)
from citegraph.settings import DEFAULTS
from citegraph.verify.base import Verifier
from citegraph.verify.conflicts import with_subject

__all__ = ["ADDRESSED_AT", "ASKED_AT", "LEAD_AT", "Limits", "addresses", "asked_and_replied", "compose", "with_lead_in"]

#: The reader's P(answers) at which the extractive answerer quotes the sentence it found the answer in:
#: always (0), since the reader reads each sentence alone. Quoting its best sentence whatever its P
#: holds the gold answer more often on each of four dev sets (the corpora, HotpotQA-100, HaluEval
#: multi-hop, LiHua-World; mean 0.80 against 0.72 at P >= 0.5: docs/results/2026-12-04/reader-reading/);
#: P decides the colour (:data:`ADDRESSED_AT`), not the quote.
LEAD_AT = 0.0
#: The reader's P(answers), in a cited sentence, at which a supported answer that the relevance check
#: finds addressed is shown green (:func:`addresses`), leading with the words it found
#: (:class:`~citegraph.models.Lead`): the lowest that keeps every dev set at or under 5% of its
#: questions answered wrong under a green status (the development corpora 2 of 134, HotpotQA-100
#: 4 of 90; at 0.4, 8 of 90), the point where the reader's best span outscores "no answer".
ADDRESSED_AT = 0.5
#: The similarity to the question at which a sentence of the documents that asks, with its reply in the
#: context, is taken as the documents asking it (:func:`asked_and_replied`): the lowest at which none of
#: LiHua-World's 33 dev Null questions is answered through it that would otherwise be turned away
#: (at 0.45, 2), while the corpora's dev halves' one such question (a chat line asking "who's doing the
#: Thursday dinner?", 0.56) is (docs/results/2026-12-07/asked-in-the-documents/).
ASKED_AT = 0.5


@dataclass(frozen=True)
class Limits:
    """The caps on one answer's cost (the settings ``max-question-chars``, ``max-answer-chars``, ``max-claims``)."""

    question_chars: int = DEFAULTS.max_question_chars
    answer_chars: int = DEFAULTS.max_answer_chars
    claims: int = DEFAULTS.max_claims

    def check_question(self, question: str) -> None:
        """Refuse an empty question, or one over the limit, before any parse or embedding."""
        if not question.strip():
            raise UserError("the question is empty")
        if len(question) > self.question_chars:
            raise LimitExceeded(
                f"the question has {len(question):,} characters, over the limit of {self.question_chars:,}; "
                "ask a shorter question, or raise the setting max-question-chars (--max-question-chars, CITEGRAPH_MAX_QUESTION_CHARS)"
            )

    def check_answer(self, text: str) -> None:
        """Refuse answer text over the character or claim limit: every claim costs checks, so the
        cost of one answer is bounded before any is run."""
        if len(text) > self.answer_chars:
            raise LimitExceeded(
                f"the answer text has {len(text):,} characters, over the limit of {self.answer_chars:,}; "
                "raise the setting max-answer-chars (--max-answer-chars, CITEGRAPH_MAX_ANSWER_CHARS) to check it"
            )
        claims = sum(1 for raw in split_claims(text) if parse_markers(raw)[0])
        if claims > self.claims:
            raise LimitExceeded(
                f"the answer text has {claims:,} claims, over the limit of {self.claims:,}; "
                "raise the setting max-claims (--max-claims, CITEGRAPH_MAX_CLAIMS) to check it"
            )


def compose(
    question: str | Question,
    retrieval: Retrieval,
    *,
    context_size: int,
    answerer: Answerer,
    verifier: Verifier,
    limits: Limits,
    models: Sequence[tuple[str, str]],
    answer_text: str | None = None,
    document: Callable[[Span], Document | None] | None = None,
    as_of: str | None = None,
    on_event: Callable[[str, object], None] | None = None,
) -> Answer:
    """The checked answer to ``question`` from ``retrieval``'s evidence (its first ``context_size``
    sentences, numbered from 1): ``answer_text`` if given (an answer written elsewhere), else the
    answerer's, held to ``limits`` (a given ``answer_text`` is checked by the caller, before retrieval:
    :meth:`CiteGraph.ask <citegraph.pipeline.CiteGraph.ask>` does). ``models`` are the ``(role, name)``
    pairs the answer records; ``document(span)`` is the stored document version a span is from (the
    answerability check reads each context sentence with the text around it; its date and whether it
    is superseded say which source is stale; with ``as_of``, the day the context was current on).

    ``on_event(kind, payload)``, for a stream, as the answer takes shape: ``("context", items)``,
    ``("stage", "answering" | "checking" | "comparing")``, ``("token", piece)`` as a language model
    writes each piece of its text, ``("draft", text)`` (written, not yet checked) and ``("claim", (i,
    claim))`` as each claim is checked."""
    emit = on_event or (lambda kind, payload: None)
    summary = retrieval.summary
    asked = Question.of(question)
    read = asked if retrieval.read_as is None else Question.read(retrieval.read_as)  # abbreviations spelled out
    question = read.text
    # a summary's evidence is the named text's sentences, as many as it has sections (bounded by retrieval)
    context = tuple(
        ContextItem(i + 1, e) for i, e in enumerate(retrieval.evidence if summary else context_of(retrieval.evidence, context_size))
    )
    # what retrieval found: what the answerability check reads (not a pronoun's subject, read with its
    # sentence in no place of its own: the reader does not look for the answer in it)
    found = tuple(item for item in context if item.evidence.found_by != SUBJECT)
    if not summary and document is not None and read.expected == DATE:
        context += _lines_beside(context, document, _conversation_time, "time")
        context += _lines_beside(context, document, _header_line("Date"), "time")
    if not summary and document is not None and read.expected == AGENT:
        context += _lines_beside(context, document, _header_line("From"), "sender")
        if asks_who_started(read.text):
            # "Who initiated the discussion about …?": whoever wrote the first line of a conversation the
            # context reaches; read for the answer like what retrieval found, quoted beside its lines
            openers = _lines_beside(context, document, _conversation_opener, OPENER)
            context += openers
            found += openers
    emit("context", context)
    surroundings = None if document is None else partial(with_lead_in, document)
    if summary and context:  # the reader looks for one answer; a summary quotes the text it names
        note = "communities are quoted" if retrieval.communities else "its sections are quoted"
        answerability: Answerability | None = Answerability(True, None, note=f"a question about the whole of {summary}: its {note}")
    else:
        subjects = [form for pair in retrieval.spelled_out for form in pair]
        said_when = None if document is None else partial(_said_when, document)
        answerability = (
            assess(read, found, surroundings=surroundings, subjects=subjects, said_when=said_when, spelled=retrieval.spelled_out)
            if context
            else None
        )
    request = not summary and writing_request(asked.text)  # "Draft a referral letter …": no one answer to find
    if request and answerability is not None and not answerability.answerable:
        answerability = replace(
            answerability,
            answerable=True,
            note="a request to write from the documents, not a question: the evidence most like it is quoted as related, "
            f"not checked as what it asks for ({answerability.note})",
        )
    if not summary and not request and answerability is not None and not answerability.answerable:
        asked_here = asked_and_replied(found)
        if asked_here is not None:
            answerability = replace(
                answerability,
                answerable=True,
                note=f"[{asked_here[0].marker}] asks this question in the documents and [{asked_here[1].marker}] replies to it: "
                f"the reply is quoted as what the documents say ({answerability.note})",
            )
    if answer_text is None and answerability is not None and not answerability.answerable:
        # nothing is written from evidence that does not answer: it is shown as context only
        why = f" ({answerability.note})" if answerability.note else ""
        warning = AnswerWarning(
            "not_found",
            f"the documents visible to you do not answer this question{why}",
            (("by", "answerability"), ("why", answerability.note)),
        )
        return _not_found(asked.text, retrieval, context, models, answerability, warning)
    if answer_text is None:
        emit("stage", "answering")
    lead = None
    if answerability is not None and answerability.reading is not None and answerability.reading.probability >= LEAD_AT:
        lead = answerability.reading.marker
    # a language model's text is told piece by piece as it is written (a stream shows it as unchecked)
    on_token = None if on_event is None else lambda piece: emit("token", piece)
    text = answer_text if answer_text is not None else answerer.respond(question, context, lead, summary=bool(summary), on_token=on_token)
    emit("draft", text)
    if answer_text is None:
        limits.check_answer(text)  # a generated answer is held to the caps a given one met before retrieval
        if context and is_abstention(text):
            warning = AnswerWarning(
                "not_found", f"the generator ({answerer.name}) found no answer to this question in the evidence", (("by", "generator"),)
            )
            return _not_found(asked.text, retrieval, context, models, answerability, warning, text=text)
    emit("stage", "checking")

    def checked(text: str) -> tuple[list[Claim], list[AnswerWarning]]:
        claims, warnings = resolve_claims(
            text, context, verifier, on_claim=None if on_event is None else lambda i, c: emit("claim", (i, c))
        )
        emit("stage", "comparing")
        compared = None if document is None else [_with_subject(document, item.span) for item in context]
        warnings.extend(source_conflict_warnings(context, verifier, question=question, claims=claims, reported=warnings, texts=compared))
        if answer_text is None:  # evidence it would not quote, said
            warnings[:0] = answerer.warnings(question, context, lead, summary=bool(summary))
        if not context:
            warnings.insert(0, AnswerWarning("no_evidence", "no stored sentence visible to this caller matches the question"))
        if document is not None:
            warnings = said_apart_dropped(warnings, context, partial(_said_when, document))
            warnings.extend(stale_warnings(context, claims, warnings, document, as_of=as_of))
        return claims, warnings

    claims, warnings = checked(text)
    current = (
        quote([item for item in context if item.marker in unquoted_current(claims, warnings)])
        if answer_text is None and not summary
        else ""
    )
    if current:  # the answer quotes a stale source only: the current one it disagrees with is quoted first
        text = f"{current} {text}"
        emit("draft", text)
        claims, warnings = checked(text)
    elif answer_text is None and not summary and (stale := quoted_stale(claims, warnings)):
        # it quotes both sides of a disagreement: the current source is read first, the stale one after it
        pieces = split_claims(text)
        late = [p for p in pieces if (marks := parse_markers(p)[1]) and set(marks) <= stale]
        kept = [p for p in pieces if p not in late]
        if late and kept and [*kept, *late] != pieces:
            text = " ".join([*kept, *late])
            emit("draft", text)
            claims, warnings = checked(text)
    if answerability is not None and not answerability.answerable:  # an answer written elsewhere: checked, and told
        warnings.append(AnswerWarning("not_found", f"the visible evidence does not seem to answer this question ({answerability.note})"))
    status = answer_status(claims, context, warnings)
    if summary:  # quotes chosen to sum up a text or the corpus: whether they "address" it is not a question of terms
        relevance = Relevance(
            "unchecked", None, None, None, note=f"a summary of {summary}: its quotes are not checked against the question's terms"
        )
    else:
        relevance = check_relevance(read, [c.text for c in claims]) if context else Relevance("unchecked", None, None, None)
    if summary and retrieval.communities:
        warnings.append(
            AnswerWarning(
                "overview",
                f"an overview of {summary}: {len(claims)} sentence(s) quoted, one from each of {len(retrieval.communities)} "
                "communities of the graph (entities joined by relations and shared sentences); that they are its main points, "
                "or all of them, is not checked: `citegraph communities` lists every community",
                (("summary", summary), ("communities", tuple(id_ for id_, _title in retrieval.communities))),
            )
        )
    elif summary:
        warnings.append(
            AnswerWarning(
                "summary",
                f"a summary of {summary}: {len(claims)} sentence(s) quoted from its sections, each the one most like its section; "
                "that they are its gist is not checked: read the document for what they leave out",
                (("summary", summary),),
            )
        )
    if summary:
        if status in (AnswerStatus.VERIFIED, AnswerStatus.QUOTED):  # its quotes are exact; nothing checked that they sum it up
            status = AnswerStatus.RELATED
    elif request and status in (AnswerStatus.VERIFIED, AnswerStatus.QUOTED):
        status = AnswerStatus.RELATED
        warnings.append(
            AnswerWarning(
                "not_an_answer",
                "a request to write from the documents: the cited sentences support the claims, and are the evidence most like "
                "the request, but nothing here writes what it asks for: read them as related evidence",
                (("request", "write"),),
            )
        )
    elif status in (AnswerStatus.VERIFIED, AnswerStatus.QUOTED) and not addresses(relevance, answerability, claims):
        status = AnswerStatus.RELATED
        warnings.append(
            AnswerWarning(
                "not_an_answer",
                "the cited sentences support the claims, but nothing shows they answer the question "
                f"(relevance: {relevance.label.replace('_', ' ')}; the reader found no answer in them): read them as related evidence",
                (("relevance", relevance.label),),
            )
        )
    shown = _lead(answerability, claims, context) if status in (AnswerStatus.VERIFIED, AnswerStatus.QUOTED) else None
    return Answer(
        asked.text, text, status, context, tuple(claims), tuple(warnings), retrieval, tuple(models), relevance, answerability, shown
    )


def asked_and_replied(context: Sequence[ContextItem], at: float = ASKED_AT) -> tuple[ContextItem, ContextItem] | None:
    """A context sentence that asks what the question asks (a chat message, an FAQ's question: its
    similarity to the question at least ``at``) and the one right after it in its document, which the
    context holds and which asks nothing: the reply. The documents answer the question there, in
    words the reader may not match ("who's doing the Thursday dinner?" / "I'll book Tasca do Cais in
    Gaia for Thursday"): the question is not turned away as unanswered. The most similar such pair."""
    pairs = [
        (item, reply)
        for item in context
        if item.evidence.similarity >= at and (reply := reply_to(item, context, {item.marker})) is not None
    ]
    return max(pairs, key=lambda pair: (pair[0].evidence.similarity, -pair[0].marker)) if pairs else None


def _lead(answerability: Answerability | None, claims: Sequence[Claim], context: Sequence[ContextItem]) -> Lead | None:
    """The reader's answer where it lies inside a sentence a claim cites, at the P(answers) that makes a
    supported answer green (:data:`ADDRESSED_AT`, :func:`addresses`): the words that made it green, with
    their characters there; None otherwise (the answer is then its quotes alone)."""
    reading = _cited_reading(answerability, claims)
    if reading is None:
        return None
    words, marker, p = reading
    span = next(item.span for item in context if item.marker == marker)
    found = re.search(r"\s+".join(re.escape(w) for w in words.split()), span.text, re.IGNORECASE)
    if found is None:
        return None
    start, end = span.start + found.start(), span.start + found.end()
    return Lead(found.group(), marker, p, Span(span.document, span.version, start, end, found.group()))


def addresses(relevance: Relevance, answerability: Answerability | None, claims: Sequence[Claim]) -> bool:
    """Whether a supported answer shows that it answers its question: the relevance check finds it
    ``addressed`` (the type the question asks for, and the question's terms) *and* the reader found
    its answer (P >= :data:`ADDRESSED_AT`) in a sentence a claim cites. Either alone lets a quote on
    the right topic with the wrong fact (the UK's holiday for a question about Toronto's) show green.
    Chosen on the development corpora's dev halves once passages fit the document (issue 35): of 57
    answers green under "either", 26 were right; "both" kept 21 (16 right) at 0.2, the lowest
    threshold with confidently wrong at or under 5% of dev questions (5 of 134); with each sentence
    read alone (2026-12-04), 8 (6 right) at 0.5, chosen on HotpotQA-100's dev half too."""
    return relevance.label == "addressed" and _cited_reading(answerability, claims) is not None


def _cited_reading(answerability: Answerability | None, claims: Sequence[Claim]) -> Located | None:
    """The reader's answer, where it is at P >= :data:`ADDRESSED_AT` in a sentence a claim cites."""
    reading = answerability.reading if answerability is not None else None
    return reading if reading is not None and reading.probability >= ADDRESSED_AT and reading.marker in cited_markers(claims) else None


def _lines_beside(
    context: Sequence[ContextItem],
    document: Callable[[Span], Document | None],
    where: Callable[[Document, Span], tuple[int, int] | None],
    found_by: str,
) -> tuple[ContextItem, ...]:
    """The lines ``where`` finds, in each context sentence's document, that the sentence itself does
    not carry (its conversation's time, its message's sender or day), each once, numbered after the
    context with score 0: no answerer quotes one for itself; the extractive one quotes it beside a
    sentence it belongs to (:meth:`~citegraph.answer.extractive.ExtractiveAnswerer.times`)."""
    out: list[ContextItem] = []
    seen = {item.span for item in context}
    docs: dict[tuple[str, str], Document | None] = {}
    for item in context:
        span = item.span
        key = (span.document, span.version)
        if key not in docs:
            docs[key] = document(span)
        doc = docs[key]
        if doc is None or doc.text[span.start : span.end] != span.text:
            continue  # a sentence the document no longer holds
        at = where(doc, span)
        if at is None:
            continue
        line = Span(span.document, span.version, at[0], at[1], doc.text[at[0] : at[1]])
        if line not in seen:
            seen.add(line)
            out.append(ContextItem(len(context) + len(out) + 1, Evidence(line, 0.0, 0.0, found_by)))
    return tuple(out)


def _conversation_time(doc: Document, span: Span) -> tuple[int, int] | None:
    """For a chat line with no time of its own: the line that gives its conversation's time ("Time:
    20260223_19:00" opening a session of ``AdamSmith: …`` lines)."""
    if message_stamp(span.text) is not None or not is_line_document(doc.text):
        return None
    return conversation_time(doc.text, span.start)


def _conversation_opener(doc: Document, span: Span) -> tuple[int, int] | None:
    """For a chat line: the first message of its conversation (:func:`~citegraph.sentences.conversation_opener`)."""
    if not is_line_document(doc.text):
        return None
    return conversation_opener(doc.text, span.start)


def said_apart_dropped(
    warnings: Sequence[AnswerWarning], context: Sequence[ContextItem], said_when: Callable[[Span], str]
) -> list[AnswerWarning]:
    """``warnings`` without the conflicts between chat lines said in different conversations (each
    side's lines all someone's messages, each conversation with its own time line): "LiHua: 5:30 works
    for me!" on 18 September and "LiHua: 6:30 works for me!" on 23 September are two arrangements, not
    sources that disagree, and the earlier no stale source. Two messages that carry their own
    different times are never compared at all (:func:`~citegraph.verify.conflicts.find_conflicts`)."""
    by_marker = {item.marker: item for item in context}

    def said(markers: Sequence[int]) -> set[str] | None:  # the times of a side's chat lines; None if any is no chat line
        items = [by_marker.get(m) for m in markers]
        if not items or any(i is None or chat_speaker(i.span.text) is None for i in items):
            return None
        times = {said_when(i.span) for i in items if i is not None}
        return None if "" in times else times

    kept = []
    for w in warnings:
        data: dict[str, Any] = dict(w.data) if w.code == "conflict" else {}
        sides = data.get("cited") or [(m,) for m in data.get("markers", ())]
        times = [said(tuple(side)) for side in sides] if data else []
        if len(times) == 2 and times[0] is not None and times[1] is not None and not times[0] & times[1]:
            continue
        kept.append(w)
    return kept


def _said_when(document: Callable[[Span], Document | None], span: Span) -> str:
    """When a context sentence was said, where it does not carry that itself: its chat conversation's
    time line, or its message's Date line; "" when its document gives neither."""
    doc = document(span)
    if doc is None:
        return ""
    at = _conversation_time(doc, span) or _header_line("Date")(doc, span)
    return "" if at is None else doc.text[at[0] : at[1]]


def _header_line(field: str) -> Callable[[Document, Span], tuple[int, int] | None]:
    """For a sentence below the header of a message (an e-mail, a memo:
    :func:`~citegraph.sentences.message_header`): its ``field`` line (``From``, ``Date``). A body
    sentence does not carry its sender or its day the way a chat line carries its speaker and time."""

    def line(doc: Document, span: Span) -> tuple[int, int] | None:
        at = message_header(doc.text, field)
        return at if at is not None and span.start >= at[1] else None  # not the header line itself

    return line


def _with_subject(document: Callable[[Span], Document | None], span: Span) -> str:
    """The span's sentence as sources are compared: one that opens with a pronoun ("It is open …") with
    the subject of the sentence before it in its document in the pronoun's place."""
    if not leans_on_previous(span.text):
        return span.text
    doc = document(span)
    if doc is None or doc.text[span.start : span.end] != span.text:
        return span.text
    return with_subject(span.text, sentence_before(doc.text, span.start))


def with_lead_in(document: Callable[[Span], Document | None], span: Span) -> str:
    """The span with up to :data:`~citegraph.answer.answerable.LEAD_IN` characters of its document
    before it, from a word's start."""
    doc = document(span)
    if doc is None or doc.text[span.start : span.end] != span.text:
        return span.text
    start = max(0, span.start - LEAD_IN)
    if start > 0 and not doc.text[start - 1].isspace():
        cut = doc.text.find(" ", start, span.start)
        start = span.start if cut < 0 else cut + 1
    return doc.text[start : span.end]


def _not_found(
    question: str,
    retrieval: Retrieval,
    context: tuple[ContextItem, ...],
    models: Sequence[tuple[str, str]],
    answerability: Answerability | None,
    warning: AnswerWarning,
    *,
    text: str = "",
) -> Answer:
    """The answer that says the documents do not answer: no claims; the context, as the nearest evidence."""
    relevance = Relevance("unchecked", None, None, None, note="no claim: the documents do not answer the question")
    return Answer(question, text, AnswerStatus.NOT_FOUND, context, (), (warning,), retrieval, tuple(models), relevance, answerability)
