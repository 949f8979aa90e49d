"""ALCE's citation recall and precision (citegraph eval citations), on a sample written for these
tests in ALCE's layout, with a scripted verifier (the rules) and the model-free product path (the CLI)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.errors import InputFileError
from citegraph.eval.citations import CitationItem, load, score_answer
from citegraph.models import Span, Stage, Support, Verdict
from citegraph.verify.base import Verifier

SAMPLE = Path(__file__).parent / "data" / "alce_sample.json"


class Keyed(Verifier):
    """Supported when the cited text, all spans together, holds every word of the claim's key."""

    name = "keyed"

    def __init__(self, keys: dict[str, tuple[str, ...]]) -> None:
        self.keys = keys
        self.calls: list[tuple[str, int]] = []

    def verify(self, claim: str, spans: Sequence[Span]) -> Support:
        self.calls.append((claim, len(spans)))
        text = " ".join(s.text for s in spans)
        needed = next((k for c, k in self.keys.items() if c in claim), ("\0",))
        ok = all(word in text for word in needed)
        return Support(Verdict.SUPPORTED if ok else Verdict.NOT_SUPPORTED, 1.0 if ok else 0.0, self.name, stage=Stage.JUDGE)


def _item(answer: str, *docs: str, question: str = "q") -> CitationItem:
    return CitationItem("x", question, answer, tuple((f"T{i}", d) for i, d in enumerate(docs, 1)))


def test_precision_follows_alces_rules_for_several_citations() -> None:
    keyed = Keyed({"Alpha": ("alpha", "beta")})
    # [3] entails alone: precise; [1] and [2] do not, and the others without each still entail: over-cited
    item = _item("Alpha holds [1][2][3].", "alpha one", "beta two", "alpha and beta both")
    (claim,) = score_answer(item, keyed).claims
    assert claim.recall == 1.0
    assert claim.precise == (False, False, True)
    # [1] and [2] are each needed (neither entails alone, the others without it do not); [3] is not needed
    item = _item("Alpha holds [1][2][3].", "alpha one", "beta two", "gamma")
    (claim,) = score_answer(item, keyed).claims
    assert claim.precise == (True, True, False)
    item = _item("Alpha holds [1][3].", "alpha one", "beta two", "gamma")
    answer = score_answer(item, keyed)
    assert answer.claims[0].recall == 0.0 and answer.claims[0].precise == (False, False)  # together they fail: all imprecise
    assert (answer.recall, answer.precision) == (0.0, 0.0)


def test_uncited_claims_and_invalid_markers_score_zero_recall() -> None:
    keyed = Keyed({"Alpha": ("alpha",), "Beta": ("beta",)})
    answer = score_answer(_item("Alpha holds [1]. Beta holds. Alpha again [1][4].", "alpha beta"), keyed)
    assert [c.recall for c in answer.claims] == [1.0, 0.0, 0.0]
    assert answer.claims[2].invalid == (4,) and answer.claims[2].precise == ()  # as in ALCE: not in precision's count
    assert answer.recall == pytest.approx(1 / 3) and answer.precision == 1.0
    assert [claim for claim, _ in keyed.calls] == ["Alpha holds."]  # a claim citing a missing document is not checked at all


def test_only_a_claims_first_three_citations_are_checked_and_counted() -> None:
    keyed = Keyed({"Alpha": ("alpha",)})
    answer = score_answer(_item("Alpha holds [4][1][2][3].", "x", "y", "z", "alpha"), keyed)
    (claim,) = answer.claims
    assert claim.markers == (4, 1, 2, 3) and claim.recall == 1.0 and len(claim.precise) == 3


def test_list_answers_are_items_prefixed_by_the_question() -> None:
    keyed = Keyed({"Marazan": ("Marazan",), "No Highway": ("Highway",)})
    item = _item("Marazan [1], No Highway [2].", "Marazan (1926)", "Ruined City", question="Which novels did Nevil Shute write?")
    answer = score_answer(item, keyed, as_list=True)
    assert [c.text for c in answer.claims] == [
        "Which novels did Nevil Shute write? Marazan",
        "Which novels did Nevil Shute write? No Highway",
    ]
    assert [c.recall for c in answer.claims] == [1.0, 0.0]


def test_cli_scores_the_sample_with_the_model_free_path(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["eval", "citations", "--data", str(SAMPLE), "--verifier", "guards", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    (summary,) = json.loads(result.stdout)
    assert summary["answers"] == 2 and summary["claims"] == 4
    assert summary["uncited_claims"] == 1 and summary["claims_with_invalid_markers"] == 1
    detail = json.loads((out / "alce_sample.json").read_text(encoding="utf-8"))
    first = detail["items"][0]["claims"]
    # quotes of the documents they cite: settled by the near-quote stage; the FAQ cited for the refund is not needed
    assert [c["stage"] for c in first] == ["quote", "quote"] and first[1]["precise"] == [True, False]
    assert detail["items"][0]["recall"] == 1.0 and detail["items"][0]["precision"] == pytest.approx(2 / 3)
    assert (out / "alce_sample.md").read_text(encoding="utf-8").startswith("# Citation recall and precision")


def test_a_file_without_cited_answers_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"question": "q", "docs": [{"title": "t", "text": "x"}]}]), encoding="utf-8")
    with pytest.raises(InputFileError, match="item 0"):
        load(bad)
    gold = tmp_path / "asqa_eval.json"  # ALCE's eval files: gold answers, no markers
    gold.write_text(json.dumps([{"question": "q", "answer": "x", "docs": [{"title": "t", "text": "x"}]}]), encoding="utf-8")
    with pytest.raises(InputFileError, match="no answer cites anything"):
        load(gold)


def test_two_files_of_one_name_keep_two_reports(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    copy = tmp_path / "a" / SAMPLE.name
    copy.write_text(SAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    args = ["eval", "citations", "--data", str(SAMPLE), "--data", str(copy), "--verifier", "guards", "--out", str(out), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert [s["data"] for s in json.loads(result.stdout)] == ["alce_sample", "alce_sample-a"]
