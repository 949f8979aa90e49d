"""Issue 23: answers honest as a whole. Quantities compared in their dimension ("a month" is "30
days"), the same thing timed differently against one event, sources in the context that disagree
whatever the answer cites, and "not in your documents" when the evidence does not answer.

Through the real pipeline (SQLite in memory, spaCy); the generator, where there is one, is scripted."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from citegraph.answer.llm_answerer import LLMAnswerer, is_abstention
from citegraph.embed import HashingEmbedder
from citegraph.llm import FakeChatModel
from citegraph.models import AnswerStatus, ClaimStatus, ContextItem, Span
from citegraph.output import answer_json
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter
from citegraph.store import SQLiteStore
from citegraph.verify.cascade import CheckingVerifier
from citegraph.verify.conflicts import find_conflicts, rule_conflict
from citegraph.verify.guards import check_guards
from citegraph.verify.moments import moments
from citegraph.verify.text import counts, quantities, same_value, shared_values

POLICY = "Snapshot exports stay available for 30 days after cancellation."
FAQ = "Exports are removed at cancellation."
WARRANTY_NEW = "The Sprigbot warranty lasts 30 months from delivery."
WARRANTY_OLD = "The Sprigbot warranty lasts 12 months from delivery."


# -- the normaliser ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("available for a month", "available for 30 days"),
        ("kept for 12 months", "kept for a year"),
        ("kept for one year", "kept for 365 days"),
        ("a fortnight", "14 days"),
        ("two weeks", "14 days"),
        ("half a year", "6 months"),
        ("revenue of $5 million", "revenue of 5 million dollars"),
        ("20 percent", "20%"),
    ],
)
def test_equivalent_quantities_are_one_value(a: str, b: str) -> None:
    qa, qb = quantities(a), quantities(b)
    assert qa.keys() == qb.keys() and len(qa) == 1
    (dimension,) = qa
    assert shared_values(qa[dimension], qb[dimension])


@pytest.mark.parametrize(
    ("a", "b"),
    [("30 days", "30 months"), ("4 weeks", "a month"), ("12 months", "12 days"), ("$5 million", "$5 thousand"), ("2 years", "20 months")],
)
def test_different_quantities_are_different(a: str, b: str) -> None:
    qa, qb = quantities(a), quantities(b)
    (dimension,) = qa
    assert not shared_values(qa[dimension], qb.get(dimension, set()))


def test_a_rate_is_not_a_duration() -> None:
    assert "duration" not in quantities("It costs $10 a month.")
    assert "duration" not in quantities("Backups run once a week and three times a day.")
    assert counts("up to 20 items on an adult card and four branches, 1,200 visitors") == {
        "item": {20.0: "20 items"},
        "branche": {4.0: "four branches"},
        "visitor": {1200.0: "1,200 visitors"},
    }
    assert counts("In 2019 films were made; the course lasts 3 hours for 10 users.") == {}  # a year; units are quantities
    # the second unit of a rate is no duration of its own: "two days a week" is 2 days, not also 7
    assert quantities("Staff can work from home up to two days a week.") == {"duration": {2.0}}
    assert quantities("Computers are free for up to an hour a day.") == {"duration": {1 / 24}}
    assert same_value(30.0, 30.4375) and not same_value(28.0, 30.4375)


def test_moments_are_offsets_from_an_event() -> None:
    assert moments(POLICY) == {"cancellation": {30.0}}
    assert moments(FAQ) == {"cancellation": {0.0}}
    assert moments("Reminders are sent 7 days before renewal.") == {"renewal": {-7.0}}
    assert moments("Exports stay available until cancellation.") == {"cancellation": {0.0}}
    assert moments("Snapshots are kept for 90 days.") == {}


# -- the guards and the claim rules --------------------------------------------------------------------
def test_a_duration_in_other_words_is_no_conflict_and_another_is() -> None:
    assert not [g for g in check_guards("Snapshot exports stay available for a month after cancellation.", POLICY) if g.overrules]
    (proof,) = [g for g in check_guards("Snapshot exports stay available for two months after cancellation.", POLICY) if g.overrules]
    assert str(proof) == "number conflict: the claim says 2 months, the cited text 30 days"


def test_a_moment_moved_is_a_timing_conflict_unless_the_text_also_says_it() -> None:
    (proof,) = check_guards("Snapshot exports are removed at cancellation.", POLICY)
    assert proof.code == "timing" and proof.overrules
    both = f"{POLICY} Audit exports are removed at cancellation."
    assert not [g for g in check_guards("Snapshot exports are removed at cancellation.", both) if g.code == "timing"]


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        (POLICY, FAQ, "timing"),
        (WARRANTY_NEW, WARRANTY_OLD, "number"),
        ("The Sprigbot warranty lasts a year from delivery.", WARRANTY_OLD, None),  # the same value
        ("Billing stops at cancellation.", POLICY, None),  # shares only the event: another subject
        ("Reminders are sent 7 days before renewal.", "Reminders are sent at renewal.", "timing"),
        # real documents say the same thing in other words (issue 35, item 5)
        (
            "We keep customer data for 90 days after the customer cancels, in case they change their mind.",
            "Customer workspace data after the customer cancels is deleted 30 days after cancellation.",
            "number",
        ),
        (
            "Two-factor authentication is optional but strongly recommended for all company accounts.",
            "Two-factor authentication is mandatory for all Brightwave accounts, without exception.",
            "modality",
        ),
        # ...and sentences about different things, or different moments of one thing, are no conflict
        (
            "Full-time employees in the United Kingdom and Portugal receive 25 days of paid holiday a year.",
            "Full-time employees in Toronto receive 20 days of paid holiday a year.",
            None,
        ),
        (
            "The Support Engineer band runs from £32,000 to £40,000 a year.",
            "The Senior Software Engineer band runs from £62,000 to £78,000 a year.",
            None,
        ),
        (
            "Snapshots are kept for 90 days on active workspaces.",
            "After those 30 days, the retention service deletes the workspace snapshots.",
            None,
        ),
        # a change announced as "from X to Y": the old value said elsewhere is what no longer holds
        (
            "The muster drill is held every Monday at 07:30, before the first sailing.",
            "From 17 June the weekly muster drill moves from Monday to Tuesday, because the new Monday freight sailing leaves at 07:20.",
            "date",
        ),
        ("The muster drill is held every Tuesday at 07:30.", "The weekly muster drill moves from Monday to Tuesday.", None),
        ("The office opens Monday to Friday.", "The office cleaning moves from Monday to Friday.", None),  # another subject
        (
            "Snapshot exports stay available for 30 days after cancellation.",
            "The snapshot export window changes from 30 days to 14 days after cancellation.",
            "number",
        ),
        # the change said with its object between the verb and "from", and in the -ing form
        (
            "Everyone has a learning budget of £750 per person per year.",
            "Aisha proposed raising the personal learning budget from £750 to £1,000 a year.",
            "number",
        ),
        ("The weekly stand-up is held on Mondays.", "We are moving the weekly stand-up from Monday to Wednesday.", "date"),
        ("The weekly stand-up is held on Wednesdays.", "We are moving the weekly stand-up from Monday to Wednesday.", None),
        # a count of one thing: "15 items" against "20 items" (a year before a plural is no count)
        (
            "You can have up to 15 items on your card at any one time.",
            "You can have up to 20 items on an adult card at any one time, and up to 10 items on a child's card.",
            "number",
        ),
        ("You can have up to 20 items on your card.", "You can have up to 20 items on an adult card and 10 items on a child's card.", None),
        ("In 2019 films were shown at the festival.", "In 2021 films were shown at the festival.", "date"),
        # a thing said to cost nothing, against its price (the old FAQ's "free" beside the current fares)
        ("Bikes travel free on all routes.", "Route: Kelso Quay – Marr Island; Adult single: £6.50; Bike: £1.50.", "number"),
        ("Shipping is free of charge on every order.", "Shipping costs $4.99 per order.", "number"),
        ("Tidepool's free trial lasts 30 days.", "Tidepool costs $10 per user a month.", None),  # a free trial is no free product
        ("Parking is free for staff at Leeds.", "Parking at Lisbon costs €5 a day.", None),  # different places
        # the subjects tell the things apart when no name does: each has a word the other's lacks
        (
            "Items on adult cards are charged at 10p per day overdue.",
            "Equipment items and Wi-Fi hotspots are charged at £1.00 per day overdue.",
            None,
        ),
        # one subject only adds detail to the other's: the same thing
        ("Overdue items on adult cards are charged at 25p per day.", "Items on adult cards are charged at 10p per day overdue.", "number"),
        # two shared words, and a value said in the same words ("days a week") by the 2023 FAQ and the handbook
        (
            "Brightwave staff can work from home up to two days a week.",
            "After a few years of experimenting we have settled on a simple rule: you may work from home for up to three days a week.",
            "number",
        ),
        ("Staff can work from home up to three days a week.", "You may work from home for up to three days a week.", None),
        ("Engineers in Leeds work from home two days a week.", "Engineers in Lisbon work from home three days a week.", None),
        # the same statement but for a word and its opposite
        ("The library is open on Sundays.", "The library is closed on Sundays.", "opposite"),
        ("Central Library is closed on Sundays.", "Central Library is open on Sundays from 12:00 to 16:00.", "opposite"),
        ("Overtime is paid at the higher rate.", "Overtime is paid at the lower rate.", "opposite"),
        ("The library is open on Sundays.", "The library is closed on Mondays.", None),  # another day: both may hold
        ("Prices are higher in London.", "Prices are lower in Leeds.", None),  # different places
        ("Staff arrive 15 minutes before opening.", "Staff leave 15 minutes after closing.", None),  # more than one word apart
        # rows of a table keyed by a code: each names what the other does not
        ("Quarter: Q2 2025; Fuel cost: £1.34m.", "Quarter: Q1 2025; Fuel cost: £1.21m.", None),
        ("Quarter: Q2 2025; Fuel cost: £1.34m.", "Quarter: Q2 2025; Fuel cost: £1.21m.", "number"),
    ],
)
def test_rule_conflicts_between_sources(a: str, b: str, kind: str | None) -> None:
    found = rule_conflict(a, b)
    assert (found[0] if found else None) == kind


def test_sources_of_one_document_are_not_compared_and_only_pairs_in_scope_are() -> None:
    texts = [WARRANTY_NEW, WARRANTY_OLD]
    assert find_conflicts(texts, CheckingVerifier(), sources=["a.md", "a.md"]).conflicts == ()
    assert len(find_conflicts(texts, CheckingVerifier(), sources=["a.md", "b.md"]).conflicts) == 1
    assert find_conflicts(texts, CheckingVerifier(), sources=["a.md", "b.md"], among=[False, False]).conflicts == ()


def test_two_quotes_of_one_document_are_its_cases_not_a_conflict(splitter: SentenceSplitter, tmp_path: Path) -> None:
    bands = "Analysts earn £38,000 to £46,000. Senior analysts earn £50,000 to £62,000."
    one = tmp_path / "one"
    one.mkdir()
    (one / "salaries.md").write_text(f"# Salary bands\n\n{bands}\n", encoding="utf-8")
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    g.ingest([one])
    answer = g.ask("How much do analysts earn?")
    assert len(answer.claims) >= 2 and not [w for w in answer.warnings if w.code == "conflict"]
    # the same two sentences from two documents: sources that disagree, as before
    two = tmp_path / "two"
    two.mkdir()
    (two / "bands-2024.md").write_text("# Bands\n\nAnalysts earn £38,000 to £46,000.\n", encoding="utf-8")
    (two / "bands-2025.md").write_text("# Bands\n\nAnalysts earn £40,000 to £48,000.\n", encoding="utf-8")
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    g.ingest([two])
    assert [w for w in g.ask("How much do analysts earn?").warnings if w.code == "conflict"]


# -- the answer: sources that disagree, whatever the generator cites ----------------------------------
@pytest.fixture
def handbook(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> Callable[..., CiteGraph]:
    write("policy.md", f"# Data retention policy\n\n{POLICY}\n")
    write("faq.md", f"# FAQ (2023)\n\nCan I download my data after I cancel? {FAQ}\n")
    write("warranty.md", f"# Warranty\n\n{WARRANTY_NEW}\n")
    write("warranty-faq.md", f"# Warranty FAQ\n\n{WARRANTY_OLD}\n")
    folder = write("snapshots.md", "# Snapshots\n\nLarkspur takes a snapshot of every workspace each night.\n").parent

    def make(**options: object) -> CiteGraph:
        g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier(), **options)  # type: ignore[arg-type]
        g.ingest([folder])
        return g

    return make


def _marker(answer_context, text: str) -> int:  # type: ignore[no-untyped-def]
    return next(item.marker for item in answer_context if item.span.text == text)


def test_a_generator_that_drops_the_disagreeing_source_is_not_verified(handbook) -> None:  # type: ignore[no-untyped-def]
    question = "How long does the Sprigbot warranty last?"

    def one_side(messages):  # type: ignore[no-untyped-def]
        line = next(line for line in messages[-1].content.splitlines() if "30 months" in line)
        return f"The Sprigbot warranty lasts 30 months from delivery {line.split(']')[0]}]."

    graph = handbook(answerer=LLMAnswerer(FakeChatModel(one_side)))
    answer = graph.ask(question)
    assert [c.status for c in answer.claims] == [ClaimStatus.SUPPORTED]  # the claim itself is fine
    assert answer.status == AnswerStatus.CONFLICTING  # was: verified, the 12 months silently dropped
    (conflict,) = [w for w in answer.warnings if w.code == "conflict"]
    data = dict(conflict.data)
    assert data["kind"] == "number" and data["detail"] in {"30 months vs 12 months", "12 months vs 30 months"}
    assert {s.split("@")[0] for s in data["sources"]} == {"warranty.md", "warranty-faq.md"}
    assert WARRANTY_OLD in conflict.message and WARRANTY_NEW in conflict.message
    assert json_roundtrip(answer)["warnings"][0]["sources"]


def json_roundtrip(answer):  # type: ignore[no-untyped-def]
    import json

    return json.loads(json.dumps(answer_json(answer)))


def test_the_lessons_stale_faq_is_flagged_with_the_extractive_answerer(handbook) -> None:  # type: ignore[no-untyped-def]
    answer = handbook().ask("How long do exports stay available after cancellation?")
    assert answer.status == AnswerStatus.CONFLICTING
    assert any(w.code == "conflict" and dict(w.data)["kind"] == "timing" for w in answer.warnings)


# -- not in your documents ----------------------------------------------------------------------------
def test_the_generators_abstention_is_recognised() -> None:
    assert is_abstention("NOT FOUND") and is_abstention("Not found.") and is_abstention("The evidence does not answer the question.")
    assert not is_abstention("Exports last 30 days [1].") and not is_abstention("Not found [2].")


def test_a_generator_that_abstains_gives_not_found_and_no_claims(handbook) -> None:  # type: ignore[no-untyped-def]
    model = FakeChatModel(lambda m: "NOT FOUND")
    answer = handbook(answerer=LLMAnswerer(model)).ask("How long does the Sprigbot warranty last?")
    assert answer.status == AnswerStatus.NOT_FOUND and answer.claims == () and answer.context
    (warning,) = answer.warnings
    assert warning.code == "not_found" and dict(warning.data)["by"] == "generator"
    assert "NOT FOUND" in model.calls[0][0].content  # the prompt asks for it


# -- which source is current ---------------------------------------------------------------------------
OLD_FAQ_MD = f"---\ndate: 2023-02-01\n---\n# FAQ (2023)\n\n{FAQ}\n"
POLICY_MD = f"---\nupdated: 2025-06-01\n---\n# Data retention policy\n\n{POLICY}\n"
WARRANTY_FAQ_MD = f"---\ndate: 2023-02-01\n---\n# FAQ (2023)\n\n{WARRANTY_OLD}\n"
WARRANTY_POLICY_MD = f"---\nupdated: 2025-06-01\n---\n# Warranty\n\n{WARRANTY_NEW}\n"


@pytest.fixture
def dated(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> CiteGraph:
    write("faq-2023.md", OLD_FAQ_MD)
    folder = write("retention-policy.md", POLICY_MD).parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    g.ingest([folder])
    return g


def test_front_matter_gives_the_date_and_is_never_a_sentence(dated: CiteGraph) -> None:
    faq = dated.store.get_document("faq-2023.md")
    assert faq is not None and faq.dated == "2023-02-01" and faq.text == OLD_FAQ_MD  # stored as written
    policy = dated.store.get_document("retention-policy.md")
    assert policy is not None and policy.dated == "2025-06-01"  # updated: wins over date:
    spans = {e.span.text for e in dated.retriever.retrieve("When are exports removed?", ("public",)).evidence}
    assert not any("date:" in s or "---" in s for s in spans)


def test_a_policy_dated_only_in_its_opening_lines_makes_the_faq_it_contradicts_stale(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    # no front matter: the policy says when it took effect in its first lines, as policies are written
    write("faq-2023.md", OLD_FAQ_MD)
    folder = write("retention-policy.md", f"# Data retention policy\n\n**Effective:** 1 June 2025\n\n{POLICY}\n").parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    g.ingest([folder])
    policy = g.store.get_document("retention-policy.md")
    assert policy is not None and policy.dated == "2025-06-01"
    (stale,) = [w for w in g.ask("How long do exports stay available after cancellation?").warnings if w.code == "stale"]
    assert dict(stale.data)["document"] == "faq-2023.md" and "dated 2025-06-01" in dict(stale.data)["reason"]


def test_the_older_of_two_disagreeing_sources_is_stale(dated: CiteGraph) -> None:
    answer = dated.ask("How long do exports stay available after cancellation?")
    assert answer.status == AnswerStatus.CONFLICTING
    (stale,) = [w for w in answer.warnings if w.code == "stale"]
    data = dict(stale.data)
    assert data["document"] == "faq-2023.md" and "dated 2023-02-01" in data["reason"] and "retention-policy.md" in data["reason"]
    record = json_roundtrip(answer)
    marked = {c["document"]: c["stale"] for c in record["context"]}
    assert marked["faq-2023.md"] and marked["retention-policy.md"] is None


def test_an_answer_quoting_the_stale_source_reads_the_current_one_first(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    from citegraph.answer.extractive import ExtractiveAnswerer, quote

    class StaleOnly(ExtractiveAnswerer):  # an answerer that picked the old FAQ's sentence alone
        def answer(self, question: str, context: Sequence[ContextItem], lead: int | None = None) -> str:
            return quote([item for item in context if item.span.document == "faq-2023.md"][:1])

    write("faq-2023.md", WARRANTY_FAQ_MD)
    folder = write("warranty.md", WARRANTY_POLICY_MD).parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier(), answerer=StaleOnly())
    g.ingest([folder])
    answer = g.ask("How long does the Sprigbot warranty last?")
    assert [c.text for c in answer.claims] == [WARRANTY_NEW, WARRANTY_OLD]  # the current source leads, the stale one is still shown
    assert answer.status == AnswerStatus.CONFLICTING
    (stale,) = [w for w in answer.warnings if w.code == "stale"]
    assert dict(stale.data)["claims"] == (1,)  # said of the claim that relies on it, counted in the answer as shown
    # an answer that already quotes the current source is not given it again; quoting both, it reads
    # the current source first, the stale one after it
    g.answerer = ExtractiveAnswerer()
    again = g.ask("How long does the Sprigbot warranty last?")
    assert sum(c.text == WARRANTY_NEW for c in again.claims) == 1

    class StaleFirst(ExtractiveAnswerer):  # an answerer that quotes the old FAQ, then the policy
        def answer(self, question: str, context: Sequence[ContextItem], lead: int | None = None) -> str:
            return quote(sorted(context, key=lambda item: item.span.document != "faq-2023.md")[:2])

    g.answerer = StaleFirst()
    both = g.ask("How long does the Sprigbot warranty last?")
    assert [c.text for c in both.claims] == [WARRANTY_NEW, WARRANTY_OLD] and both.status == AnswerStatus.CONFLICTING
    assert [dict(w.data)["claims"] for w in both.warnings if w.code == "stale"] == [(1,)]  # counted as shown
    stale_first = " ".join(f"{c.text[:-1]} [{c.citations[0].marker}]." for c in reversed(both.claims))
    given = g.ask("How long does the Sprigbot warranty last?", answer_text=stale_first)
    assert [c.text for c in given.claims] == [WARRANTY_OLD, WARRANTY_NEW]  # an answer given is checked as written, never reordered


def test_a_superseded_document_is_left_out_and_comes_back_marked_stale(dated: CiteGraph) -> None:
    question = "How long do exports stay available after cancellation?"
    assert dated.supersede("faq-2023.md", by="retention-policy.md") is None
    answer = dated.ask(question)
    assert {item.span.document for item in answer.context} == {"retention-policy.md"}
    assert not [w for w in answer.warnings if w.code in {"conflict", "stale"}]
    both = dated.ask(question, include_superseded=True)
    (stale,) = [w for w in both.warnings if w.code == "stale"]
    assert dict(stale.data)["reason"] == "faq-2023.md is superseded by retention-policy.md"
    assert dated.supersede("faq-2023.md", by=None) == "retention-policy.md"  # undone
    assert "faq-2023.md" in {item.span.document for item in dated.ask(question).context}


def test_supersede_names_unknown_documents_and_refuses_itself(dated: CiteGraph) -> None:
    from citegraph.errors import NotFound, UserError

    with pytest.raises(NotFound, match=r"faq-2024\.md"):
        dated.supersede("faq-2024.md", by="retention-policy.md")
    with pytest.raises(UserError, match="cannot supersede itself"):
        dated.supersede("faq-2023.md", by="faq-2023.md")


def test_front_matter_supersedes_marks_the_old_document(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    write("faq-2023.md", OLD_FAQ_MD)
    folder = write("faq-2025.md", f"---\ndate: 2025-01-01\nsupersedes: [faq-2023.md]\n---\n# FAQ\n\n{POLICY}\n").parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter)
    g.ingest([folder])
    old = g.store.get_document("faq-2023.md")
    assert old is not None and old.superseded_by == "faq-2025.md"


def test_as_of_answers_from_the_documents_current_that_day(dated: CiteGraph) -> None:
    question = "How long do exports stay available after cancellation?"
    then = dated.ask(question, as_of="2024-01-01")  # the policy is dated 2025: not yet written
    assert {item.span.document for item in then.context} == {"faq-2023.md"}
    now = dated.ask(question, as_of="2026-01-01")
    assert {item.span.document for item in now.context} == {"faq-2023.md", "retention-policy.md"}
    assert dated.ask(question, as_of="2020-01-01").status == AnswerStatus.NO_EVIDENCE
    dated.supersede("faq-2023.md", by="retention-policy.md")
    assert {item.span.document for item in dated.ask(question, as_of="2026-01-01").context} == {"retention-policy.md"}
    back_then = dated.ask(question, as_of="2024-01-01")
    assert {item.span.document for item in back_then.context} == {"faq-2023.md"}  # not yet replaced
    assert not [w for w in back_then.warnings if w.code == "stale"]  # it was the current source that day


def test_a_bad_date_names_the_field_and_the_fix(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    from citegraph.errors import InputFileError

    folder = write("notes.md", "---\ndate: May 2024\n---\nNotes.\n").parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter)
    report = g.ingest([folder])
    (doc,) = report.documents
    assert doc.status == "failed" and "front matter 'date'" in doc.reason and "YYYY-MM-DD" in doc.reason
    with pytest.raises(InputFileError, match="as-of"):
        g.ask("Anything?", as_of="yesterday")


def test_a_question_the_handbook_cannot_answer_is_not_found(splitter: SentenceSplitter, minilm, larkspur: Path) -> None:  # type: ignore[no-untyped-def]
    from io import StringIO

    from rich.console import Console

    from citegraph.cli.views import render_answer

    g = CiteGraph(SQLiteStore(":memory:"), minilm, splitter=splitter, verifier=CheckingVerifier())
    g.ingest([larkspur])
    answer = g.ask("What was the annual revenue in 2023?")
    assert answer.status == AnswerStatus.NOT_FOUND and answer.claims == () and answer.text == ""
    assert answer.context  # the nearest evidence, shown as context only
    assert answer.answerability is not None and not answer.answerability.answerable
    (warning,) = answer.warnings
    assert warning.code == "not_found" and dict(warning.data)["by"] == "answerability"
    record = json_roundtrip(answer)
    assert record["status"] == "not_found" and record["claims"] == [] and record["answerability"]["answerable"] is False
    printed = StringIO()
    render_answer(Console(file=printed, width=200), answer)
    assert "do not answer this question" in printed.getvalue() and "nearest evidence (context only, not an answer)" in printed.getvalue()
    # a question it can answer is answered
    answered = g.ask("How long are snapshots kept on active workspaces?")
    assert answered.status == AnswerStatus.QUOTED and answered.answerability is not None and answered.answerability.answerable
    # a green answer leads with the reader's words, a part of the sentence it cites, with their own characters
    lead = answered.lead
    assert lead is not None and lead.text and lead.span.text == lead.text
    doc = g.store.get_document(lead.span.document, lead.span.version)
    assert doc is not None and doc.text[lead.span.start : lead.span.end] == lead.text
    cited = next(c for claim in answered.claims for c in claim.citations if c.marker == lead.marker)
    assert cited.span.document == lead.span.document and cited.span.start <= lead.span.start < lead.span.end <= cited.span.end
    assert json_roundtrip(answered)["lead"]["text"] == lead.text and record["lead"] is None  # not_found has none
    printed = StringIO()
    render_answer(Console(file=printed, width=200), answered)
    assert f"A: {lead.text} [{lead.marker}]" in printed.getvalue()
    # an answer written elsewhere to the unanswerable question is still checked, with the warning beside it
    marker = answer.context[0].marker
    given = g.ask("What was the annual revenue in 2023?", answer_text=f"{answer.context[0].span.text[:-1]} [{marker}].")
    assert given.claims and any(w.code == "not_found" for w in given.warnings)


# -- documents made of lines ---------------------------------------------------------------------------
CHAT = """Time: 20260105_14:00
AdamSmith: Hey Li Hua!
LiHua: Hi Adam! How are you?
AdamSmith: The plumber will come tomorrow at 10 AM to fix the kitchen sink. Please keep the hallway clear.
LiHua: Thanks so much! No problem at all.
AdamSmith: Also, the Wi-Fi password is Family123.
"""


def test_a_chat_log_is_one_unit_per_message_with_its_speaker_and_date(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    from citegraph.sentences import evidence_words, is_line_document

    assert is_line_document(CHAT) and not is_line_document(OLD_FAQ_MD)
    folder = write("week02/20260105_1400.txt", CHAT).parent.parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, context_size=12)
    g.ingest([folder])
    doc = g.store.get_document("week02/20260105_1400.txt")
    assert doc is not None and doc.dated == "2026-01-05"  # its Time: line
    spans = [s.text for s in g.store.graph(None).spans]
    # one unit per line: the two-sentence message keeps its speaker, the Time line is not joined to it
    assert "AdamSmith: The plumber will come tomorrow at 10 AM to fix the kitchen sink. Please keep the hallway clear." in spans
    assert "Time: 20260105_14:00" in spans
    # greetings, thanks and the time stamp are not evidence
    assert [evidence_words(t) for t in ("Time: 20260105_14:00", "AdamSmith: Hey Li Hua!", "LiHua: Thanks so much! No problem at all.")] == [
        0,
        2,
        0,
    ]
    context = g.ask("When will the plumber come?").context
    found = [item.span.text for item in context if item.evidence.found_by != "time"]
    assert found and all(evidence_words(t) >= 3 for t in found) and not any("Hey Li Hua" in t for t in found)
    # the Time line comes only as the time of the conversation a line is from (the question asks when)
    assert [item.span.text for item in context if item.evidence.found_by == "time"] == ["Time: 20260105_14:00"]


def test_a_question_asking_when_brings_the_time_of_the_conversation_a_quoted_line_belongs_to(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    from citegraph.sentences import conversation_time

    later = CHAT.replace("20260105_14:00", "20260112_09:30").replace("Wi-Fi password is Family123", "new Wi-Fi password is Garden456")
    later = later.replace("The plumber will come tomorrow at 10 AM to fix the kitchen sink.", "The boiler was serviced today.")
    assert conversation_time(CHAT + later, (CHAT + later).index("Garden456")) == (len(CHAT), len(CHAT) + len("Time: 20260112_09:30"))
    assert conversation_time("AdamSmith: Hey!\nLiHua: Hi!", 17) is None  # no line gives the time
    folder = write("week02/20260105_1400.txt", CHAT).parent.parent
    write("week03/20260112_0930.txt", later)
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, context_size=3, verifier=CheckingVerifier(checker=False))
    g.ingest([folder])
    answer = g.ask("When did Adam say the plumber would come to fix the kitchen sink?")
    times = [item for item in answer.context if item.evidence.found_by == "time"]
    # numbered after what retrieval found, one per conversation a line of the context comes from
    assert times and [item.marker for item in times] == list(range(4, 4 + len(times)))
    assert {item.span.text for item in times} <= {"Time: 20260105_14:00", "Time: 20260112_09:30"}
    plumber = next(c for c in answer.claims if "plumber" in c.text)
    stamp = next(c for c in answer.claims if c.text.startswith("Time:"))
    # the line's own conversation, quoted and checked like any claim
    assert plumber.citations[0].span.document == stamp.citations[0].span.document == "week02/20260105_1400.txt"
    assert stamp.text == "Time: 20260105_14:00." and stamp.status is plumber.status is ClaimStatus.SUPPORTED
    # a question that does not ask when brings no time
    assert not any(item.evidence.found_by == "time" for item in g.ask("What will the plumber fix?").context)


def test_a_question_about_who_started_a_discussion_brings_and_quotes_the_conversations_first_message(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    from citegraph.question import asks_who_started
    from citegraph.sentences import conversation_opener

    assert asks_who_started("Who initiated the discussion about the garden benches?")
    assert asks_who_started("Hi! who kicked off the thread about the offsite??")
    assert not asks_who_started("Who started at the company in March?") and not asks_who_started("Who is on call after Tomas?")
    talk = (
        "Time: 20260301_10:00\n"
        "RexxarRemar: Hey all! I think the garden benches need a fresh coat of paint before spring.\n"
        "GromHellscream: Agreed, the paint is peeling on the benches by the pond.\n"
        "IllidanStormrage: Green would match the hedges nicely.\n"
        "GromHellscream: I can buy the paint at the hardware store on Saturday.\n"
    )
    first = talk.splitlines()[1]
    assert conversation_opener(talk, talk.index("hardware")) == (talk.index(first), talk.index(first) + len(first))
    assert conversation_opener("AdamSmith: Hey!\nLiHua: Hi!", 17) is None  # no line opens the conversation
    folder = write("week09/20260301_1000.txt", talk).parent.parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, context_size=1, verifier=CheckingVerifier(checker=False))
    g.ingest([folder])
    answer = g.ask("Who initiated the discussion about buying paint for the benches at the hardware store?")
    openers = [item for item in answer.context if item.evidence.found_by == "opener"]
    # numbered after what retrieval found: the conversation's first message, whoever retrieval ranked first
    assert [(item.marker, item.span.text) for item in openers] == [(2, first)]
    assert answer.context[0].span.text != first
    quoted = next(c for c in answer.claims if c.text.startswith("RexxarRemar:"))
    assert quoted.citations[0].span.document == "week09/20260301_1000.txt" and quoted.status is ClaimStatus.SUPPORTED
    # a question that does not ask who started brings no opener
    assert not any(item.evidence.found_by == "opener" for item in g.ask("Who will buy the paint for the benches?").context)


def test_a_day_the_question_names_in_numbers_is_named_by_the_time_of_the_conversation(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    from citegraph.answer.relevance import named

    assert named("20260105", set(), "time: 20260105_14:00") and named("2026-01-05", set(), "2026-01-05 10:12 tom: hi")
    assert not named("20260106", set(), "time: 20260105_14:00 and 2026-01-07")
    # the Time line is far above the Wi-Fi line, the one line of the context: its lead-in does not reach
    # it, only the conversation's time does
    notes = "".join(f"LiHua: Note {i} about the weekend plans and the shopping list.\n" for i in range(4))
    chat = CHAT.replace("AdamSmith: Hey Li Hua!\n", "AdamSmith: Hey Li Hua!\n" + notes)
    folder = write("week02/20260105_1400.txt", chat).parent.parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, context_size=1, verifier=CheckingVerifier(checker=False))
    g.ingest([folder])
    on_the_day = g.ask("What Wi-Fi password did Adam give on 20260105?").answerability
    another_day = g.ask("What Wi-Fi password did Adam give on 20260212?").answerability
    assert on_the_day is not None and another_day is not None
    assert "20260105" not in on_the_day.missing and "20260212" in another_day.missing


def _whole(document: str, text: str) -> Span:
    """A span that is the whole of its one-sentence document version."""
    return Span(document, "v1", 0, len(text), text)


# -- two hops ---------------------------------------------------------------------------------------------
def test_the_extractive_answer_quotes_both_hops_of_a_bridge() -> None:
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Hop

    link = _whole("products.md", "Loam was launched in 2018, which Daniel Reyes designed in 2016.")
    answer = _whole("team.md", "Daniel Reyes is the chief technology officer.")
    other = _whole("products.md", "Loam is sold in three countries.")
    route = (Hop("loam", "mentions", "out", "daniel reyes", link),)
    context = [
        ContextItem(1, Evidence(link, 0.8, 0.8, "passage")),
        ContextItem(2, Evidence(other, 0.5, 0.5, "passage")),
        ContextItem(3, Evidence(answer, 0.3, 0.3, "bridge", "daniel reyes", 1, route)),
    ]
    question = "What is the job title of the person who designed Loam?"
    selection = ExtractiveAnswerer().select(context, question)
    assert [item.marker for item in selection.quoted] == [1, 3]  # the link, then the answer; not the near miss
    # a bridge the question names itself is no hidden hop: nothing added
    assert [item.marker for item in ExtractiveAnswerer().select(context, "What does Daniel Reyes do?").quoted] == [1]
    # and from the other end: the bridge sentence quoted brings its link
    context[2] = ContextItem(3, Evidence(answer, 0.9, 0.9, "bridge", "daniel reyes", 1, route))
    assert [item.marker for item in ExtractiveAnswerer().select(context, question).quoted] == [1, 3]
    # a bridge through a year ("the 2023 FAQ" -> everything dated 2023) is no second hop
    year = (Hop("faq", "mentions", "out", "2023", link),)
    dated = _whole("faq.md", "Prices were checked on 1 May 2023.")
    context[2] = ContextItem(3, Evidence(dated, 0.3, 0.3, "bridge", "2023", 1, year))
    assert [item.marker for item in ExtractiveAnswerer().select(context, question).quoted] == [1]


def test_the_second_hop_is_the_sentence_naming_the_bridge_that_says_what_the_first_leaves_unasked() -> None:
    """The walk reached "Sofia Almeida will lead the Gantt rewrite" through the chat's "@Sofia"; the
    handbook's "…managed by Sofia Almeida" holds what the question asks beyond the first hop (the
    team, managed): that one is the other hop. With no better sentence the walk's stays."""
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Hop

    call = _whole("incidents.txt", "2025-03-04 10:31 Sofia Almeida: Roll back to 4.12.0 now. My call.")
    walked = _whole("planning.md", "Sofia Almeida will lead the Gantt rewrite.")
    handbook = _whole("handbook.md", "The Platform team looks after the sync engine and is managed by Sofia Almeida.")
    route = (Hop("4.12.0", "mentions", "out", "@sofia", call),)
    context = [
        ContextItem(1, Evidence(handbook, 0.25, 0.25, "passage")),  # under half the best score: quoted as a hop only
        ContextItem(2, Evidence(walked, 0.23, 0.23, "bridge", "@sofia", 1, route)),
        ContextItem(3, Evidence(call, 0.61, 0.61, "passage")),
    ]
    question = "Which engineering team is managed by the person who called the rollback?"
    assert [item.marker for item in ExtractiveAnswerer().select(context, question).quoted] == [1, 3]
    # the handbook sentence says nothing the first hop leaves unasked: the walk's sentence is the hop
    context[0] = ContextItem(1, Evidence(_whole("handbook.md", "Sofia Almeida joined in 2019."), 0.25, 0.25, "passage"))
    assert [item.marker for item in ExtractiveAnswerer().select(context, question).quoted] == [2, 3]


