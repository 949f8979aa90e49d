"""Refit the answerability model ("not in your documents") on dev, and report it with the harness.

The measurement itself is ``citegraph eval answers`` (:mod:`citegraph.eval.answers`): each HotpotQA
question asked with its gold passages hidden from the caller by access labels, and with them visible;
abstention, answering and the gold answer in the cited claims, per half and question type. This
script runs that harness's ask over one store and, with ``--fit``, refits the logistic weights of
:data:`citegraph.answer.answerable.FEATURES` on the dev half (hidden = 0, visible and retrieved = 1)
and picks the threshold there: the highest P at which dev still answers >= 90% of the
visible-and-retrieved questions (a margin over the issue's 85%). Paste the printed weights into
``answerable.py`` and run again to measure them.

    python bench/abstention.py --data ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json \\
        --db /tmp/abstention.db --out docs/results/DATE/abstention/ [--generator gguf:qwen2.5-coder-1.5b] [--fit]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citegraph import CiteGraph
from citegraph.answer.answerable import ABSTAIN_BELOW, FEATURES, WEIGHTS
from citegraph.eval.answers import evaluate, prepare, report
from citegraph.eval.retrieval import load
from common import environment


def fit_rows(saved: Any) -> list[dict[str, Any]]:
    """The rows of a saved run in this script's shape (``half``, ``condition``, ``retrieved``,
    ``features``): this script's own; ``citegraph eval answers`` on a corpus (``{"rows": {"product":
    [...]}}``: an unanswerable question is "hidden", an answerable one "visible", retrieved when the
    gold answer is in its context); ``bench/lihua.py``'s (Null "hidden", the others "visible",
    retrieved when the gold answer is in the context; all of it dev, LiHua-World's dev questions)."""
    rows = saved["rows"]
    if isinstance(rows, dict):  # a corpus: its product run
        return [
            {
                "half": r["split"],
                "condition": "visible" if r["answerable"] else "hidden",
                "retrieved": bool(r["in_context"]),
                "features": r["features"],
            }
            for r in rows["product"]
            if r["kind"] != "summary"  # a summary is not read for one answer: no features
        ]
    if rows and "condition" not in rows[0]:  # LiHua-World
        return [
            {
                "half": "dev",
                "condition": "hidden" if r["type"] == "Null" else "visible",
                "retrieved": bool(r["in_context_answer"]),
                "features": r["features"],
            }
            for r in rows
        ]
    return list(rows)


def fit(rows: list[dict[str, Any]], others: Sequence[list[dict[str, Any]]] = ()) -> tuple[list[float], float]:
    """Logistic regression (L2 0.1, Newton's method) on dev: hidden = 0, visible and retrieved = 1; then the threshold.
    With ``others`` (the rows of runs on other data sets), their dev rows join the fit, each set
    weighing the same in total, and the threshold is the highest at which *every* set's dev still
    answers >= 90% of its visible-and-retrieved questions.
    By hand: eight weights on a few hundred rows, where a library would be a dependency for one fit."""
    sets = [
        [r for r in group if r["half"] == "dev" and r["features"] and (r["condition"] == "hidden" or r["retrieved"])]
        for group in (rows, *others)
    ]
    sets = [group for group in sets if group]
    x = np.array([[1.0, *(r["features"][f] for f in FEATURES)] for group in sets for r in group])
    y = np.array([0.0 if r["condition"] == "hidden" else 1.0 for group in sets for r in group])
    weight = np.concatenate([np.full(len(group), len(x) / (len(sets) * len(group))) for group in sets])
    w = np.zeros(x.shape[1])
    ridge = 0.1 * np.eye(x.shape[1])
    ridge[0, 0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (weight * (p - y)) + ridge @ w
        hess = x.T @ (x * (weight * p * (1 - p))[:, None]) + ridge
        w -= np.linalg.solve(hess, grad)
    thresholds = []
    for group in sets:
        gx = np.array([[1.0, *(r["features"][f] for f in FEATURES)] for r in group if r["condition"] == "visible"])
        positives = np.sort(1 / (1 + np.exp(-gx @ w))) if len(gx) else np.zeros(0)
        thresholds.append(float(positives[int(np.floor(0.10 * len(positives)))]) if len(positives) else 0.5)
    return [round(float(v), 3) for v in w], round(min(thresholds) - 1e-6, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--db", type=Path, required=True, help="the store (made on the first run, reused)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--generator", default="extractive")
    parser.add_argument("--fit", action="store_true", help="refit the weights and threshold on dev and print them")
    parser.add_argument("--limit", type=int)
    parser.add_argument(
        "--fit-also",
        type=Path,
        action="append",
        default=[],
        help="the JSON of a run on another data set (this script's, `citegraph eval answers` on a corpus, bench/lihua.py's): its dev rows join the fit",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    data = load(args.data, limit=args.limit)
    with CiteGraph.open(args.db, generator=args.generator) as graph:
        prepare(graph, data)
        rows = evaluate(graph, data, lambda n, total: print(f"\r asked {n}/{total}", end="", file=sys.stderr))
        models = dict(graph.models())
    print(file=sys.stderr)
    setup = {
        "data": str(args.data),
        "questions": len(data.questions),
        "generator": models["generator"],
        "verifier": models["verifier"],
        "seconds": time.perf_counter() - started,
        "weights": list(WEIGHTS),
        "threshold": ABSTAIN_BELOW,
    }
    result, text = report(data.name, rows, setup)
    text += f"\nCommand: `python bench/abstention.py {' '.join(sys.argv[1:])}`; machine: {environment()}.\n"
    text += f"Answerability weights {tuple(WEIGHTS)}, threshold {ABSTAIN_BELOW}.\n"
    if args.fit:
        others = [fit_rows(json.loads(p.read_text(encoding="utf-8"))) for p in args.fit_also]
        weights, threshold = fit(rows, others)
        result["fitted"] = {"weights": weights, "threshold": threshold}
        print(f"fitted on dev: WEIGHTS = {tuple(weights)}  ABSTAIN_BELOW = {threshold}", file=sys.stderr)
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        name = "abstention" if args.generator == "extractive" else "abstention-" + args.generator.replace(":", "-")
        name = name if args.data.stem.startswith("hotpotqa") else f"{name}-{args.data.stem}"
        (args.out / f"{name}.md").write_text(text, encoding="utf-8")
        (args.out / f"{name}.json").write_text(json.dumps({"result": result, "rows": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
