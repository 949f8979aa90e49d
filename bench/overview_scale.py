"""Corpus questions at scale (issue 37, measurement b, the seconds): "What are the main topics of
these documents?" on stores of N documents, each a HaluEval QA knowledge text (HotpotQA's supporting
sentences, 1 to 3 sentences on one topic: thousands of unrelated small sources; past its 9,936
distinct texts, HotpotQA paragraphs from ``--hotpot``), ingested with the
default settings. Per size, in one process: the ingest, the first ask (the caller's view read and its
communities computed), a second ask (both kept), and the communities' share of the first.

Baseline in the same run: the same store's local ask of a fact question, cold and warm (what a
question costs without communities).

    python bench/overview_scale.py --data ../shared/data/halueval/halueval_qa.jsonl --sizes 1000,10000 \
        --hotpot ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json \
        --out docs/results/DATE/overview-scale/
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from citegraph.pipeline import CiteGraph, TextInput  # noqa: E402
from citegraph.retrieve.communities import communities  # noqa: E402

QUESTION = "What are the main topics of these documents?"
LOCAL = "Which magazine was started first?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="halueval_qa.jsonl")
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument(
        "--hotpot", type=Path, help="hotpotqa_distractor_sample100.json: its paragraphs fill a size past the knowledge texts"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    texts = []
    seen = set()
    with args.data.open(encoding="utf-8") as f:
        for line in f:
            knowledge = json.loads(line)["knowledge"]
            if knowledge not in seen:
                seen.add(knowledge)
                texts.append(knowledge)
    if args.hotpot:
        for q in json.loads(args.hotpot.read_text(encoding="utf-8")):
            for sentences in q["context"]["sentences"]:
                paragraph = " ".join(sentences)
                if paragraph not in seen:
                    seen.add(paragraph)
                    texts.append(paragraph)
    sizes = [int(s) for s in args.sizes.split(",")]
    if max(sizes) > len(texts):
        raise SystemExit(f"only {len(texts):,} distinct texts for a store of {max(sizes):,} documents: add --hotpot")
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp, CiteGraph.open(str(Path(tmp) / "scale.db")) as graph:
            t0 = time.perf_counter()
            for start in range(0, size, 500):
                graph.ingest_texts([TextInput(f"k{i:05d}.txt", texts[i]) for i in range(start, min(size, start + 500))])
            ingest_s = time.perf_counter() - t0
            graph.retriever.clear_cache()
            t0 = time.perf_counter()
            graph.ask(LOCAL, labels=None)
            local_cold_s = time.perf_counter() - t0
            view = graph.retriever.view(None)
            t0 = time.perf_counter()
            found = communities(view)
            communities_s = time.perf_counter() - t0
            graph.retriever.clear_cache()  # the overview pays the view and its communities itself
            t0 = time.perf_counter()
            answer = graph.ask(QUESTION, labels=None)
            cold_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            graph.ask(QUESTION, labels=None)
            warm_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            graph.ask(LOCAL, labels=None)
            local_warm_s = time.perf_counter() - t0
            rows.append(
                {
                    "documents": size,
                    "sentences": view.n_spans,
                    "entities": view.n_entities,
                    "communities_level0": len(found.level(0)),
                    "ingest_s": round(ingest_s, 1),
                    "communities_s": round(communities_s, 2),
                    "overview_cold_s": round(cold_s, 2),
                    "overview_warm_s": round(warm_s, 3),
                    "local_cold_s": round(local_cold_s, 2),
                    "local_warm_s": round(local_warm_s, 3),
                    "points": len(answer.claims),
                }
            )
            print(json.dumps(rows[-1]), file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "overview-scale.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# Corpus questions at scale (bench/overview_scale.py)",
        "",
        "| documents | sentences | entities | communities (level 0) | communities computed | overview ask, cold / warm | "
        "local ask, cold / warm (baseline) | ingest |",
        "|---|---|---|---|---|---|---|---|",
        *[
            f"| {r['documents']:,} | {r['sentences']:,} | {r['entities']:,} | {r['communities_level0']} | {r['communities_s']} s | "
            f"{r['overview_cold_s']} s / {r['overview_warm_s']} s | {r['local_cold_s']} s / {r['local_warm_s']} s | {r['ingest_s']} s |"
            for r in rows
        ],
        "",
    ]
    (args.out / "README.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
