"""How should the reader read a context sentence? Alone, with the text before it, or with 400
characters either side (issue 35): which reading's best sentence holds the gold answer, and whether
quoting that sentence at any P beats quoting it only at P >= 0.5.

For each answerable dev question of each set, the product's context (its default ask) is read by
the shipped reader in three ways; a reading's sentence is "gold" when the gold answer is inside the
sentence itself. Reported per set: of the questions whose context holds the gold in one sentence,
the share where the best sentence under each rule is that one, and a simulation of the extractive
answerer's quotes (the best-scored sentences within 0.8 of the best, at most three, with the
reader's best sentence put first when its P is at or above a threshold) holding the gold. The
stores are those ``citegraph eval answers``, ``bench/abstention.py`` and ``bench/lihua.py`` make.

    python bench/reader_reading.py --corpus corpora/brightwave /tmp/r/answers-brightwave.db \\
        --corpus corpora/riverside-libraries /tmp/r/answers-riverside-libraries.db \\
        --multihop HOTPOT.json /tmp/hqa.db --multihop /tmp/halueval-multihop.json /tmp/hmh.db \\
        --lihua ../shared/data/lihua_world_dev /tmp/lihua.db --limit 300 --out docs/results/DATE/reader-reading
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from citegraph import CiteGraph
from citegraph.answer.reader import default_reader
from citegraph.eval.corpus import load_corpus, said
from citegraph.eval.retrieval import load
from common import environment

WINDOWS = {"alone": (0, 0), "before": (120, 0), "window": (400, 400)}  #: characters before and after
Ask = tuple[str, str, tuple[str, ...], list[str]]  #: id, question, caller's labels, gold answers

RULES: dict[str, Callable[[dict[str, Any]], float]] = {
    "similarity (retrieval's score)": lambda i: i["score"],
    "window, 400 either side (as before)": lambda i: i["p_window"] if i["in_window"] else -1.0,
    "alone": lambda i: i["p_alone"],
    "with 120 before, where its answer is in the sentence, else alone": lambda i: i["p_before"] if i["in_before"] else i["p_alone"],
    "larger of alone and with 120 before": lambda i: max(i["p_alone"], i["p_before"] if i["in_before"] else 0.0),
}
LEADS = (0.0, 0.1, 0.2, 0.3, 0.5, None)  #: None: never


def corpus_asks(folder: Path) -> list[Ask]:
    corpus = load_corpus(folder)
    return [
        (q.id, q.question, q.caller, list(q.answers)) for q in corpus.questions if q.split == "dev" and q.answers and q.kind != "summary"
    ]


def multihop_asks(path: Path, limit: int | None) -> list[Ask]:
    data = load(path, limit=limit)
    return [
        (q.id, q.text, ("public", "all"), list(q.answers))
        for q in data.questions
        if q.split == "dev" and q.answers and q.answers[0].strip().lower() not in ("yes", "no")
    ]


def lihua_asks(folder: Path) -> list[Ask]:
    questions = json.loads((folder / "query_set_dev.json").read_text(encoding="utf-8"))
    return [
        (qid, q["question"], ("public",), [q["answer"]])
        for qid, q in sorted(questions.items(), key=lambda kv: int(kv[0]))
        if q["type"] != "Null" and q["answer"].strip().lower() not in ("yes", "no")
    ]


def record(db: Path, asks: Sequence[Ask]) -> list[dict[str, Any]]:
    reader = default_reader()
    rows = []
    with CiteGraph.open(db) as graph:
        for qid, text, labels, golds in asks:
            answer = graph.ask(text, labels=labels)
            items = []
            for item in answer.context:
                span = item.span
                doc = graph.store.get_document(span.document, span.version)
                row: dict[str, Any] = {"score": item.evidence.score, "gold": said(golds, span.text)}
                for name, (before, after) in WINDOWS.items():
                    whole = doc is not None and doc.text[span.start : span.end] == span.text
                    read = doc.text[max(0, span.start - before) : span.end + after] if whole and doc is not None else span.text
                    reading = reader.read(text, [read])[0]
                    row[f"p_{name}"] = reading.probability
                    words = " ".join(reading.answer.split()).casefold()
                    row[f"in_{name}"] = len(words) > 1 and words in " ".join(span.text.split()).casefold()
                items.append(row)
            rows.append({"id": qid, "items": items})
    return rows


def quotes_hold_gold(items: list[dict[str, Any]], lead_at: float | None) -> bool:
    """The extractive answerer's quotes, simplified: best-scored within 0.8 of the best, at most three;
    the reader's best sentence (read alone) first when its P is at or above ``lead_at``."""
    quoted: list[dict[str, Any]] = []
    for item in sorted(items, key=lambda i: -i["score"]):
        if len(quoted) >= 3 or (quoted and item["score"] < 0.8 * quoted[0]["score"]):
            break
        quoted.append(item)
    lead = max(items, key=lambda i: (i["p_alone"], i["score"]))
    if lead_at is not None and lead["p_alone"] >= lead_at and lead not in quoted:
        quoted = [lead, *quoted[:2]]
    return any(i["gold"] for i in quoted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs=2, action="append", default=[], metavar=("FOLDER", "DB"))
    parser.add_argument("--multihop", nargs=2, action="append", default=[], metavar=("FILE", "DB"))
    parser.add_argument("--lihua", nargs=2, metavar=("FOLDER", "DB"))
    parser.add_argument("--limit", type=int, help="the first N questions of a multi-hop set (as bench/abstention.py)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    sets: dict[str, list[dict[str, Any]]] = {}
    corpus_rows: list[dict[str, Any]] = []
    for folder, db in args.corpus:  # the corpora count as one set, as in the choice of the context
        corpus_rows += record(Path(db), corpus_asks(Path(folder)))
    if corpus_rows:
        sets["corpora"] = corpus_rows
    for path, db in args.multihop:
        sets[Path(path).stem] = record(Path(db), multihop_asks(Path(path), args.limit))
    if args.lihua:
        sets["lihua"] = record(Path(args.lihua[1]), lihua_asks(Path(args.lihua[0])))
    print(file=sys.stderr)
    lines = [
        "# How the reader reads a context sentence",
        "",
        f"Command: `python bench/reader_reading.py {' '.join(sys.argv[1:])}`  ",
        f"Machine: {environment()}. Dev questions whose context holds the gold answer in one sentence.",
        "",
        "## The reader's best sentence holds the gold answer",
        "",
        "| rule | " + " | ".join(f"{name} (n)" for name in sets) + " | mean |",
        "|---|" + "---|" * (len(sets) + 1),
    ]
    shares: dict[str, dict[str, float]] = {}
    for name, rows in sets.items():
        held = [r for r in rows if any(i["gold"] for i in r["items"])]
        shares[name] = {"n": len(held)}
        for rule, key in RULES.items():
            shares[name][rule] = sum(max(r["items"], key=lambda i, k=key: (k(i), i["score"]))["gold"] for r in held) / max(len(held), 1)
        for at in LEADS:
            shares[name][f"lead {at}"] = sum(quotes_hold_gold(r["items"], at) for r in held) / max(len(held), 1)
    for rule in RULES:
        values = [shares[n][rule] for n in sets]
        lines.append(
            f"| {rule} | "
            + " | ".join(f"{v:.3f} ({int(shares[n]['n'])})" for v, n in zip(values, sets, strict=True))
            + f" | {sum(values) / len(values):.3f} |"
        )
    lines += [
        "",
        "## The quotes hold the gold answer, by the P at which the reader's sentence is quoted",
        "",
        "| quoted at P ≥ | " + " | ".join(sets) + " | mean |",
        "|---|" + "---|" * (len(sets) + 1),
    ]
    for at in LEADS:
        values = [shares[n][f"lead {at}"] for n in sets]
        lines.append(
            f"| {'never' if at is None else at} | " + " | ".join(f"{v:.3f}" for v in values) + f" | {sum(values) / len(values):.3f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "reader-reading.md").write_text(text, encoding="utf-8")
    (args.out / "reader-reading.json").write_text(json.dumps({"shares": shares, "sets": sets}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
