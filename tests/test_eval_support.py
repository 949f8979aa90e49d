"""The support-evaluation harness on a tiny shipped sample (written for these tests, HaluEval's shape)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.eval.support import Pair, Platt, Scored, calibrated, calibration, evaluate, fit_platt, load_pairs, metrics, report
from citegraph.llm import FakeChatModel, Message
from citegraph.verify.judge import LLMJudge

SAMPLE = Path(__file__).parent / "data" / "halueval_sample.jsonl"


def test_pairs_are_balanced_and_split_by_line() -> None:
    name, pairs = load_pairs(SAMPLE, limit=10)
    assert name == "halueval_qa" and len(pairs) == 8
    assert sum(p.supported for p in pairs) == 4
    assert all(p.answer and p.answer in p.claim for p in pairs)


def test_guards_alone_catch_the_hallucinated_numbers_and_negations(tmp_path: Path) -> None:
    _, pairs = load_pairs(SAMPLE, limit=10)
    scored = evaluate(pairs, judge=None)
    fired = {p.pair.answer for p in scored if p.guards}
    assert fired == {
        "Exports stay available for 14 days after cancellation.",
        "Yes, refunds are issued for partial months.",
        "Larkspur takes a snapshot every Monday.",
        "Audit logs are retained for five years.",
    }


def test_metrics_and_calibration_are_computed_from_scores() -> None:
    pairs = [Pair("p", "c", s, i) for i, s in enumerate([True, True, False, False])]
    scored = [Scored(p, score, (), 0.01) for p, score in zip(pairs, [0.9, 0.6, 0.4, 0.1], strict=True)]
    m = metrics(scored, threshold=0.5)
    assert (m.balanced_accuracy, m.f1) == (1.0, 1.0)
    assert metrics(scored, threshold=0.95).balanced_accuracy == 0.5
    ece, bins = calibration(scored)
    assert ece is not None and math.isclose(ece, (0.1 + 0.4 + 0.4 + 0.1) / 4)
    assert [k for _, _, k in bins] == [1, 1, 1, 1]


def test_report_and_cli_write_table_json_and_plot(tmp_path: Path) -> None:
    def judge(messages: Sequence[Message]) -> str:
        return "Yes"

    model = FakeChatModel(judge, logprobs={"Yes": math.log(0.7), "No": math.log(0.3)})
    _, pairs = load_pairs(SAMPLE, limit=10)
    summary = report("sample", "fake", evaluate(pairs, LLMJudge(model)), tmp_path)
    assert {f.name for f in tmp_path.iterdir()} == {"sample.md", "sample.json", "sample.png", "sample.pairs.jsonl"}
    rows = [json.loads(line) for line in (tmp_path / "sample.pairs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 8 and {r["split"] for r in rows} == {"dev", "test"}
    assert all(math.isclose(r["score"], 0.7) for r in rows)
    assert summary["test"]["n"] + summary["dev"]["n"] == 8
    assert (tmp_path / "sample.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    out = tmp_path / "cli"
    result = CliRunner().invoke(main, ["eval", "support", "--data", str(SAMPLE), "--verifier", "guards", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    (cli_summary,) = json.loads(result.stdout)
    assert cli_summary["dataset"] == "halueval_qa" and cli_summary["guards_on_unsupported"] == 1.0


def test_platt_scaling_fixed_on_dev_repairs_an_underconfident_judge() -> None:
    # A judge whose scores sit near 0.3 / 0.6 while it is right 90% of the time: underconfident.
    pairs, scores = [], []
    for i in range(200):
        supported = i % 2 == 0
        right = i % 20 not in (0, 1)
        pairs.append(Pair("p", "c", supported, i))
        scores.append(0.6 if supported == right else 0.3)
    scored = [Scored(p, s, (), 0.0) for p, s in zip(pairs, scores, strict=True)]
    platt = fit_platt(scored)
    assert platt.a > 0 and platt(0.6) > 0.8 and platt(0.3) < 0.2
    raw_ece, _ = calibration(scored)
    fixed_ece, _ = calibration(calibrated(scored, platt))
    assert raw_ece is not None and fixed_ece is not None and fixed_ece < raw_ece / 3
    # monotone: the decision at the mapped threshold is the decision at the raw one
    assert metrics(calibrated(scored, platt), platt(0.5)).balanced_accuracy == metrics(scored, 0.5).balanced_accuracy


def test_platt_keeps_raw_scores_when_dev_has_one_class_or_an_inverted_judge() -> None:
    one_class = [Scored(Pair("p", "c", True, i), 0.5, (), 0.0) for i in range(5)]
    assert fit_platt(one_class) == Platt()
    inverted = [Scored(Pair("p", "c", i % 2 == 0, i), 0.2 if i % 2 == 0 else 0.8, (), 0.0) for i in range(20)]
    assert fit_platt(inverted) == Platt()


def test_platt_stays_finite_for_a_confident_or_separable_judge() -> None:
    pairs = [Pair("p", "c", i % 2 == 0, i) for i in range(200)]
    confident = [
        Scored(p, (0.98 if p.supported else 0.02) if i % 10 else (0.02 if p.supported else 0.98), (), 0.0) for i, p in enumerate(pairs)
    ]
    platt = fit_platt(confident)
    assert 0 < platt.a < 10 and abs(platt.b) < 10
    fixed, _ = calibration(calibrated(confident, platt))
    raw, _ = calibration(confident)
    assert fixed is not None and raw is not None and fixed < raw  # 90% right, not 98%: pulled in
    separable = [Scored(p, 0.999 if p.supported else 0.001, (), 0.0) for p in pairs]
    platt = fit_platt(separable)
    assert math.isfinite(platt.a) and 0 < platt.a < 5  # smoothed targets keep the optimum finite
    assert platt(0.999) > 0.95 and platt(0.001) < 0.05
    constant = [Scored(p, 0.7, (), 0.0) for p in pairs]
    assert math.isfinite(fit_platt(constant).b)


AB_SAMPLE = Path(__file__).parent / "data" / "attributionbench_sample.jsonl"  # written for these tests, AttributionBench's shape


def test_attributionbench_lines_are_one_pair_each() -> None:
    name, pairs = load_pairs(AB_SAMPLE, limit=10)
    assert name == "attributionbench" and len(pairs) == 4
    by_id = {p.group: p for p in pairs}
    assert [by_id[i].supported for i in range(4)] == [True, False, False, True]
    assert (
        by_id[2].premise
        == "Title: Billing\n\nRefunds are not issued for partial months.\n\nTitle: FAQ\n\nBilling ends at the end of the period."
    )
    assert by_id[0].claim == by_id[0].answer == "Snapshot exports stay available for 30 days after cancellation [1]."


def test_a_lines_half_does_not_depend_on_the_sample() -> None:
    from citegraph.eval.support import is_dev

    halves = [is_dev(g) for g in range(1000)]
    assert 450 < sum(halves) < 550
    _, few = load_pairs(SAMPLE, limit=2)
    _, all_ = load_pairs(SAMPLE, limit=10)
    assert {p.group: is_dev(p.group) for p in few}.items() <= {p.group: is_dev(p.group) for p in all_}.items()


def test_the_harness_runs_the_products_path_and_reports_stages(tmp_path: Path) -> None:
    from citegraph.eval.support import fit_record
    from citegraph.verify.calibration import Calibration

    p_yes = {"30 days": 0.6, "14 days": 0.9}

    class Scripted(FakeChatModel):
        def chat(self, messages, **kwargs):  # type: ignore[no-untyped-def, override]
            claim = messages[-1].content.split("Hypothesis:")[-1]
            p = next((v for k, v in p_yes.items() if k in claim), 0.3)
            self.logprobs = {"Yes": math.log(p), "No": math.log(1 - p)}
            return super().chat(messages, **kwargs)

    judge = LLMJudge(Scripted(lambda m: "Yes"))
    _, pairs = load_pairs(SAMPLE, limit=10)
    scored = evaluate(pairs, judge, screen=False)
    by_answer = {s.pair.answer: s for s in scored}
    conflict = by_answer["Exports stay available for 14 days after cancellation."]
    assert (conflict.stage, conflict.settled, conflict.label) == ("guards", False, "contradicted")
    assert conflict.score == pytest.approx(0.9)  # the judge alone, asked outside the product's path, for comparison
    assert all(s.stage in {"guards", "judge"} for s in scored)
    summary = report("sample", "fake", scored, tmp_path)
    assert {r["stage"] for r in summary["stages"]} == {"guards", "quote", "checker", "screen", "judge", "none"}
    assert summary["conflicts_on_unsupported"] > 0 and summary["conflicts_on_supported"] == 0
    assert "number (conflict)" in summary["guard_rates"] and summary["seconds_p95"] >= 0
    record = fit_record([scored], judge, "halueval_qa")
    assert isinstance(record, Calibration) and record.judge == judge.name and record.prompt.startswith("sha256:")
    assert record.split == "dev, every pair the judge scored" and record.n == sum(1 for s in scored if s.pair.group in {0, 1, 2})
    assert 0 < record.threshold < 1


def test_fit_needs_a_judge(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["eval", "support", "--data", str(SAMPLE), "--verifier", "guards", "--fit", str(tmp_path / "c.json")])
    assert result.exit_code == 1 and "--fit needs a judge model" in result.output


DATA = Path(__file__).parent / "data"


def test_halueval_dialogue_and_summarization_check_the_output_against_its_source() -> None:
    name, pairs = load_pairs(DATA / "halueval_dialogue_sample.jsonl", limit=10)
    assert name == "halueval_dialogue" and len(pairs) == 4 and sum(p.supported for p in pairs) == 2
    riga = next(p for p in pairs if "Riga" in p.claim)
    assert not riga.supported and riga.claim == riga.answer  # a response stands alone: no question around it
    assert riga.premise.startswith("Larkspur is a project tracker")
    name, pairs = load_pairs(DATA / "halueval_summarization_sample.jsonl", limit=10)
    assert name == "halueval_summarization" and len(pairs) == 4
    assert all(p.premise.startswith(("Larkspur, the project", "Quillon Labs was founded")) for p in pairs)
    assert {p.claim for p in pairs if not p.supported} == {
        "Larkspur snapshots workspaces daily, keeps them 90 days, and keeps exports 30 days after cancellation.",
        "Quillon Labs, founded in Lisbon in 2014, opened a Tallinn office in 2019.",
    }


def test_hotpotqa_in_its_own_layout_gives_the_same_pairs(tmp_path: Path, hotpot_own_layout: list[dict[str, object]]) -> None:
    own = hotpot_own_layout
    path = tmp_path / "hotpot_dev_distractor.jsonl"  # and as JSON lines
    path.write_text("".join(json.dumps(r) + "\n" for r in own), encoding="utf-8")
    assert load_pairs(path, limit=10) == load_pairs(DATA / "hotpot_sample.json", limit=10)
    wiki = tmp_path / "2wiki_dev.json"  # 2WikiMultihopQA: the same layout, with its reasoning triples
    wiki.write_text(json.dumps([dict(r, evidences=[["Larkspur", "made by", "Quillon Labs"]]) for r in own]), encoding="utf-8")
    name, pairs = load_pairs(wiki, limit=10)
    assert name == "2wikimultihopqa" and pairs == load_pairs(path, limit=10)[1]


def test_musique_pairs_take_away_the_paragraph_that_states_the_answer() -> None:
    name, pairs = load_pairs(DATA / "musique_sample.jsonl", limit=10)
    assert name == "musique"
    by = {(p.group, p.supported): p for p in pairs}
    assert set(by) == {(0, True), (0, False), (2, True), (2, False)}  # question 1 is unanswerable: no pair
    assert by[0, True].premise == (
        "Larkspur is a project tracker made by Quillon Labs. It stores snapshots of every workspace.\n\n"
        "Quillon Labs is a software company founded in Tallinn in 2014."
    )
    # Tallinn is stated by the second supporting paragraph (taken away) and by the "Tallinn" distractor, its old
    # name Reval (an alias) by another: neither is added
    assert by[0, False].premise == (
        "Larkspur is a project tracker made by Quillon Labs. It stores snapshots of every workspace.\n\n"
        "Quillon Labs opened a second office in Lisbon in 2019."
    )
    assert "30 days" not in by[2, False].premise and "Refunds are not issued" in by[2, False].premise


def test_attributionbench_is_also_reported_by_source(tmp_path: Path) -> None:
    lines = [json.loads(line) for line in AB_SAMPLE.read_text(encoding="utf-8").splitlines()]
    many = []
    for i in range(40):
        row = dict(lines[i % 4], id=f"x{i}", src_dataset=("ExpertQA", "LFQA")[i % 2])
        many.append(row)
    path = tmp_path / "ab.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in many), encoding="utf-8")
    _, pairs = load_pairs(path, limit=100)
    assert {p.source for p in pairs} == {"ExpertQA", "LFQA"}
    summary = report("ab", "guards", evaluate(pairs, judge=None), tmp_path)
    test_pairs = sum(v["pairs"] for v in summary["by_source"].values())
    assert set(summary["by_source"]) == {"ExpertQA", "LFQA"} and test_pairs == summary["test"]["n"]
    assert "| ExpertQA |" in (tmp_path / "ab.md").read_text(encoding="utf-8")


def test_unusable_support_data_is_refused_with_the_line_and_the_fix(tmp_path: Path) -> None:
    from citegraph.errors import InputFileError

    general = tmp_path / "general_data.jsonl"
    general.write_text(json.dumps({"ID": "1", "user_query": "q", "chatgpt_response": "r", "hallucination": "no"}) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="no source text"):
        load_pairs(general, limit=5)
    bad_label = tmp_path / "ab.jsonl"
    row = json.loads(AB_SAMPLE.read_text(encoding="utf-8").splitlines()[0])
    bad_label.write_text(json.dumps(row) + "\n" + json.dumps(dict(row, attribution_label="maybe")) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"ab.jsonl:2.*'maybe'"):
        load_pairs(bad_label, limit=5)
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(row) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"broken\.jsonl:2"):
        load_pairs(broken, limit=5)
    unknown = tmp_path / "other.json"
    unknown.write_text(json.dumps([{"text": "a", "label": 1}]), encoding="utf-8")
    with pytest.raises(InputFileError, match="the first object's fields are"):
        load_pairs(unknown, limit=5)


def test_two_files_of_one_family_keep_two_reports(tmp_path: Path) -> None:
    other = tmp_path / "halueval_more.jsonl"
    other.write_text(SAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["eval", "support", "--data", str(SAMPLE), "--data", str(other), "--verifier", "guards", "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    assert [s["dataset"] for s in json.loads(result.stdout)] == ["halueval_qa", "halueval_qa-halueval_more"]
    assert {"halueval_qa.md", "halueval_qa-halueval_more.md"} <= {p.name for p in out.iterdir()}
