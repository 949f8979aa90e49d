"""The simplest checkers that could fake a support score, on the support checker's data set
(bench/build_support_data.py): what a trained checker must beat clearly, per source.

- ``length``: the claim's length in words, one threshold (and direction) chosen on train;
- ``overlap``: the share of the claim's content words found in the premise, one threshold chosen on train;
- ``majority``: the commoner label of train.

Each is scored on dev and test as balanced accuracy of supported against not (neither or
contradicted), per source and for all pairs.

    python bench/support_baselines.py --data support-data/ --out docs/results/DATE/support-data/baselines.md
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from citegraph.verify.text import content_words
from common import environment, write_report


def _rows(folder: Path, split: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()]


def balanced_accuracy(truth: Sequence[bool], guess: Sequence[bool]) -> float | None:
    pos = [g for t, g in zip(truth, guess, strict=True) if t]
    neg = [not g for t, g in zip(truth, guess, strict=True) if not t]
    if not pos or not neg:
        return None
    return (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2


def _length(row: dict[str, Any]) -> float:
    return float(len(row["claim"].split()))


def _overlap(row: dict[str, Any]) -> float:
    claim = content_words(row["claim"])
    return len(claim & content_words(row["premise"])) / len(claim) if claim else 1.0


def fit(rows: Sequence[dict[str, Any]], feature: Callable[[dict[str, Any]], float]) -> Callable[[dict[str, Any]], bool]:
    """The threshold and direction on ``feature`` with the best balanced accuracy on ``rows``."""
    values = sorted({feature(r) for r in rows})
    truth = [r["label"] == "supported" for r in rows]
    feats = [feature(r) for r in rows]
    best = (-1.0, 0.0, True)
    for cut in values:
        for above in (True, False):
            guess = [(f >= cut) == above for f in feats]
            score = balanced_accuracy(truth, guess) or 0.0
            if score > best[0]:
                best = (score, cut, above)
    _, cut, above = best
    return lambda r: (feature(r) >= cut) == above


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="the folder build_support_data.py wrote")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    train = _rows(args.data, "train")

    def checkers_for(rows: Sequence[dict[str, Any]]) -> dict[str, Callable[[dict[str, Any]], bool]]:
        majority = sum(r["label"] == "supported" for r in rows) * 2 >= len(rows)
        return {"majority": lambda r: majority, "length": fit(rows, _length), "overlap": fit(rows, _overlap)}

    fitted = {"all pairs": checkers_for(train)}  # a source's rows get thresholds fitted on that source's train rows
    for source in sorted({r["source"] for r in train}):
        fitted[source] = checkers_for([r for r in train if r["source"] == source])
    names = list(fitted["all pairs"])
    lines = [
        "# Baselines on the support checker's data (balanced accuracy, supported against not)",
        "",
        f"`python bench/support_baselines.py --data {args.data}`; {environment()}. Thresholds fitted on train: on all of it for "
        "all pairs and the built ones, on the same source's train pairs for a source.",
        "",
    ]
    for split in ("dev", "test"):
        rows = _rows(args.data, split)
        sources = sorted({r["source"] for r in rows if not r["source"].startswith("built:")})
        groups = {"all pairs": rows, **{s: [r for r in rows if r["source"] == s] for s in sources}}
        groups["built contradictions (with their source pairs)"] = [
            r
            for r in rows
            if r["source"].startswith("built:") or r["item"] in {x["item"] for x in rows if x["source"].startswith("built:")}
        ]
        lines += [f"## {split}", "", "| pairs | n | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
        for name, group in groups.items():
            truth = [r["label"] == "supported" for r in group]
            checkers = fitted.get(name, fitted["all pairs"])
            scores = [balanced_accuracy(truth, [check(r) for r in group]) for check in checkers.values()]
            lines.append(f"| {name} | {len(group)} | " + " | ".join("–" if s is None else f"{s:.3f}" for s in scores) + " |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    write_report(args.out, text)


if __name__ == "__main__":
    main()
