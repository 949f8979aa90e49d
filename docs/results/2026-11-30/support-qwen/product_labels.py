"""The product's labels with the shipped calibration record, from the per-pair scores of the run.

The run below fitted the record, so its own "product's labels" row used the raw P(yes) at 0.5 (no
record existed yet). This applies the shipped record (calibration-qwen2.5-coder-1.5b.json) to each
test pair's raw judge score and reads the label at 0.5 and at the record's dev threshold; pairs a
stage before the judge settled keep that stage's label. Usage:

    python docs/results/2026-11-30/support-qwen/product_labels.py eval-results/full
"""

import json
import math
import sys
from pathlib import Path

record = json.loads((Path(__file__).parent / "calibration-qwen2.5-coder-1.5b.json").read_text())
a, b = record["platt"]["a"], record["platt"]["b"]


def calibrated(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return 1 / (1 + math.exp(-(a * math.log(p / (1 - p)) + b)))


def balanced_accuracy(rows: list[dict], threshold: float) -> float:
    def predicted(r: dict) -> bool:
        if r["stage"] == "judge" and r["score"] is not None:
            return calibrated(r["score"]) >= threshold
        return r["label"] == "supported"

    pos = [r for r in rows if r["supported"]]
    neg = [r for r in rows if not r["supported"]]
    return (sum(map(predicted, pos)) / len(pos) + sum(not predicted(r) for r in neg) / len(neg)) / 2


def ece(rows: list[dict], bins: int = 10) -> float:
    groups: list[list[dict]] = [[] for _ in range(bins)]
    for r in rows:
        groups[min(int(calibrated(r["score"]) * bins), bins - 1)].append(r)
    return sum(
        len(g) / len(rows) * abs(sum(calibrated(r["score"]) for r in g) / len(g) - sum(r["supported"] for r in g) / len(g)) for g in groups if g
    )


print("| data | test pairs | BA at 0.5 (the product) | BA at the record's dev threshold | ECE, judge-decided pairs |")
print("|---|---|---|---|---|")
for path in sorted(Path(sys.argv[1]).glob("*.pairs.jsonl")):
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    test = [r for r in rows if r["split"] == "test"]
    judged = [r for r in test if r["stage"] == "judge" and r["score"] is not None]
    print(
        f"| {path.name.removesuffix('.pairs.jsonl')} | {len(test)} | {balanced_accuracy(test, 0.5):.3f} | "
        f"{balanced_accuracy(test, record['threshold']):.3f} ({record['threshold']:.3f}) | {ece(judged):.3f} |"
    )
