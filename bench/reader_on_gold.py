"""The reader's P(answers) on the sentence that holds each answer: does it read the gold sentence of a
development corpus as answering, and does it point at the answer's words?

For every answerable question of the given corpora's ``--split`` (summaries left out: their gold is a
document, not a sentence), the reader reads the question against its first gold quote alone, as the
product reads each context sentence. Printed: the median P, how many are under 0.1, and the lowest
rows with the words the reader pointed at. It measures the reader, not retrieval: the gold quote is
given, found or not.

    python bench/reader_on_gold.py --data corpora/brightwave --data corpora/riverside-libraries \\
        --data corpora/harbourline [--split dev] [--show 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from citegraph.answer.reader import default_reader


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, action="append", required=True, help="a corpus folder holding corpus.json")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--show", type=int, default=30, help="how many of the lowest rows to print")
    args = parser.parse_args()
    reader = default_reader()
    rows = []
    for folder in args.data:
        for q in json.loads((folder / "corpus.json").read_text(encoding="utf-8"))["questions"]:
            if q["split"] != args.split or not q.get("gold") or q["kind"] in ("unanswerable", "summary"):
                continue
            quote = q["gold"][0]["quote"]
            (reading,) = reader.read(q["question"], [quote])
            rows.append((reading.probability, q["id"], q["kind"], q["question"], quote, reading.answer))
    if not rows:
        raise SystemExit(f"no answerable question with a gold quote in split {args.split!r} of {', '.join(map(str, args.data))}")
    rows.sort()
    median = statistics.median(r[0] for r in rows)
    print(f"{len(rows)} gold sentences; median P(answers) {median:.3f}; under 0.1: {sum(r[0] < 0.1 for r in rows)}")
    for p, id_, kind, question, quote, said in rows[: args.show]:
        print(f"{p:.4f} {id_} {kind} | {question[:70]} | {quote[:80]} | read: {said[:40]}")


if __name__ == "__main__":
    main()
