"""The screen (issue 10, item 2): shipped, pinned weights; features in milliseconds; abstains when unsure;
a stage of CheckingVerifier, between the near-quote check and the judge, named on every verdict."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from citegraph.errors import ModelUnavailable
from citegraph.llm import FakeChatModel
from citegraph.models import Span
from citegraph.verify.cascade import CheckingVerifier
from citegraph.verify.judge import LLMJudge
from citegraph.verify.screen import FEATURES, SCREEN_PATH, SCREEN_SHA256, Screen, ScreenModel, ScreenResult, features, load_screen

POLICY = "Snapshot exports stay available for 30 days after cancellation."
BILLING = "Cancelling ends billing at the end of the period."
RUMOUR = "A rumour claimed that the Billing API leaks customer data, which the audit disproved."


def _spans(*texts: str) -> list[Span]:
    return [Span("d", "v", i * 100, i * 100 + len(t), t) for i, t in enumerate(texts)]


class Scripted(Screen):
    """A screen that answers a fixed probability and records what it was asked."""

    def __init__(self, p: float, low: float = 0.1, high: float = 0.9) -> None:
        super().__init__(ScreenModel(FEATURES, (0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 0.0, low, high))
        self.p = p
        self.asked: list[tuple[str, str]] = []

    def assess(self, claim: str, premise: str) -> ScreenResult:
        self.asked.append((claim, premise))
        return ScreenResult(self.p, self.model.decide(self.p))


class Broken(Screen):
    def assess(self, claim: str, premise: str) -> ScreenResult:
        raise ModelUnavailable("screen weights missing: nowhere")


# -- the shipped weights ------------------------------------------------------------------------------
def test_the_shipped_weights_are_pinned_and_a_changed_file_is_refused(tmp_path: Path) -> None:
    model = load_screen()
    assert model.features == FEATURES and 0.0 <= model.low < 0.5 < model.high <= 1.0
    meta = dict(model.meta)
    assert set(meta["trained_on"]) == {"halueval_qa", "hotpotqa", "attributionbench"}
    assert all("dev" in s["split"] for s in meta["trained_on"].values())
    assert model.dumps() == SCREEN_PATH.read_text(encoding="utf-8")  # the file is exactly what the trainer writes
    changed = tmp_path / "screen.json"
    data = json.loads(SCREEN_PATH.read_text(encoding="utf-8"))
    data["bias"] += 1.0
    changed.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelUnavailable, match="does not match the pinned"):
        load_screen(changed, SCREEN_SHA256)
    with pytest.raises(ModelUnavailable, match="missing"):
        load_screen(tmp_path / "nope.json")


def test_a_model_for_other_features_is_refused() -> None:
    data = load_screen().to_json()
    data["features"] = data["features"][:-1]
    with pytest.raises(ValueError, match="features"):
        ScreenModel.from_json(data)
    assert ScreenModel.from_json(load_screen().to_json()) == load_screen()


def test_it_abstains_between_its_thresholds() -> None:
    model = ScreenModel(FEATURES, (0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 0.0, 0.1, 0.9)
    assert [model.decide(p) for p in (0.05, 0.1, 0.5, 0.9, 0.95)] == [False, False, None, True, True]
    assert model.probability([0.0] * len(FEATURES)) == pytest.approx(0.5)


def test_features_are_cheap_and_finite(minilm) -> None:  # type: ignore[no-untyped-def]
    features("warm up", "the embedder and the parser", minilm)
    start = time.perf_counter()
    values = features("Exports stay available for 30 days after cancellation", BILLING, minilm)
    assert time.perf_counter() - start < 1.0  # milliseconds in practice; generous for a busy machine
    assert list(values) == list(FEATURES) and all(math.isfinite(v) for v in values.values())
    assert values["signal_number"] == 1.0 and values["numbers"] == 0.0 and values["overlap"] == 0.0
    same = features(POLICY, POLICY, minilm)
    assert same["overlap"] == 1.0 and same["cos_best"] == pytest.approx(1.0, abs=1e-3) and same["bigrams"] == 1.0


# -- a stage of the verifier --------------------------------------------------------------------------
def test_a_sure_screen_settles_and_the_verdict_says_so() -> None:
    sure = Scripted(0.97)
    verdict = CheckingVerifier(screen=sure).verify("Exports can be downloaded later.", _spans(POLICY))
    assert (verdict.label, verdict.score, verdict.stage, verdict.calibrated, verdict.verifier) == (
        "supported",
        0.97,
        "screen",
        True,
        "screen",
    )
    unsure = CheckingVerifier(screen=Scripted(0.5)).verify("Exports can be downloaded later.", _spans(POLICY))
    assert (unsure.label, unsure.score, unsure.stage) == ("unverified", None, "none")
    no = CheckingVerifier(screen=Scripted(0.02)).verify("Exports can be downloaded later.", _spans(POLICY))
    assert (no.label, no.stage) == ("not_supported", "screen")


def test_with_a_judge_the_screen_settles_first_and_the_judge_takes_the_rest() -> None:
    calls: list[str] = []

    def answer(messages):  # type: ignore[no-untyped-def]
        calls.append(messages[-1].content)
        return "Yes"

    judge = LLMJudge(FakeChatModel(answer, logprobs={"Yes": math.log(0.8), "No": math.log(0.2)}))
    settled = CheckingVerifier(judge, screen=Scripted(0.97)).verify("Exports can be downloaded later.", _spans(POLICY))
    assert settled.stage == "screen" and calls == []  # no model call
    judged = CheckingVerifier(judge, screen=Scripted(0.5)).verify("Exports can be downloaded later.", _spans(POLICY))
    assert (judged.stage, judged.label, round(judged.score or 0, 2), judged.calibrated) == ("judge", "supported", 0.8, False)
    assert len(calls) == 1


def test_the_screen_does_not_run_on_conflicts_quotes_or_framed_quotes() -> None:
    screen = Scripted(0.97)
    v = CheckingVerifier(screen=screen)
    assert v.verify("Exports stay available for 14 days after cancellation.", _spans(POLICY)).stage == "guards"
    assert v.verify("Snapshot exports stay available for 30 days after cancellation.", _spans(POLICY)).stage == "quote"
    framed = v.verify("The Billing API leaks customer data", _spans(RUMOUR))
    assert (framed.label, framed.stage) == ("unverified", "none")  # the frame is the finding; a sure screen is not asked
    assert screen.asked == []


def test_a_missing_screen_is_said_not_hidden() -> None:
    verdict = CheckingVerifier(screen=Broken()).verify("Exports can be downloaded later.", _spans(POLICY))
    assert verdict.label == "unverified" and "screen unavailable: screen weights missing: nowhere" in verdict.guards


# -- the shipped screen on the lesson's cases -----------------------------------------------------------
def test_the_shipped_screen_on_the_larkspur_cases(minilm) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []

    def answer(messages):  # type: ignore[no-untyped-def]
        asked.append(messages[-1].content)
        return "Yes"

    judge = LLMJudge(FakeChatModel(answer, logprobs={"Yes": math.log(0.9), "No": math.log(0.1)}))
    v = CheckingVerifier(judge, screen=Screen(embedder=minilm), contradiction=False)
    # the cited sentence itself is settled by the quote stage, before the screen and the judge
    quoted = v.verify("Snapshot exports stay available for 30 days after cancellation.", _spans(POLICY))
    assert (quoted.label, quoted.stage) == ("supported", "quote") and quoted.score is None
    assert asked == []
    # paraphrases are not clear: the judge decides
    assert v.verify("Exports are kept for a while after cancellation", _spans(POLICY)).stage == "judge"
    assert v.verify("Billing stops", _spans(BILLING)).stage == "judge"
    # without a judge, a paraphrase the rules cannot settle (a month is 30 days) stays unverified
    month = CheckingVerifier(screen=Screen(embedder=minilm)).verify("You can still get your data for a month", _spans(POLICY))
    assert (month.label, month.stage) == ("unverified", "none")


VIVA = 'VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network originating from Germany.'
SWAPPED = 'VIVA Media AG (until 2004 "VIVA Media GmbH") is a music television network originating from Germany.'


def test_a_role_swap_or_a_changed_number_is_never_settled_as_supported_by_the_screen() -> None:
    """Lexical features see the same words; the order of names and the numbers are what changed.
    Found by bench/contradictions.py: before this, the screen settled every swapped pair `supported`."""
    from citegraph.verify.screen import doubt

    certain = Scripted(0.99)  # a screen sure of support, whatever it is shown
    values = {name: 0.0 for name in FEATURES}
    assert doubt(SWAPPED, VIVA, values).startswith("the claim orders its names")
    assert doubt(VIVA, VIVA, values) == ""  # the same order: no doubt
    assert doubt("In 1990 Arthur married Beth.", "Arthur met Carl. In 1990 Beth married Arthur.", values)  # no sentence agrees
    assert doubt("In 1990 Arthur married Beth.", "In 1990 Arthur married Beth. Beth and Arthur moved.", values) == ""  # one agrees
    assert (
        doubt("It has 132 stores.", "It has 66 stores.", {**values, "signal_number": 1.0})
        == "the cited text does not repeat the claim's number"
    )

    real = Screen()
    result = real.assess(SWAPPED, VIVA)
    assert result.decision is None and result.held  # abstains, and says why
    assert real.assess(VIVA, VIVA).decision is True  # the sentence itself is still settled

    verdict = CheckingVerifier(screen=real).verify(SWAPPED, _spans(VIVA))
    assert verdict.label == "unverified" and any("roles swapped" in note for note in verdict.guards)
    assert certain.assess(SWAPPED, VIVA).decision is True  # (the scripted screen bypasses the check by design)
