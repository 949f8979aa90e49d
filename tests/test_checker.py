"""citegraph's trained support checker (verify/crossencoder.py) and its place in the cascade."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from citegraph.errors import ModelUnavailable
from citegraph.models import Span, Stage, Support, Verdict
from citegraph.verify.base import PairCheck, Verifier
from citegraph.verify.cascade import CheckingVerifier
from citegraph.verify.crossencoder import CARD_PATH, MAX_TOKENS, CrossEncoder, encode, fit_premise, load_tokenizer
from citegraph.verify.language import is_english, language_of

POLICY = "Snapshot exports stay available for 30 days after cancellation."


def span(text: str) -> list[Span]:
    return [Span("policy", "v1", 0, len(text), text)]


@pytest.fixture(scope="module")
def checker() -> CheckingVerifier:
    return CheckingVerifier(checker=True)


# -- the premise window -------------------------------------------------------------------------------
def test_a_short_premise_is_kept_whole() -> None:
    assert fit_premise("  One   sentence.\nTwo. ", "anything") == "One sentence. Two."


def test_a_long_premise_keeps_the_sentences_closest_to_the_claim_in_their_order() -> None:
    filler = [f"Filler sentence number {i} talks about gardening and weather." for i in range(40)]
    text = " ".join(
        [*filler[:10], "Refunds are issued within 14 days of purchase.", *filler[10:30], "Refunds need the original receipt.", *filler[30:]]
    )
    fitted = fit_premise(text, "Refunds are issued within 14 days with a receipt.", max_words=30)
    assert "Refunds are issued within 14 days of purchase." in fitted
    assert fitted.index("within 14 days") < fitted.index("original receipt")
    assert len(fitted.split()) <= 30


def test_the_claim_is_never_truncated_the_premise_is() -> None:
    tokenizer = load_tokenizer()
    claim = "The warranty covers water damage for two years."
    feed = encode(tokenizer, [("word " * 2000, claim)])
    ids = feed["input_ids"][0]
    assert feed["attention_mask"][0].sum() <= MAX_TOKENS
    second = ids[feed["token_type_ids"][0] == 1]
    assert tokenizer.decode(second.tolist()).startswith("the warranty covers water damage for two years")


def test_a_claim_longer_than_the_window_is_cut_not_refused() -> None:
    feed = encode(load_tokenizer(), [("A premise.", "claim " * 600)])
    assert feed["attention_mask"].sum() <= MAX_TOKENS


# -- language ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Es ist ein Mythos, dass Larkspur die Kundendaten verkauft.", "de"),
        ("Il est faux que Larkspur vende les données des clients.", "fr"),
        ("La empresa no vende los datos de sus clientes.", "es"),
        ("Snapshot exports stay available for 30 days after cancellation.", "en"),
        ("The die was cast at the Rhine.", "en"),
        ("Larkspur GmbH", None),
        ("City: London; Hotel per night: £180; Meals per day: £55.", None),  # Italian's "per", twice: no evidence
        ("Il prezzo per notte è di 180 sterline.", "it"),
        ("Drivers do two rounds as a passenger first.", "en"),  # Portuguese's "do", "as", "a": English's too
        ("[19/06/2025, 10:22] Joe Keane: I could do one Saturday a month", "en"),
        ("O prazo é de 30 dias para os dados.", "pt"),
    ],
)
def test_language_of(text: str, lang: str | None) -> None:
    assert language_of(text) == lang
    assert is_english(text) == (lang in (None, "en"))


# -- the shipped model ------------------------------------------------------------------------------------
def test_the_shipped_model_is_pinned(tmp_path: Path) -> None:
    copy = tmp_path / "data"
    shutil.copytree(CARD_PATH.parent, copy)
    card = json.loads((copy / CARD_PATH.name).read_text())
    model = copy / card["model_file"]
    model.write_bytes(model.read_bytes()[:-1] + b"\0")
    with pytest.raises(ModelUnavailable, match="sha256"):
        CrossEncoder(copy / CARD_PATH.name)


def test_a_card_without_thresholds_is_refused_by_name(tmp_path: Path) -> None:
    card = json.loads(CARD_PATH.read_text())
    del card["settle"]
    (tmp_path / "card.json").write_text(json.dumps(card))
    with pytest.raises(ModelUnavailable, match="settle"):
        CrossEncoder(tmp_path / "card.json")


def test_probabilities_are_distributions(checker: CheckingVerifier) -> None:
    model = checker.checker
    assert model is not None
    p = model.probabilities([(POLICY, "Exports stay available for a month after cancellation."), ("It rained.", "The sun shone.")])
    assert p.shape == (2, 3)
    assert abs(float(p.sum(axis=1).max()) - 1) < 1e-5


def test_the_planted_paraphrase_is_supported(checker: CheckingVerifier) -> None:
    support = checker.verify("Its snapshot exports can still be downloaded for a month.", span(POLICY))
    assert support.label == Verdict.SUPPORTED
    assert support.stage == Stage.CHECKER
    assert support.calibrated is True and support.score is not None and support.score >= 0.5


def test_a_quantity_proven_equal_is_read_the_premises_way(checker: CheckingVerifier) -> None:
    from citegraph.verify.text import in_premise_units

    assert in_premise_units("Its exports can be downloaded for a month.", POLICY) == "Its exports can be downloaded for 30 days."
    assert in_premise_units("Kept for 12 months.", "Kept for a year.") == "Kept for a year."
    assert in_premise_units("Kept for 30 months.", POLICY) == "Kept for 30 months."  # another value: left for the guards
    assert in_premise_units("Kept for a month.", "No numbers here.") == "Kept for a month."
    plain = checker.verify("Its snapshot exports can still be downloaded for a month.", span(POLICY))
    said = checker.verify("Its snapshot exports can still be downloaded for 30 days.", span(POLICY))
    assert plain.score == said.score  # the checker saw the same pair


def test_a_duration_said_another_way_is_supported(checker: CheckingVerifier) -> None:
    support = checker.verify("Snapshot exports stay available for a month after cancellation.", span(POLICY))
    assert support.label == Verdict.SUPPORTED


def test_the_demo_contradiction_is_caught(checker: CheckingVerifier) -> None:
    # The checker alone reads it as supported (0.65, issue 22); the timing rule proves it before the checker runs.
    support = checker.verify("Snapshot exports are removed at cancellation.", span(POLICY))
    assert support.label == Verdict.CONTRADICTED and support.stage == Stage.GUARDS
    assert support.guards == ("timing conflict: the claim says at cancellation, the cited text 30 days after cancellation",)


def test_an_unrelated_sentence_is_not_support(checker: CheckingVerifier) -> None:
    support = checker.verify("Larkspur offers phone support on weekends.", span(POLICY))
    assert support.label != Verdict.SUPPORTED


def test_a_changed_number_is_not_support(checker: CheckingVerifier) -> None:
    support = checker.verify("Snapshot exports stay available for 90 days after cancellation.", span(POLICY))
    assert support.label in (Verdict.CONTRADICTED, Verdict.NOT_SUPPORTED)


def test_text_in_another_language_is_not_settled_by_the_checker(checker: CheckingVerifier) -> None:
    support = checker.verify("Larkspur sells customer data.", span("Es ist ein Mythos, dass Larkspur die Kundendaten verkauft."))
    assert support.label == Verdict.UNVERIFIED
    assert support.stage == Stage.NONE
    assert any("language: de" in note for note in support.guards)


def test_a_quote_of_a_hedged_sentence_is_not_supported_by_the_checker(checker: CheckingVerifier) -> None:
    support = checker.verify(POLICY, span(f"Some users report that {POLICY[0].lower()}{POLICY[1:]}"))
    assert support.label != Verdict.SUPPORTED


def test_claims_that_contradict_each_other_are_found_without_a_judge(checker: CheckingVerifier) -> None:
    found = checker.contradictions(
        [
            ("The warranty covers water damage.", "The warranty does not cover water damage."),
            ("The warranty covers water damage.", "The warranty lasts two years."),
        ]
    )
    assert found[0].contradiction is not None and found[0].contradiction >= 0.5
    assert found[1].contradiction is not None and found[1].contradiction < 0.5


def test_without_the_checker_the_old_cascade_runs() -> None:
    plain = CheckingVerifier()
    assert plain.checker is None
    support = plain.verify(POLICY, span(POLICY))
    assert (support.label, support.stage) == (Verdict.SUPPORTED, Stage.QUOTE)


class _Answering(Verifier):
    """A verifier whose contradiction check answers ``p`` for every pair, as ``by`` (checker or judge)."""

    name = "answering"

    def __init__(self, by: str, p: float) -> None:
        self.by, self.p = by, p

    def verify(self, claim: str, spans: Sequence[Span]) -> Support:
        raise AssertionError("not asked")

    def contradictions(self, pairs: Sequence[tuple[str, str]], *, fast: bool = False) -> list[PairCheck]:
        return [PairCheck(self.p, by=self.by) for _ in pairs]


def test_a_conflict_names_what_found_it() -> None:
    from citegraph.verify.conflicts import find_conflicts

    claims = ["The city museum turns visitors away in winter.", "Nobody is turned away from the city museum in winter."]  # no rule sees it
    for by in ("checker", "judge"):
        (conflict,) = find_conflicts(claims, _Answering(by, 0.9)).conflicts
        assert conflict.kind == by and conflict.detail.startswith(f"the {by} finds them contradictory")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # one adds a year the other does not give (the annual report's own two sentences)
        ("146 volunteers gave 9,870 hours in 2024/25.", "- 146 volunteers gave 9,870 hours of their time."),
        # one moment written two ways: the minutes' timeline and the chat line it records
        ("4 March, 09:03: P1 declared; Tom Ashby incident lead.", "2025-03-04 09:03 Tom Ashby: declaring P1."),
        # two attendance lists, one a name longer
        ("Present: Margaret Osei (Chair), Dr Joseph Amankwah, Priya Raman.", "Present: Margaret Osei (Chair), Priya Raman."),
    ],
)
def test_the_checker_finds_no_disagreement_where_nothing_differs_that_can_disagree(a: str, b: str) -> None:
    """The trained checker reads a claim that adds a detail as contradicted (P 0.72-0.88 on these):
    its contradiction counts only where a value, a number or a negation differs. A judge's still counts."""
    from citegraph.verify.conflicts import can_disagree, find_conflicts

    assert not can_disagree(a, b)
    assert find_conflicts([a, b], _Answering("checker", 0.95)).conflicts == ()
    assert find_conflicts([a, b], _Answering("judge", 0.95)).conflicts


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The population was 5,000 in 2010.", "The population was 6,000 in 2010."),
        ("He was ranked 5th in the world.", "He was ranked 7th in the world."),
        ("Version 4.12.1 was rolled back.", "Version 4.12.2 was rolled back."),
        ("The 1820 election took place on April 3, 1820.", "The 1827 election took place on April 3, 1820."),
        ("Sweden lost all three matches 1-2.", "Sweden lost all three matches 4-2."),
        ("The DVD was released without the band's knowledge.", "The DVD was not released without the band's knowledge."),
        ("It opens at 09:00 on Mondays.", "It opens at 10:00 on Mondays."),
    ],
)
def test_sentences_that_differ_in_a_number_a_moment_or_a_negation_can_disagree(a: str, b: str) -> None:
    from citegraph.verify.conflicts import can_disagree

    assert can_disagree(a, b) and can_disagree(b, a)


