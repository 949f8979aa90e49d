from __future__ import annotations

import pytest

from citegraph.llm import FakeChatModel
from citegraph.models import Span
from citegraph.verify.guards import check_guards, is_near_quote
from citegraph.verify.judge import CheckingVerifier, LLMJudge, p_yes

POLICY = "Snapshot exports stay available for 30 days after cancellation."
BILLING = "Cancelling ends billing at the end of the period."


@pytest.mark.parametrize(
    ("claim", "premise", "codes"),
    [
        ("Exports stay available for 30 days after cancellation.", POLICY, []),
        ("Exports stay available for 14 days after cancellation.", POLICY, ["number"]),
        ("Exports stay available for 30 months after cancellation.", POLICY, ["number"]),
        ("Exports stay available for thirty days.", POLICY, []),
        ("Exports stay available for 30 days after cancellation.", BILLING, ["number"]),
        ("Exports do not stay available after cancellation.", POLICY, ["negation"]),
        ("Refunds are issued for partial months.", "Refunds are not issued for partial months.", ["negation"]),
        ("Refunds are issued for partial months.", "Refunds aren't issued for partial months.", ["negation"]),
        ("Refunds aren't issued for partial months.", "Refunds are not issued for partial months.", []),
        ("All exports stay available for 30 days.", POLICY, ["quantifier"]),
        ("Snapshots are taken every Monday.", "Snapshots are taken every Sunday.", ["date"]),
        ("The plan costs $1,200 per year.", "The plan costs $1,200 per year.", []),
    ],
)
def test_guards(claim: str, premise: str, codes: list[str]) -> None:
    assert sorted({g.code for g in check_guards(claim, premise)}) == codes


def test_near_quote() -> None:
    assert is_near_quote("Snapshot exports stay available for 30 days.", POLICY)
    assert not is_near_quote("Exports stay available for 30 days after billing ends.", POLICY)
    assert not is_near_quote("", POLICY)


def test_p_yes_sums_case_variants_and_normalises() -> None:
    import math

    assert p_yes({"Yes": math.log(0.6), " yes": math.log(0.2), "No": math.log(0.2)}) == pytest.approx(0.8)
    with pytest.raises(Exception, match="neither yes nor no"):
        p_yes({"Maybe": -0.1})


def _spans(*texts: str) -> list[Span]:
    return [Span("d", "v", i * 100, i * 100 + len(t), t) for i, t in enumerate(texts)]


def test_without_a_model_only_guards_and_quotes_decide() -> None:
    v = CheckingVerifier()
    assert v.verify("Snapshot exports stay available for 30 days after cancellation.", _spans(POLICY)).label == "supported"
    unsupported = v.verify("Exports stay available for 30 days after cancellation.", _spans(BILLING))
    assert unsupported.label == "not_supported" and unsupported.score is None and unsupported.guards
    unsettled = v.verify("Exports can be downloaded later.", _spans(POLICY))
    assert (unsettled.label, unsettled.score) == ("unverified", None)
    # A trimmed quote that drops the condition is not a quote.
    dropped = v.verify("Snapshot exports stay available for 30 days.", _spans(POLICY))
    assert dropped.label == "unverified" and dropped.guards == ("condition dropped: 'after'", "no model: cannot settle")


def test_guards_overrule_a_confident_model() -> None:
    import math

    yes = FakeChatModel(lambda m: "Yes", logprobs={"Yes": math.log(0.97), "No": math.log(0.03)})
    v = CheckingVerifier(LLMJudge(yes))
    verdict = v.verify("Exports stay available for 14 days after cancellation.", _spans(POLICY))
    assert verdict.label == "not_supported" and verdict.score == pytest.approx(0.97)
    assert verdict.guards == ("number: 14 day is not in the cited text",)
    ok = v.verify("Exports stay available for 30 days after cancellation.", _spans(POLICY))
    assert (ok.label, round(ok.score or 0, 2)) == ("supported", 0.97)
