"""``citegraph eval retrieval``: does retrieval put a question's evidence into the context?

Data (paths given on the command line):

* HotpotQA distractor (``hotpotqa_distractor_sample100.json``, in the hub's layout or HotpotQA's own),
  2WikiMultihopQA and MuSiQue, as a JSON list or JSON lines (:mod:`citegraph.eval.formats`): every
  context paragraph of every question is one document (its title is the id), and the gold evidence
  is ``supporting_facts``: paragraph titles and sentence numbers (MuSiQue: the supporting
  paragraphs, so no sentence recall; its unanswerable questions are left out).
* The plain format: passages ``[{"title", "text"}]`` and questions ``[{"question",
  "gold_supporting_titles"[, "id", "type", "answer" or "answers"]}]``, either as one JSON object ``{"corpus": [...],
  "questions": [...]}``, as a folder holding ``corpus.json`` and ``questions.json``, or as a
  questions file with ``--corpus FILE``. (No sentence-level gold: sentence recall is left out.)

The passages are ingested once into ``OUT/NAME.db`` (reused when it holds exactly those passages),
then every question goes through each mode, as the caller ``public``. Metrics, per mode, on the dev
and the test half of the questions (split by a hash of the question id, so every run agrees):

* at passage budgets k = 2, 5, 8, 10, 20 distinct documents, in the order the mode ranks them:
  **all-gold** (every gold passage in the top k: HippoRAG's and fast-graphrag's "perfect
  retrieval") and passage recall;
* at sentence budgets k = 2, 5, 8, 10, 20: supporting-sentence recall (a gold sentence counts when a
  retrieved span overlaps it);
* at the default context (``--context-size`` sentences, what ``ask`` numbers): all-gold, passage
  recall, sentence recall and the number of distinct passages it holds;
* query latency p50 and p95 (warm: the caller's graph view is built before the clock starts).

Results are broken down by question type (bridge, comparison) where the data gives one. Written:
``NAME.md``, ``NAME.json`` (with every question's ranked documents) and ``NAME.png``.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citegraph.errors import InputFileError
from citegraph.eval import Bars, no_bars, report_name
from citegraph.eval.formats import is_multihop, multihop_row, read_json
from citegraph.models import SUBJECT

__all__ = ["BUDGETS", "Question", "RetrievalData", "evaluate", "load", "report"]

BUDGETS = (2, 5, 8, 10, 20)


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    gold_titles: tuple[str, ...]
    gold_sentences: tuple[tuple[str, int, int], ...] = ()  #: (title, start, end) character ranges in the passage
    type: str = ""
    answers: tuple[str, ...] = ()  #: the gold answer and its aliases, when the data gives them

    @property
    def split(self) -> str:
        return "dev" if int(hashlib.sha256(self.id.encode()).hexdigest(), 16) % 2 == 0 else "test"


@dataclass(frozen=True)
class RetrievalData:
    name: str
    passages: dict[str, str]  #: title -> text
    questions: list[Question]
    unresolved: int = 0  #: supporting facts naming a title or sentence number their question's context lacks (left out)
    skipped: int = 0  #: questions with no supporting paragraph in their context (MuSiQue's unanswerable ones), left out


def load(path: Path, corpus: Path | None = None, limit: int | None = None) -> RetrievalData:
    """A data set in either format (see the module docstring); ``limit`` keeps the first questions."""
    if path.is_dir():
        corpus, path = path / "corpus.json", path / "questions.json"
    raw = read_json(path)
    name = path.parent.name if path.name == "questions.json" else path.stem
    if isinstance(raw, dict) and {"corpus", "questions"} <= set(raw):
        return _plain(name, raw["corpus"], raw["questions"], limit, path)
    if isinstance(raw, list) and raw and is_multihop(raw[0]):
        return _multihop(name, raw, limit, path)
    if corpus is None:
        raise InputFileError(str(path), "not HotpotQA and no corpus", "give the passages with --corpus FILE ([{title, text}])")
    if not isinstance(raw, list):
        raise InputFileError(str(path), "expected a list of questions")
    return _plain(name, read_json(corpus), raw, limit, path)


def _multihop(name: str, rows: list[Any], limit: int | None, path: Path) -> RetrievalData:
    """HotpotQA (either layout), 2WikiMultihopQA or MuSiQue: every context paragraph is a document named by
    its title; a title that comes with two different texts names the second "Title (2)", and so on."""
    passages: dict[str, str] = {}
    named: dict[tuple[str, str], str] = {}
    questions = []
    unresolved = skipped = 0
    for index, raw in enumerate(rows[:limit]):
        row = multihop_row(raw, index, str(path))
        unresolved += row.unresolved
        ids, offsets = [], []
        for title, sentences in row.paragraphs:
            text, spans = "", []
            for sentence in sentences:
                start = len(text) + (len(sentence) - len(sentence.lstrip()))
                text += sentence if row.sentence_gold else sentence.strip()
                spans.append((start, len(text.rstrip())))
            if (title, text) not in named:
                doc, n = title, 1
                while doc in passages:
                    n += 1
                    doc = f"{title} ({n})"
                named[title, text] = doc
                passages[doc] = text
            ids.append(named[title, text])
            offsets.append(spans)
        if not row.gold_paragraphs:
            skipped += 1  # MuSiQue's unanswerable questions: no evidence to retrieve
            continue
        gold = tuple((ids[p], *offsets[p][i]) for p, i in row.gold) if row.sentence_gold else ()
        answers = tuple(a for a in (row.answer, *row.aliases) if a.strip())
        questions.append(Question(row.id, row.question, tuple(ids[p] for p in row.gold_paragraphs), gold, row.type, answers))
    if not questions:
        raise InputFileError(str(path), "no question with a supporting paragraph in the context")
    return RetrievalData(name, passages, questions, unresolved, skipped)


def _plain(name: str, corpus: Any, rows: Any, limit: int | None, path: Path) -> RetrievalData:
    if not isinstance(corpus, list) or not all(isinstance(p, dict) and {"title", "text"} <= set(p) for p in corpus):
        raise InputFileError(str(path), "the corpus must be a list of {title, text} objects")
    passages = {str(p["title"]): str(p["text"]) for p in corpus}
    questions = []
    for i, row in enumerate(rows[:limit]):
        if not isinstance(row, dict) or "question" not in row or "gold_supporting_titles" not in row:
            raise InputFileError(str(path), f"question {i} needs 'question' and 'gold_supporting_titles'")
        missing = [t for t in row["gold_supporting_titles"] if t not in passages]
        if missing:
            raise InputFileError(str(path), f"question {i}: gold titles not in the corpus: {missing}")
        given = row.get("answers", row.get("answer")) or ()
        answers = tuple(str(a) for a in ([given] if isinstance(given, str) else list(given)) if str(a).strip())
        questions.append(
            Question(
                str(row.get("id", i)),
                row["question"],
                tuple(dict.fromkeys(row["gold_supporting_titles"])),
                (),
                str(row.get("type", "")),
                answers,
            )
        )
    return RetrievalData(name, passages, questions)


# -- scoring -----------------------------------------------------------------------------------------
@dataclass
class Ranked:
    """One question through one mode: the spans it ranked, as (document, start, end), best first."""

    question: Question
    spans: list[tuple[str, int, int]]
    seconds: float

    @property
    def documents(self) -> list[str]:
        return list(dict.fromkeys(d for d, _s, _e in self.spans))

    def all_gold(self, k: int) -> bool:
        return set(self.question.gold_titles) <= set(self.documents[:k])

    def passage_recall(self, k: int) -> float:
        return len(set(self.question.gold_titles) & set(self.documents[:k])) / len(self.question.gold_titles)

    def sentence_recall(self, k: int) -> float | None:
        gold = self.question.gold_sentences
        if not gold:
            return None
        top = self.spans[:k]
        hit = sum(1 for t, gs, ge in gold if any(d == t and s < ge and gs < e for d, s, e in top))
        return hit / len(gold)

    def context_documents(self, size: int) -> list[str]:
        return list(dict.fromkeys(d for d, _s, _e in self.spans[:size]))


@dataclass
class ModeResult:
    mode: str
    ranked: list[Ranked] = field(default_factory=list)


def evaluate(
    questions: Sequence[Question],
    modes: Sequence[str],
    rank: Callable[[str, str], list[tuple[str, int, int]]],
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> list[ModeResult]:
    """Every question through every mode; ``rank(question, mode)`` gives the ranked spans."""
    results = [ModeResult(m) for m in modes]
    total = len(questions) * len(modes)
    done = 0
    for result in results:
        for q in questions:
            start = time.perf_counter()
            spans = rank(q.text, result.mode)
            result.ranked.append(Ranked(q, spans, time.perf_counter() - start))
            done += 1
            progress(done, total)
    return results


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(statistics.fmean(kept), 4) if kept else None


def _percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))] if ordered else 0.0


def summarise(ranked: Sequence[Ranked], context_size: int) -> dict[str, Any]:
    return {
        "questions": len(ranked),
        "all_gold": {k: _mean([float(r.all_gold(k)) for r in ranked]) for k in BUDGETS},
        "passage_recall": {k: _mean([r.passage_recall(k) for r in ranked]) for k in BUDGETS},
        "sentence_recall": {k: _mean([r.sentence_recall(k) for r in ranked]) for k in BUDGETS},
        "context": {
            "sentences": context_size,
            "all_gold": _mean([float(set(r.question.gold_titles) <= set(r.context_documents(context_size))) for r in ranked]),
            "passage_recall": _mean(
                [len(set(r.question.gold_titles) & set(r.context_documents(context_size))) / len(r.question.gold_titles) for r in ranked]
            ),
            "sentence_recall": _mean([r.sentence_recall(context_size) for r in ranked]),
            "passages": _mean([float(len(r.context_documents(context_size))) for r in ranked]),
        },
        "latency_ms": {
            "p50": round(1000 * _percentile([r.seconds for r in ranked], 0.5), 1),
            "p95": round(1000 * _percentile([r.seconds for r in ranked], 0.95), 1),
        },
    }


def report(data: RetrievalData, results: Sequence[ModeResult], context_size: int, out_dir: Path, setup: dict[str, Any]) -> dict[str, Any]:
    """Write ``NAME.md``, ``NAME.json`` and ``NAME.png`` under ``out_dir``; return the summary."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {
        "data": data.name,
        "passages": len(data.passages),
        "questions": len(data.questions),
        "questions_left_out": data.skipped,
        "gold_facts_unresolved": data.unresolved,
        **setup,
        "modes": {},
    }
    types = sorted({q.type for q in data.questions if q.type})
    for result in results:
        by_split = {s: [r for r in result.ranked if r.question.split == s] for s in ("dev", "test")}
        entry = {split: summarise(rows, context_size) for split, rows in by_split.items()}
        for t in types:
            entry[f"test:{t}"] = summarise([r for r in by_split["test"] if r.question.type == t], context_size)
            entry[f"dev:{t}"] = summarise([r for r in by_split["dev"] if r.question.type == t], context_size)
        summary["modes"][result.mode] = entry
    (out_dir / f"{data.name}.json").write_text(
        json.dumps(
            {
                **summary,
                "ranked": {
                    r.mode: [{"id": x.question.id, "split": x.question.split, "documents": x.documents[:20]} for x in r.ranked]
                    for r in results
                },
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    (out_dir / f"{data.name}.md").write_text(_markdown(summary, types), encoding="utf-8")
    _plot(summary, out_dir / f"{data.name}.png")
    return summary


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _markdown(summary: dict[str, Any], types: list[str]) -> str:
    lines = [
        f"# Retrieval on {summary['data']}: {summary['passages']} passages, {summary['questions']} questions",
        "",
        f"Store: {summary.get('store', '')}; embedder {summary.get('embedder', '')}; extractor {summary.get('extractor', '')}; "
        f"context {summary.get('context_size')} sentences. Dev and test are halves of the questions by a hash of their id.",
        "",
    ]
    if summary.get("questions_left_out") or summary.get("gold_facts_unresolved"):
        lines += [
            f"Left out: {summary.get('questions_left_out', 0)} questions without a supporting paragraph in their context "
            f"(unanswerable), {summary.get('gold_facts_unresolved', 0)} supporting facts naming a title or sentence number "
            "their context lacks.",
            "",
        ]
    for split in ("dev", "test"):
        lines += [
            f"## {split}",
            "",
            "| mode | n | all-gold@2 | @5 | @8 | @10 | @20 | passage R@8 | sent R@10 | context: all-gold | passages | sent R | p50 ms | p95 ms |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for mode, entry in summary["modes"].items():
            m = entry[split]
            ag = m["all_gold"]
            lines.append(
                f"| {mode} | {m['questions']} | {_fmt(ag[2])} | {_fmt(ag[5])} | {_fmt(ag[8])} | {_fmt(ag[10])} | {_fmt(ag[20])} | "
                f"{_fmt(m['passage_recall'][8])} | {_fmt(m['sentence_recall'][10])} | {_fmt(m['context']['all_gold'])} | "
                f"{_fmt(m['context']['passages'])} | {_fmt(m['context']['sentence_recall'])} | {m['latency_ms']['p50']} | {m['latency_ms']['p95']} |"
            )
        lines.append("")
        if types:
            lines += [
                f"By type ({split}): all-gold@8 / at the default context",
                "",
                "| mode | " + " | ".join(types) + " |",
                "|---|" + "---|" * len(types),
            ]
            for mode, entry in summary["modes"].items():
                cells = [
                    f"{_fmt(entry[f'{split}:{t}']['all_gold'][8])} / {_fmt(entry[f'{split}:{t}']['context']['all_gold'])} (n={entry[f'{split}:{t}']['questions']})"
                    for t in types
                ]
                lines.append(f"| {mode} | " + " | ".join(cells) + " |")
            lines.append("")
    return "\n".join(lines)


def _plot(summary: dict[str, Any], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # the plot is optional: pip install 'citegraph[eval]'
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, split in zip(axes, ("dev", "test"), strict=True):
        for mode, entry in summary["modes"].items():
            ax.plot(BUDGETS, [entry[split]["all_gold"][k] or 0 for k in BUDGETS], marker="o", label=mode)
        ax.set_title(f"{summary['data']} ({split})")
        ax.set_xlabel("passages (k)")
        ax.set_xticks(BUDGETS)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("all gold passages in top k")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- running -----------------------------------------------------------------------------------------
def prepare(data: RetrievalData, graph: Any, progress: Callable[[int, int], None] = lambda done, total: None) -> dict[str, int]:
    """Ingest the passages (one public document each, the title as id) into ``graph``'s store; a
    store that already holds them is reused (unchanged passages are no-ops). Returns the counts."""
    from citegraph.ingest.indexer import TextInput

    items = [TextInput(title, text, source=f"{data.name}:{title}") for title, text in data.passages.items()]
    counts: dict[str, int] = {}
    step = 64
    for at in range(0, len(items), step):
        report = graph.ingest_texts(items[at : at + step], access=("public",))
        for d in report.documents:
            counts[d.status.value] = counts.get(d.status.value, 0) + 1
        progress(min(at + step, len(items)), len(items))
    return counts


def ranker(graph: Any, limit: int = 200) -> Callable[[str, str], list[tuple[str, int, int]]]:
    """``rank(question, mode)`` over ``graph`` as the caller ``public``, warm: each mode's structures
    (the view, passage vectors, the PageRank matrix, BM25) are built before the first timed question."""
    warmed: set[str] = set()

    def rank(question: str, mode: str) -> list[tuple[str, int, int]]:
        if mode not in warmed:
            graph.retriever.retrieve("warm up", ["public"], mode=mode, limit=limit)
            warmed.add(mode)
        retrieval = graph.retriever.retrieve(question, ["public"], mode=mode, limit=limit)
        # what retrieval ranked: not the sentence read with a pronoun's for its subject, in no place of its own
        return [(e.span.document, e.span.start, e.span.end) for e in retrieval.evidence if e.found_by != SUBJECT]

    return rank


def run(
    paths: Sequence[Path],
    *,
    corpus: Path | None,
    modes: Sequence[str],
    limit: int | None,
    out: Path,
    context_size: int,
    open_graph: Callable[[Path], Any],
    bars: Bars = no_bars,
    each: Callable[[Path], None] = lambda report: None,
) -> list[dict[str, Any]]:
    """``citegraph eval retrieval``: each data set's passages ingested into ``out/NAME.db`` (reused
    when present; ``open_graph(path)`` opens it with the embedder and extractor to use), every
    question through every mode, one report per data set. Returns the reports' summaries."""
    import dataclasses

    from citegraph.retrieve.modes import MODES, make_mode

    chosen = list(modes) or list(MODES)
    for mode in chosen:
        make_mode(mode)  # an unknown mode is refused before any work
    summaries = []
    taken: set[str] = set()
    for path in paths:
        dataset = load(path, corpus, limit)
        dataset = dataclasses.replace(dataset, name=report_name(dataset.name, taken, path))
        out.mkdir(parents=True, exist_ok=True)
        db = out / f"{dataset.name}.db"
        with open_graph(db) as graph:
            with bars(f"{dataset.name}: ingest") as advance:
                counts = prepare(dataset, graph, advance)
            with bars(f"{dataset.name}: questions") as advance:
                results = evaluate(dataset.questions, chosen, ranker(graph), advance)
            setup = {
                "store": str(db),
                "ingest": counts,
                "embedder": graph.embedder.name,
                "extractor": graph.extractor.name,
                "context_size": context_size,
            }
            summaries.append(report(dataset, results, context_size, out, setup))
        each(out / f"{dataset.name}.md")
    return summaries
