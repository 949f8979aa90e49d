"""How the ``bridge`` mode's weights were chosen: a grid over them on the DEV half only.

Runs every combination of the ``Bridge`` weights on the dev questions of a data set (the same
split ``citegraph eval retrieval`` uses: a hash of the question id), in one process over one store,
and prints all-gold at 2/5/8/10 passages, at the default context, and sentence recall. The test
half is never read here; it is reported once, by ``citegraph eval retrieval``, with the weights
chosen from this table.

    python bench/retrieval_grid.py --data ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json \
        --store eval-results/hotpotqa_distractor_sample100.db --out docs/results/DATE/retrieval/grid.md
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path
from typing import Any

from rich.console import Console

from citegraph.eval.retrieval import Ranked, load, prepare, summarise
from citegraph.pipeline import CiteGraph
from citegraph.retrieve.modes import Bridge, Query
from common import environment, write_report

GRIDS: dict[str, dict[str, tuple[Any, ...]]] = {
    # the bridge walk's own weights (docs/results/2026-11-30/retrieval/grid.md)
    "weights": {
        "specificity": (0.0, 0.05, 0.1),
        "naming": (0.0, 0.5, 1.0),
        "subject": (0.0, 0.2),
        "per_passage": (1, 2),
        "depth": (1, 2),
    },
    # question-entity seeds (issue 25, item 2): passages about / mentioning a name the question gives
    "seeds": {
        "embedded": (False, True),
        "seeds": (0.0, 0.2, 0.5, 1.0),
        "mentions": (0.0, 0.1, 0.3),
    },
    # names as written (issue 25, item 2): a passage whose title the question names, and entity keys
    # read off the question's capitalised words, with bridge-embedded's own weights
    "titles": {
        "embedded": (True,),
        "seeds": (0.5,),
        "mentions": (0.1,),
        "titles": (0.0, 0.25, 0.5, 1.0),
        "as_written": (False, True),
    },
    # following the relation the question names from the first passage (issue 25, item 2), with the
    # default's weights
    "relations": {
        "embedded": (True,),
        "seeds": (0.5,),
        "mentions": (0.1,),
        "titles": (1.0,),
        "relations": (0.0, 0.1, 0.2, 0.5, 1.0),
    },
    # sentences per passage now that a long document is several passages (issue 35, item 2), with
    # the default's weights; the corpora's and LiHua's side of the choice is bench/context_grid.py
    "context": {
        "embedded": (True,),
        "seeds": (0.5,),
        "mentions": (0.1,),
        "titles": (1.0,),
        "per_passage": (1, 2, 3),
    },
    # the second hop through a name wherever it is mentioned (issue 35, item 3), at the default's weights
    "hop": {
        "embedded": (True,),
        "seeds": (0.5,),
        "mentions": (0.1,),
        "titles": (1.0,),
        "per_passage": (2,),
        "mention_hop": (False, True),
    },
}
LINK_OPTIONS = ("as_written",)  # passed to Retriever.link, not to Bridge


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--store", type=Path, required=True, help="the store eval retrieval built (built here if missing)")
    parser.add_argument("--context-size", type=int, default=8)
    parser.add_argument("--out", type=Path, help="write the table (markdown) here")
    parser.add_argument("--grid", choices=sorted(GRIDS), default="weights", help="which weights to vary (the others at their defaults)")
    args = parser.parse_args()
    grid = GRIDS[args.grid]
    data = load(args.data)
    questions = [q for q in data.questions if q.split == "dev"]
    console = Console()
    with CiteGraph.open(args.store, "minilm") as graph:
        prepare(data, graph)
        retriever = graph.retriever
        view = retriever.view(["public"])
        vectors = graph.embedder.embed([q.text for q in questions])
        rows: list[tuple[dict[str, Any], dict[str, Any]]] = []
        for values in itertools.product(*grid.values()):
            weights = dict(zip(grid, values, strict=True))
            mode = Bridge(**{k: v for k, v in weights.items() if k not in LINK_OPTIONS})
            linking = {k: v for k, v in weights.items() if k in LINK_OPTIONS}
            ranked = []
            for q, vector in zip(questions, vectors, strict=True):
                query = Query(
                    q.text,
                    vector,
                    retriever.link(q.text, view, **linking),
                    min_words=retriever.min_evidence_words,
                    embed=graph.embedder.embed,
                    context_size=args.context_size,
                )
                evidence, _seeds = mode.rank(query, view, 200)
                ranked.append(Ranked(q, [(e.span.document, e.span.start, e.span.end) for e in evidence], 0.0))
            rows.append((weights, summarise(ranked, args.context_size)))
    rows.sort(key=lambda r: (-(r[1]["context"]["all_gold"] or 0), -(r[1]["all_gold"][8] or 0)))
    header = "| " + " | ".join(grid) + " | all-gold@2 | @5 | @8 | @10 | context all-gold | context passages | context sent R | sent R@10 |"
    lines = [
        f"# bridge weights on the dev half of {data.name} ({len(questions)} questions)",
        "",
        f"{environment()}. Sorted by all-gold at the default context ({args.context_size} sentences), then at 8 passages.",
        "",
        header,
        "|" + "---|" * (len(grid) + 8),
    ]
    for weights, m in rows:

        def cell(v: float | None, digits: int = 3) -> str:
            return "–" if v is None else f"{v:.{digits}f}"  # no sentence gold (the plain format): no sentence recall

        cells = (
            [str(v) for v in weights.values()]
            + [cell(m["all_gold"][k]) for k in (2, 5, 8, 10)]
            + [
                cell(m["context"]["all_gold"]),
                cell(m["context"]["passages"], 2),
                cell(m["context"]["sentence_recall"]),
                cell(m["sentence_recall"][10]),
            ]
        )
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    console.print(text, markup=False, highlight=False)
    write_report(args.out, text)


if __name__ == "__main__":
    main()
