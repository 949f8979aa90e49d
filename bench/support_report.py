"""The support checker's report (issue 22, item 6): per data set and split, what the product's check
does, beside the simplest baseline that could fake it and, where asked, the LLM judge.

Every pair goes through :class:`citegraph.verify.cascade.CheckingVerifier` as ``citegraph ask``
runs it with the default verifier (``checker``: guards, then the trained cross-encoder), timed per
pair. Per source of ``build_support_data.py``'s set (at most ``--per-source`` pairs of each, sampled
with seed 13):

* **balanced accuracy** of the product's label, supported against not (contradicted, not supported,
  unverified), and plain **accuracy** (the only figure for a source with one label, e.g. a rule's);
* **AUROC** and **ECE** (10 equal bins) of the checker's calibrated P(supported), asked of every
  pair (also those a guard settles first);
* the share of pairs each **stage** settles; **3-way accuracy** (supported / contradicted / neither,
  ``not_supported`` read as neither) where a source has contradictions;
* **seconds per pair**, mean and p95, of the product's path;
* the **length-only baseline** (claim length, threshold and direction fitted on the source's train
  pairs) and the word-overlap one, on the same pairs.

With ``--judge SPEC`` the same pairs (at most ``--judge-per-source`` of each source) also go through
the cascade with the judge (checker settles what it is sure of, the judge the rest) and through the
judge alone (calibrated P(yes) at 0.5), each timed. Then the framings: the hostile re-probe's cases
(``framings.py``) and ``framings.jsonl`` (the same templates over news sentences, never trained on):
the share not labelled ``supported`` and the share labelled as expected.

    python bench/support_report.py --data support-data --split test --per-source 600 \\
        --out docs/results/DATE/support-checker/test.md
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.models import Span
from citegraph.verify.cascade import CheckingVerifier
from common import environment, write_report
from framings import CASES
from support_baselines import _length, _overlap, balanced_accuracy, fit


def _rows(folder: Path, name: str) -> list[dict[str, Any]]:
    with (folder / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def auroc(truth: Sequence[bool], score: Sequence[float]) -> float | None:
    pos = [s for t, s in zip(truth, score, strict=True) if t]
    neg = [s for t, s in zip(truth, score, strict=True) if not t]
    if not pos or not neg:
        return None
    ranks = {}
    ordered = sorted(score)
    for i, v in enumerate(ordered):  # average ranks of ties
        ranks.setdefault(v, []).append(i + 1)
    mean_rank = {v: sum(r) / len(r) for v, r in ranks.items()}
    return (sum(mean_rank[s] for s in pos) - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def ece(truth: Sequence[bool], score: Sequence[float], bins: int = 10) -> float:
    total = 0.0
    for b in range(bins):
        idx = [i for i, s in enumerate(score) if min(int(s * bins), bins - 1) == b]
        if idx:
            total += len(idx) / len(score) * abs(sum(score[i] for i in idx) / len(idx) - sum(truth[i] for i in idx) / len(idx))
    return total


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)] if ordered else 0.0


def run_pairs(verifier: CheckingVerifier, rows: Sequence[dict[str, Any]]) -> list[tuple[str, float | None, str, float]]:
    """(label, score, stage, seconds) for each row, through the product's path."""
    out = []
    for row in rows:
        span = Span("eval", "pair", 0, len(row["premise"]), row["premise"])
        start = time.perf_counter()
        support = verifier.verify(row["claim"], [span])
        out.append((str(support.label), support.score, str(support.stage), time.perf_counter() - start))
    return out