def test_the_sentence_saying_most_of_the_questions_words_is_quoted_when_it_scores_half_the_best() -> None:
    """Ranked by retrieval alone, the two lines about the request (0.66) were quoted and the one that
    says what the customer got "straight away while" it was reviewed (0.39) was not; holding most of
    the question's words, it ranks with the sentences holding what the question asks for. Under half
    the best score, it does not."""
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Span

    def item(marker: int, text: str, score: float) -> ContextItem:
        return ContextItem(
            marker, Evidence(Span("support.txt", "v1", 100 * marker, 100 * marker + len(text), text), score, score, "passage")
        )

    asking = item(1, "2025-02-19 11:02 Grace Whitfield: Marrow & Finch are asking for three months' refund.", 0.66)
    limit = item(2, "2025-02-19 11:15 Nadia Petrova: Two months is as far as I can go.", 0.66)
    got = item(3, "2025-02-19 16:30 Nadia Petrova: Offered them a one-month credit straight away while the refund is reviewed.", 0.39)
    question = "What did Marrow & Finch get straight away while their refund request was being reviewed?"
    quoted = [c.marker for c in ExtractiveAnswerer(max_claims=2).select([asking, limit, got], question).quoted]
    assert 3 in quoted
    far = item(3, got.span.text, 0.2)
    assert 3 not in [c.marker for c in ExtractiveAnswerer(max_claims=2).select([asking, limit, far], question).quoted]


