"""``citegraph eval answers``: does ``ask`` say "not in your documents" when they do not answer, answer
when they do, and is the gold answer in what it cites?

Data: multi-hop questions in any layout :func:`citegraph.eval.retrieval.load` reads (HotpotQA,
2WikiMultihopQA, MuSiQue, the plain format). The unanswerable set is built from them without writing
new text: all passages go into one store (``OUT/NAME.db``, reused), and every question is asked twice,

- **hidden**: by a caller whose access labels exclude that question's gold passages (each gold
  passage carries ``all`` and ``not-Q`` for every question Q it is *not* gold for; the caller of
  question Q holds ``public`` and ``not-Q``), so what it can see does not answer it;
- **visible**: by a caller who sees everything (``public`` and ``all``).

Each ask goes through :meth:`CiteGraph.ask` as the CLI runs it. Reported per half (dev / test, as
``eval retrieval`` splits) and question type: **abstains, hidden** (status ``not_found`` or
``no_evidence``), **answers, visible** and **answers, visible and retrieved** (every gold passage in
the numbered context: the population whose answer is there to give), **contained** (the gold answer
or an alias, casefolded without punctuation or articles, inside the cited claims of the visible ask;
yes/no answers left out, a quote cannot say them), beside the baselines "always answer" and "abstain
under the best similarity that does best on dev". Written: ``answers-NAME.md`` and
``answers-NAME.json`` (every question's status, features and claims).
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from citegraph.answer.citations import cited_markers
from citegraph.eval import Bars, no_bars, report_name
from citegraph.eval.retrieval import RetrievalData, load
from citegraph.ingest.indexer import TextInput
from citegraph.models import AnswerStatus
from citegraph.verify.text import MONTHS

__all__ = ["ABSTAINED", "contains", "evaluate", "labels_of", "prepare", "run", "said", "summary"]

ABSTAINED = frozenset({AnswerStatus.NOT_FOUND, AnswerStatus.NO_EVIDENCE})


def labels_of(data: RetrievalData) -> dict[str, tuple[str, ...]]:
    """Each passage's access labels: ``public`` unless it is gold for some question; a gold passage
    is readable by the caller who sees all, and by every question's caller except those it is gold for."""
    gold_for: dict[str, set[str]] = defaultdict(set)
    for q in data.questions:
        for title in q.gold_titles:
            gold_for[title].add(q.id)
    ids = [q.id for q in data.questions]
    return {
        title: ("all", *(f"not-{i}" for i in ids if i not in gold_for[title])) if title in gold_for else ("public",)
        for title in data.passages
    }


def prepare(graph: Any, data: RetrievalData, advance: Callable[..., None] = lambda *_a: None) -> None:
    """Ingest the passages with their labels, unless the store already holds documents."""
    if graph.store.documents(None):
        return
    by_labels: dict[tuple[str, ...], list[TextInput]] = defaultdict(list)
    for title, labels in labels_of(data).items():
        by_labels[labels].append(TextInput(title, data.passages[title]))
    for n, (labels, items) in enumerate(by_labels.items(), 1):
        graph.ingest_texts(items, access=labels)
        advance(n, len(by_labels))


def _norm(text: str) -> str:
    text = re.sub(r"[^\w\s]", " ", str(text).casefold())
    return " ".join(w for w in text.split() if w not in {"the", "a", "an"})


_ISO_DAY = re.compile(r"^(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})(?P<time>[ T]\d{1,2}:\d{2})?$")


def written_dates(alias: str) -> list[str]:
    """``alias`` and, for a day written ``2025-03-04`` (with a time or not), the same day as documents
    and answers write it: "4 March 2025", "4 March", "March 4, 2025", "March 4", each with the time
    after it. A chat export's own line header and a minute's "4 March, 10:31" say the same moment."""
    m = _ISO_DAY.match(alias.strip())
    if m is None or not 1 <= int(m["month"]) <= 12:
        return [alias]
    day, month, year, time = int(m["day"]), MONTHS[int(m["month"]) - 1].capitalize(), m["year"], (m["time"] or "").strip()
    forms = [f"{day} {month} {year}", f"{day} {month}", f"{month} {day} {year}", f"{month} {day}"]
    return [alias, *(f"{form} {time}".strip() for form in forms)]