def _cell(v: float | None, fmt: str = ".3f") -> str:
    return "–" if v is None else format(v, fmt)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--split", choices=("dev", "test"), default="test")
    parser.add_argument("--per-source", type=int, default=600)
    parser.add_argument("--judge", help="also run the cascade with this judge and the judge alone (e.g. gguf:qwen2.5-coder-1.5b)")
    parser.add_argument("--judge-per-source", type=int, default=40)
    parser.add_argument("--card", type=Path, help="a candidate checker's card (default: the shipped one)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()

    train = _rows(args.data, "train.jsonl")
    rows = _rows(args.data, f"{args.split}.jsonl")
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_source[row["source"]].append(row)
    rng = random.Random(13)
    for _source, group in sorted(by_source.items()):
        rng.shuffle(group)
        del group[args.per_source :]
    from citegraph.verify.crossencoder import CrossEncoder

    verifier = CheckingVerifier(checker=CrossEncoder(args.card) if args.card else True, contradiction=False)
    checker = verifier.checker
    if checker is None:
        raise SystemExit(f"the checker is not available: {verifier._checker_error}")
    checker.probabilities([("warm up.", "warm up.")])
    results: dict[str, Any] = {}
    table = [
        "| source | pairs | balanced accuracy | accuracy | AUROC | ECE | 3-way accuracy | length-only | word overlap | stages | s/pair mean | p95 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for source in sorted(by_source):
        group = by_source[source]
        truth = [r["label"] == "supported" for r in group]
        product = run_pairs(verifier, group)
        probs = checker.probabilities([(r["premise"], r["claim"]) for r in group])
        p_sup = [float(p) for p in probs[:, 0]]
        guess = [label == "supported" for label, *_ in product]
        three = None
        if any(r["label"] == "contradicted" for r in group):
            read = {"supported": "supported", "contradicted": "contradicted"}
            three = sum(read.get(label, "neither") == r["label"] for (label, *_), r in zip(product, group, strict=True)) / len(group)
        train_rows = [r for r in train if r["source"] == source]
        baselines = {}
        for name, feature in (("length", _length), ("overlap", _overlap)):
            if len({r["label"] == "supported" for r in train_rows}) == 2:
                rule = fit(train_rows, feature)
                baselines[name] = balanced_accuracy(truth, [rule(r) for r in group])
            else:
                baselines[name] = None
        stages = Counter(stage for _, _, stage, _ in product)
        seconds = [s for *_, s in product]
        entry = {
            "pairs": len(group),
            "balanced_accuracy": balanced_accuracy(truth, guess),
            "accuracy": sum(t == g for t, g in zip(truth, guess, strict=True)) / len(group),
            "auroc": auroc(truth, p_sup),
            "ece": ece(truth, p_sup),
            "three_way_accuracy": three,
            "length_only": baselines["length"],
            "word_overlap": baselines["overlap"],
            "stages": {k: v / len(group) for k, v in sorted(stages.items())},
            "seconds_mean": sum(seconds) / len(seconds),
            "seconds_p95": _p95(seconds),
        }
        results[source] = entry
        stage_text = ", ".join(f"{k} {v:.0%}" for k, v in entry["stages"].items())
        table.append(
            f"| {source} | {len(group)} | {_cell(entry['balanced_accuracy'])} | {entry['accuracy']:.3f} | {_cell(entry['auroc'])} | {_cell(entry['ece'])} | "
            f"{_cell(three)} | {_cell(baselines['length'])} | {_cell(baselines['overlap'])} | {stage_text} | "
            f"{entry['seconds_mean']:.3f} | {entry['seconds_p95']:.3f} |"
        )
        print(table[-1], flush=True)

    framing_rows = _rows(args.data, "framings.jsonl") if (args.data / "framings.jsonl").is_file() else []
    framing_lines = ["| set | pairs | not `supported` | labelled as expected |", "|---|---|---|---|"]
    for name, cases in (
        ("the re-probe's cases (framings.py)", [(p, c, e) for p, c, e in CASES]),
        (
            "framings.jsonl (same templates, news sentences)",
            [(r["premise"], r["claim"], "not_supported" if r["label"] == "neither" else "contradicted") for r in framing_rows],
        ),
    ):
        if not cases:
            continue
        labels = [str(verifier.verify(claim, [Span("eval", "pair", 0, len(p), p)]).label) for p, claim, _ in cases]
        passed = sum(label != "supported" for label in labels) / len(cases)
        exact = sum(
            label == expected or (expected == "not_supported" and label == "unverified")
            for label, (_, _, expected) in zip(labels, cases, strict=True)
        ) / len(cases)
        results[f"framings: {name}"] = {"pairs": len(cases), "not_supported_rate": passed, "as_expected": exact}
        framing_lines.append(f"| {name} | {len(cases)} | {passed:.1%} | {exact:.1%} |")
        if name.startswith("the re-probe"):
            for label, (premise, _claim, expected) in zip(labels, cases, strict=True):
                mark = "pass" if label != "supported" else "FAIL"
                framing_lines.append(
                    f"| `{premise[:70].replace('|', '/').replace(chr(10), ' ')}` | | {mark}: {label} | expected {expected} |"
                )

    judge_lines: list[str] = []
    if args.judge:
        from citegraph.components import make_judge
        from citegraph.verify.calibration import registered

        judge = make_judge(args.judge)
        assert judge is not None
        cascade = CheckingVerifier(judge, checker=True, contradiction=False)
        record = registered(judge.name)
        judge_lines = [
            "| source | pairs | cascade: balanced accuracy | cascade: checker settles | cascade: s/pair mean | p95 | judge alone: balanced accuracy | judge alone: s/pair mean |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for source in sorted(by_source):
            group = by_source[source][: args.judge_per_source]
            truth = [r["label"] == "supported" for r in group]
            product = run_pairs(cascade, group)
            alone, alone_seconds = [], []
            for r in group:
                start = time.perf_counter()
                raw = judge.score(r["claim"], " ".join(r["premise"].split()))
                alone_seconds.append(time.perf_counter() - start)
                alone.append((record(raw) if record is not None else raw) >= 0.5)
            settled = sum(stage == "checker" for _, _, stage, _ in product) / len(group)
            seconds = [s for *_, s in product]
            judge_lines.append(
                f"| {source} | {len(group)} | {_cell(balanced_accuracy(truth, [label == 'supported' for label, *_ in product]))} | "
                f"{settled:.0%} | {np.mean(seconds):.3f} | {_p95(seconds):.3f} | {_cell(balanced_accuracy(truth, alone))} | "
                f"{np.mean(alone_seconds):.3f} |"
            )
            print(judge_lines[-1], flush=True)
        judge.model.close()

    card = checker.card
    text = "\n".join(
        [
            f"# The support checker on {args.split} ({checker.name})",
            "",
            f"`python bench/support_report.py --data {args.data} --split {args.split} --per-source {args.per_source}"
            + (f" --judge {args.judge} --judge-per-source {args.judge_per_source}" if args.judge else "")
            + f"`; {environment()}. Model {card.model_file} (sha256 {card.sha256[:16]}…), temperature {card.temperature}.",
            "",
            "Balanced accuracy: the product's label (verifier `checker`), supported against not; accuracy: the same, unbalanced (the "
            "only figure where a source has one label). AUROC and ECE: the checker's "
            "calibrated P(supported) on every pair. Length-only and word-overlap: one threshold on the claim's length in words (or "
            "the share of its content words in the premise), fitted on the same source's train pairs. Stages: which check settled "
            "the pair (`guards`: a proven conflict; `checker`: the cross-encoder; `none`: not settled, e.g. another language).",
            "",
            *table,
            "",
            "## Framings (never trained on)",
            "",
            *framing_lines,
            *(["", f"## With the judge ({args.judge})", "", *judge_lines] if judge_lines else []),
            "",
        ]
    )
    write_report(args.out, text)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
