"""How often each guard fires on supported and on unsupported pairs: the old rule against the new one.

Before (issue 10, item 4), every guard that fired made a citation ``not_supported``: a number, date
word, negation or quantifier of the claim that the cited text did not repeat. Now only a proof
overrules: a *conflict* (the cited text states another number with the same unit, another date for
the same thing, or the same predicate with the other polarity) or an *unrelated* text (the claim
states a number; the text states none and shares no content word with the claim); the rest are
signals. The old rule is exactly ``citegraph.verify.guards.signals``, so "before" is the signals'
firing rate and "after" that of ``citegraph.verify.guards.overruling``. No model: regular
expressions over every pair, a few seconds.

Rates are given on the claim as the verifier sees it (HaluEval and HotpotQA: 'The answer to "…" is:
…'; AttributionBench: the claim) and, for HaluEval and HotpotQA, on the answer alone, which is what
``citegraph eval support`` used to check. The overruling rules were written looking at examples from
all three files (dev and test halves alike), so these rates are not held out; the test half's rate is
shown beside the whole file's.

    python bench/guard_rates.py --halueval ../shared/data/halueval/halueval_qa.jsonl \\
        --hotpotqa ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json \\
        --attributionbench ../shared/data/attributionbench/dev_all_subset_balanced.jsonl \\
        --out docs/results/2026-11-30/guards.md
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from citegraph.eval.support import Pair, load_pairs
from citegraph.verify.guards import overruling, signals
from common import environment, write_report

CODES = ("number", "date", "negation", "quantifier", "unrelated")


def _test_groups(pairs: Sequence[Pair]) -> set[int]:
    groups = sorted({p.group for p in pairs})
    return set(groups) - set(groups[::2])  # the harness's split: every other source line is dev


def rates(pairs: Sequence[Pair], text: str) -> tuple[dict[str, dict[str, float]], float]:
    """``{row: {column: rate}}`` and seconds per pair; rows are the guard codes and ``any``."""
    fired: Counter[tuple[str, str, str]] = Counter()
    totals: Counter[str] = Counter()
    test = _test_groups(pairs)
    start = time.perf_counter()
    for pair in pairs:
        claim = pair.claim if text == "claim" else (pair.answer or pair.claim)
        label = "supported" if pair.supported else "unsupported"
        halves = (label, f"{label}, test") if pair.group in test else (label,)
        before = {g.code for g in signals(claim, pair.premise)}
        after = {g.code for g in overruling(claim, pair.premise)}
        for half in halves:
            totals[half] += 1
            for rule, codes in (("before", before), ("after", after)):
                for code in codes | ({"any"} if codes else set()):
                    fired[rule, half, code] += 1
    seconds = (time.perf_counter() - start) / max(len(pairs), 1)
    table: dict[str, dict[str, float]] = {}
    for code in ("any", *CODES):
        table[code] = {
            f"{rule} {half}": fired[rule, half, code] / totals[half]
            for rule in ("before", "after")
            for half in ("supported", "unsupported", "supported, test")
            if totals[half]
        }
        for rule in ("before", "after"):  # of the pairs it fires on, the share that are truly unsupported
            hits = fired[rule, "supported", code] + fired[rule, "unsupported", code]
            table[code][f"{rule} right"] = fired[rule, "unsupported", code] / hits if hits else float("nan")
    return table, seconds


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--halueval", type=Path)
    parser.add_argument("--hotpotqa", type=Path)
    parser.add_argument("--attributionbench", type=Path)
    parser.add_argument("--limit", type=int, default=100_000, help="source lines per file (default: all)")
    parser.add_argument("--out", type=Path, help="write the markdown table here as well")
    args = parser.parse_args(argv)
    files = [p for p in (args.halueval, args.hotpotqa, args.attributionbench) if p is not None]
    if not files:
        parser.error("give at least one of --halueval, --hotpotqa, --attributionbench")
    lines = [
        "# Guards: firing rates before and after (issue 10, item 4)",
        "",
        "Before: every guard that fired overruled (the citation was `not_supported`). After: only a proof overrules (a",
        "conflict, or a text unrelated to a claim that states a number); the rest are signals, listed in the notes and",
        "weighed by the screen. A rate is the share of pairs",
        "with at least one guard of that kind. `supported, test`: the test half only (every other source line).",
        "`right when fired`: of the pairs a rule fires on, the share that are truly unsupported (the sets are balanced).",
        "",
        f"Made by `python {' '.join(shlex.quote(a) for a in [sys.argv[0], *(argv if argv is not None else sys.argv[1:])])}`"
        f" ({environment()}).",
        "",
    ]
    for path in files:
        name, pairs = load_pairs(path, args.limit)
        texts = ["claim"] if name == "attributionbench" else ["claim", "answer"]
        for text in texts:
            table, seconds = rates(pairs, text)
            n_sup = sum(p.supported for p in pairs)
            lines += [
                f"## {name}, {'the claim as the verifier sees it' if text == 'claim' else 'the answer alone (the old harness column)'}",
                "",
                f"{len(pairs)} pairs ({n_sup} supported, {len(pairs) - n_sup} not); {seconds * 1e6:.0f} µs per pair for both rules.",
                "",
                "| guard | before: supported | before: unsupported | before: right when fired "
                "| after (overrules): supported | after: unsupported | after: supported, test | after: right when fired |",
                "|---|---|---|---|---|---|---|---|",
            ]
            for code, row in table.items():
                cells = [row.get(f"before {half}", 0.0) for half in ("supported", "unsupported", "right")]
                cells += [row.get(f"after {half}", 0.0) for half in ("supported", "unsupported", "supported, test", "right")]
                lines.append(f"| {code} | " + " | ".join("–" if c != c else f"{c:.1%}" for c in cells) + " |")
            lines.append("")
    text = "\n".join(lines)
    print(text)
    write_report(args.out, text)


if __name__ == "__main__":
    main()
