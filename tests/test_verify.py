"""Cited is not verified: each claim is checked against its cited span(s)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.llm import FakeChatModel, Message
from citegraph.models import AnswerStatus, ClaimStatus
from citegraph.pipeline import CiteGraph
from citegraph.store import SQLiteStore
from citegraph.verify.judge import CheckingVerifier, LLMJudge

QUESTION = "How long do exports stay available after cancellation?"
CLAIM = "Exports stay available for 30 days after cancellation"
POLICY = "Snapshot exports stay available for 30 days after cancellation."
BILLING = "Cancelling ends billing at the end of the period."


def _markers(answer) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {c.span.text: c.marker for c in answer.context}


@pytest.fixture
def graph(splitter, minilm, larkspur: Path) -> CiteGraph:  # type: ignore[no-untyped-def]
    g = CiteGraph(SQLiteStore(":memory:"), minilm, splitter=splitter, verifier=CheckingVerifier(), context_size=12)
    g.ingest([larkspur])
    return g


def test_larkspur_claim_cited_to_billing_is_unsupported_and_to_policy_supported(graph: CiteGraph) -> None:
    markers = _markers(graph.ask(QUESTION))
    assert BILLING in markers and POLICY in markers
    wrong = graph.ask(QUESTION, answer_text=f"{CLAIM} [{markers[BILLING]}].")
    (claim,) = wrong.claims
    assert claim.status == ClaimStatus.UNSUPPORTED and wrong.status == AnswerStatus.UNSUPPORTED
    assert claim.citations[0].support.guards == ("number: 30 day is not in the cited text",)
    right = graph.ask(QUESTION, answer_text=f"{CLAIM} [{markers[POLICY]}].")
    assert right.claims[0].status == ClaimStatus.SUPPORTED and right.status == AnswerStatus.VERIFIED


def test_each_citation_records_whether_it_alone_supports(graph: CiteGraph) -> None:
    markers = _markers(graph.ask(QUESTION))
    answer = graph.ask(QUESTION, answer_text=f"{CLAIM} [{markers[BILLING]}][{markers[POLICY]}].")
    (claim,) = answer.claims
    assert claim.status == ClaimStatus.SUPPORTED  # together the two spans support it
    assert {c.span.text: c.support.label for c in claim.citations} == {BILLING: "not_supported", POLICY: "supported"}


def test_mixed_answers_are_partially_supported(graph: CiteGraph) -> None:
    markers = _markers(graph.ask(QUESTION))
    answer = graph.ask(QUESTION, answer_text=f"{CLAIM} [{markers[POLICY]}]. Exports stay available for 14 days [{markers[POLICY]}].")
    assert [c.status for c in answer.claims] == [ClaimStatus.SUPPORTED, ClaimStatus.UNSUPPORTED]
    assert answer.status == AnswerStatus.PARTIALLY_SUPPORTED


def test_unsettled_claims_stay_unverified_without_a_model(graph: CiteGraph) -> None:
    markers = _markers(graph.ask(QUESTION))
    answer = graph.ask(QUESTION, answer_text=f"You can still get your data for a month [{markers[POLICY]}].")
    (claim,) = answer.claims
    assert claim.status == ClaimStatus.UNVERIFIED and claim.citations[0].support.score is None
    assert answer.status == AnswerStatus.CITED


def test_a_judge_score_is_measured_not_constant(splitter, minilm, larkspur: Path) -> None:  # type: ignore[no-untyped-def]
    def judge(messages: Sequence[Message]) -> str:
        return "Yes"

    seen: list[str] = []

    class Scripted(FakeChatModel):
        def chat(self, messages, **kwargs):  # type: ignore[no-untyped-def, override]
            premise = messages[-1].content
            seen.append(premise)
            p = 0.92 if "30 days after cancellation" in premise else 0.08
            self.logprobs = {"Yes": math.log(p), "No": math.log(1 - p)}
            return super().chat(messages, **kwargs)

    g = CiteGraph(SQLiteStore(":memory:"), minilm, splitter=splitter, verifier=CheckingVerifier(LLMJudge(Scripted(judge))), context_size=12)
    g.ingest([larkspur])
    markers = _markers(g.ask(QUESTION))
    answer = g.ask(
        QUESTION, answer_text=f"Exports are kept for a while after cancellation [{markers[POLICY]}]. Billing stops [{markers[BILLING]}]."
    )
    scores = [c.citations[0].support.score for c in answer.claims]
    assert scores == [pytest.approx(0.92), pytest.approx(0.08)]
    assert [c.status for c in answer.claims] == [ClaimStatus.SUPPORTED, ClaimStatus.UNSUPPORTED]
    assert all("Premise:" in p for p in seen)


def test_cli_verify_flags(tmp_path: Path, larkspur: Path) -> None:
    runner = CliRunner()
    db = ["--db", str(tmp_path / "v.db"), "--embedder", "hashing"]
    assert runner.invoke(main, ["ingest", str(larkspur), *db, "--quiet"]).exit_code == 0
    checked = json.loads(runner.invoke(main, ["ask", QUESTION, *db, "--json"]).stdout)
    assert checked["models"]["verifier"] == "guards+quote" and checked["status"] == "verified"
    assert all(c["citations"][0]["support"]["label"] == "supported" for c in checked["claims"])
    unchecked = json.loads(runner.invoke(main, ["ask", QUESTION, *db, "--no-verify", "--json"]).stdout)
    assert unchecked["models"]["verifier"] == "none" and unchecked["status"] == "cited"


def test_a_claim_the_evidence_contradicts_is_labelled_contradicted(splitter, minilm, larkspur: Path) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []

    class Scripted(FakeChatModel):
        def chat(self, messages, **kwargs):  # type: ignore[no-untyped-def, override]
            contradiction = "contradicts" in messages[0].content
            asked.append("contradiction" if contradiction else "support")
            premise = messages[-1].content
            if contradiction:
                p = 0.9 if "removed at cancellation" in premise else 0.05
            else:
                p = 0.9 if "30 days after cancellation" in premise else 0.1
            self.logprobs = {"Yes": math.log(p), "No": math.log(1 - p)}
            return super().chat(messages, **kwargs)

    verifier = CheckingVerifier(LLMJudge(Scripted(lambda m: "Yes")))
    g = CiteGraph(SQLiteStore(":memory:"), minilm, splitter=splitter, verifier=verifier, context_size=12)
    g.ingest([larkspur])
    markers = _markers(g.ask(QUESTION))
    faq = "Exports are removed at cancellation."
    assert faq in markers
    asked.clear()
    answer = g.ask(
        QUESTION,
        answer_text=(
            f"Exports stay available after cancellation [{markers[faq]}]. Billing ends at cancellation [{markers[BILLING]}]. "
            f"Exports stay available for 14 days [{markers[POLICY]}]."
        ),
    )
    labels = [c.citations[0].support.label for c in answer.claims]
    assert labels == ["contradicted", "not_supported", "not_supported"]
    assert answer.claims[0].status == ClaimStatus.CONTRADICTED and answer.status == AnswerStatus.UNSUPPORTED
    assert answer.claims[0].citations[0].support.score == pytest.approx(0.1)  # the score stays P(supported)
    # the guard settles "14 days" against "30 days": no second model call for it
    assert asked == ["support", "contradiction", "support", "contradiction", "support"]


def test_checks_run_concurrently_against_a_server_and_keep_their_order() -> None:
    import threading

    from citegraph.models import Span

    barrier = threading.Barrier(2, timeout=10)  # two checks must be in flight at once, or this breaks

    class Server(FakeChatModel):
        concurrency = 4

        def chat(self, messages, **kwargs):  # type: ignore[no-untyped-def, override]
            barrier.wait()
            p = 0.9 if "30 days" in messages[-1].content else 0.2
            return type(super().chat(messages, **kwargs))("Yes", {"Yes": math.log(p), "No": math.log(1 - p)})

    verifier = CheckingVerifier(LLMJudge(Server(lambda m: "Yes")), contradiction=False)
    policy, billing = Span("p.md", "v1", 0, len(POLICY), POLICY), Span("b.md", "v1", 0, len(BILLING), BILLING)
    verdicts = verifier.verify_many([("Exports are kept after cancellation", [policy]), ("Billing stops", [billing])])
    assert [v.label for v in verdicts] == ["supported", "not_supported"]
    assert [v.score for v in verdicts] == [pytest.approx(0.9), pytest.approx(0.2)]


def test_a_failed_contradiction_check_is_reported_not_hidden() -> None:
    from citegraph.models import Span

    class NoYesNo(FakeChatModel):
        def chat(self, messages, **kwargs):  # type: ignore[no-untyped-def, override]
            if "contradicts" in messages[0].content:
                self.logprobs = {"Maybe": math.log(0.9)}  # neither yes nor no: unusable
            else:
                self.logprobs = {"Yes": math.log(0.1), "No": math.log(0.9)}
            return super().chat(messages, **kwargs)

    verifier = CheckingVerifier(LLMJudge(NoYesNo(lambda m: "No")))
    (verdict,) = verifier.verify_many([("Billing stops", [Span("b.md", "v1", 0, len(BILLING), BILLING)])])
    assert verdict.label == "not_supported" and verdict.score == pytest.approx(0.1)
    assert any(g.startswith("contradiction check: neither yes nor no") for g in verdict.guards)