def said(aliases: Sequence[str], text: str) -> bool:
    """Whether one of ``aliases`` is inside ``text``, as whole words, casefolded, punctuation and
    articles aside; a day written ``YYYY-MM-DD`` also as its day and month in words (:func:`written_dates`)."""
    padded = f" {_norm(text)} "
    return any(f" {g} " in padded for g in (_norm(w) for a in aliases for w in written_dates(a)) if g)


def contains(answers: Sequence[str], claims: str) -> bool | None:
    """Whether a gold answer (or alias) is inside ``claims``; None for yes/no or no gold."""
    golds = [g for g in (_norm(a) for a in answers) if g]
    if not golds or golds[0] in {"yes", "no"}:
        return None
    return said(answers, claims)


def evaluate(graph: Any, data: RetrievalData, advance: Callable[..., None] = lambda *_a: None) -> list[dict[str, Any]]:
    """Every question asked hidden and visible: one row each."""
    rows = []
    for n, q in enumerate(data.questions, 1):
        for condition, labels in (("hidden", ("public", f"not-{q.id}")), ("visible", ("public", "all"))):
            started = time.perf_counter()
            answer = graph.ask(q.text, labels=labels)
            documents = {item.span.document for item in answer.context}
            a = answer.answerability
            rows.append(
                {
                    "id": q.id,
                    "half": q.split,
                    "type": q.type,
                    "condition": condition,
                    "status": answer.status.value,
                    "abstained": answer.status in ABSTAINED,
                    "retrieved": all(t in documents for t in q.gold_titles),
                    "probability": None if a is None else a.probability,
                    "features": {} if a is None else dict(a.features),
                    "similarity": max((item.evidence.similarity for item in answer.context), default=0.0),
                    "contained": contains(q.answers, " ".join(c.text for c in answer.claims)) if condition == "visible" else None,
                    # what decides whether a supported answer is shown green (compose.addresses)
                    "relevance": answer.relevance.label,
                    "reading_p": None if a is None or a.reading is None else round(a.reading.probability, 4),
                    "reading_cited": None if a is None or a.reading is None else a.reading.marker in cited_markers(answer.claims),
                    "claims": [c.text for c in answer.claims],
                    "seconds": round(time.perf_counter() - started, 4),
                }
            )
        advance(n, len(data.questions))
    return rows


def _rate(rows: Sequence[dict[str, Any]], key: Callable[[dict[str, Any]], bool]) -> float | None:
    return sum(1 for r in rows if key(r)) / len(rows) if rows else None


