"""Issue 35, item 2: a sentence that opens with a pronoun is read with the sentence naming what the
pronoun stands for ("She joined in 2015."): retrieval brings that sentence into the context, in no
place of the context's own, and an answer that quotes the pronoun quotes its subject too. Through the
real pipeline (SQLite in memory, spaCy, the hashing embedder)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
