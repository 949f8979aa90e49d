"""Questions about a whole document or one section of it (issue 35, item 3): "Summarize X", "What's
new in 5.0?". Answered from the named text's own structure, one quoted sentence per section, never
from the sentences that only name it; a question of that form whose document is not found is ranked
as any other. Through the real pipeline (SQLite in memory, spaCy, the hashing embedder)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from citegraph.embed import HashingEmbedder
from citegraph.errors import ModelUnavailable
from citegraph.models import AnswerStatus
from citegraph.pipeline import CiteGraph
from citegraph.retrieve import articles
from citegraph.retrieve.articles import ARTICLE_WEIGHTS, article_order
from citegraph.retrieve.summary import Request, summary_request
from citegraph.sentences import SentenceSplitter
from citegraph.store import SQLiteStore
from citegraph.verify.cascade import CheckingVerifier

POLICY = """# Travel policy

Version 2.0 · Owner: Ann Lee, Finance · Last reviewed 3 March 2025

This policy says how Pebble staff travel for work.

## Booking

All trips are booked through Roamwise at least two weeks ahead.

## Hotels

The hotel limit is EUR 160 per night outside London.

## Meals

The meal allowance is EUR 45 for each full day away.
"""

CHANGELOG = """# Changelog

All notable changes to Pebble are listed here.

## [2.0.0] - 2025-05-19

### Added
- A rewritten calendar view with drag and drop.
- An importer that brings projects across from Trello.

### Removed
- The old v1 API, deprecated since 1.4.0.

## [1.9.1] - 2025-03-05

