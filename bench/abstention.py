"""Does ``ask`` say "not in your documents" when they do not answer, and answer when they do?

The unanswerable set is built from the shared HotpotQA sample without writing new text: every
question is asked twice over one store of all its passages,

- **hidden**: by a caller whose access labels exclude that question's gold passages (each gold
  passage carries the label ``not-Q`` for every question Q it is *not* gold for; the caller of
  question Q holds ``public`` and ``not-Q``), so the documents it can see do not answer it;
- **visible**: by a caller who sees everything (``public`` and ``all``, which every gold passage
  carries too).

Each ask goes through :meth:`CiteGraph.ask` as the CLI runs it (default answerer unless
``--generator``) and is *abstained* when its status is ``not_found`` or ``no_evidence``. Reported
per half (dev / test by a hash of the question id, as ``citegraph eval retrieval`` splits):
abstention on hidden, answering on visible, and answering on visible *and retrieved* (every gold
passage in the context; the issue's target population), with the baselines "always answer" and
"abstain when the best similarity is below the dev threshold that maximises balanced accuracy".

``--fit`` refits the answerability model's weights on the dev half (logistic regression of
:data:`citegraph.answer.answerable.FEATURES`, hidden = 0, visible and retrieved = 1) and picks the
threshold on dev: the highest P at which dev still answers >= 90% of visible-and-retrieved
questions (a margin over the 85% target). Paste the printed weights into ``answerable.py``.

    python bench/abstention.py --data ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json \\
        --db /tmp/abstention.db --out docs/results/DATE/abstention/ [--generator gguf:qwen2.5-coder-1.5b] [--fit]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from citegraph import CiteGraph, TextInput
from citegraph.answer.answerable import ABSTAIN_BELOW, FEATURES, WEIGHTS
from citegraph.eval.retrieval import load
from citegraph.models import AnswerStatus
from common import environment

ABSTAINED = {AnswerStatus.NOT_FOUND, AnswerStatus.NO_EVIDENCE}


def labels_of(data: Any) -> dict[str, tuple[str, ...]]:
    """Each passage's access labels: ``public`` unless it is gold for some question; a gold passage
    is readable by the caller who sees all, and by every question's caller except those it is gold for."""
    gold_for: dict[str, set[str]] = defaultdict(set)
    for q in data.questions:
        for title in q.gold_titles:
            gold_for[title].add(q.id)
    ids = [q.id for q in data.questions]
    out = {}
    for title in data.passages:
        if title in gold_for:
            out[title] = ("all", *(f"not-{i}" for i in ids if i not in gold_for[title]))
        else:
            out[title] = ("public",)
    return out


def prepare(graph: CiteGraph, data: Any) -> None:
    if graph.store.documents(None):
        return
    by_labels: dict[tuple[str, ...], list[TextInput]] = defaultdict(list)
    for title, labels in labels_of(data).items():
        by_labels[labels].append(TextInput(title, data.passages[title]))
    for n, (labels, items) in enumerate(by_labels.items(), 1):
        graph.ingest_texts(items, access=labels or ("nobody",))
        print(f"\r ingested {n}/{len(by_labels)} label groups", end="", file=sys.stderr)
    print(file=sys.stderr)


def _norm(text: str) -> str:
    text = re.sub(r"[^\w\s]", " ", str(text).casefold())
    return " ".join(w for w in text.split() if w not in {"the", "a", "an"})


def contains(gold: str | None, claims: str) -> bool | None:
    """The gold answer inside the cited claims (casefolded, punctuation and articles dropped); None
    for a yes/no answer (a quote cannot say it) or no gold."""
    g = _norm(gold or "")
    if not g or g in {"yes", "no"}:
        return None
    return f" {g} " in f" {_norm(claims)} "