def summary(rows: Sequence[dict[str, Any]], abstains: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    hidden = [r for r in rows if r["condition"] == "hidden"]
    visible = [r for r in rows if r["condition"] == "visible"]
    retrieved = [r for r in visible if r["retrieved"]]
    scored = [r for r in visible if r["contained"] is not None]
    return {
        "abstain_hidden": _rate(hidden, abstains),
        "answer_visible": _rate(visible, lambda r: not abstains(r)),
        "answer_visible_retrieved": _rate(retrieved, lambda r: not abstains(r)),
        "contained": _rate(scored, lambda r: bool(r["contained"])),
        "hidden": len(hidden),
        "visible": len(visible),
        "visible_retrieved": len(retrieved),
        "scored": len(scored),
    }


def _auroc(scored: Sequence[tuple[float, bool]]) -> float | None:
    """P(a random positive scores above a random negative), ties counted half; None without both."""
    pos = [x for x, y in scored if y]
    neg = [x for x, y in scored if not y]
    if not pos or not neg:
        return None
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg) / (len(pos) * len(neg))


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def report(name: str, rows: list[dict[str, Any]], setup: dict[str, Any]) -> tuple[dict[str, Any], str]:
    sims = sorted({round(r["similarity"], 3) for r in rows if r["half"] == "dev"})

    def balanced(t: float) -> float:
        s = summary([r for r in rows if r["half"] == "dev"], lambda r: r["similarity"] < t)
        return ((s["abstain_hidden"] or 0) + (s["answer_visible"] or 0)) / 2

    threshold = max(sims, key=balanced) if sims else 0.0
    result: dict[str, Any] = {"setup": setup, "similarity_threshold": threshold}

    def under(r: dict[str, Any]) -> bool:
        return bool(r["similarity"] < threshold)

    for half in ("dev", "test"):
        part = [r for r in rows if r["half"] == half]
        answerable = [r for r in part if r["condition"] == "hidden" or r["retrieved"]]
        result[half + "_auroc"] = {
            key: _auroc([(r[key] if r[key] is not None else 1.0, r["condition"] == "visible") for r in answerable])
            for key in ("probability", "similarity")
        }
        result[half] = {
            "product": summary(part, lambda r: r["abstained"]),
            "always_answer": summary(part, lambda r: False),
            "similarity_baseline": summary(part, under),
            "by_type": {
                kind: summary([r for r in part if r["type"] == kind], lambda r: r["abstained"])
                for kind in sorted({r["type"] for r in part})
            },
        }
    lines = [
        f"# Answers on {name}: not in your documents, and the gold in what is cited",
        "",
        f"Generator {setup['generator']}, verifier {setup['verifier']}; {setup['questions']} questions; {setup['seconds']:.0f} s.",
        "",
        "| half | method | abstains, gold hidden | answers, gold visible | answers, visible and retrieved | gold in the cited claims | n hidden / visible / retrieved / scored |",
        "|---|---|---|---|---|---|---|",
    ]
    for half in ("dev", "test"):
        for method in ("product", "always_answer", "similarity_baseline"):
            s = result[half][method]
            contained = _fmt(s["contained"]) if method == "product" else "–"
            lines.append(
                f"| {half} | {method} | {_fmt(s['abstain_hidden'])} | {_fmt(s['answer_visible'])} | {_fmt(s['answer_visible_retrieved'])} "
                f"| {contained} | {s['hidden']} / {s['visible']} / {s['visible_retrieved']} / {s['scored']} |"
            )
    lines += [
        "",
        f"Similarity baseline: abstain when the best similarity is under {threshold} (its best balanced accuracy on dev).",
        "",
        "Threshold-free: AUROC of telling the hidden asks from the visible-and-retrieved ones, by P(answerable) "
        + ", ".join(f"{half} {_fmt(result[half + '_auroc']['probability'])}" for half in ("dev", "test"))
        + "; by the best similarity alone "
        + ", ".join(f"{half} {_fmt(result[half + '_auroc']['similarity'])}" for half in ("dev", "test"))
        + ".",
        "",
        "By question type, test half:",
        "",
        "| type | abstains, hidden | answers, visible and retrieved | gold in the cited claims | n scored |",
        "|---|---|---|---|---|",
    ]
    for kind, s in result["test"]["by_type"].items():
        lines.append(
            f"| {kind or '–'} | {_fmt(s['abstain_hidden'])} | {_fmt(s['answer_visible_retrieved'])} | {_fmt(s['contained'])} | {s['scored']} |"
        )
    return result, "\n".join(lines) + "\n"


def run(
    paths: Sequence[Path],
    open_graph: Callable[[Path], Any],
    *,
    out: Path,
    limit: int | None = None,
    bars: Bars = no_bars,
    each: Callable[[Path], None] = lambda _path: None,
) -> list[dict[str, Any]]:
    """Each data set of ``paths`` through ``open_graph(OUT/NAME.db)``'s ``ask``; the reports under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    summaries = []
    for path in paths:
        data = load(path, limit=limit)
        name = report_name(data.name, taken, path)
        started = time.perf_counter()
        with open_graph(out / f"answers-{name}.db") as graph, bars(f"{name}: ingest") as advance:
            prepare(graph, data, advance)
        with open_graph(out / f"answers-{name}.db") as graph, bars(f"{name}: ask") as advance:
            rows = evaluate(graph, data, advance)
            models = dict(graph.models())
        setup = {
            "data": str(path),
            "questions": len(data.questions),
            "generator": models.get("generator"),
            "verifier": models.get("verifier"),
            "embedder": models.get("embedder"),
            "seconds": time.perf_counter() - started,
        }
        result, text = report(name, rows, setup)
        md = out / f"answers-{name}.md"
        md.write_text(text, encoding="utf-8")
        (out / f"answers-{name}.json").write_text(json.dumps({"result": result, "rows": rows}, indent=1) + "\n", encoding="utf-8")
        each(md)
        summaries.append({"name": name, **{half: result[half]["product"] for half in ("dev", "test")}})
    return summaries
