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


def test_a_question_quoted_as_asked_states_nothing_and_counts_for_no_status() -> None:
    """A chat's "How about some solar-powered lanterns?" quoted for "What did Malfurion suggest?" is
    the proposal word for word: no check can support a question, and it is not a claim the source
    fails to support either. It is ``asked``; the answer's status is that of the claims that state."""
    from citegraph.answer.citations import asked
    from citegraph.verify.cascade import CheckingVerifier

    line = "MalfurionStormrage: How about some solar-powered lanterns? They are eco-friendly and glow softly."
    agreed = "GromHellscream: Solar lanterns it is, we order 12 on Friday."
    context = [
        ContextItem(1, Evidence(Span("week41/chat.txt", "v1", 0, len(line), line), 0.9, 0.9, "passage")),
        ContextItem(2, Evidence(Span("week41/chat.txt", "v1", len(line) + 1, len(line) + 1 + len(agreed), agreed), 0.8, 0.8, "passage")),
    ]
    answer = (
        "MalfurionStormrage: How about some solar-powered lanterns [1]? They are eco-friendly and glow softly [1]. "
        "GromHellscream: Solar lanterns it is, we order 12 on Friday [2]."
    )
    claims, warnings = resolve_claims(answer, context, CheckingVerifier())
    assert [c.status for c in claims] == [ClaimStatus.ASKED, ClaimStatus.SUPPORTED, ClaimStatus.SUPPORTED]
    assert answer_status(claims, context, warnings) == AnswerStatus.QUOTED  # not "partially supported"
    (said,) = claims[0].citations
    assert (said.support.label, said.support.score) == ("unverified", None) and said.support.guards[0].startswith("asked:")
    # a question quoted alone is no answer; one the answer words itself is a claim to check, as before
    claims, warnings = resolve_claims("MalfurionStormrage: How about some solar-powered lanterns [1]?", context, CheckingVerifier())
    assert [c.status for c in claims] == [ClaimStatus.ASKED]
    assert answer_status(claims, context, warnings) == AnswerStatus.RELATED
    claims, _ = resolve_claims("Did Malfurion propose lanterns [1]?", context, CheckingVerifier())
    assert claims[0].status != ClaimStatus.ASKED
    assert not asked("How about some solar-powered lanterns?", ["Grom: How about some paper lanterns?"])
    assert not asked("They are eco-friendly.", [line])  # a statement is checked as one
    assert asked("How about some solar-powered lanterns? 🌙", [line])  # an emoji after the "?" changes nothing


def test_a_proposal_is_no_value_that_conflicts_with_what_was_agreed() -> None:
    from citegraph.verify.cascade import CheckingVerifier

    def context(first: str) -> list[ContextItem]:
        agreed = "Snapshot exports stay available for 30 days after cancellation."
        return [
            ContextItem(1, Evidence(Span("chat.txt", "v1", 0, len(first), first), 0.9, 0.9, "passage")),
            ContextItem(2, Evidence(Span("policy.md", "v1", 0, len(agreed), agreed), 0.9, 0.9, "passage")),
        ]

    asks = "Shall we keep snapshot exports for 14 days after cancellation?"
    answer = "Shall we keep snapshot exports for 14 days after cancellation [1]? Snapshot exports stay available for 30 days after cancellation [2]."
    claims, warnings = resolve_claims(answer, context(asks), CheckingVerifier())
    assert [c.status for c in claims] == [ClaimStatus.ASKED, ClaimStatus.SUPPORTED]
    assert [w.code for w in warnings if w.code == "conflict"] == []
    # stated, the two values do conflict: the rule is not switched off
    states = "Snapshot exports stay available for 14 days after cancellation."
    answer = "Snapshot exports stay available for 14 days after cancellation [1]. Snapshot exports stay available for 30 days after cancellation [2]."
    _claims, warnings = resolve_claims(answer, context(states), CheckingVerifier())
    assert [w.code for w in warnings if w.code == "conflict"] == ["conflict"]
