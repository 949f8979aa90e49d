"""One long document, many questions: GraphRAG-Bench's Medical subset through ``ask``.

The corpus is one string of about a million characters (patient guidelines on many cancers, flattened:
almost no line breaks), the case where a passage must never be the whole document. It is written to
one ``.txt`` file and ingested as a new user would (``citegraph ingest FOLDER``); then the first
``--per-type`` questions of each type (Fact Retrieval, Complex Reasoning, Contextual Summarize,
Creative Generation, in the file's order: nothing chosen by hand) are asked through
:meth:`CiteGraph.ask` with the default settings, as the CLI asks them.

The release has no evidence labels and its reference answers are free text, so an answer is scored by
the reference's **content words** (casefolded, stop words dropped, a trailing plural "s" dropped):

- **recall**: the share of the reference's content words the answer holds;
- **new-word recall**: the same over the reference's words that are *not* in the question (an answer
  that repeats the question scores 0 here: the figure a question echo cannot fake);
- **token F1**: content-word F1 between answer and reference (a long answer pays for its length);
- **context**: new-word recall of the whole numbered context, retrieval's ceiling for an extractive answer;
- **abstained**: ``not_found`` / ``no_evidence`` (every question of this set is answerable from the text).

Beside them, the simplest answers that could fake the figures, made in the same run: the question
itself (**echo**), the three sentences most like the question by the same embedder (**dense-3**, the
``dense-sentence`` mode's top three), and the document's first three sentences (**lead-3**).

The odd positions of the published file are held out and not shipped; nothing was tuned on this half
before this harness was written. Written: ``graphrag-bench-medical.md`` and ``.json`` (per question its
id, type, status and scores; the data set has no licence to redistribute it, so its text, and the
answers quoting it, go into the JSON only with ``--keep-text``, for reading locally).

    python bench/graphrag_bench.py --data ../shared/data/graphrag_bench_medical_dev --db /tmp/med.db \\
        --per-type 40 --out docs/results/DATE/graphrag-bench/
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from citegraph import CiteGraph
from citegraph.models import AnswerStatus
from common import environment

ABSTAINED = {AnswerStatus.NOT_FOUND, AnswerStatus.NO_EVIDENCE}
TYPES = ("Fact Retrieval", "Complex Reasoning", "Contextual Summarize", "Creative Generation")
STOP = frozenset(
    """a an the and or but of to in on at by for with from as is are was were be been being it its this that these those
    which who whom whose what when where why how do does did can could may might will would shall should must not no
    than then there their they them he she his her him you your we our us i me my if so such into about over under also
    more most other some any each all both either neither very only just often usually""".split()
)
_WORD = re.compile(r"[a-z0-9]+")
_MARKER = re.compile(r"\s*\[\d+\]")


def content(text: str) -> list[str]:
    """The content words of ``text``: casefolded, stop words dropped, a trailing plural "s" dropped."""
    words = _WORD.findall(text.casefold().replace("’", "'"))
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words if w not in STOP]


def recall(reference: str, answer: str, *, minus: str = "") -> float | None:
    """The share of ``reference``'s content words (less those of ``minus``) that ``answer`` holds;
    None when there are none to find."""
    gone = set(content(minus))
    wanted = {w for w in content(reference) if w not in gone}
    if not wanted:
        return None
    return len(wanted & set(content(answer))) / len(wanted)


def f1(reference: str, answer: str) -> float:
    ref, got = set(content(reference)), set(content(answer))
    common = len(ref & got)
    if not common:
        return 0.0
    p, r = common / len(got), common / len(ref)
    return 2 * p * r / (p + r)


def scores(reference: str, question: str, answer: str) -> dict[str, float | None]:
    return {"recall": recall(reference, answer), "new_recall": recall(reference, answer, minus=question), "f1": f1(reference, answer)}


def mean(values: list[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="the graphrag_bench_medical_dev folder")
    parser.add_argument("--db", type=Path, required=True, help="the store (made on the first run, reused)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--per-type", type=int, default=40, help="the first N questions of each type (default 40)")
    parser.add_argument("--generator", default="extractive")
    parser.add_argument(
        "--keep-text",
        action="store_true",
        help="write each question, reference and answer into the JSON (for reading locally: the data set's text must not be committed)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    questions = json.loads((args.data / "medical_questions_dev.json").read_text(encoding="utf-8"))
    taken: dict[str, int] = defaultdict(int)
    items = []
    for q in questions:
        taken[q["question_type"]] += 1
        if taken[q["question_type"]] <= args.per_type:
            items.append(q)
    with CiteGraph.open(args.db, generator=args.generator) as graph:
        if not graph.store.documents(None):
            corpus = json.loads((args.data / "medical_corpus.json").read_text(encoding="utf-8"))
            with tempfile.TemporaryDirectory() as tmp:
                (Path(tmp) / "medical.txt").write_text(corpus[0]["context"], encoding="utf-8")
                graph.ingest([Path(tmp)])
            print(f"ingested in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        ingested = time.perf_counter()
        with CiteGraph.open(args.db, create=False, retrieval="dense-sentence") as dense:
            lead = lead_sentences(graph, 3)
            rows = []
            for n, q in enumerate(items, 1):
                asked = time.perf_counter()
                answer = graph.ask(q["question"])
                seconds = time.perf_counter() - asked
                text = _MARKER.sub("", answer.text) + (f" {answer.lead.text}" if answer.lead else "")
                context = " ".join(item.span.text for item in answer.context)
                top = " ".join(e.span.text for e in dense.retriever.retrieve(q["question"], ("public",)).evidence[:3])
                ref, question = q["answer"], q["question"]
                texts = {"question": question, "reference": ref, "answer": text} if args.keep_text else {}
                rows.append(
                    {
                        "id": q["id"],
                        "type": q["question_type"],
                        **texts,
                        "status": answer.status.value,
                        "abstained": answer.status in ABSTAINED,
                        "seconds": round(seconds, 3),
                        "product": scores(ref, question, text),
                        "context": recall(ref, context, minus=question),
                        "echo": scores(ref, question, question),
                        "dense-3": scores(ref, question, top),
                        "lead-3": scores(ref, question, lead),
                    }
                )
                print(f"\r asked {n}/{len(items)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_type[r["type"]].append(r)
        by_type["all"].append(r)
    result = {}
    for kind in (*[t for t in TYPES if t in by_type], "all"):
        rs = by_type[kind]
        result[kind] = {
            "n": len(rs),
            "abstained": sum(r["abstained"] for r in rs) / len(rs),
            "seconds": mean([r["seconds"] for r in rs]),
            "context": mean([r["context"] for r in rs]),
            **{
                f"{who}_{m}": mean([r[who][m] for r in rs])
                for who in ("product", "echo", "dense-3", "lead-3")
                for m in ("recall", "new_recall", "f1")
            },
        }
    asking = time.perf_counter() - ingested
    lines = [
        f"# GraphRAG-Bench Medical, dev half: the first {args.per_type} questions of each type ({args.generator})",
        "",
        f"Command: `python bench/graphrag_bench.py {' '.join(sys.argv[1:])}`  ",
        f"Machine: {environment()}; {asking:.0f} s asking (baselines included), {time.perf_counter() - started:.0f} s in all.",
        "",
        "Content-word recall of the reference answer; new: only the reference's words the question does not hold; "
        "context: new-word recall of the whole numbered context (the ceiling for quotes).",
        "",
        "| type | n | recall | new-word recall | token F1 | context | abstained | s/question | echo recall | dense-3 new / F1 | lead-3 new / F1 |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, r in result.items():
        lines.append(
            f"| {kind} | {r['n']} | {r['product_recall']:.3f} | {r['product_new_recall']:.3f} | {r['product_f1']:.3f} | {r['context']:.3f} | "
            f"{r['abstained']:.3f} | {r['seconds']:.2f} | {r['echo_recall']:.3f} | {r['dense-3_new_recall']:.3f} / {r['dense-3_f1']:.3f} | "
            f"{r['lead-3_new_recall']:.3f} / {r['lead-3_f1']:.3f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        name = "graphrag-bench-medical" + ("" if args.generator == "extractive" else "-" + args.generator.replace(":", "-"))
        (args.out / f"{name}.md").write_text(text, encoding="utf-8")
        (args.out / f"{name}.json").write_text(json.dumps({"result": result, "rows": rows}, indent=1) + "\n", encoding="utf-8")


def lead_sentences(graph: CiteGraph, n: int) -> str:
    """The first ``n`` sentences of the (only) document (split at . ! ? and a space: a baseline)."""
    text = graph.store.documents(None)[0].document.text[:5000]
    return " ".join(re.split(r"(?<=[.!?])\s+", text)[:n])


if __name__ == "__main__":
    main()
