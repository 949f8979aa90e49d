"""``citegraph eval answers`` and ``citegraph eval conflicts`` on the tiny multi-hop sample: the
unanswerable set is exact (a hidden caller never sees a gold passage), and the conflict pairs are
built and scored by the product's own check."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from citegraph.cli import main
from citegraph.eval.answers import contains, labels_of, said
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


def test_a_day_written_as_iso_is_said_in_words_too_and_another_minute_is_not() -> None:
    assert said(["2025-03-04 10:31"], "4 March, 10:31: Rollback to 4.12.0 decided [1].")
    assert said(["2025-03-04"], "It went out on March 4, 2025 [2].")
    assert not said(["2025-03-04 10:31"], "4 March, 10:32: Rollback decided [1].")
    assert not said(["2025-03-04"], "14 March [1].")


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


CORPUS = Path(__file__).parent / "data" / "corpus_tiny"


class _Said:
    """What judge reads of an answer: its text, claims, status, warnings, relevance and answerability."""

    def __init__(
        self, text: str, status: str, warnings: tuple[object, ...] = (), context: tuple[str, ...] = (), lead: str | None = None
    ) -> None:
        from types import SimpleNamespace

        from citegraph.models import AnswerStatus, Relevance

        self.text, self.status, self.warnings = text, AnswerStatus(status), warnings
        self.context = tuple(SimpleNamespace(span=SimpleNamespace(text=t)) for t in context)
        self.claims = ()
        self.lead = None if lead is None else SimpleNamespace(text=lead)  # the reader's words the answer shows first
        self.relevance, self.answerability = Relevance("unchecked", None, None, None), None


def test_a_corpus_question_is_right_only_with_its_answer_and_wrong_with_a_checked_status_is_confident() -> None:
    from citegraph.eval.corpus import judge, load_corpus
    from citegraph.models import AnswerWarning

    questions = {q.id: q for q in load_corpus(CORPUS).questions}
    right = judge(questions["t-1"], _Said("Full-time staff get 27 days of paid leave per year. [1]", "quoted"))
    assert right["right"] and not right["confidently_wrong"]
    wrong = judge(questions["t-1"], _Said("Part-time staff get a share of that. [1]", "quoted"))
    assert not wrong["right"] and wrong["confidently_wrong"]
    grey = judge(questions["t-1"], _Said("Part-time staff get a share of that. [1]", "cited"))
    assert not grey["right"] and not grey["confidently_wrong"]
    # in context: the answer was there to quote (retrieval's ceiling), whatever the answer made of it
    missed = judge(
        questions["t-1"],
        _Said("Part-time staff get a share of that. [1]", "quoted", context=("Full-time staff get 27 days of paid leave per year.",)),
    )
    assert missed["in_context"] and not missed["right"]
    # what the answer shows first ("A: 27 days [1]") is part of it, where its quotes do not repeat it
    led = judge(questions["t-1"], _Said("Part-time staff get a share of that. [1]", "quoted", lead="27 days of paid leave"))
    assert led["right"] and not led["confidently_wrong"]
    assert not wrong["in_context"]
    abstain = judge(questions["t-4"], _Said("Not in your documents.", "not_found"))
    assert abstain["right"] and abstain["abstained"]
    answered = judge(questions["t-4"], _Said("Visitors park on Dock Street. [1]", "verified"))
    assert not answered["right"] and answered["confidently_wrong"]
    assert judge(questions["t-1"], _Said("27 days", "not_found"))["right"] is False  # an abstention answers nothing
    stale = AnswerWarning("stale", "context item [2] is from a stale source", (("document", "faq-2023.md"),))
    assert judge(questions["t-3"], _Said("30 days [1]", "quoted", (stale,)))["stale_named"] is True
    assert judge(questions["t-3"], _Said("30 days [1]", "quoted"))["stale_named"] is False


def test_a_corpus_file_with_a_missing_field_names_the_file_and_field(tmp_path: Path) -> None:
    import pytest

    from citegraph.errors import UserError
    from citegraph.eval.corpus import load_corpus

    (tmp_path / "a.md").write_text("A text.", encoding="utf-8")
    (tmp_path / "corpus.json").write_text(
        json.dumps({"documents": [{"path": "a.md"}], "questions": [{"id": "x", "kind": "k", "split": "dev", "answers": []}]}),
        encoding="utf-8",
    )
    with pytest.raises(UserError, match=r"corpus.json: questions\[0\]: missing field 'question'"):
        load_corpus(tmp_path)
    (tmp_path / "corpus.json").write_text(json.dumps({"documents": [{"path": "missing.md"}], "questions": []}), encoding="utf-8")
    with pytest.raises(UserError, match=r"documents\[0\]: no file"):
        load_corpus(tmp_path)


def test_eval_answers_on_a_corpus_reports_each_kind_and_keeps_the_staff_file_from_the_public(tmp_path: Path) -> None:
    args = ["eval", "answers", "--data", str(CORPUS), "--embedder", "hashing", "--baseline", "none", "--out", str(tmp_path), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "answers-corpus_tiny.json").read_text(encoding="utf-8"))
    rows = {r["id"]: r for r in record["rows"]["product"]}
    assert set(rows) == {f"t-{i}" for i in range(1, 7)}
    public = rows["t-5"]
    assert not any("Pier 9" in c for c in public["claims"]) and "Pier 9" not in public["text"]  # access holds in an eval too
    assert public["right"] == public["abstained"]
    text = (tmp_path / "answers-corpus_tiny.md").read_text(encoding="utf-8")
    assert "| dev | **all** | 4 |" in text and "| test | **all** | 2 |" in text and "confidently wrong" in text
    assert record["result"]["product"]["dev"]["by_kind"]["access"]["n"] == 1


def test_the_corpus_checker_reads_documents_as_ingest_does_and_names_each_problem(tmp_path: Path) -> None:
    import shutil
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from check_corpus import check

    problems, counts = check(CORPUS, split_rule=False)
    assert problems == [] and counts[("access", "dev")] == 1 and counts[("stale", "test")] == 1
    broken = tmp_path / "corpus"
    shutil.copytree(CORPUS, broken)
    data = json.loads((broken / "corpus.json").read_text(encoding="utf-8"))
    data["questions"][0]["answers"] = ["28 days"]  # not what the handbook says
    data["questions"][4]["caller"] = ["public", "staff"]  # the twin that must not answer can now read the answer
    data["questions"][5]["caller"] = ["public"]  # the staff question asked by the public: its gold is out of its reach
    data["absent"] = {"t-4": ["paid leave"]}
    (broken / "corpus.json").write_text(json.dumps(data), encoding="utf-8")
    problems, _counts = check(broken, minimums=True, split_rule=False)
    assert any("t-1: '28 days' is in none of its gold documents" in p for p in problems)
    assert any("t-6: gold document docs/plans.md is not readable by caller ['public']" in p for p in problems)
    assert any("t-5: its caller can read the answer 'Pier 9' in docs/plans.md" in p for p in problems)
    assert any("absent 't-4': 'paid leave' occurs in docs/handbook.md" in p for p in problems)
    assert any(p.startswith("questions: 6, need 85") for p in problems)


def test_a_corpus_plants_its_own_conflict_pairs_read_as_ingest_reads_them() -> None:
    from citegraph.eval.conflicts import corpus_pairs, corpus_report, flags
    from citegraph.eval.corpus import load_corpus
    from citegraph.verify.cascade import CheckingVerifier

    (pair,) = corpus_pairs(load_corpus(CORPUS))
    # each quote as the whole sentence that holds it, from its own document
    assert "deleted 90 days" in pair["a"] and "deleted 30 days" in pair["b"] and pair["conflict"]
    assert pair["a"] != "deleted 90 days" and pair["title"] == "docs/faq-2023.md / docs/handbook.md"
    flags([pair], CheckingVerifier(checker=False, screen=False))  # rules only
    result, text = corpus_report("tiny", [pair], 0.0)
    assert pair["rule"] == "number" and result["shipped"]["recall"] == 1.0
    assert "| shipped | 1.000 | 1.000 | 1 | 1 | 1 |" in text


def test_eval_answers_asks_a_corpuss_conversations_turn_by_turn_and_says_who_read_the_follow_ups(tmp_path: Path) -> None:
    import shutil

    corpus = tmp_path / "corpus_tiny"
    shutil.copytree(CORPUS, corpus)
    turns = ["How much paid leave do full-time staff get?", "And part-time staff?"]  # elided: read from the turn before
    conversations = {"conversations": [{"id": "c-1", "turns": turns, "standalone": "t-1"}]}
    (corpus / "conversations.json").write_text(json.dumps(conversations), encoding="utf-8")
    out = tmp_path / "out"
    args = ["eval", "answers", "--data", str(corpus), "--embedder", "hashing", "--baseline", "none", "--out", str(out), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    record = json.loads((out / "answers-corpus_tiny.json").read_text(encoding="utf-8"))
    (row,) = record["follow_ups"]
    assert row["asked"] == "And part-time staff?" and row["read_as"] != row["asked"] and "part-time staff" in row["read_as"]
    assert record["result"]["follow_ups"]["read_by"] == "rules only" and record["result"]["follow_ups"]["dev"]["n"] == 1
    assert "Follow-ups read by rules only." in (out / "answers-corpus_tiny.md").read_text(encoding="utf-8")


def test_eval_answers_with_a_rewriter_reads_what_the_rules_cannot_with_that_model(tmp_path: Path) -> None:
    """`--rewriter` puts a model server behind the follow-ups the rules leave unread; the report names it."""
    import shutil

    from tests.ollama_standin import StandIn, serve

    corpus = tmp_path / "corpus_tiny"
    shutil.copytree(CORPUS, corpus)
    # "that pager" is no place and no rule reads it: the model is asked
    conversations = {
        "conversations": [
            {"id": "c-1", "turns": ["How much paid leave do full-time staff get?", "Who has that pager?"], "standalone": "t-2"}
        ]
    }
    (corpus / "conversations.json").write_text(json.dumps(conversations), encoding="utf-8")
    state = StandIn({"qwen2.5": lambda messages, fmt: "Who has the pager until Sunday?"})
    out = tmp_path / "out"
    with serve(state) as url:
        args = ["eval", "answers", "--data", str(corpus), "--embedder", "hashing", "--baseline", "none", "--out", str(out)]
        result = CliRunner().invoke(main, [*args, "--rewriter", f"ollama:qwen2.5@{url}", "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "answers-corpus_tiny.json").read_text(encoding="utf-8"))
    (row,) = record["follow_ups"]
    assert record["result"]["follow_ups"]["read_by"] == f"rules, then ollama:qwen2.5@{url}"
    # the model's rewrite names "Sunday", which the conversation never did: refused, the rules' reading stands
    assert row["read_as"] == "Who has that pager?" and len(state.requests) == 1