def test_a_quote_that_opens_with_a_pronoun_brings_the_sentence_it_leans_on() -> None:
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Span

    first, second = "Northgate is our smallest branch.", "It opens at nine on Saturdays."
    subject = Span("branches.md", "v1", 100, 100 + len(first), first)
    leaning = Span("branches.md", "v1", subject.end + 1, subject.end + 1 + len(second), second)
    elsewhere = Span("hours.md", "v1", 0, len(first), first)
    context = [ContextItem(1, Evidence(leaning, 0.9, 0.9, "passage")), ContextItem(2, Evidence(subject, 0.3, 0.3, "passage"))]
    question = "When does the branch open on Saturdays?"
    assert [item.marker for item in ExtractiveAnswerer().select(context, question).quoted] == [1, 2]
    # only the sentence right before it in the same document version is its subject
    context[1] = ContextItem(2, Evidence(elsewhere, 0.3, 0.3, "passage"))
    assert [item.marker for item in ExtractiveAnswerer().select(context, question).quoted] == [1]
    # a quote that names its own subject brings nothing
    own = "We open at nine on Saturdays."
    named = Span("branches.md", "v1", leaning.start, leaning.start + len(own), own)
    context = [ContextItem(1, Evidence(named, 0.9, 0.9, "passage")), ContextItem(2, Evidence(subject, 0.3, 0.3, "passage"))]
    assert [item.marker for item in ExtractiveAnswerer().select(context, question).quoted] == [1]


