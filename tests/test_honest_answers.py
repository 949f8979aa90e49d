"""Issue 23: answers honest as a whole. Quantities compared in their dimension ("a month" is "30
days"), the same thing timed differently against one event, sources in the context that disagree
whatever the answer cites, and "not in your documents" when the evidence does not answer.

Through the real pipeline (SQLite in memory, spaCy); the generator, where there is one, is scripted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from citegraph.answer.llm_answerer import LLMAnswerer, is_abstention
from citegraph.embed import HashingEmbedder
from citegraph.llm import FakeChatModel
from citegraph.models import AnswerStatus, ClaimStatus
from citegraph.output import answer_json
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter
from citegraph.store import SQLiteStore
from citegraph.verify.cascade import CheckingVerifier
from citegraph.verify.conflicts import find_conflicts, rule_conflict
from citegraph.verify.guards import check_guards
from citegraph.verify.text import moments, quantities, same_value, shared_values

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
