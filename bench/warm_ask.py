"""Warm answers in one process (issue 39, item 2): a corpus's questions asked one after another of
an opened store with the default answerer and checker, after one question that loads the models.

The same questions are asked in three fresh processes of the same run: one keeping no spaCy parse
between the checks of an answer and between questions (``PARSES_KEPT = 0``, how every parse was made
before ``citegraph.sentences.parsed``), one with the default, and one that first parses the store's
sentences ahead, as ``citegraph serve`` does when it starts (:func:`citegraph.sentences.parse_ahead`);
per-question seconds, p50 and p99, and the ratios of the p50s. The answers of the runs are compared
and must be the same.

    python bench/warm_ask.py --data corpora/brightwave --db /tmp/brightwave.db --out docs/results/DATE/warm-ask/

The store is made from the corpus's documents when ``--db`` does not exist yet.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console

from common import corpus_store, environment, latency_figures, load_before_run, load_figures, public_questions, write_compared


def _asks(graph: object, questions: list[str]) -> tuple[list[float], list[str]]:
    seconds, answers = [], []
    for q in questions:
        t = time.perf_counter()
        answer = graph.ask(q)  # type: ignore[attr-defined]
        seconds.append(time.perf_counter() - t)
        answers.append(f"{answer.status.value}|{answer.text}")
    return seconds, answers


def _one(db: Path, questions: list[str], kept: int | None, ahead: bool = False) -> dict[str, object]:
    """One configuration, in this process: the questions asked after one that loads the models;
    with ``ahead``, after the store's sentences are parsed ahead as ``citegraph serve`` does at start."""
    from citegraph import sentences
    from citegraph.answer.extractive import claim_forms
    from citegraph.pipeline import CiteGraph

    if kept is not None:
        sentences.PARSES_KEPT = kept
    graph = CiteGraph.open(str(db))
    graph.ask(questions[0])  # loads every model the answer needs
    parsing = 0.0
    if ahead:
        start = time.perf_counter()
        texts, leads = graph.texts_to_parse()
        sentences.parse_ahead(texts)
        sentences.parse_ahead(leads, dependencies=False)
        sentences.parse_ahead(claim_forms(texts))  # as serve does: what the checks of their quotes parse
        parsing = time.perf_counter() - start
    seconds, answers = _asks(graph, questions[1:])
    return {"seconds": seconds, "answers": answers, "parsed_ahead_s": round(parsing, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="a corpus folder (corpus.json beside its documents)")
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--out", type=Path, help="where the report goes (not with --parses-kept)")
    parser.add_argument("--parses-kept", type=int, help="run one configuration in this process and print its JSON")
    parser.add_argument("--ahead", action="store_true", help="with --parses-kept: parse the store's sentences ahead first")
    args = parser.parse_args()
    err = Console(stderr=True)

    questions = public_questions(args.data)
    if args.parses_kept is not None:
        print(json.dumps(_one(args.db, questions, None if args.parses_kept < 0 else args.parses_kept, args.ahead)))
        return
    if args.out is None:
        raise SystemExit("--out is needed")
    corpus_store(args.db, args.data, err)
    before = load_before_run(err)
    runs = {}
    configurations = (("parses not kept", 0, False), ("parses kept (default)", -1, False), ("parsed ahead (as serve does)", -1, True))
    for name, kept, ahead in configurations:
        cmd = [sys.executable, __file__, "--data", str(args.data), "--db", str(args.db), "--parses-kept", str(kept)]
        runs[name] = json.loads(subprocess.run([*cmd, "--ahead"] if ahead else cmd, check=True, capture_output=True, text=True).stdout)
    same = all(run["answers"] == runs["parses not kept"]["answers"] for run in runs.values())
    figures = {name: {"n": len(run["seconds"]), **latency_figures(run["seconds"])} for name, run in runs.items()}
    ratio = figures["parses kept (default)"]["p50"] / figures["parses not kept"]["p50"]
    ahead_ratio = figures["parsed ahead (as serve does)"]["p50"] / figures["parses kept (default)"]["p50"]
    lines = [
        f"# Warm answers in one process ({args.data.name})",
        "",
        f"{len(questions) - 1} questions of the public caller, asked in order after one that loads the models, each "
        f"configuration in a fresh process; default answerer (extractive) and checker. Machine: {environment()}; "
        f"1-minute load average {load_figures(before)}.",
        "",
        "| run | n | p50 s | p99 s | mean s |",
        "|---|---|---|---|---|",
        *[f"| {name} | {f['n']} | {f['p50']:.3f} | {f['p99']:.3f} | {f['mean']:.3f} |" for name, f in figures.items()],
        "",
        f"p50 with parses kept / without: {ratio:.2f}; parsed ahead / kept: {ahead_ratio:.2f} (parsing ahead took "
        f"{runs['parsed ahead (as serve does)']['parsed_ahead_s']} s before the questions). Answers of the three runs identical: "
        f"{'yes' if same else 'NO'}.",
        "",
        f"Command: `python bench/warm_ask.py --data {args.data} --db {args.db} --out {args.out}`",
    ]
    record = {"figures": figures, "ratio": ratio, "ahead_ratio": ahead_ratio, "same": same}
    write_compared(args.out, f"warm-ask-{args.data.name}", lines, record, same)


if __name__ == "__main__":
    main()
