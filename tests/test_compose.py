"""answer/compose.py: one answer put together from a retrieval. The limits refuse before any work,
a status never reads as more than was checked (no check: ``cited``; a summary's exact quotes:
``related``), an empty retrieval says so, and green needs both the relevance check and the reader."""

from __future__ import annotations

import pytest

from citegraph.answer.compose import ADDRESSED_AT, Limits, addresses, compose
from citegraph.answer.extractive import ExtractiveAnswerer
from citegraph.errors import LimitExceeded, UserError
from citegraph.models import (
    Answerability,
    AnswerStatus,
    Citation,
    Claim,
    ClaimStatus,
    Evidence,
    Located,
    Relevance,
    Retrieval,
    Span,
    Support,
    Verdict,
)
from citegraph.verify.base import UncheckedVerifier

POLICY = "policy.md"
SENTENCES = (
    "Employees may work remotely up to three days per week.",
    "Remote work requests are approved by the team lead.",
)


def _retrieval(*, summary: str | None = None, evidence: bool = True) -> Retrieval:
    spans, start = [], 0
    for text in SENTENCES:
        spans.append(Span(POLICY, "v1", start, start + len(text), text))
        start += len(text) + 1
    found = tuple(Evidence(s, 0.9 - i / 10, 0.9 - i / 10, "summary" if summary else "sentence") for i, s in enumerate(spans))
    return Retrieval("How many days may employees work remotely?", (), 2, (), found if evidence else (), summary=summary)


def _compose(text: str, retrieval: Retrieval | None = None, **kwargs: object):  # type: ignore[no-untyped-def]
    return compose(
        kwargs.pop("question", "How many days may employees work remotely?"),  # type: ignore[arg-type]
        retrieval or _retrieval(),
        context_size=8,
        answerer=ExtractiveAnswerer(),
        verifier=kwargs.pop("verifier", UncheckedVerifier()),  # type: ignore[arg-type]
        limits=Limits(),
        models=(("verifier", "none"),),
        answer_text=text,
    )


def test_limits_refuse_an_empty_or_long_question_and_an_answer_of_too_many_claims() -> None:
    with pytest.raises(UserError, match="empty"):
        Limits().check_question("   ")
    with pytest.raises(LimitExceeded, match="max-question-chars"):
        Limits(question_chars=10).check_question("What is the remote work policy?")
    with pytest.raises(LimitExceeded, match="max-claims"):
        Limits(claims=1).check_answer("Three days [1]. The team lead approves [2].")
    with pytest.raises(LimitExceeded, match="max-answer-chars"):
        Limits(answer_chars=5).check_answer("Three days [1].")
    Limits(claims=2).check_answer("Three days [1]. The team lead approves [2].")  # at the limit: taken


def test_an_unchecked_answer_is_cited_never_verified() -> None:
    answer = _compose("Employees may work remotely up to three days per week [1].")
    assert [c.status for c in answer.claims] == [ClaimStatus.UNVERIFIED]
    assert answer.status == AnswerStatus.CITED
    assert answer.claims[0].citations[0].span.text == SENTENCES[0]


def test_a_marker_outside_the_context_is_kept_and_named() -> None:
    answer = _compose("Employees may work remotely up to five days per week [7].")
    (claim,) = answer.claims
    assert claim.status == ClaimStatus.INVALID_MARKER and claim.invalid_markers == (7,)
    assert answer.status not in (AnswerStatus.VERIFIED, AnswerStatus.QUOTED, AnswerStatus.CITED)


def test_no_evidence_says_so() -> None:
    answer = _compose("Three days [1].", _retrieval(evidence=False))
    assert answer.status == AnswerStatus.NO_EVIDENCE
    assert answer.warnings[0].code == "no_evidence"


def test_a_summary_of_exact_quotes_is_related_with_the_reason() -> None:
    from citegraph.components import make_verifier

    answer = _compose(f"{SENTENCES[0]} [1] {SENTENCES[1]} [2]", _retrieval(summary=POLICY), verifier=make_verifier("guards"))
    assert {c.status for c in answer.claims} == {ClaimStatus.SUPPORTED}  # the quotes are exact ...
    assert answer.status == AnswerStatus.RELATED  # ... but nothing checked that they are the gist
    assert any(w.code == "summary" for w in answer.warnings)