def test_a_sentence_naming_the_day_the_question_asks_about_is_quoted_first() -> None:
    """Asked "How late on a Thursday…", the hours that say Thursday (by its name, or in a run of days:
    "Monday to Friday") are quoted before better-scored hours that do not (Millbrook's "Monday,
    Wednesday and Friday"); a day that only qualifies a thing ("Marek's Saturday shift") asks about no day."""
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Span

    def item(marker: int, text: str, score: float) -> ContextItem:
        at = 500 * marker  # one handbook, paragraphs apart: no quote brings another as its continuation or other hop
        return ContextItem(marker, Evidence(Span("hours.md", "v1", at, at + len(text), text), score, score, "passage"))

    context = [
        item(1, "Central is open Monday to Friday 9:00-20:00 and Saturday 9:30-17:00.", 0.63),
        item(2, "Millbrook is open Monday, Wednesday and Friday 13:00-18:00.", 0.62),
        item(3, "Eastbank is open Monday to Saturday 9:30-17:30.", 0.60),
        item(4, "Northgate is open Tuesday to Friday 10:00-18:00, Thursday 10:00-19:30.", 0.55),
    ]
    answerer = ExtractiveAnswerer()
    assert [c.marker for c in answerer.select(context, "How late on a Thursday is Northgate open?").quoted] == [1, 3, 4]
    assert [c.marker for c in answerer.select(context, "How late is the Thursday shift at Northgate?").quoted] == [1, 2, 3]


