"""One BLAS thread where the models take the cores (issue 39): a corpus's questions retrieved and
asked warm, in two fresh processes of the same run, one with numpy's BLAS left at its default
(a thread per core) and one after :func:`citegraph.cores.one_blas_thread`, as the ``citegraph``
command and each server worker now run. Per-question seconds of ``retrieve`` alone and of the whole
``ask`` (default answerer and checker), p50 and p99, and the ratios of the p50s; the answers of the
two runs are compared and must be the same.

    python bench/blas_threads.py --data corpora/brightwave --db /tmp/brightwave.db --out docs/results/DATE/one-blas-thread/

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

CONFIGURATIONS = (("BLAS default (a thread per core)", False), ("one BLAS thread (the CLI, serve)", True))


def _one(db: Path, questions: list[str], one: bool) -> dict[str, object]:
    """One configuration, in this process: every question retrieved, then asked, after one question
    that loads the models."""
    from threadpoolctl import threadpool_info

    from citegraph.cores import one_blas_thread
    from citegraph.pipeline import CiteGraph

    if one:
        one_blas_thread()
    blas = [(i.get("internal_api"), i.get("num_threads")) for i in threadpool_info() if i.get("user_api") == "blas"]
    graph = CiteGraph.open(str(db))
    graph.ask(questions[0])  # loads every model the answer needs
    retrieving, asking, answers = [], [], []
    for q in questions[1:]:
        t = time.perf_counter()
        graph.retriever.retrieve(q, None)
        retrieving.append(time.perf_counter() - t)
    for q in questions[1:]:
        t = time.perf_counter()
        answer = graph.ask(q)
        asking.append(time.perf_counter() - t)
        answers.append(f"{answer.status.value}|{answer.text}")
    return {"retrieve": retrieving, "ask": asking, "answers": answers, "blas": blas}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="a corpus folder (corpus.json beside its documents)")
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--out", type=Path, help="where the report goes (not with --one)")
    parser.add_argument("--one", choices=("0", "1"), help="run one configuration in this process and print its JSON")
    args = parser.parse_args()
    err = Console(stderr=True)

    questions = public_questions(args.data)
    if args.one is not None:
        print(json.dumps(_one(args.db, questions, args.one == "1")))
        return
    if args.out is None:
        raise SystemExit("--out is needed")
    corpus_store(args.db, args.data, err)
    before = load_before_run(err)
    runs = {}
    for name, one in CONFIGURATIONS:
        cmd = [sys.executable, __file__, "--data", str(args.data), "--db", str(args.db), "--one", "1" if one else "0"]
        runs[name] = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    default, single = (name for name, _one_thread in CONFIGURATIONS)
    same = runs[default]["answers"] == runs[single]["answers"]
    figures = {
        name: {part: {"n": len(run[part]), **latency_figures(run[part])} for part in ("retrieve", "ask")} for name, run in runs.items()
    }
    ratio = {part: figures[single][part]["p50"] / figures[default][part]["p50"] for part in ("retrieve", "ask")}
    lines = [
        f"# One BLAS thread: warm retrieval and answers ({args.data.name})",
        "",
        f"{len(questions) - 1} questions of the public caller, retrieved and then asked in order after one that loads "
        f"the models, each configuration in a fresh process; default answerer (extractive) and checker. Machine: "
        f"{environment()}; 1-minute load average {load_figures(before)}.",
        "",
        "| run | BLAS threads | retrieve p50 ms | retrieve p99 ms | ask p50 ms | ask p99 ms |",
        "|---|---|---|---|---|---|",
        *[
            f"| {name} | {runs[name]['blas']} | {f['retrieve']['p50'] * 1000:.1f} | {f['retrieve']['p99'] * 1000:.1f} "
            f"| {f['ask']['p50'] * 1000:.1f} | {f['ask']['p99'] * 1000:.1f} |"
            for name, f in figures.items()
        ],
        "",
        f"p50 with one BLAS thread / default: retrieve {ratio['retrieve']:.2f}, ask {ratio['ask']:.2f}. Answers of the two "
        f"runs identical: {'yes' if same else 'NO'}.",
        "",
        f"Command: `python bench/blas_threads.py --data {args.data} --db {args.db} --out {args.out}`",
    ]
    write_compared(args.out, f"blas-threads-{args.data.name}", lines, {"figures": figures, "ratio": ratio, "same": same}, same)


if __name__ == "__main__":
    main()