def _claim(marker: int) -> Claim:
    span = Span(POLICY, "v1", 0, 5, "Three")
    return Claim(
        "Three days.",
        f"Three days [{marker}].",
        ClaimStatus.SUPPORTED,
        (Citation(marker, span, Support(Verdict.SUPPORTED, 1.0, "guards")),),
        (marker,),
    )


@pytest.mark.parametrize(
    ("label", "probability", "cited", "green"),
    [
        ("addressed", ADDRESSED_AT, 1, True),
        ("addressed", ADDRESSED_AT - 0.01, 1, False),  # the reader is not sure enough
        ("addressed", 0.9, 2, False),  # the reader's answer is in a sentence no claim cites
        ("partly_addressed", 0.9, 1, False),  # the relevance check alone says no
    ],
)
def test_green_needs_both_the_relevance_check_and_the_readers_answer_in_a_cited_sentence(
    label: str, probability: float, cited: int, green: bool
) -> None:
    relevance = Relevance(label, "number", True, 1.0)
    answerability = Answerability(True, 0.9, reading=Located("three days", 1, probability))
    assert addresses(relevance, answerability, [_claim(cited)]) is green
    assert addresses(relevance, None, [_claim(cited)]) is False


def test_the_reader_reads_a_sentence_with_the_words_before_it_and_nothing_after() -> None:
    from citegraph.answer.answerable import LEAD_IN
    from citegraph.answer.compose import with_lead_in
    from citegraph.models import Document

    filler = "Lorem ipsum dolor sit amet. " * 10
    text = filler + "Maria Lopez joined in 2015. She leads sales. Tomás leads support."
    start = text.index("She")
    span = Span("team.md", "v1", start, start + len("She leads sales."), "She leads sales.")
    doc = Document("team.md", "v1", text, "team.md")
    read = with_lead_in(lambda s: doc, span)
    assert read.endswith("She leads sales.") and "Tomás" not in read  # nothing after the sentence
    assert "Maria Lopez joined in 2015." in read and len(read) <= LEAD_IN + len(span.text)
    assert read.split()[0] in filler.split()  # from a word's start, never a piece of one
    # a span the stored text does not hold (another version's) is read alone
    assert with_lead_in(lambda s: Document("team.md", "v2", "Changed text.", "team.md"), span) == span.text


def test_a_question_the_documents_ask_and_reply_to_is_found_there() -> None:
    """ "Who's organising the restaurant for the Thursday evening at the offsite?" shares no content word
    with its answer ("I'll book Tasca do Cais in Gaia for Thursday"), and the reader does not find it;
    but the chat line before it asks the same thing. A line that asks, similar enough to the question,
    with its reply right after it in the context, is where the documents answer it."""
    from citegraph.answer.compose import ASKED_AT, asked_and_replied
    from citegraph.models import ContextItem

    log = "chat.txt"
    lines = (
        "[14/05/2025, 21:09] Priya Raman: who's doing the Thursday dinner?",
        "[14/05/2025, 21:15] Joana Ferreira: I'll book Tasca do Cais in Gaia for Thursday, they have a room for 60.",
        "[14/05/2025, 21:20] Priya Raman: can you send the address?",
    )
    spans, start = [], 0
    for text in lines:
        spans.append(Span(log, "v1", start, start + len(text), text))
        start += len(text) + 1
    similar = ASKED_AT + 0.06

    def context(*found: tuple[int, float]) -> list[ContextItem]:
        return [ContextItem(n + 1, Evidence(spans[i], s, s, "passage")) for n, (i, s) in enumerate(found)]

    asked, reply = asked_and_replied(context((0, similar), (1, 0.3))) or (None, None)
    assert asked is not None and reply is not None and reply.span.text.startswith("[14/05/2025, 21:15] Joana Ferreira")
    assert asked_and_replied(context((0, ASKED_AT - 0.2), (1, 0.3))) is None  # a question about something else
    assert asked_and_replied(context((0, similar))) is None  # its reply not in the context
    assert asked_and_replied(context((1, similar), (2, 0.3))) is None  # a statement followed by a question: no reply
    assert asked_and_replied(context((2, similar))) is None
