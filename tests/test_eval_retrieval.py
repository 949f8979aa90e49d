"""The retrieval-evaluation harness (eval/retrieval.py), on a tiny multi-hop sample written for these
tests (HotpotQA's shape and the plain format). The modes themselves: tests/test_modes.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.eval.retrieval import Question, Ranked, load
from citegraph.retrieve.modes import MODES

DATA = Path(__file__).parent / "data"
HOTPOT = DATA / "hotpot_sample.json"
PLAIN = DATA / "retrieval_plain_sample.json"


def test_both_formats_load_to_the_same_passages_and_gold() -> None:
    hotpot, plain = load(HOTPOT), load(PLAIN)
    assert set(hotpot.passages) == set(plain.passages) and len(hotpot.passages) == 10
    assert [q.gold_titles for q in hotpot.questions] == [q.gold_titles for q in plain.questions]
    first = hotpot.questions[0]
    assert first.gold_titles == ("Larkspur", "Quillon Labs") and first.type == "bridge"
    (title, start, end), _ = first.gold_sentences
    assert hotpot.passages[title][start:end] == "Larkspur is a project tracker made by Quillon Labs."
    assert {q.split for q in hotpot.questions} <= {"dev", "test"}


def test_hotpotqa_s_own_layout_and_json_lines_load_alike(tmp_path: Path, hotpot_own_layout: list[dict[str, object]]) -> None:
    from dataclasses import astuple

    own = hotpot_own_layout
    as_list, as_lines = tmp_path / "own.json", tmp_path / "lines.json"  # JSON lines under .json, as 2Wiki's dumps come
    as_list.write_text(json.dumps(own), encoding="utf-8")
    as_lines.write_text("".join(json.dumps(r) + "\n" for r in own), encoding="utf-8")
    expected = load(HOTPOT)
    for path in (as_list, as_lines):
        data = load(path)
        assert data.passages == expected.passages
        assert [astuple(q) for q in data.questions] == [astuple(q) for q in expected.questions]


def test_musique_paragraphs_are_documents_and_its_unanswerable_questions_are_left_out() -> None:
    data = load(DATA / "musique_sample.jsonl")
    # one title, two texts: the second is "Quillon Labs (2)"
    assert data.passages["Quillon Labs"] == "Quillon Labs is a software company founded in Tallinn in 2014."
    assert data.passages["Quillon Labs (2)"] == "Quillon Labs opened a second office in Lisbon in 2019."
    assert len(data.passages) == 7 and data.skipped == 1  # the unanswerable question, although one paragraph is flagged
    assert [(q.id, q.gold_titles, q.gold_sentences, q.type) for q in data.questions] == [
        ("2hop__1_2", ("Larkspur", "Quillon Labs"), (), "2hop"),
        ("3hop1__5_6_7", ("Quillon Labs", "Larkspur", "Data retention policy"), (), "3hop1"),
    ]


def test_a_malformed_question_is_named_with_its_field(tmp_path: Path) -> None:
    from citegraph.errors import InputFileError

    rows = json.loads(HOTPOT.read_text(encoding="utf-8"))
    rows[1]["supporting_facts"] = {"title": ["Larkspur"], "sent_id": ["first"]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    with pytest.raises(InputFileError, match=r"question 2 \(of the file, from 1\): supporting_facts needs"):
        load(path)


def test_a_fact_is_found_in_the_paragraph_of_its_title_that_has_the_sentence(tmp_path: Path) -> None:
    rows = json.loads(HOTPOT.read_text(encoding="utf-8"))
    row = rows[0]
    gold_title = row["supporting_facts"]["title"][0]
    # a shorter paragraph of the same title comes first: the fact's sentence number is only the second one's
    row["context"]["title"].insert(0, gold_title)
    row["context"]["sentences"].insert(0, ["A one-sentence stub."])
    row["supporting_facts"]["sent_id"][0] = 1
    row["supporting_facts"]["title"].append("No such paragraph")
    row["supporting_facts"]["sent_id"].append(0)
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    data = load(path)
    first = data.questions[0]
    assert data.passages[gold_title] == "A one-sentence stub." and f"{gold_title} (2)" in data.passages
    assert first.gold_titles[0] == f"{gold_title} (2)" and first.gold_sentences[0][0] == f"{gold_title} (2)"
    assert data.unresolved == 1  # the fact naming a paragraph the context does not hold


def test_metrics_count_distinct_passages_and_overlapping_sentences() -> None:
    q = Question("x", "?", ("A", "B"), (("A", 0, 10), ("B", 0, 10)))
    ranked = Ranked(q, [("A", 0, 10), ("A", 11, 20), ("C", 0, 5), ("B", 5, 30)], 0.0)
    assert ranked.documents == ["A", "C", "B"]
    assert (ranked.all_gold(2), ranked.all_gold(3)) == (False, True)
    assert ranked.passage_recall(2) == 0.5
    assert ranked.sentence_recall(1) == 0.5 and ranked.sentence_recall(4) == 1.0  # B's [5, 30) overlaps [0, 10)
    assert ranked.context_documents(2) == ["A"]


def test_eval_retrieval_runs_every_mode_and_writes_the_reports(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["eval", "retrieval", "--data", str(HOTPOT), "--data", str(PLAIN), "--embedder", "hashing", "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    summaries = json.loads(result.stdout)
    assert [s["data"] for s in summaries] == ["hotpot_sample", "retrieval_plain_sample"]
    for s in summaries:
        assert set(s["modes"]) == set(MODES)
        for split in ("dev", "test"):
            for m in s["modes"].values():
                assert set(m[split]["all_gold"]) == {"2", "5", "8", "10", "20"}
                assert m[split]["all_gold"]["20"] == 1.0  # ten passages: all of them are within 20
    assert {p.name for p in out.iterdir()} >= {"hotpot_sample.md", "hotpot_sample.json", "hotpot_sample.png", "hotpot_sample.db"}
    assert summaries[1]["modes"]["dense-sentence"]["dev"]["sentence_recall"]["10"] is None  # the plain format has no sentence gold
    # The store is kept and reused: a second run ingests nothing new.
    again = CliRunner().invoke(main, ["eval", "retrieval", "--data", str(HOTPOT), "--embedder", "hashing", "--out", str(out), "--json"])
    assert json.loads(again.stdout)[0]["ingest"] == {"unchanged": 10}


def test_an_unknown_mode_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["eval", "retrieval", "--data", str(HOTPOT), "--mode", "pagerank", "--out", str(tmp_path)])
    assert result.exit_code == 1 and "unknown retrieval mode 'pagerank'" in result.stderr
