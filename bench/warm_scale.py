"""Warm answers at scale (issue 39, item 2: "≤ 200 ms p50 at 100k sentences with the default
verifier and answerer, sequential requests"): a store of ``bench/query.py``'s synthetic kind opened
once, one question asked to load the models and read the caller's graph, then ``--questions``
questions asked one after another with the default answerer (extractive) and checker; per question
the whole answer's seconds and, beside them, retrieval's alone (``Retriever.retrieve`` of the same
question), p50 and p99 of each and their ratio.

The synthetic store's sentences are made-up words and its vectors random (``bench/query.py``): the
answers mean nothing, but every stage runs on a context of the default size as it would on real text
(the reader, spaCy and the checker read eight sentences of about fifteen words). Questions name two
words of a sentence drawn from the store ("Who works with Bederon nigun?"); each is also asked as
"What does the text say about Bederon nigun?", which reads as a question about a document (the
document named is looked for among all of them: ``retrieve.summary.find_target``).

    python bench/query.py --scale 0.1 --store /tmp/q100k.db --questions 20 --modes bridge-embedded --no-notebook
    python bench/warm_scale.py --store /tmp/q100k.db --questions 40 --out docs/results/DATE/warm-scale/
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import time
from pathlib import Path

from rich.console import Console

from common import environment, latency_figures, load_before_run, load_figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True, help="a store made by bench/query.py")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    err = Console(stderr=True)
    if not args.store.exists():
        raise SystemExit(f"{args.store}: no such store; make it with bench/query.py --scale 0.1 --store {args.store}")
    with sqlite3.connect(args.store) as db:
        (sentences,) = db.execute("SELECT count(*) FROM spans").fetchone()
        texts = [t for (t,) in db.execute("SELECT text FROM spans ORDER BY id LIMIT 20000")]
    rng = random.Random(args.seed)
    named = [" ".join(rng.choice(texts).split()[:2]) for _ in range(args.questions + 1)]
    questions = [f"Who works with {n}?" for n in named]
    about = [f"What does the text say about {n}?" for n in named[1:]]  # read as a question about a document

    from citegraph.pipeline import CiteGraph

    before = load_before_run(err)
    graph = CiteGraph.open(str(args.store), create=False)
    start = time.perf_counter()
    graph.ask(questions[0])  # the models, and the caller's graph read from the store
    first = time.perf_counter() - start
    answers, retrievals, documents = [], [], []
    for q, a in zip(questions[1:], about, strict=True):
        start = time.perf_counter()
        graph.ask(q)
        answers.append(time.perf_counter() - start)
        start = time.perf_counter()
        graph.retriever.retrieve(q, ("public",))
        retrievals.append(time.perf_counter() - start)
        start = time.perf_counter()
        graph.ask(a)
        documents.append(time.perf_counter() - start)
    graph.close()
    rows = (("answer", answers), ("retrieval alone", retrievals), ("answer to 'What does the text say about …?'", documents))
    figures = {name: latency_figures(s) for name, s in rows}
    ratio = figures["answer"]["p50"] / figures["retrieval alone"]["p50"]
    lines = [
        f"# Warm answers at {sentences:,} sentences",
        "",
        f"{len(answers)} questions asked one after another in one process after a first that took {first:.1f} s (models and "
        f"the caller's graph); default answerer (extractive) and checker. Machine: {environment()}; 1-minute load average "
        f"{load_figures(before)}.",
        "",
        "| | p50 s | p99 s | mean s |",
        "|---|---|---|---|",
        *[f"| {name} | {f['p50']:.3f} | {f['p99']:.3f} | {f['mean']:.3f} |" for name, f in figures.items()],
        "",
        f"The whole answer's p50 is {ratio:.1f}x retrieval's.",
        "",
        f"Command: `python bench/warm_scale.py --store {args.store} --questions {args.questions} --out {args.out}`",
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "warm-scale.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (args.out / "warm-scale.json").write_text(
        json.dumps({"sentences": sentences, "first_s": round(first, 2), "figures": figures}, indent=1)
    )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