def test_two_rows_about_different_things_are_never_put_to_the_judge() -> None:
    """Rows of one table, two offices: each names what the other does not, so their different values
    are no disagreement, whatever a model would say of them (issue 35, item 5)."""

    from citegraph.verify.base import PairCheck, Verifier
    from citegraph.verify.conflicts import find_conflicts

    class Contradicting(Verifier):
        name = "contradicting"

        def __init__(self) -> None:
            self.asked: list[tuple[str, str]] = []

        def verify(self, claim: str, spans: Sequence[Span]) -> Support:
            raise AssertionError("not asked")

        def contradictions(self, pairs: Sequence[tuple[str, str]], *, fast: bool = False) -> list[PairCheck]:
            self.asked.extend(pairs)
            return [PairCheck(0.99, by="checker") for _ in pairs]

    rows = [
        "Office: Leeds; Room: Kelp; Seats: 4; Video conferencing: No.",
        "Office: Leeds; Room: Shoal; Seats: 14; Video conferencing: Yes.",
    ]
    judge = Contradicting()
    assert find_conflicts(rows, judge).conflicts == () and judge.asked == []
    same = ["The Kelp room in Leeds seats 4 people.", "The Kelp room in Leeds has seats for 6 people and a screen."]
    assert find_conflicts(same, judge).conflicts  # the same room: a disagreement, by rule or judge
