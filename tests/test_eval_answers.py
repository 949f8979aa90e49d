"""``citegraph eval answers`` and ``citegraph eval conflicts`` on the tiny multi-hop sample: the
unanswerable set is exact (a hidden caller never sees a gold passage), and the conflict pairs are
built and scored by the product's own check."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from citegraph.cli import main
from citegraph.eval.answers import contains, labels_of
from citegraph.eval.retrieval import load

HOTPOT = Path(__file__).parent / "data" / "hotpot_sample.json"


def test_gold_passages_are_hidden_from_their_own_question_only() -> None:
    data = load(HOTPOT)
    labels = labels_of(data)
    for q in data.questions:
        for title in q.gold_titles:
            assert f"not-{q.id}" not in labels[title] and "all" in labels[title]
            others = [o for o in data.questions if title not in o.gold_titles]
            assert all(f"not-{o.id}" in labels[title] for o in others)
    assert all(labels[t] == ("public",) for t in data.passages if not any(t in q.gold_titles for q in data.questions))


def test_containment_reads_the_answer_and_its_aliases() -> None:
    assert contains(("Tallinn",), "Quillon Labs was founded in Tallinn.") is True
    assert contains(("the latest snapshot",), "Exports use the latest snapshot.") is True
    assert contains(("University of Tartu", "Tartu University"), "She studied at Tartu University.") is True
    assert contains(("Tallinn",), "It was founded in Tartu.") is False
    assert contains(("yes",), "anything") is None and contains((), "anything") is None


def test_the_threshold_free_figure_counts_ties_half() -> None:
    from citegraph.eval.answers import _auroc

    assert _auroc([(0.9, True), (0.1, False)]) == 1.0 and _auroc([(0.1, True), (0.9, False)]) == 0.0
    assert _auroc([(0.5, True), (0.5, False)]) == 0.5 and _auroc([(0.5, True)]) is None


def test_eval_answers_asks_hidden_and_visible(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["eval", "answers", "--data", str(HOTPOT), "--embedder", "hashing", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "answers-hotpot_sample.json").read_text(encoding="utf-8"))
    rows = record["rows"]
    assert len(rows) == 8 and {r["condition"] for r in rows} == {"hidden", "visible"}
    data = load(HOTPOT)
    gold = {q.id: set(q.gold_titles) for q in data.questions}
    assert not any(r["retrieved"] for r in rows if r["condition"] == "hidden")  # hidden means hidden
    assert all(r["contained"] is None for r in rows if r["condition"] == "hidden")
    assert any(r["retrieved"] for r in rows if r["condition"] == "visible") and gold
    assert "abstains, gold hidden" in (tmp_path / "answers-hotpot_sample.md").read_text(encoding="utf-8")
    assert set(record["result"]["test_auroc"]) == {"probability", "similarity"}


def test_eval_conflicts_scores_built_pairs(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["eval", "conflicts", "--data", str(HOTPOT), "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "conflicts-hotpot_sample.json").read_text(encoding="utf-8"))
    figures = record["result"]
    assert figures["pairs"] > 0
    for half in ("dev", "test"):
        kinds = figures[half]["by_kind"]
        assert kinds["same"]["flagged_shipped"] == 0  # a sentence never disagrees with itself
    assert any(figures[h]["by_kind"]["negation"]["flagged_rules"] for h in ("dev", "test"))
