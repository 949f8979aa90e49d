"""What the answerer can reach: the gold answer anywhere in the context, per retrieval configuration.

The ceiling an answer picking from the context cannot pass, measured without an answerer (so a grid
runs in seconds): for each configuration of the default ``bridge-embedded`` mode, and dense
sentence search beside it, the share of answerable dev questions whose gold answer (every required
part, :func:`citegraph.eval.answers.said`) is inside the first ``--context-size`` evidence spans.
Read on the dev halves only:

- corpus folders (``corpus.json`` beside the documents: ``citegraph eval answers``'s corpora), each
  in the store ``eval answers`` made for it (``--store``, one per corpus, in the same order; made
  here when missing);
- LiHua-World (``--lihua`` the lihua_world_dev folder, ``--lihua-store`` the store
  ``bench/lihua.py`` made): its Single questions (the dev questions whose answer is not yes/no).

The multi-hop sets' side of the same choice (all gold passages in the context) is
``bench/retrieval_grid.py --grid context``.

    python bench/context_grid.py --corpus corpora/brightwave --store /tmp/sec/answers-brightwave.db \
        --corpus corpora/riverside-libraries --store /tmp/sec/answers-riverside-libraries.db \
        --lihua ../shared/data/lihua_world_dev --lihua-store /tmp/lihua.db --out docs/results/DATE/context-grid.md
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from citegraph.eval.answers import said
from citegraph.eval.corpus import load_corpus, prepare
from citegraph.pipeline import CiteGraph
from citegraph.retrieve.modes import MODES, Bridge, DenseSentence, Mode
from common import environment, write_report

#: the passage-level choices of issue 35 (item 2), the walk's weights at bridge-embedded's
GRIDS: dict[str, dict[str, tuple[Any, ...]]] = {
    "context": {"per_passage": (1, 2, 3)},
    # the second hop through a name wherever it is mentioned (issue 35, item 3: both hops)
    "hop": {"per_passage": (2,), "mention_hop": (False, True)},
}
BASE = {"embedded": True, "seeds": 0.5, "mentions": 0.1, "titles": 1.0}


def reached(graph: CiteGraph, mode: Mode, asked: Sequence[tuple[str, list[str] | None, list[list[str]]]], size: int) -> float:
    """Share of ``(question, caller labels, answer groups)`` whose every group is said in the context."""
    retriever = graph.retriever
    default, retriever.mode = retriever.mode, mode
    default_size, retriever.context_size = retriever.context_size, size  # what a mode may place for the answer to read
    try:
        hits = 0
        for question, labels, groups in asked:
            context = " ".join(e.span.text for e in retriever.retrieve(question, labels).evidence[:size])
            hits += all(said(g, context) for g in groups)
    finally:
        retriever.mode, retriever.context_size = default, default_size
    return hits / len(asked) if asked else 0.0


def corpus_questions(folder: Path) -> list[tuple[str, list[str] | None, list[list[str]]]]:
    corpus = load_corpus(folder)
    return [
        (q.question, list(q.caller), ([list(q.answers)] if q.answers else []) + [list(g) for g in q.required])
        for q in corpus.questions
        if q.split == "dev" and (q.answers or q.required)
    ]


def lihua_questions(folder: Path) -> list[tuple[str, list[str] | None, list[list[str]]]]:
    rows = json.loads((folder / "query_set_dev.json").read_text(encoding="utf-8"))
    return [
        (q["question"], None, [[q["answer"]]])
        for _id, q in sorted(rows.items(), key=lambda kv: int(kv[0]))
        if q["type"] == "Single" and q["answer"].strip().casefold().rstrip(".") not in {"yes", "no"}
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, action="append", default=[])
    parser.add_argument("--store", type=Path, action="append", default=[], help="per --corpus, its store")
    parser.add_argument("--lihua", type=Path)
    parser.add_argument("--lihua-store", type=Path)
    parser.add_argument("--context-size", type=int, default=8)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--grid", choices=sorted(GRIDS), default="context", help="which options to vary (the others at the default's)")
    args = parser.parse_args()
    if len(args.store) != len(args.corpus):
        parser.error("give one --store per --corpus")
    sets: list[tuple[str, Path, Any]] = [(c.name, s, corpus_questions(c)) for c, s in zip(args.corpus, args.store, strict=True)]
    if args.lihua:
        if not args.lihua_store or not args.lihua_store.exists():
            parser.error("--lihua needs --lihua-store, the store bench/lihua.py made")
        sets.append(("lihua single", args.lihua_store, lihua_questions(args.lihua)))
    configs: list[tuple[str, Callable[[], Mode]]] = [
        ("dense-sentence", DenseSentence),
        ("bridge-embedded (default)", MODES["bridge-embedded"]),
    ]
    grid = GRIDS[args.grid]
    for values in itertools.product(*grid.values()):
        weights = dict(zip(grid, values, strict=True))
        configs.append((", ".join(f"{k}={v}" for k, v in weights.items()), lambda w=weights: Bridge(**BASE, **w)))
    table: dict[str, list[float]] = {name: [] for name, _make in configs}
    for name, store, asked in sets:
        with CiteGraph.open(store, "minilm") as graph:
            if name != "lihua single":
                prepare(graph, load_corpus(next(c for c in args.corpus if c.name == name)))
            for config, make in configs:
                table[config].append(reached(graph, make(), asked, args.context_size))
                print(f"{name}: {config}: {table[config][-1]:.3f}", flush=True)
    lines = [
        f"# The gold answer in the context ({args.context_size} sentences), dev halves",
        "",
        f"{environment()}. Answerable dev questions: " + ", ".join(f"{name} {len(asked)}" for name, _s, asked in sets) + ".",
        "",
        "| configuration | " + " | ".join(name for name, _s, _a in sets) + " | mean |",
        "|---|" + "---|" * (len(sets) + 1),
    ]
    for config, values in table.items():
        lines.append(f"| {config} | " + " | ".join(f"{v:.3f}" for v in values) + f" | {sum(values) / len(values):.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    write_report(args.out, text)


if __name__ == "__main__":
    main()
