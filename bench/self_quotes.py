"""Every sentence of a store, as a claim citing itself: the simplest behaviour a checker must get right.

A verbatim quote of the cited sentence is supported, unless the sentence asserts nothing (its
document's structure frames it; it instructs or asks: an answer never quotes those as claims). This
script verifies each current sentence of each store against itself with the default verifier and
lists every one that is not ``supported`` for any other reason: the misfires. It found a language
vote that read "City: London; Hotel per night: £180; Meals per day: £55." as Italian (by "per", twice)
and "Drivers do two rounds as a passenger first." as Portuguese, which left such quotes unchecked.

    python bench/self_quotes.py --store /tmp/answers-brightwave.db --store /tmp/answers-riverside-libraries.db \\
        --out docs/results/DATE/self-quotes.md
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from citegraph.components import make_verifier  # noqa: E402
from citegraph.store import SQLiteStore  # noqa: E402

NOT_ASSERTED = "not asserted:"  #: the guard note of an instruction, a question or a framed sentence


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, action="append", required=True, help="a SQLite store (repeat)")
    parser.add_argument("--out", type=Path, help="write the report here (Markdown) as well as printing it")
    args = parser.parse_args()
    verifier = make_verifier("checker")
    labels: Counter[str] = Counter()
    misfires: list[tuple[str, str, str, str]] = []
    started = time.perf_counter()
    n = 0
    for store in args.store:
        if not store.is_file():
            parser.error(f"--store {store}: no such file (make one with `citegraph ingest --db {store} DOCS`)")
        db = SQLiteStore(str(store))
        try:  # every current sentence, and the frames kept with them at ingest
            current = db.graph(None).spans
            frames = db.span_frames(current)
        finally:
            db.close()
        spans = [replace(s, frame=frames.get((s.document, s.version, s.start, s.end), s.frame)) for s in current]
        jobs = [(s.text, [s]) for s in sorted(spans, key=lambda s: (s.document, s.start))]
        n += len(jobs)
        for (text, spans), support in zip(jobs, verifier.verify_many(jobs), strict=True):
            reasons = [str(g) for g in support.guards]
            if support.label.value == "supported":
                labels["supported"] += 1
            elif spans[0].frame or any(r.startswith(NOT_ASSERTED) for r in reasons):
                labels[f"{support.label.value}: asserts nothing (instruction, question, framed)"] += 1
            else:
                labels[f"{support.label.value}: misfire"] += 1
                misfires.append(
                    (support.label.value, "; ".join(reasons) or support.stage.value, spans[0].document, " ".join(text.split())[:160])
                )
    seconds = time.perf_counter() - started
    lines = [
        "# Every sentence quoting itself (bench/self_quotes.py)",
        "",
        f"Stores: {', '.join(str(s) for s in args.store)}; {n} current sentences; {seconds:.0f} s; default verifier (checker).",
        "",
        "| outcome | sentences |",
        "|---|---|",
        *[f"| {label} | {count} |" for label, count in sorted(labels.items())],
        "",
        "Misfires (not supported although the sentence is quoted whole and asserts something):",
        "",
        *[f"- `{label}` ({why}) {doc}: {text}" for label, why, doc, text in misfires],
    ]
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
