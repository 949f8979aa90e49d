"""Train the screen (citegraph.verify.screen) on the dev halves, choose where it abstains, test it.

Reproducible: the pairs come from ``citegraph.eval.support.load_pairs`` (seed 13) and its hash split
(``is_dev``: a source line is dev or test whatever the sample), the features from
``citegraph.verify.screen.features`` on the text the verifier gives the screen (whitespace collapsed),
and the fit is deterministic (Newton's method, L2). Only pairs the screen can see are used: not those
a proven guard settles first, not near-quotes whose source frames them.

* Fit: a logistic regression on the standardised features of every dev pair; each data set weighs the
  same in total (HaluEval would otherwise be four fifths of it). The L2 strength is chosen by 5-fold
  cross-validation on dev (folds by source line), by log-loss.
* Thresholds: from the out-of-fold probabilities on dev, ``high`` is the lowest and ``low`` the highest
  value at which what the screen settles on that side is right at least 95% of the time on every dev
  set (a set with fewer than 5 pairs settled on a side is checked only through the pooled figure,
  which must reach 95% too). Between them it abstains.
* Test: per data set, the share of test pairs it settles, its accuracy on them (and per side), the
  ECE of its probability, and the feature time per pair. AttributionBench's file is the benchmark's
  dev split, and its dev half is in the training data: its test-half figures are held out from
  training, but they are dev figures of that benchmark.

    python bench/train_screen.py --halueval ../shared/data/halueval/halueval_qa.jsonl \\
        --hotpotqa ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json \\
        --attributionbench ../shared/data/attributionbench/dev_all_subset_balanced.jsonl \\
        --halueval-lines 1500 --out src/citegraph/verify/data/screen.json --report docs/results/2026-11-30/screen.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.embed import MiniLMEmbedder
from citegraph.eval.support import Pair, is_dev, load_pairs
from citegraph.verify.assertion import unkept_frames
from citegraph.verify.guards import is_near_quote, overruling
from citegraph.verify.screen import FEATURES, ScreenModel, features
from common import environment

TARGET = 0.95  #: precision of what the screen settles, on each side, on each dev set
MIN_SIDE = 5  #: a data set's side with fewer settled pairs is judged through the pooled figure only
L2_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)
FOLDS = 5


def _fold(group: int) -> int:
    return hashlib.sha256(f"fold {group}".encode()).digest()[0] % FOLDS


def _screened(pair: Pair, premise: str) -> bool:
    """Whether the product's path lets this pair reach the screen."""
    if overruling(pair.claim, premise):
        return False
    return not (is_near_quote(pair.claim, premise) and unkept_frames(pair.claim, [premise]))


def extract(name: str, pairs: Sequence[Pair], embedder: MiniLMEmbedder, cache: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for i, pair in enumerate(pairs):
        key = f"{name}:{pair.group}:{int(pair.supported)}"
        premise = " ".join(pair.premise.split()) or "(no text)"
        if not _screened(pair, premise):
            continue
        if "x" not in cache.get(key, {}):  # the cache keeps features only: which pairs the screen sees is decided anew
            start = time.perf_counter()
            values = features(pair.claim, premise, embedder)
            cache[key] = {"x": [values[f] for f in FEATURES], "seconds": time.perf_counter() - start}
        rows.append({"data": name, "group": pair.group, "y": float(pair.supported), "dev": is_dev(pair.group), **cache[key]})
        if (i + 1) % 250 == 0:
            print(f"  {name}: {i + 1}/{len(pairs)} pairs", file=sys.stderr)
    return rows


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float, iterations: int = 50) -> tuple[np.ndarray, float]:
    """Weighted, L2-penalised logistic regression (no penalty on the bias) by Newton's method."""
    n, d = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    beta = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-np.clip(xb @ beta, -30, 30)))
        gradient = xb.T @ (w * (p - y)) + penalty * beta
        hessian = (xb * (w * p * (1 - p))[:, None]).T @ xb + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return beta[:-1], float(beta[-1])


def _weights(data: Sequence[str]) -> np.ndarray:
    counts = {d: data.count(d) for d in set(data)}
    w = np.array([1 / counts[d] for d in data])
    return w * len(data) / w.sum()


def _standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return mean, scale