### Fixed
- Exports no longer time out on large workspaces.
"""

MINUTES = "Pebble travel will be reviewed in June. The travel policy was discussed at length by the board."


def _checked(splitter: SentenceSplitter, folder: Path) -> CiteGraph:
    """An in-memory store with the hashing embedder and the checking verifier, ``folder`` ingested."""
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    g.ingest([folder])
    return g


@pytest.fixture
def pebble(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> CiteGraph:
    folder = write("travel-policy.md", POLICY).parent
    write("CHANGELOG.md", CHANGELOG)
    write("minutes.md", MINUTES)
    return _checked(splitter, folder)


@pytest.mark.parametrize(
    ("question", "target", "about", "decisions"),
    [
        ("Summarize the travel policy.", "the travel policy", "", False),
        ("Give me an overview of the security policy", "the security policy", "", False),
        ("What does the onboarding checklist cover?", "the onboarding checklist", "", False),
        ("What's new in Pebble 2.0?", "Pebble 2.0", "", False),
        ("What does the handbook say about parental leave?", "the handbook", "parental leave", False),
        ("What did the Board decide at its January meeting?", "the Board its January meeting", "", True),
        ("What was agreed at the March review?", "the March review", "", True),
        ("What were the key decisions of the kickoff?", "the kickoff", "", True),
        # the meeting named by its day: "decide on 15 January"
        ("What did the leadership team decide on 15 January 2025?", "the leadership team 15 January 2025", "", True),
    ],
)
def test_a_summary_question_is_recognised_by_its_form(question: str, target: str, about: str, decisions: bool) -> None:
    assert summary_request(question) == Request(target, about, decisions)


@pytest.mark.parametrize("question", ["What is the hotel limit?", "Who summarized the report?", "How many days of leave do I get?"])
def test_other_questions_are_not_summaries(question: str) -> None:
    assert summary_request(question) is None


def test_a_summary_quotes_one_sentence_of_each_section_of_the_named_document(pebble: CiteGraph) -> None:
    answer = pebble.ask("Summarize the travel policy.")
    assert answer.retrieval.summary == "travel-policy.md"
    assert {item.span.document for item in answer.context} == {"travel-policy.md"}  # not the minutes that name it
    quoted = [c.text for c in answer.claims]
    assert any("Roamwise" in q for q in quoted) and any("EUR 160" in q for q in quoted) and any("EUR 45" in q for q in quoted)
    assert not any(q in ("Travel policy", "Booking", "Hotels", "Meals") for q in quoted)  # never a heading
    assert not any("Owner" in q or "Version" in q for q in quoted)  # nor the document's record-keeping
    # each claim quotes the sentence it cites; that the quotes sum the document up is not checked: never green
    assert all(c.status.value == "supported" for c in answer.claims)
    assert answer.status is AnswerStatus.RELATED and answer.lead is None  # no one answer to lead with
    assert any(w.code == "summary" for w in answer.warnings)


SECURITY = "# Security policy\n\n" + "\n\n".join(
    f"## {head}\n\n{lead} {rest}"
    for head, lead, rest in [
        ("Accounts", "Every person has their own named accounts.", "Two-factor authentication is mandatory for every account."),
        ("Devices", "Work is done on company laptops.", "Laptops must use full-disk encryption."),
        ("Retention", "We keep data only as long as we need it.", "Customer data is deleted 30 days after cancellation."),
        ("Incidents", "A lost laptop is reported within one hour.", "The security team then locks the account."),
        ("Suppliers", "Security reviews every supplier.", "A data processing agreement is signed first."),
        ("Training", "Everyone takes the security course.", "The course covers phishing and passwords."),
        ("Reviews", "Access is reviewed by managers.", "Reviews happen every quarter."),
        # sections enough that one sentence of each is what a summary has room for
        ("Backups", "Backups run every night at 02:00.", "They are kept for 35 days."),
        ("Remote work", "Public Wi-Fi needs the VPN.", "The VPN starts by itself."),
        ("Visitors", "Visitors sign in at reception.", "They wear a badge all day."),
        ("Printing", "Confidential printouts are shredded the same day.", "The shredder is by the printer."),
    ]
)


def test_a_section_whose_lead_states_nothing_specific_is_summed_up_with_its_first_specific_sentence(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    g = _checked(splitter, write("security-policy.md", SECURITY).parent)
    quoted = [c.text for c in g.ask("Summarize the security policy.").claims]
    # eleven sections: one sentence each, but a lead that only names its topic brings the sentence that says what is required
    assert "Every person has their own named accounts." in quoted and any("Two-factor" in q for q in quoted)
    assert any("full-disk encryption" in q for q in quoted) and any("30 days" in q for q in quoted)
    # a lead that is itself specific ("within one hour") stands alone, as does a section with nothing specific after its lead
    assert not any("locks the account" in q for q in quoted)
    assert not any("phishing" in q for q in quoted) and not any("every quarter" in q for q in quoted)


def test_a_release_in_a_changelog_is_summarised_with_its_subsections_only(pebble: CiteGraph) -> None:
    answer = pebble.ask("What's new in Pebble 2.0?")
    assert answer.retrieval.summary is not None and "2.0.0" in answer.retrieval.summary
    text = answer.text
    assert "calendar view" in text and "Trello" in text and "v1 API" in text
    assert "time out" not in text  # 1.9.1's fix is another section


def test_a_summary_of_a_document_that_is_not_there_is_answered_as_any_question(pebble: CiteGraph) -> None:
    answer = pebble.ask("Summarize the dental insurance plan.")
    assert answer.retrieval.summary is None
    assert not any(w.code == "summary" for w in answer.warnings)


def test_a_summary_never_reads_a_document_the_caller_may_not(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    folder = write("salary-bands.md", "# Salary bands\n\n## Engineers\n\nBand E3 pays EUR 70,000.\n").parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter)
    g.ingest([folder], access=["hr"])
    assert g.ask("Summarize the salary bands.", labels=["public"]).retrieval.summary is None
    assert g.ask("Summarize the salary bands.", labels=["hr"]).retrieval.summary == "salary-bands.md"


def test_minutes_their_own_name_names_are_summarised_whole_not_by_a_heading_that_shares_a_word(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    minutes = (
        "# Board minutes\n\nThe Board approved the budget for 2025.\n\nThe Board agreed to open on Sundays from March.\n\n"
        "## Date of next meeting\n\nThe next meeting is on 18 June 2025.\n"
    )
    folder = write("board-2025-01-22.md", minutes).parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter)
    g.ingest([folder])
    answer = g.ask("What did the Board decide at its January 2025 meeting?")
    assert answer.retrieval.summary == "board-2025-01-22.md"  # the whole minutes, not the section "Date of next meeting"
    assert "budget" in answer.text and "Sundays" in answer.text


def test_asked_what_was_decided_a_summary_quotes_the_decisions_not_each_sections_lead(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    minutes = (
        "# Board minutes\n\n## 1. Report\n\nFiona Grant presented her report for the quarter. Visits were up 4% on last year. "
        "Sunday opening at Central averaged 610 visits, and she recommended making it permanent. The Board agreed.\n\n"
        "## 2. Charges\n\nThe Board considered the review of charges.\n\n**Decisions:**\n\n"
        "- Overdue charges on adult cards are reduced to 10p per day.\n- The loan period for DVDs is extended to 14 days.\n\n"
        "## 3. Online joining\n\nOwen Price reported that online joining with an e-card is ready.\n"
    )
    folder = write("board-2025-01-22.md", minutes).parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter)
    g.ingest([folder])
    decided = g.ask("What did the Board decide at its January 2025 meeting?").text
    # "The Board agreed." says only that: the sentence before it says what was agreed
    assert "recommended making it permanent" in decided and "The Board agreed" in decided
    assert "10p per day" in decided and "14 days" in decided  # each item under "Decisions:"
    assert "presented her report" not in decided  # the lead of a section that records a decision
    assert "online joining" in decided  # a section that records no decision keeps its lead
    summary = g.ask("Summarize the board minutes.").text
    assert "presented her report" in summary  # asked for all it says, each section's lead as before


def test_a_decision_written_after_a_label_on_its_own_line_is_a_decision() -> None:
    """ "**Decision:** Open a second support role." records a decision though no verb says so; a
    sentence that only mentions decisions does not ("No decisions.")."""
    from citegraph.retrieve.summary import decided

    texts = [
        "Nadia explained the queue.",
        "**Decision:** Open a second support engineer role, based in Toronto.",
        "Decisions: the retreat is near Porto.",
        "No decisions.",
        "The decision was discussed at length.",
    ]
    assert decided(list(range(len(texts))), texts, [False] * len(texts)) == {1, 2}


def test_a_chat_log_is_summed_up_one_line_per_conversation(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    """A chat log's structure is its conversations (its passages): its summary quotes one line of
    each, from the first to the last, not three lines of its opening (issue 37, measurement c)."""
    topics = ["the release rollout", "the sync latency", "the database index", "the on-call handover"]
    lines = [
        f"2025-03-{day:02d} 09:{minute:02d} {name}: update {minute} on {topics[(day - 3) % 4]}, nothing else changed since the last message."
        for day in range(3, 7)
        for minute, name in zip(range(10, 19), ["Tom Ashby", "Sofia Almeida", "Nadia Petrova"] * 3, strict=True)
    ]
    log = "\n".join(lines) + "\n"
    write("incidents.txt", log)
    g = _checked(splitter, write("readme.md", "Nothing to see here.").parent)
    answer = g.ask("Summarize incidents.txt.")
    assert answer.retrieval.summary == "incidents.txt"
    starts = sorted(c.citations[0].span.start for c in answer.claims)
    assert starts[0] < len(log) / 4 and starts[-1] > len(log) * 2 / 3  # from its first conversation to its last
    assert len(answer.claims) <= len(lines) // 4  # one line a conversation, not a transcript
    assert all(c.status.value == "supported" for c in answer.claims)


def test_two_messages_said_at_different_times_are_no_disagreement() -> None:
    """ "still 1.9s" at 17:05 and "back to 0.5s" the next morning are a log's history, not two sources
    that disagree, whatever a model makes of them."""
    from citegraph.verify.conflicts import find_conflicts

    class Contradicting(CheckingVerifier):
        def contradictions(self, pairs, *, fast=False):  # type: ignore[no-untyped-def]
            from citegraph.verify.base import PairCheck

            return [PairCheck(0.99, by="checker") for _ in pairs]

    log = ["2025-03-03 17:05 Tom Ashby: p95 sync latency is still 1.9s.", "2025-03-04 10:58 Tom Ashby: p95 sync latency back to 0.5s."]
    assert find_conflicts(log, Contradicting()).conflicts == ()
    same_time = ["2025-03-03 17:05 Tom Ashby: p95 sync latency is 1.9s.", "2025-03-03 17:05 Tom Ashby: p95 sync latency is 0.5s."]
    assert find_conflicts(same_time, Contradicting()).conflicts  # said at one moment: compared
    # a timeline's entry opens with its moment as a chat message does; one moment written two ways is one
    timeline = ["4 March, 09:03: P1 declared; sync latency 1.9s.", "2025-03-04 10:58 Tom Ashby: sync latency back to 0.5s."]
    assert find_conflicts(timeline, Contradicting()).conflicts == ()
    later = ["4 March, 09:03: sync latency is 1.9 seconds.", "4 March, 10:58: sync latency is 0.5 seconds."]
    assert find_conflicts(later, Contradicting()).conflicts == ()
    one_moment = ["4 March, 09:03: sync latency is 1.9 seconds.", "March 4, 09:03 - sync latency is 0.5 seconds."]
    assert find_conflicts(one_moment, Contradicting()).conflicts


def test_a_sentence_of_a_chat_message_that_opens_in_lower_case_is_a_quote() -> None:
    """The answer cuts a message into its sentences as pysbd reads them; the quote stage finds each
    among the cited message's sentences, lower-case openings included, so a verbatim quote is never
    left to the checker (which called "p95 sync latency back to 0.5s." contradicted by its own message)."""
    from citegraph.models import Span
    from citegraph.verify.guards import is_whole_quote

    message = "2025-03-04 10:58 Tom Ashby: 4.12.0 on all nodes. p95 sync latency back to 0.5s."
    assert is_whole_quote("p95 sync latency back to 0.5s.", message)
    assert not is_whole_quote("p95 sync latency back to 0.9s.", message)
    support = CheckingVerifier().verify("p95 sync latency back to 0.5s.", [Span("log.txt", "v1", 0, len(message), message)])
    assert support.label.value == "supported" and support.stage == "quote"


@pytest.mark.parametrize(
    "asked",
    [
        "I would like a summary of the security policy",
        "Give me the key points of the security policy please",
        "Can you tell me what the security policy covers?",  # read as "what the security policy covers?"
        "Hi! Could you sum up the security policy?",
    ],
)
def test_a_summary_asked_another_way_is_a_summary(asked: str, splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    g = _checked(splitter, write("security-policy.md", SECURITY).parent)
    answer = g.ask(asked)
    assert answer.retrieval.summary is not None and "security-policy" in answer.retrieval.summary
    assert any(w.code == "summary" for w in answer.warnings)


def test_the_names_a_summary_question_looks_among_are_read_once_per_graph(pebble: CiteGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every document's words were read again for each summary question: seconds a question at
    100,000 sentences. They are read once for a caller's graph, and the document named is the same."""
    from citegraph.retrieve import summary

    view = pebble.retriever.view(["public"])
    request = summary_request("Summarize the travel policy.")
    assert request is not None
    first = summary.find_target(view, request)
    read: list[str] = []
    words = summary._words
    monkeypatch.setattr(summary, "_words", lambda text: read.append(text) or words(text))
    again = summary.find_target(view, request)
    assert first is not None and again == first and first.document == "travel-policy.md"
    assert read == [request.target]  # only the question's own words


