from __future__ import annotations

from citegraph.answer.citations import answer_status, parse_markers, resolve_claims, split_claims
from citegraph.models import AnswerStatus, ClaimStatus, ContextItem, Evidence, Span, Verdict
from citegraph.verify.base import UncheckedVerifier


def _context(n: int) -> list[ContextItem]:
    return [ContextItem(i + 1, Evidence(Span("d", "v", i * 100, i * 100 + 4, f"s{i:03d}"), 1.0, 1.0, "sentence")) for i in range(n)]


def test_marker_forms() -> None:
    assert parse_markers("A claim [1].") == ("A claim.", [1])
    assert parse_markers("A claim [1, 3].") == ("A claim.", [1, 3])
    assert parse_markers("A claim [2][4] here.") == ("A claim here.", [2, 4])
    assert parse_markers("No markers.") == ("No markers.", [])


def test_markers_after_the_full_stop_belong_to_the_claim_before() -> None:
    text = "Exports stay available for 30 days. [1] Snapshots last 30 days [3]. Dr. Smith agrees [2]."
    assert split_claims(text) == ["Exports stay available for 30 days. [1]", "Snapshots last 30 days [3].", "Dr. Smith agrees [2]."]
    assert split_claims("- one [1]\n- two [2]") == ["one [1]", "two [2]"]


def test_invalid_marker_is_warned_and_marks_its_claim() -> None:
    claims, warnings = resolve_claims("Exports stay available for 30 days [1]. See also [9].", _context(3), UncheckedVerifier())
    assert [c.status for c in claims] == [ClaimStatus.UNVERIFIED, ClaimStatus.INVALID_MARKER]
    assert claims[1].invalid_markers == (9,)
    assert [(w.code, dict(w.data)["marker"]) for w in warnings] == [("invalid_marker", 9)]


def test_claim_text_is_the_claim_and_support_is_not_a_constant() -> None:
    claims, _ = resolve_claims("Exports stay available for 30 days after cancellation [1].", _context(2), UncheckedVerifier())
    (claim,) = claims
    assert claim.text == "Exports stay available for 30 days after cancellation."
    (citation,) = claim.citations
    assert citation.span.text == "s000"
    assert (citation.support.label, citation.support.score) == ("unverified", None)


def test_uncited_claims_count_against_the_answer() -> None:
    claims, warnings = resolve_claims("One [1]. Two has no marker.", _context(2), UncheckedVerifier())
    assert [c.status for c in claims] == [ClaimStatus.UNVERIFIED, ClaimStatus.UNCITED]
    assert [w.code for w in warnings] == ["uncited"]
    assert answer_status(claims, _context(2)) == AnswerStatus.PARTIALLY_SUPPORTED


def test_answer_status_without_a_verifier_is_at_best_cited() -> None:
    ctx = _context(2)
    claims, _ = resolve_claims("One [1]. Two [2].", ctx, UncheckedVerifier())
    assert answer_status(claims, ctx) == AnswerStatus.CITED
    claims, _ = resolve_claims("One. Two [7].", ctx, UncheckedVerifier())
    assert answer_status(claims, ctx) == AnswerStatus.UNSUPPORTED
    assert answer_status([], []) == AnswerStatus.NO_EVIDENCE


def test_a_single_citation_is_checked_once() -> None:
    from citegraph.models import Support
    from citegraph.verify.base import Verifier

    class Counting(Verifier):
        name = "counting"

        def __init__(self) -> None:
            self.calls: list[int] = []

        def verify(self, claim: str, spans) -> Support:  # type: ignore[no-untyped-def]
            self.calls.append(len(spans))
            return Support(Verdict.SUPPORTED, 0.9, self.name)

    verifier = Counting()
    claims, _ = resolve_claims("One [1]. Two [1][2].", _context(2), verifier)
    assert [c.status for c in claims] == [ClaimStatus.SUPPORTED, ClaimStatus.SUPPORTED]
    assert verifier.calls == [1, 1, 1, 2]  # claim one: its citation; claim two: each citation, then both together


def test_claims_that_disagree_make_the_answer_conflicting_not_cited() -> None:
    ctx = _context(2)
    claims, warnings = resolve_claims(
        "Exports stay available for 30 days after cancellation [1]. Exports stay available for 14 days after cancellation [2].",
        ctx,
        UncheckedVerifier(),
    )
    assert [(w.code, dict(w.data)["claims"]) for w in warnings] == [("conflict", (0, 1))]
    assert answer_status(claims, ctx) == AnswerStatus.CITED  # without the warnings, as before
    assert answer_status(claims, ctx, warnings) == AnswerStatus.CONFLICTING
    claims, warnings = resolve_claims(
        "Exports stay available for 30 days [1]. Audit logs are kept for one year [2].", ctx, UncheckedVerifier()
    )
    assert warnings == [] and answer_status(claims, ctx, warnings) == AnswerStatus.CITED