def _predict(x: np.ndarray, mean: np.ndarray, scale: np.ndarray, coef: np.ndarray, bias: float) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(((x - mean) / scale) @ coef + bias, -30, 30)))


def out_of_fold(rows: Sequence[dict[str, Any]], l2: float) -> np.ndarray:
    x = np.array([r["x"] for r in rows])
    y = np.array([r["y"] for r in rows])
    folds = np.array([_fold(r["group"]) for r in rows])
    data = [r["data"] for r in rows]
    p = np.zeros(len(rows))
    for k in range(FOLDS):
        train, held = folds != k, folds == k
        mean, scale = _standardise(x[train])
        coef, bias = fit((x[train] - mean) / scale, y[train], _weights([d for d, t in zip(data, train, strict=True) if t]), l2)
        p[held] = _predict(x[held], mean, scale, coef, bias)
    return p


def _log_loss(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-(w * (y * np.log(p) + (1 - y) * np.log(1 - p))).sum() / w.sum())


def _side_ok(p: np.ndarray, y: np.ndarray, data: Sequence[str], mask: np.ndarray, truth: float) -> bool:
    if not mask.any() or float((y[mask] == truth).mean()) < TARGET:
        return False
    for d in set(data):
        here = mask & np.array([x == d for x in data])
        if here.sum() >= MIN_SIDE and float((y[here] == truth).mean()) < TARGET:
            return False
    return True


def thresholds(p: np.ndarray, y: np.ndarray, data: Sequence[str]) -> tuple[float, float]:
    """``(low, high)``: the widest settling on each side that stays right >= TARGET on every dev set."""
    candidates = np.unique(np.round(p, 4))
    high = next((float(t) for t in candidates if t >= 0.5 and _side_ok(p, y, data, p >= t, 1.0)), 1.01)
    low = next((float(t) for t in candidates[::-1] if t <= 0.5 and _side_ok(p, y, data, p <= t, 0.0)), -0.01)
    return low, high