def test_a_question_in_a_passage_never_stands_for_it(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    folder = write(
        "battery-faq.md", "# Battery FAQ\n\nHow long does a Sprigbot battery last? It lasts about nine hours on a charge.\n"
    ).parent
    write("other.md", "# Care\n\nClean the Sprigbot with a dry cloth. Store it away from heat.\n")
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, context_size=1)
    g.ingest([folder])
    (item,) = g.ask("How long does a Sprigbot battery last?").context
    assert item.span.text == "It lasts about nine hours on a charge."


def test_an_html_page_gives_its_meta_date_and_documents_show_dates(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    from citegraph.output import documents_json

    page = (
        '<html><head><meta name="dcterms.modified" content="2024-09-30T08:00:00Z"></head><body><p>Refunds take five days.</p></body></html>'
    )
    folder = write("refunds.html", page).parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter)
    g.ingest([folder])
    (doc,) = documents_json(g.store.documents(None))
    assert doc["dated"] == "2024-09-30" and doc["superseded_by"] is None


def _chat_context(splitter: SentenceSplitter, write: Callable[[str, str], Path], name: str, chat: str, question: str) -> list[str]:
    """The two context sentences of ``question`` over a store holding only the chat log ``name``."""
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, context_size=2)
    g.ingest([write(name, chat).parent])
    return [item.span.text for item in g.ask(question).context]