ARTICLE = (
    "A fire at a warehouse in Leeds destroyed thousands of parcels on Tuesday night, the city's fire service said. "
    "Forty firefighters fought the blaze for six hours before bringing it under control early on Wednesday. "
    "No one was injured, and the cause of the fire is not yet known. "
    "The warehouse, on an industrial estate near the ring road, was built in 1987. "
    "It was bought by a delivery company four years ago. "
    '"We heard a loud bang and then saw the flames," said one neighbour, who did not want to be named. '
    "Residents were asked to keep their windows closed because of the smoke. "
    "The delivery company said customers whose parcels were lost would be contacted this week. "
    "The ring road reopened on Wednesday afternoon.\n"
)


def test_a_news_article_is_summed_up_by_the_trained_scorer(
    splitter: SentenceSplitter, minilm: Any, write: Callable[[str, str], Path]
) -> None:
    """An article (one section, no chat log) is summed up by the scorer trained on news summaries
    (``bench/train_summary.py``): three of its sentences, in the document's order, each a checked
    quote; with the vectors it was fitted on, the ones it ranks first."""
    folder = write("warehouse-fire.txt", ARTICLE).parent
    with CiteGraph(SQLiteStore(":memory:"), minilm, splitter=splitter, verifier=CheckingVerifier()) as g:
        g.ingest([folder])
        answer = g.ask("Summarize warehouse-fire.txt.")
        sentences = [s.span.text for s in splitter.split("warehouse-fire.txt", "", ARTICLE)]
    assert answer.retrieval.summary == "warehouse-fire.txt"
    quoted = [c.citations[0].span for c in answer.claims]
    assert len(quoted) == 3 and [s.start for s in quoted] == sorted(s.start for s in quoted)
    order = article_order(sentences, minilm.embed(sentences), minilm.name)
    assert order is not None and sorted(s.text for s in quoted) == sorted(sentences[j] for j in order[:3])
    assert quoted[0].text == sentences[0]  # the lead says what happened
    assert all(c.status.value == "supported" for c in answer.claims)


def test_the_article_scorer_reads_only_the_vectors_it_was_fitted_on_and_only_its_pinned_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another embedder's vectors are not read by weights fitted on MiniLM's (the summary then takes
    the lead and the sentences nearest the centroid); a changed weights file is refused."""
    texts = ["One two three four.", "Five six seven eight.", "Nine ten eleven twelve."]
    assert article_order(texts, HashingEmbedder().embed(texts), HashingEmbedder().name) is None
    changed = tmp_path / "article-sentences.json"
    changed.write_text(ARTICLE_WEIGHTS.read_text(encoding="utf-8").replace('"l2"', '"l2 "'), encoding="utf-8")
    monkeypatch.setattr(articles, "ARTICLE_WEIGHTS", changed)
    with pytest.raises(ModelUnavailable, match="pinned"):
        articles.article_scorer.__wrapped__()  # type: ignore[attr-defined]
