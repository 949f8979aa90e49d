"""Issue 35, item 2: a sentence that opens with a pronoun is read with the sentence naming what the
pronoun stands for ("She joined in 2015."): retrieval brings that sentence into the context, in no
place of the context's own, and an answer that quotes the pronoun quotes its subject too. Through the
real pipeline (SQLite in memory, spaCy, the hashing embedder)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from citegraph.answer.extractive import ExtractiveAnswerer
from citegraph.embed import HashingEmbedder
from citegraph.models import SUBJECT, ContextItem, Evidence, Span, context_of
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter
from citegraph.store import SQLiteStore

BRANCHES = (
    "# Our branches\n\n"
    "Central Library, 2 Market Street, is the largest branch and the administrative base of the service. "
    "It is open Monday to Friday 9:00–20:00, Saturday 9:30–17:00 and Sunday 12:00–16:00.\n\n"
    "Northgate Branch, 58 Northgate Road, is a small branch near the park. It is closed on Sundays and Mondays.\n"
)


def _graph(splitter: SentenceSplitter, write: Callable[[str, str], Path], name: str, text: str, size: int) -> CiteGraph:
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, context_size=size)
    g.ingest([write(name, text).parent])
    return g


def test_a_pronoun_sentence_brings_the_sentence_naming_its_subject_in_no_place_of_its_own(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    g = _graph(splitter, write, "handbook.md", BRANCHES, size=2)
    answer = g.ask("Which days is it closed on Sundays and Mondays?")
    texts = [item.span.text for item in answer.context]
    closed = texts.index("It is closed on Sundays and Mondays.")
    # its subject is read right before it, found as such, and the context still holds two found sentences
    assert texts[closed - 1] == "Northgate Branch, 58 Northgate Road, is a small branch near the park."
    assert answer.context[closed - 1].evidence.found_by == SUBJECT
    assert sum(item.evidence.found_by != SUBJECT for item in answer.context) == 2
    # the answer quotes the pronoun's sentence with its subject, never alone
    quoted = [claim.text for claim in answer.claims]
    assert "It is closed on Sundays and Mondays." in quoted
    assert (
        quoted.index("It is closed on Sundays and Mondays.")
        == quoted.index("Northgate Branch, 58 Northgate Road, is a small branch near the park.") + 1
    )


def test_a_chat_line_brings_no_subject(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    chat = (
        "2025-03-04 10:10 Aisha Mensah: morning all\n"
        "2025-03-04 10:12 Priya Raman: the van is back from the garage\n"
        "2025-03-04 10:14 Tom Baxter: It runs fine now, I drove it round the block\n"
        "2025-03-04 10:15 Aisha Mensah: great, thanks Tom\n"
    )
    g = _graph(splitter, write, "ops.txt", chat, size=1)
    context = g.ask("Does the van run fine now?").context
    assert any(item.span.text.endswith("It runs fine now, I drove it round the block") for item in context)
    assert all(item.evidence.found_by != SUBJECT for item in context)  # the line before is someone else's


def test_the_context_counts_found_sentences_and_keeps_each_subject_with_its_sentence() -> None:
    def ev(text: str, found_by: str = "passage") -> Evidence:
        return Evidence(Span("d", "v", 0, len(text), text), 0.5, 0.5, found_by)

    evidence = [ev("A one."), ev("Subject two.", SUBJECT), ev("It two."), ev("B three."), ev("Subject four.", SUBJECT), ev("It four.")]
    assert [e.span.text for e in context_of(evidence, 2)] == ["A one.", "Subject two.", "It two."]
    # a subject whose sentence falls outside the context is left out with it
    assert [e.span.text for e in context_of(evidence, 3)] == ["A one.", "Subject two.", "It two.", "B three."]


def test_a_quote_opening_with_a_pronoun_is_quoted_with_its_subject_past_the_cap() -> None:
    subject = "MV Solan enters service on 1 September 2025."
    pronoun = "She carries 320 passengers and 40 cars."
    s1 = Span("board.pptx", "v1", 0, len(subject), subject)
    s2 = Span("board.pptx", "v1", s1.end + 1, s1.end + 1 + len(pronoun), pronoun)
    other = "The Kittiwake carries 180 passengers."
    s3 = Span("fleet.md", "v1", 0, len(other), other)
    context = [
        ContextItem(1, Evidence(s3, 0.7, 0.7, "passage")),
        ContextItem(2, Evidence(s1, 0.0, 0.2, SUBJECT)),
        ContextItem(3, Evidence(s2, 0.65, 0.65, "passage")),
    ]
    quoted = ExtractiveAnswerer(max_claims=1).select(context, "How many cars can the Solan carry?", lead=3).quoted
    assert [item.marker for item in quoted] == [2, 3]  # the cap is one claim; the pronoun's subject comes with it


def test_sources_are_compared_with_the_subject_a_pronoun_stands_for() -> None:
    """Alone, "It is open … Sunday 12:00–16:00." says nothing of what is open: against a stale FAQ's
    "Central Library is closed on Sundays." it looked like another thing, and against Northgate's "It
    is closed on Sundays and Mondays." like the same one. Read with the subject of the sentence before
    it, each compares as what it is about."""
    from citegraph.sentences import sentence_before
    from citegraph.verify.conflicts import rule_conflict, with_subject

    central = BRANCHES.index("It is open")
    assert sentence_before(BRANCHES, central) == (
        "Central Library, 2 Market Street, is the largest branch and the administrative base of the service."
    )
    hours = with_subject(
        "It is open Monday to Friday 9:00–20:00, Saturday 9:30–17:00 and Sunday 12:00–16:00.", sentence_before(BRANCHES, central)
    )
    assert hours.startswith("Central Library is open Monday")  # the apposition is no part of the name
    northgate = with_subject("It is closed on Sundays and Mondays.", sentence_before(BRANCHES, BRANCHES.index("It is closed")))
    assert northgate == "Northgate Branch is closed on Sundays and Mondays."
    assert rule_conflict("Central Library is closed on Sundays.", hours) == ("opposite", "closed vs open on Sunday")
    assert rule_conflict(northgate, hours) is None  # two branches
    assert rule_conflict("It is closed on Sundays.", "It is open on Sundays 12:00–16:00.") is None  # nothing says what
    # no subject to put in its place: a pronoun before it, a heading, nothing before it
    assert with_subject("It is open on Sundays.", "We open at nine.") == "It is open on Sundays."
    assert with_subject("It is open on Sundays.", "# Our branches") == "It is open on Sundays."
    assert with_subject("Its roof leaks.", "The Workshop is our makerspace.") == "Its roof leaks."
    assert sentence_before("It opens at nine.", 0) == ""


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        ("Our Lisbon office is closed on Fridays.", "Our Lisbon office is open Monday to Friday.", "opposite"),
        ("The support desk is closed on Saturdays.", "The support desk is open on Saturdays from 10:00 to 14:00.", "opposite"),
        ("Central Library is closed on Mondays.", "Central Library is open Tuesday to Saturday.", None),  # other days
        ("The café is closed on Sundays.", "Central Library is open on Sundays 12:00–16:00.", None),  # other things
        ("The Leeds office is open from 8:00 to 18:00 on weekdays.", "The Leeds office is open from 9:00 to 17:00 on weekdays.", "time"),
        ("The Leeds office is open 9:00–17:00.", "The Leeds office is open 10:00–14:00 on Saturdays.", None),  # a day's own hours
        # opening hours for other days are no disagreement; a drill held on another day is
        ("The Leeds office is open 9:00–17:00 on weekdays.", "The Leeds office is open 10:00–14:00 on Saturdays.", None),
        ("The office opens at 9:00 on Mondays.", "The office opens at 9:00 on Tuesdays.", None),
        ("The muster drill is held every Monday at 07:30.", "The muster drill is held every Tuesday at 07:30.", "date"),
        ("The Leeds office is open 9:00–17:00 on weekdays.", "The Leeds office opens at 9:00 on weekdays.", None),  # a time they share
    ],
)
def test_open_against_closed_and_hours_against_hours(a: str, b: str, kind: str | None) -> None:
    from citegraph.verify.conflicts import rule_conflict

    found = rule_conflict(a, b)
    assert (found[0] if found else None) == kind
    assert (rule_conflict(b, a) or (None,))[0] == kind  # either way round


def test_an_answer_flags_a_closing_day_against_opening_hours_given_after_a_pronoun(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    write("faq-2022.md", "# Visiting\n\nCentral Library is closed on Sundays.\n")
    g = _graph(splitter, write, "branches.md", BRANCHES, size=12)
    answer = g.ask("Is Central Library open on Sundays?")
    conflicts = [w for w in answer.warnings if w.code == "conflict"]
    assert any("closed on Sundays" in w.message and "Sunday 12:00–16:00" in w.message for w in conflicts)
    assert not any("Sundays and Mondays" in w.message for w in conflicts)  # Northgate's closing days are its own