def run(graph: CiteGraph, data: Any, answers: dict[str, str] | None = None) -> list[dict[str, Any]]:
    rows = []
    for n, q in enumerate(data.questions, 1):
        for condition, labels in (("hidden", ("public", f"not-{q.id}")), ("visible", ("public", "all"))):
            started = time.perf_counter()
            answer = graph.ask(q.text, labels=labels)
            context_docs = {item.span.document for item in answer.context}
            a = answer.answerability
            rows.append(
                {
                    "id": q.id,
                    "half": q.split,
                    "type": q.type,
                    "condition": condition,
                    "status": answer.status.value,
                    "abstained": answer.status in ABSTAINED,
                    "retrieved": all(t in context_docs for t in q.gold_titles),
                    "gold_in_context": bool(context_docs & set(q.gold_titles)),
                    "probability": None if a is None else a.probability,
                    "features": {} if a is None else dict(a.features),
                    "similarity": max((item.evidence.similarity for item in answer.context), default=0.0),
                    "contained": contains((answers or {}).get(q.id), " ".join(c.text for c in answer.claims)),
                    "claims": [c.text for c in answer.claims],
                    "seconds": time.perf_counter() - started,
                }
            )
        print(f"\r asked {n}/{len(data.questions)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return rows


def _rate(rows: list[dict[str, Any]], key: Any) -> float | None:
    return sum(1 for r in rows if key(r)) / len(rows) if rows else None


def summary(rows: list[dict[str, Any]], abstains: Any) -> dict[str, Any]:
    hidden = [r for r in rows if r["condition"] == "hidden"]
    visible = [r for r in rows if r["condition"] == "visible"]
    retrieved = [r for r in visible if r["retrieved"]]
    return {
        "abstain_hidden": _rate(hidden, abstains),
        "answer_visible": _rate(visible, lambda r: not abstains(r)),
        "answer_visible_retrieved": _rate(retrieved, lambda r: not abstains(r)),
        "hidden": len(hidden),
        "visible": len(visible),
        "visible_retrieved": len(retrieved),
    }


def fit(rows: list[dict[str, Any]]) -> tuple[list[float], float]:
    """Logistic regression (L2 0.1, Newton's method) on dev: hidden = 0, visible and retrieved = 1; then the threshold."""
    train = [r for r in rows if r["half"] == "dev" and r["features"] and (r["condition"] == "hidden" or r["retrieved"])]
    x = np.array([[1.0, *(r["features"][f] for f in FEATURES)] for r in train])
    y = np.array([0.0 if r["condition"] == "hidden" else 1.0 for r in train])
    w = np.zeros(x.shape[1])
    ridge = 0.1 * np.eye(x.shape[1])
    ridge[0, 0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) + ridge @ w
        hess = x.T @ (x * (p * (1 - p))[:, None]) + ridge
        w -= np.linalg.solve(hess, grad)
    p = 1 / (1 + np.exp(-x @ w))
    positives = np.sort(p[y == 1])
    # the highest threshold that still answers >= 90% of the dev questions whose gold is visible and retrieved
    threshold = float(positives[int(np.floor(0.10 * len(positives)))]) if len(positives) else 0.5
    return [round(float(v), 3) for v in w], round(threshold - 1e-6, 4)


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--db", type=Path, required=True, help="the store (made on the first run, reused)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--generator", default="extractive")
    parser.add_argument("--fit", action="store_true", help="refit the weights and threshold on dev and print them")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    started = time.perf_counter()
    data = load(args.data, limit=args.limit)
    with CiteGraph.open(args.db, generator=args.generator) as graph:
        prepare(graph, data)
        raw = json.loads(args.data.read_text(encoding="utf-8"))
        answers = {str(r.get("id") or r.get("_id")): r.get("answer") for r in raw if isinstance(r, dict)} if isinstance(raw, list) else {}
        rows = run(graph, data, answers)
    result: dict[str, Any] = {"generator": args.generator, "weights": list(WEIGHTS), "threshold": ABSTAIN_BELOW}
    sims = sorted({round(r["similarity"], 3) for r in rows if r["half"] == "dev"})

    def bal(t: float, half: str) -> float:
        s = summary([r for r in rows if r["half"] == half], lambda r: r["similarity"] < t)
        return ((s["abstain_hidden"] or 0) + (s["answer_visible"] or 0)) / 2

    sim_t = max(sims, key=lambda t: bal(t, "dev")) if sims else 0.0
    for half in ("dev", "test"):
        part = [r for r in rows if r["half"] == half]
        result[half] = {
            "product": summary(part, lambda r: r["abstained"]),
            "always_answer": summary(part, lambda r: False),
            "similarity_baseline": summary(part, lambda r, t=sim_t: r["similarity"] < t),
            "by_type": {
                kind: summary([r for r in part if r["type"] == kind], lambda r: r["abstained"])
                for kind in sorted({r["type"] for r in part})
            },
        }
    result["similarity_threshold"] = sim_t
    if args.fit:
        weights, threshold = fit(rows)
        result["fitted"] = {"weights": weights, "threshold": threshold}
        print(f"fitted on dev: WEIGHTS = {tuple(weights)}  ABSTAIN_BELOW = {threshold}", file=sys.stderr)
    seconds = time.perf_counter() - started
    command = "python bench/abstention.py " + " ".join(sys.argv[1:])
    lines = [
        f"# Abstention on HotpotQA-100, gold hidden vs visible ({args.generator})",
        "",
        f"Command: `{command}`  ",
        f"Machine: {environment()}; {seconds:.0f} s in all (ingest included when the store was new).",
        f"Answerability weights {tuple(WEIGHTS)}, threshold {ABSTAIN_BELOW}.",
        "",
        "| half | method | abstains, gold hidden | answers, gold visible | answers, visible and retrieved | n hidden / visible / retrieved |",
        "|---|---|---|---|---|---|",
    ]
    for half in ("dev", "test"):
        for name in ("product", "always_answer", "similarity_baseline"):
            s = result[half][name]
            lines.append(
                f"| {half} | {name} | {_fmt(s['abstain_hidden'])} | {_fmt(s['answer_visible'])} | {_fmt(s['answer_visible_retrieved'])} "
                f"| {s['hidden']} / {s['visible']} / {s['visible_retrieved']} |"
            )
    lines += ["", f"Similarity baseline: abstain when the best similarity < {sim_t} (best balanced accuracy on dev).", ""]
    lines += [
        "By question type (test, product), with answer containment (the gold answer inside the cited claims, gold visible; yes/no answers left out):",
        "",
        "| type | abstains, hidden | answers, visible | answers, visible and retrieved | contained, visible | n contained |",
        "|---|---|---|---|---|---|",
    ]
    for kind, s in result["test"]["by_type"].items():
        scored = [
            r for r in rows if r["half"] == "test" and r["type"] == kind and r["condition"] == "visible" and r["contained"] is not None
        ]
        share = _fmt(sum(r["contained"] for r in scored) / len(scored)) if scored else "–"
        lines.append(
            f"| {kind} | {_fmt(s['abstain_hidden'])} | {_fmt(s['answer_visible'])} | {_fmt(s['answer_visible_retrieved'])} | {share} | {len(scored)} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        name = "abstention" if args.generator == "extractive" else "abstention-" + args.generator.replace(":", "-")
        (args.out / f"{name}.md").write_text(text, encoding="utf-8")
        (args.out / f"{name}.json").write_text(json.dumps({"result": result, "rows": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