def _ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    index = np.minimum((p * bins).astype(int), bins - 1)
    return float(
        sum(abs(p[index == b].mean() - y[index == b].mean()) * (index == b).sum() for b in range(bins) if (index == b).any()) / len(p)
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--halueval", type=Path, required=True)
    parser.add_argument("--hotpotqa", type=Path, required=True)
    parser.add_argument("--attributionbench", type=Path, required=True)
    parser.add_argument("--halueval-lines", type=int, default=1500, help="HaluEval lines sampled (2 pairs each)")
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime threads for the embedder (the machine is shared)")
    parser.add_argument("--cache", type=Path, help="JSON file keeping computed features between runs")
    parser.add_argument("--out", type=Path, required=True, help="the weights file to write")
    parser.add_argument("--report", type=Path, help="write the test table here as markdown too")
    args = parser.parse_args(argv)

    embedder = MiniLMEmbedder(threads=args.threads)
    cache: dict[str, Any] = json.loads(args.cache.read_text(encoding="utf-8")) if args.cache and args.cache.is_file() else {}
    rows: list[dict[str, Any]] = []
    sizes: dict[str, dict[str, int]] = {}
    for path, limit in ((args.halueval, args.halueval_lines), (args.hotpotqa, 100_000), (args.attributionbench, 100_000)):
        name, pairs = load_pairs(path, limit)
        found = extract(name, pairs, embedder, cache)
        sizes[name] = {
            "file": path.name,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "lines": len({p.group for p in pairs}),
            "pairs": len(pairs),
            "screened_dev": sum(r["dev"] for r in found),
            "screened_test": sum(not r["dev"] for r in found),
        }
        rows += found
        if args.cache:
            args.cache.write_text(json.dumps(cache), encoding="utf-8")

    dev = [r for r in rows if r["dev"]]
    y_dev = np.array([r["y"] for r in dev])
    data_dev = [r["data"] for r in dev]
    w_dev = _weights(data_dev)
    losses = {l2: _log_loss(out_of_fold(dev, l2), y_dev, w_dev) for l2 in L2_GRID}
    l2 = min(L2_GRID, key=lambda k: (round(losses[k], 6), -k))
    oof = out_of_fold(dev, l2)
    low, high = thresholds(oof, y_dev, data_dev)

    x_dev = np.array([r["x"] for r in dev])
    mean, scale = _standardise(x_dev)
    coef, bias = fit((x_dev - mean) / scale, y_dev, w_dev, l2)
    command = " ".join(shlex.quote(a) for a in ["python", sys.argv[0], *(argv if argv is not None else sys.argv[1:])])
    model = ScreenModel(
        FEATURES,
        tuple(round(float(v), 8) for v in mean),
        tuple(round(float(v), 8) for v in scale),
        tuple(round(float(v), 8) for v in coef),
        round(bias, 8),
        round(low, 4),
        round(high, 4),
        (
            ("trained_on", {name: {**s, "split": "dev (citegraph.eval.support.is_dev)"} for name, s in sizes.items()}),
            ("weighting", "each data set weighs the same in total"),
            ("l2", l2),
            ("l2_chosen_by", f"{FOLDS}-fold cross-validated log-loss on dev: " + ", ".join(f"{k:g}: {v:.4f}" for k, v in losses.items())),
            (
                "thresholds",
                f"out-of-fold on dev: each side right >= {TARGET} on every dev set with >= {MIN_SIDE} pairs settled there, and pooled",
            ),
            ("embedder", embedder.name),
            # what decides the weights (not the paths or the cache, so a rerun anywhere writes the same file)
            ("trained_by", f"bench/train_screen.py --halueval-lines {args.halueval_lines}"),
        ),
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = model.dumps()
    args.out.write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()

    lines = [
        "# The screen: held-out test halves (issue 10, item 2)",
        "",
        f"Made by `{command}` ({environment()}, load average {os.getloadavg()[0]:.2f} at the end).",
        "",
        f"Logistic regression on {len(FEATURES)} features, L2 = {l2:g} (chosen by {FOLDS}-fold cross-validation on dev); "
        f"trained on the dev halves ({len(dev)} pairs the screen can see). It settles `supported` at P >= {high:.4f} and "
        f"`not_supported` at P <= {low:.4f}, thresholds chosen on dev (out-of-fold) for >= {TARGET:.0%} right on each side "
        f"of every dev set; between them it abstains. Weights: `{args.out}`, sha256 `{digest}`.",
        "",
        "| data set | test pairs seen | settled | accuracy on settled | supported side (right / n) | not-supported side (right / n) "
        "| ECE of P (all seen) | ms per pair, mean / p95 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in sizes:
        test = [r for r in rows if r["data"] == name and not r["dev"]]
        if not test:
            continue
        x = np.array([r["x"] for r in test])
        y = np.array([r["y"] for r in test])
        p = _predict(x, mean, scale, coef, bias)
        up, down = p >= high, p <= low
        settled = up | down
        right = (up & (y == 1)) | (down & (y == 0))
        ms = np.array([r["seconds"] for r in test]) * 1000
        accuracy = f"{right.sum() / settled.sum():.3f}" if settled.any() else "n/a"
        lines.append(
            f"| {name} | {len(test)} | {settled.mean():.1%} ({settled.sum()}) | {accuracy} "
            f"| {int((up & (y == 1)).sum())} / {int(up.sum())} | {int((down & (y == 0)).sum())} / {int(down.sum())} "
            f"| {_ece(p, y):.3f} | {ms.mean():.1f} / {np.percentile(ms, 95):.1f} |"
        )
    lines += [
        "",
        "AttributionBench's file is that benchmark's dev split; its dev half trained the screen, so its test-half figures are",
        "held out from training but remain dev figures of the benchmark.",
        "",
        "Weights (standardised features):",
        "",
        "| feature | weight |",
        "|---|---|",
        *[f"| {f} | {w:+.3f} |" for f, w in sorted(zip(FEATURES, coef, strict=True), key=lambda fw: -abs(fw[1]))],
        f"| (bias) | {bias:+.3f} |",
    ]
    report = "\n".join(lines) + "\n"
    print(report)
    print(f'SCREEN_SHA256 = "{digest}"  # pin this in src/citegraph/verify/screen.py', file=sys.stderr)
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(report, encoding="utf-8")
    if not math.isfinite(bias):
        raise SystemExit("the fit did not converge")


if __name__ == "__main__":
    main()