def test_a_line_that_asks_brings_the_reply_after_it(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    chat = (
        "[14/05/2025, 21:09] Priya Raman: who's doing the Thursday dinner? the venue only does lunch on day 1\n"
        "[14/05/2025, 21:15] Joana Ferreira: I'll book Tasca do Cais in Gaia for Thursday, they have a room for 60\n"
        "[14/05/2025, 21:20] Declan Furlong: the coach leaves at nine on Friday morning\n"
    )
    context = _chat_context(splitter, write, "retreat.txt", chat, "Who is doing the Thursday dinner?")
    assert context[0].startswith("[14/05/2025, 21:09] Priya Raman") and context[1].startswith("[14/05/2025, 21:15] Joana Ferreira")


def test_a_line_that_asks_the_others_for_someone_brings_the_reply_of_another_speaker(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    """ "I still need one more buddy for the Tuesday slot" asks without a question mark; Ellen's "I can
    do Tuesdays" answers it. The speaker's own next line is no reply, and a line that asks nothing
    brings nothing."""
    chat = (
        "[16/04/2025, 12:02] Dev Patel: Reading Buddies restarts after Easter. I still need one more buddy for the Tuesday slot\n"
        "[16/04/2025, 12:30] Ellen Fisher: I can do Tuesdays Dev, my DBS came through last month\n"
        "[16/04/2025, 12:40] Sam Whitfield: the spare keys are in the reading room\n"
    )
    question = "Which volunteer took the spare Tuesday reading buddies slot?"
    context = _chat_context(splitter, write, "volunteers.txt", chat, question)
    # the reply is read right after the request, before Sam's line, which shares more of the question's words
    assert context[0].startswith("[16/04/2025, 12:02] Dev Patel") and context[1].startswith("[16/04/2025, 12:30] Ellen Fisher")
    # the speaker going on is no reply: their own next line is not brought
    own = chat.replace("[16/04/2025, 12:30] Ellen Fisher:", "[16/04/2025, 12:03] Dev Patel: and")
    context = _chat_context(splitter, write, "volunteers.txt", own, question)
    assert context[0].startswith("[16/04/2025, 12:02] Dev Patel") and context[1].startswith("[16/04/2025, 12:40] Sam Whitfield")
    from citegraph.retrieve.modes.replies import asks_for_someone

    assert asks_for_someone("2025-03-11 08:50 Lucía Ortega: I'm off 17–21 March. Who can take the Lisbon queue while I'm away?")
    assert not asks_for_someone("Dev Patel: the Tuesday slot is full now")
    assert not asks_for_someone("We still need one more volunteer for Tuesdays.")  # no chat line: a document's sentence


def test_a_line_that_says_something_then_asks_brings_the_reply_of_another_speaker(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    """ "Count me in for the workshop. Which tools should I bring?" states something, then asks: the
    next line by someone else answers it and is read with it; "I just wanted to ask you about the
    kiln" asks without a question mark, likewise."""
    chat = (
        "Time: 20250610_18:00\n"
        "Maya: Count me in for the pottery workshop on Friday. Which tools should I bring?\n"
        "Oskar: Only an apron and a sponge, the studio lends everything else.\n"
        "Maya: The pottery workshop car park is shared with the gym next door.\n"
    )
    context = _chat_context(splitter, write, "pottery.txt", chat, "Which tools should Maya bring to the pottery workshop?")
    assert context[0].startswith("Maya: Count me in") and context[1].startswith("Oskar: Only an apron")
    from citegraph.retrieve.modes.replies import asks_for_someone

    assert asks_for_someone("Maya: Hi Oskar! I just wanted to ask you about the kiln schedule for the pottery workshop")
    assert not asks_for_someone("Maya: The kiln schedule is on the studio door")


def test_a_quoted_message_that_asks_brings_its_reply() -> None:
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Span

    asked = "2025-04-08 13:03 Tomas Brennan: Who's ordering the new hold-shelf labels? The ones at Northgate are peeling off."
    reply = "2025-04-08 13:19 Helen Okafor: I'll add them to Central's stationery order on Friday."
    ask = Span("managers.json", "v1", 0, len(asked), asked)
    answer = Span("managers.json", "v1", ask.end + 1, ask.end + 1 + len(reply), reply)
    context = [ContextItem(1, Evidence(ask, 0.73, 0.73, "passage")), ContextItem(2, Evidence(answer, 0.33, 0.33, "passage"))]
    question = "Who said they would get new labels for the holds shelves?"
    selection = ExtractiveAnswerer().select(context, question)
    # the reply's score is far under the question line's, yet it is where the answer is
    assert [item.marker for item in selection.quoted] == [1, 2]
    # a message that asks nothing brings no neighbour, nor does a reply that asks in turn
    stated = "2025-04-08 13:03 Tomas Brennan: The ones at Northgate are peeling off."
    context[0] = ContextItem(1, Evidence(Span("managers.json", "v1", 0, len(stated), stated), 0.73, 0.73, "passage"))
    context[1] = ContextItem(
        2, Evidence(Span("managers.json", "v1", len(stated) + 1, len(stated) + 1 + len(reply), reply), 0.33, 0.33, "passage")
    )
    assert [item.marker for item in ExtractiveAnswerer().select(context, question).quoted] == [1]
    again = "2025-04-08 13:19 Helen Okafor: Which ones, the red ones?"
    context = [
        ContextItem(1, Evidence(ask, 0.73, 0.73, "passage")),
        ContextItem(2, Evidence(Span("managers.json", "v1", ask.end + 1, ask.end + 1 + len(again), again), 0.33, 0.33, "passage")),
    ]
    assert [item.marker for item in ExtractiveAnswerer().select(context, question).quoted] == [1]


def test_a_quoted_chat_plan_brings_the_later_line_where_it_landed() -> None:
    """ "Two options: Sat 5 July or Sun 6 July" is a choice not yet made; "Right, it's settled: Sunday
    6 July, 2pm" twenty minutes later names one of its days again: it is quoted with it. Not a later
    line of another day's conversation, nor one that names none of its days."""
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Span

    options = "[22/05/2025, 19:20] Sam Whitfield: Summer social! Two options: Sat 5 July or Sun 6 July, in the Eastbank garden."
    question = "Where and when is the volunteers' summer party?"

    def quoted(later: str) -> list[int]:
        first = Span("volunteers.txt", "v1", 0, len(options), options)
        second = Span("volunteers.txt", "v1", first.end + 200, first.end + 200 + len(later), later)
        context = [ContextItem(1, Evidence(first, 0.52, 0.52, "passage")), ContextItem(2, Evidence(second, 0.2, 0.2, "passage"))]
        return [item.marker for item in ExtractiveAnswerer().select(context, question).quoted]

    assert quoted("[22/05/2025, 19:41] Sam Whitfield: Right, it's settled: Sunday 6 July, 2pm, Eastbank garden.") == [1, 2]
    assert quoted("[30/06/2025, 09:12] Sam Whitfield: Reminder: Sunday 6 July, 2pm, bring a dish.") == [1]  # another day's talk
    assert quoted("[22/05/2025, 19:41] Sam Whitfield: Thanks all, votes are in.") == [1]  # names none of its days


def test_the_best_quote_brings_the_sentence_that_goes_on_from_it() -> None:
    """ "Millbrook Branch has one step at the entrance." introduces the ramp the next sentence
    offers: it is quoted with it, though less like the question. Not across a paragraph break."""
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Span

    step = "Millbrook Branch has one step at the entrance."
    ramp = "A portable ramp is available: ring the bell beside the door and a member of staff will put it out."
    question = "How do I get into the Millbrook branch in a wheelchair?"

    def context(gap: int) -> list[ContextItem]:
        first = Span("access.html", "v1", 100, 100 + len(step), step)
        second = Span("access.html", "v1", first.end + gap, first.end + gap + len(ramp), ramp)
        return [ContextItem(1, Evidence(first, 0.8, 0.8, "passage")), ContextItem(2, Evidence(second, 0.3, 0.3, "passage"))]

    assert [item.marker for item in ExtractiveAnswerer().select(context(1), question).quoted] == [1, 2]
    assert [item.marker for item in ExtractiveAnswerer().select(context(2), question).quoted] == [1]  # "\n\n": another paragraph


def test_a_message_of_several_sentences_is_quoted_with_each_sentence_cited() -> None:
    from citegraph.answer.citations import parse_markers, split_claims
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Span

    text = 'AdamSmith: Sure! The Wi-Fi password is "Family123".'
    context = [ContextItem(1, Evidence(Span("week1/chat.txt", "v1", 0, len(text), text), 0.9, 0.9, "passage"))]
    answer = ExtractiveAnswerer().answer("What is the Wi-Fi password?", context)
    claims = [parse_markers(raw) for raw in split_claims(answer)]
    # read back, every piece of the quoted message is a claim that cites it: none is left uncited
    assert claims == [("AdamSmith: Sure!", [1]), ('The Wi-Fi password is "Family123".', [1])]


def test_a_chat_messages_chatter_after_its_first_sentence_is_no_claim() -> None:
    """ "Thanks!" and "Sounds great!" in the middle of a message say nothing; the first sentence, which
    names the speaker, stays, and so does a short sentence that says something ("Snacks!")."""
    from citegraph.answer.extractive import statements
    from citegraph.models import ContextItem, Evidence, Span

    def item(document: str, text: str) -> ContextItem:
        return ContextItem(1, Evidence(Span(document, "v1", 0, len(text), text), 0.9, 0.9, "passage"))

    chat = item("week42/chat.txt", "Farrah: Awesome! With the cones we can run proper drills. Thanks! Sounds great!")
    assert statements(chat) == ["Farrah: Awesome!", "With the cones we can run proper drills."]
    assert statements(item("week42/chat.txt", "ChaeSong-hwa: I'm in. Snacks! Thanks!")) == ["ChaeSong-hwa: I'm in.", "Snacks!"]
    # in a document, every sentence is what it says
    assert statements(item("faq.md", "Refunds take a week. Thanks!")) == ["Refunds take a week.", "Thanks!"]


def test_a_proposal_made_as_a_question_in_a_chat_is_quoted_and_a_documents_question_is_not() -> None:
    """ "How about we practise 'Take Me Home, Country Roads'?" is how Yuriko proposes the song: asked
    what she proposed, the answer quotes it. In a document, "What about refunds?" is a question the
    text goes on to answer, never a claim."""
    from citegraph.answer.extractive import ExtractiveAnswerer, proposes, statements
    from citegraph.models import ContextItem, Evidence, Span

    assert proposes("YurikoYamamoto: How about we practise 'Take Me Home, Country Roads' this weekend?")
    assert proposes("[16/04/2025, 12:30] Ellen Fisher: why don't we meet at 6?")
    assert not proposes("How long is customer data kept?") and not proposes("How about that.")

    def item(document: str, text: str) -> ContextItem:
        return ContextItem(1, Evidence(Span(document, "v1", 0, len(text), text), 0.9, 0.9, "passage"))

    line = item(
        "week26/20260627_1900.txt", "YurikoYamamoto: Hey everyone! How about we practise 'Take Me Home, Country Roads' this weekend?"
    )
    assert statements(line) == ["YurikoYamamoto: Hey everyone!", "How about we practise 'Take Me Home, Country Roads' this weekend?"]
    alone = item("week26/20260627_1900.txt", "WolfgangSchulz: How about Starbucks after work?")
    assert [c.marker for c in ExtractiveAnswerer().select([alone], "Who suggests Starbucks after work?").quoted] == [1]
    faq = item("faq.md", "What about refunds?")
    assert ExtractiveAnswerer().select([faq], "Are refunds possible?").quoted == []
    assert statements(item("faq.md", "Refunds take a week. What about refunds?")) == ["Refunds take a week."]
    # the other ways a chat puts something forward: a "maybe" question, asking what the others think, "let's"
    for proposal in (
        "LiHua: Maybe a matcha flavor next time?",
        "WolfgangSchulz: What do you all think about incorporating some improvisational solos?",
        "Briar: Let’s all bring our water bottles!",
    ):
        assert proposes(proposal), proposal
    reminder = item("20261001_1800.txt", "Briar: Definitely! Staying hydrated is solid advice. Let’s all bring our water bottles!")
    assert statements(reminder)[-1] == "Let’s all bring our water bottles!"  # what she reminded them of, not an aside
    assert statements(item("guide.md", "Hydration matters. Let's look at bottles first.")) == ["Hydration matters."]  # a document's "let's"


def test_what_the_checks_of_a_quote_parse_is_known_before_the_question() -> None:
    """A server parses these ahead with the store's sentences: a chat message's statements and each
    claim as the checks read it (a line without a full stop gets one)."""
    from citegraph.answer.citations import parse_markers, split_claims
    from citegraph.answer.extractive import ExtractiveAnswerer, claim_forms
    from citegraph.models import ContextItem, Evidence, Span

    text = "2025-03-04 10:58 Tom Ashby: 4.12.0 on all nodes. p95 sync latency back to 0.5s"
    item = ContextItem(1, Evidence(Span("chat.txt", "v1", 0, len(text), text), 0.9, 0.9, "passage"))
    forms = claim_forms([text, "Laptops are encrypted."])
    answered = [parse_markers(c)[0] for c in split_claims(ExtractiveAnswerer().answer("What is on all nodes?", [item]))]
    assert answered and all(claim in forms for claim in answered)
    assert "p95 sync latency back to 0.5s." in forms and text not in forms
    assert "Laptops are encrypted." not in forms  # a sentence quoted as it is: nothing else to parse


def test_a_quote_brings_a_sentence_of_another_document_naming_what_it_names_as_the_other_hop() -> None:
    """No route joins "This year Aisha Mensah will lead the Summer Reading Challenge" to the handbook's
    "At Eastbank the coordinator is Aisha Mensah" (passage ranking found both), yet they are the two
    hops of "Which branch is the person leading the challenge based at?". A name the question itself
    gives links nothing, and neither does a field's label."""
    from citegraph.answer.extractive import ExtractiveAnswerer, names_in
    from citegraph.models import ContextItem, Evidence, Span

    assert names_in("Name: Aoife Brennan; Role: Deckhand; Base: Marr Island.") == {"Aoife Brennan", "Deckhand", "Marr Island"}
    assert names_in("At Eastbank the coordinator is Aisha Mensah.") == {"Eastbank", "Aisha Mensah"}

    def item(marker: int, document: str, text: str, score: float) -> ContextItem:
        return ContextItem(marker, Evidence(Span(document, "v1", 0, len(text), text), score, score, "passage"))

    question = "Which branch is the person leading this year's Summer Reading Challenge based at?"
    lead = item(1, "minutes.md", "This year Aisha Mensah will lead the Summer Reading Challenge across all four branches.", 0.7)
    other = item(3, "report.pdf", "2,415 children took part in the Summer Reading Challenge 2024.", 0.6)
    link = item(2, "handbook.md", "At Eastbank the Children's Services Coordinator is Aisha Mensah.", 0.29)
    assert [c.marker for c in ExtractiveAnswerer().select([lead, link, other], question).quoted] == [1, 2, 3]
    unlinked = item(2, "handbook.md", "The Summer Reading Challenge runs in every branch.", 0.29)
    assert [c.marker for c in ExtractiveAnswerer().select([lead, unlinked, other], question).quoted] == [1, 3]


def test_a_question_naming_something_by_a_clause_takes_the_readers_sentence_hop_first() -> None:
    """ "The person leading this year's Summer Reading Challenge" is found first, in the sentence the
    reader read ("Aisha Mensah"): its other hop (the handbook's line naming her) is the one more claim,
    not a chat line that a table row beside it reached through another name ("Sam Whitfield"), nor a
    line that shares only a month with a quote ("June" names no one)."""
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Hop
    from citegraph.question import Question

    question = "Which branch is the person leading this year's Summer Reading Challenge based at?"
    assert Question.read(question).describes
    assert not Question.read("Which branch does Aisha Mensah work at?").describes
    led = _whole("minutes.md", "This year Aisha Mensah will lead the Summer Reading Challenge, with school visits in June.")
    row = _whole("minutes.md", "| Recruit 12 more Summer Reading Challenge volunteers | Sam Whitfield | 20 June 2025 |")
    chat = _whole("slack.json", "2025-04-28 14:40 Sam Whitfield: Volunteers' Week is 2-8 June.")
    link = _whole("handbook.md", "At Eastbank the Children's Services Coordinator is Aisha Mensah.")
    context = [
        ContextItem(1, Evidence(led, 0.70, 0.70, "passage")),
        ContextItem(
            2, Evidence(chat, 0.33, 0.33, "bridge", "sam whitfield", 1, (Hop("recruit", "mentions", "out", "sam whitfield", row),))
        ),
        ContextItem(3, Evidence(link, 0.29, 0.29, "passage")),
        ContextItem(4, Evidence(row, 0.72, 0.72, "passage")),
    ]
    answerer = ExtractiveAnswerer(max_claims=2)
    assert [c.marker for c in answerer.select(context, question, lead=1).quoted] == [1, 3, 4]
    # without the reader's sentence (or asked by name) the route partner is the hop, as before
    assert [c.marker for c in answerer.select(context, question).quoted] == [1, 2, 4]
    # a month links no hop: with the handbook's line gone, nothing of another document names Aisha Mensah
    june = _whole("calendar.md", "Volunteers' Week runs in June.")
    context[2] = ContextItem(3, Evidence(june, 0.29, 0.29, "passage"))
    assert 3 not in [c.marker for c in answerer.select(context[:1] + context[2:], question, lead=1).quoted]


def test_among_near_scores_the_sentence_with_what_the_question_asks_for_is_quoted_first() -> None:
    from citegraph.answer.extractive import ExtractiveAnswerer, typed_markers
    from citegraph.models import ContextItem, Evidence, Span

    def item(marker: int, text: str, score: float) -> ContextItem:
        return ContextItem(marker, Evidence(Span("d.md", "v1", 0, len(text), text), score, score, "passage"))

    context = [
        item(1, "The still-running index migration was identified as holding locks on the events table.", 0.50),
        item(2, "2025-03-04 09:14 Tom Ashby: found it, the index migration is still running and holding a lock.", 0.45),
        item(3, "The index was rebuilt that evening without locks.", 0.20),
    ]
    question = "Who found that the index migration was holding the lock?"
    assert typed_markers(question, context) == frozenset({2})  # a person the question does not name
    answerer = ExtractiveAnswerer(max_claims=1)
    assert [c.marker for c in answerer.select(context, question).quoted] == [2]
    # at two thirds of the best score it still does ("The Willow Room seats 12" under the group's listing)
    context[1] = item(2, context[1].span.text, 0.33)
    assert [c.marker for c in answerer.select(context, question).quoted] == [2]
    # far below the best score, a typed sentence does not jump the queue; a question asking for no type changes nothing
    context[1] = item(2, context[1].span.text, 0.10)
    assert [c.marker for c in answerer.select(context, question).quoted] == [1]
    assert typed_markers("Is the index migration holding a lock?", context) == frozenset()


def test_asked_when_someone_said_it_their_own_line_is_quoted_before_another_account() -> None:
    """ "When did Ruth tell the volunteers…?" is answered by Ruth's message and its time, not by the
    minutes that record the decision she passed on (a date too, and closer to the question's words)."""
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Span

    def item(marker: int, document: str, text: str, score: float) -> ContextItem:
        return ContextItem(marker, Evidence(Span(document, "v1", 0, len(text), text), score, score, "passage"))

    minutes = item(1, "board.md", "On 18 June the Board agreed a trial of Saturday deliveries from September.", 0.70)
    ruth = item(2, "whatsapp.txt", "[19/06/2025, 10:15] Ruth Adeyemi: News from the Board: we're going to trial Saturday rounds.", 0.50)
    other = item(3, "whatsapp.txt", "[19/06/2025, 10:20] Gwen Morgan: Brilliant news, count me in for the first Saturday.", 0.48)
    context = [minutes, ruth, other]
    answerer = ExtractiveAnswerer(max_claims=1)
    assert [
        c.marker for c in answerer.select(context, "When did Ruth tell the volunteers that Saturday deliveries would be trialled?").quoted
    ] == [2]
    # a question about no one's words: the best-scored date first, as before
    assert [c.marker for c in answerer.select(context, "When will Saturday deliveries be trialled?").quoted] == [1]


@pytest.mark.parametrize(
    ("text", "leans"),
    [
        ("She joined in 2015.", True),
        ("It opens at nine on Saturdays.", True),
        ("“They must be reported within an hour.”", True),
        ("This is done every month.", True),
        ("This policy applies to everyone.", False),  # names its own subject
        ("Items are kept for seven days.", False),
        ("Italy is next.", False),
    ],
)
def test_a_sentence_that_opens_with_a_pronoun_leans_on_the_one_before(text: str, leans: bool) -> None:
    from citegraph.sentences import leans_on_previous

    assert leans_on_previous(text) is leans


def test_an_emoji_after_a_chat_messages_sentence_is_no_claim(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    """ "🎶." states nothing and no check can find its words in the source (it has none): quoted as a
    claim it came back unsupported beside its supported sentences, and the whole answer read
    partially supported."""
    from citegraph.answer.extractive import statements
    from citegraph.models import Evidence, Span

    message = "ChaeSong-hwa: It's amazing how it can help with their development. 🎶 Lullabies would be perfect! 😊"
    item = ContextItem(1, Evidence(Span("chat.txt", "v1", 0, len(message), message), 0.5, 0.5, "passage"))
    assert statements(item) == ["ChaeSong-hwa: It's amazing how it can help with their development.", "🎶 Lullabies would be perfect!"]
    # an instruction after an emoji is still an instruction, not a statement to quote
    urging = "JenniferMoore: Deep belly breathing helps on long runs. 🏃‍♀️ Give it a shot!"
    item = ContextItem(1, Evidence(Span("chat.txt", "v1", 0, len(urging), urging), 0.5, 0.5, "passage"))
    assert statements(item) == ["JenniferMoore: Deep belly breathing helps on long runs."]
    chat = "Time: 20260506_12:00\nLiHua: What songs should we add for the babies?\n" + message + "\nLiHua: Great idea!\n"
    folder = write("chat.txt", chat).parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    g.ingest([folder])
    answer = g.ask("What songs would be perfect for the babies?")
    assert answer.claims and all(any(ch.isalnum() for ch in c.text) for c in answer.claims)
    assert all(c.status == ClaimStatus.SUPPORTED for c in answer.claims)


def test_a_checklists_steps_are_quoted_as_what_it_says(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> None:
    """A checklist, a policy or a how-to says what it says in the imperative ("Order the laptop …"):
    such a step was read as an instruction and never quoted, so "When is the laptop ordered?" was
    answered with another sentence and a summary of the checklist skipped its items."""
    from citegraph.answer.extractive import statements
    from citegraph.models import Evidence, Span

    checklist = (
        "# New starter checklist\n\n## Before the first day\n\n"
        "- Order the laptop through the IT desk at least two weeks before the start date.\n"
        "- Choose a buddy from another team.\n\n"
        "## First week\n\n- Complete the security induction within the first 14 days.\n"
    )
    folder = write("checklist.md", checklist).parent
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    g.ingest([folder])
    answer = g.ask("When should the laptop be ordered through the IT desk?")
    assert any(c.text.startswith("Order the laptop") and c.status == ClaimStatus.SUPPORTED for c in answer.claims)
    summary = g.ask("Summarize the new starter checklist.")
    quoted = " ".join(c.text for c in summary.claims)
    assert "Order the laptop" in quoted and "security induction" in quoted
    # beside a statement, a message's directive is its aside
    message = "Sam: The van leaves at 5. Let me know when you're on your way."
    item = ContextItem(1, Evidence(Span("chat.txt", "v1", 0, len(message), message), 0.5, 0.5, "passage"))
    assert statements(item) == ["Sam: The van leaves at 5."]


def test_a_rule_is_quoted_with_the_exception_the_next_sentence_makes_to_it() -> None:
    """ "Staff on an opening shift arrive 15 minutes before the branch opens." alone answers "How early
    do I have to be there?" asked of Millbrook wrongly: the next sentence says "The one exception is
    Millbrook, …20 minutes early". A quote is followed, past the cap, by a sentence of its paragraph
    that makes an exception to it; not by one that merely goes on, nor across paragraphs."""
    from citegraph.answer.extractive import ExtractiveAnswerer
    from citegraph.models import ContextItem, Evidence, Span
    from citegraph.sentences import qualifies_previous

    assert qualifies_previous("The one exception is Millbrook, where the opening shift arrives 20 minutes early.")
    assert qualifies_previous("However, part-time staff get 15 days.") and qualifies_previous("This does not apply to volunteers.")
    assert not qualifies_previous("Butterflies are welcome.") and not qualifies_previous("Exceptions are approved by HR.")

    rule = "Staff on an opening shift arrive 15 minutes before the branch opens."
    best = "At Millbrook, where shifts start later, phone at least two hours before your shift starts."

    def context(gap: str, after: str) -> list[ContextItem]:
        spans = [Span("absence.md", "v1", 0, len(best), best), Span("handbook.md", "v1", 0, len(rule), rule)]
        spans.append(Span("handbook.md", "v1", len(rule) + len(gap), len(rule) + len(gap) + len(after), after))
        return [
            ContextItem(i + 1, Evidence(span, score, score, "passage"))
            for i, (span, score) in enumerate(zip(spans, (0.7, 0.6, 0.2), strict=True))
        ]

    question = "How early do I have to be at Millbrook for an opening shift?"
    answerer = ExtractiveAnswerer(max_claims=2)
    exception = "The one exception is Millbrook, where the opening shift arrives 20 minutes early."
    assert [c.marker for c in answerer.select(context(" ", exception), question).quoted] == [1, 2, 3]
    assert [c.marker for c in answerer.select(context("\n\n", exception), question).quoted] == [1, 2]  # another paragraph
    assert [c.marker for c in answerer.select(context(" ", "Shifts are posted on Mondays."), question).quoted] == [1, 2]


def test_chat_lines_of_two_conversations_are_two_arrangements_not_sources_that_disagree(
    splitter: SentenceSplitter, write: Callable[[str, str], Path]
) -> None:
    """LiHua-World: "LiHua: 5:30 works for me!" on 18 September and "LiHua: 6:30 works for me!" on 23
    September were one conflict and the earlier session named stale. Two policies giving two times stay one."""
    write("week38/20260918_1800.txt", "Time: 20260918_18:00\nWolfgangSchulz: Grocery run after work today?\nLiHua: 5:30 works for me!\n")
    write("week39/20260923_1600.txt", "Time: 20260923_16:00\nWolfgangSchulz: Grocery run after work again?\nLiHua: 6:30 works for me!\n")
    folder = write("policy-2024.md", "# Doors\n\nThe front doors close at 5:30 pm every day.\n").parent
    write("policy-2025.md", "# Doors\n\nThe front doors close at 6:30 pm every day.\n")
    graph = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    graph.ingest([folder])
    for question, first, second in (
        ("What time works for LiHua for the grocery run?", "LiHua: 5:30 works for me!", "LiHua: 6:30 works for me!"),
        ("When do the front doors close?", "The front doors close at 5:30 pm every day.", "The front doors close at 6:30 pm every day."),
    ):
        context = graph.ask(question).context
        one, other = _marker(context, first), _marker(context, second)
        answer = graph.ask(question, answer_text=f"{first} [{one}] {second} [{other}]")
        conflicts = [w for w in answer.warnings if w.code in ("conflict", "stale")]
        if first.startswith("LiHua"):
            assert conflicts == [] and answer.status != AnswerStatus.CONFLICTING
        else:
            assert conflicts and answer.status == AnswerStatus.CONFLICTING
