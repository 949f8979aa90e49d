"""Questions about the whole corpus (issue 37, measurement b): a corpus mixed from k known sources,
"What are the main topics of these documents?" asked through :meth:`CiteGraph.ask` with the default
settings (the trained checker), and per run:

- **sources covered**: the share of the k sources at least one cited point comes from;
- **points**: how many (the target: at most 2k);
- **supported**: the share of the points' claims the checker finds supported;
- **seconds**: the ask, cold (communities computed) and warm (the caller's communities kept);
- beside them the simplest baselines: the share of sources a random draw of the same number of
  sentences covers (mean of 200 draws) and the share the largest source alone is of the corpus.

The sources: the two development corpora (corpora/brightwave, corpora/riverside-libraries), the
bundled demo handbook (src/citegraph/demo/larkspur), ``--lihua N`` LiHua-World dev chat sessions
and ``--hotpot N`` HotpotQA paragraphs (each paragraph a document). Also reported: the rule set's
accuracy on the held-out half of tests/data/scope_questions.json (questions written before the rules
were tuned on the other half; both halves written by the same person, so an optimistic figure).

    python bench/overview.py --lihua ../shared/data/lihua_world_dev --hotpot \
        ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json --out docs/results/DATE/overview/
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from citegraph.models import ClaimStatus  # noqa: E402
from citegraph.pipeline import CiteGraph, TextInput  # noqa: E402
from citegraph.retrieve.overview import overview_request  # noqa: E402

QUESTION = "What are the main topics of these documents?"


def _scope_rules() -> dict[str, object]:
    data = json.loads((ROOT / "tests" / "data" / "scope_questions.json").read_text(encoding="utf-8"))
    out: dict[str, object] = {}
    for split in ("dev", "test"):
        items = data[split]
        right = sum(
            ((found := overview_request(q["q"])) is not None and q["global"] and found.topic.casefold() == q.get("topic", "").casefold())
            or (found is None and not q["global"])
            for q in items
        )
        out[split] = {
            "right": right,
            "of": len(items),
            "majority_baseline": max(sum(q["global"] for q in items), len(items) - sum(q["global"] for q in items)),
        }
    return out


def _documents_summed_up(graph: CiteGraph, prefixes: tuple[str, ...]) -> dict[str, object]:
    """Measurement c: "Summarize DOC." for every document of ``prefixes`` cut into 3 or more passages
    (sections): the share of its sections a cited point comes from, and the share of points supported."""
    view = graph.retriever.view(None)
    c = view.columns
    where = {
        (view.passages[int(view.span_doc[i])][0], int(c.span_start[i]), int(c.span_end[i])): int(view.span_doc[i])
        for i in range(view.n_spans)
    }
    per_doc: dict[str, set[int]] = {}
    for i in range(view.n_spans):
        per_doc.setdefault(view.passages[int(view.span_doc[i])][0], set()).add(int(view.span_doc[i]))
    rows = []
    for doc_id, sections in sorted(per_doc.items()):
        if not doc_id.startswith(prefixes) or len(sections) < 3:
            continue
        answer = graph.ask(f"Summarize {doc_id}.", labels=None)
        cited = [cit.span for claim in answer.claims for cit in claim.citations]
        covered = {where.get((s.document, s.start, s.end)) for s in cited} & sections
        supported = sum(claim.status == ClaimStatus.SUPPORTED for claim in answer.claims)
        rows.append(
            {
                "document": doc_id,
                "sections": len(sections),
                "covered": len(covered) / len(sections),
                "points": len(answer.claims),
                "supported": supported / max(len(answer.claims), 1),
                "summary_of": answer.retrieval.summary,
            }
        )
    n = max(len(rows), 1)
    return {
        "documents": rows,
        "mean_sections_covered": round(sum(r["covered"] for r in rows) / n, 3),  # type: ignore[misc]
        "mean_points_supported": round(sum(r["supported"] for r in rows) / n, 3),  # type: ignore[misc]
        "named_document_found": sum(r["summary_of"] is not None for r in rows),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lihua", type=Path, help="the lihua_world_dev folder (LiHuaWorld.zip)")
    parser.add_argument("--lihua-sessions", type=int, default=60)
    parser.add_argument("--hotpot", type=Path, help="hotpotqa_distractor_sample100.json")
    parser.add_argument("--hotpot-paragraphs", type=int, default=150)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        folders = {
            "brightwave": ROOT / "corpora" / "brightwave" / "docs",
            "riverside": ROOT / "corpora" / "riverside-libraries" / "docs",
            "larkspur": ROOT / "src" / "citegraph" / "demo" / "larkspur",
        }
        texts: dict[str, list[TextInput]] = {}
        if args.lihua:
            with zipfile.ZipFile(args.lihua / "LiHuaWorld.zip") as z:
                z.extractall(tmp)
            sessions = sorted(p for p in Path(tmp).rglob("*.txt") if p.is_file())
            picked = sorted(rng.sample(sessions, min(args.lihua_sessions, len(sessions))))
            texts["lihua"] = [TextInput(f"lihua/{p.name}", p.read_text(encoding="utf-8")) for p in picked]
        if args.hotpot:
            paragraphs = {}
            for q in json.loads(args.hotpot.read_text(encoding="utf-8")):
                for title, sentences in zip(q["context"]["title"], q["context"]["sentences"], strict=True):
                    paragraphs[title] = " ".join(sentences)
            chosen = sorted(rng.sample(sorted(paragraphs), min(args.hotpot_paragraphs, len(paragraphs))))
            texts["hotpot"] = [TextInput(f"hotpot/{t}.txt", paragraphs[t]) for t in chosen]
        db = Path(tmp) / "mixed.db"
        started = time.perf_counter()
        with CiteGraph.open(str(db)) as graph:
            for name, folder in folders.items():
                graph.ingest([folder], prefix=f"{name}/")
            for items in texts.values():
                graph.ingest_texts(items)
            ingest_s = time.perf_counter() - started
            sources = [*folders, *texts]
            documents = graph.documents(labels=None)
            sizes = {s: sum(1 for d in documents if d.document.id.startswith(f"{s}/") and d.document.current) for s in sources}
            graph.retriever.clear_cache()
            t0 = time.perf_counter()
            answer = graph.ask(QUESTION, labels=None)
            cold_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            graph.ask(QUESTION, labels=None)
            warm_s = time.perf_counter() - t0
            cited = [c.citations[0].span.document for c in answer.claims if c.citations]
            covered = {d.split("/", 1)[0] for d in cited}
            supported = sum(c.status == ClaimStatus.SUPPORTED for c in answer.claims)
            spans = [(d.document.id.split("/", 1)[0]) for d in documents for _ in range(d.sentences)]
            draws = [len(set(rng.sample(spans, len(cited)))) / len(sources) for _ in range(200)] if cited else [0.0]
            n_docs = sum(sizes.values())
            result = {
                "question": QUESTION,
                "sources": sizes,
                "documents": n_docs,
                "sentences": len(spans),
                "k": len(sources),
                "points": len(answer.claims),
                "covered": sorted(covered),
                "coverage": len(covered) / len(sources),
                "supported": supported / max(len(answer.claims), 1),
                "status": answer.status.value,
                "cold_ask_s": round(cold_s, 2),
                "warm_ask_s": round(warm_s, 2),
                "ingest_s": round(ingest_s, 1),
                "baseline_random_sentences_coverage": round(sum(draws) / len(draws), 3),
                "baseline_largest_source_share": round(max(sizes.values()) / max(n_docs, 1), 3),
                "scope_rules": _scope_rules(),
                "summarize_document": _documents_summed_up(graph, ("brightwave/", "riverside/")),
                "points_text": [
                    {
                        "document": c.citations[0].span.document,
                        "community": c.citations[0].community,
                        "claim": c.text,
                        "status": c.status.value,
                    }
                    for c in answer.claims
                ],
            }
    (args.out / "overview.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    lines = [
        "# Questions about the whole corpus (bench/overview.py)",
        "",
        f"Corpus: {result['documents']} documents, {result['sentences']} sentences from k = {result['k']} sources {sizes}.",
        f'Question: "{QUESTION}" (default settings: trained checker, extractive answerer).',
        "",
        "| measure | value | simplest baseline |",
        "|---|---|---|",
        f"| sources covered | {len(covered)}/{len(sources)} = {result['coverage']:.2f} | random {len(cited)} sentences: {result['baseline_random_sentences_coverage']:.2f} |",
        f"| points (target ≤ 2k = {2 * len(sources)}) | {result['points']} | |",
        f"| points supported | {result['supported']:.2f} | |",
        f"| ask, cold / warm | {result['cold_ask_s']} s / {result['warm_ask_s']} s | |",
        f"| corpus-question rules, dev / held-out | {result['scope_rules']['dev']['right']}/{result['scope_rules']['dev']['of']} / "  # type: ignore[index]
        f"{result['scope_rules']['test']['right']}/{result['scope_rules']['test']['of']} | majority class: "  # type: ignore[index]
        f"{result['scope_rules']['test']['majority_baseline']}/{result['scope_rules']['test']['of']} |",  # type: ignore[index]
        "",
        "Summarize DOC. on the development corpora's documents of 3 or more sections (measurement c): "
        f"{result['summarize_document']['named_document_found']} of {len(result['summarize_document']['documents'])} named documents found; "  # type: ignore[index]
        f"sections covered {result['summarize_document']['mean_sections_covered']}, points supported "  # type: ignore[index]
        f"{result['summarize_document']['mean_points_supported']} (targets 0.8 and 1.0).",  # type: ignore[index]
        "",
        "| document | sections | covered | points | supported |",
        "|---|---|---|---|---|",
        *[
            f"| {r['document']} | {r['sections']} | {r['covered']:.2f} | {r['points']} | {r['supported']:.2f} |"
            for r in result["summarize_document"]["documents"]  # type: ignore[index]
        ],
        "",
        "Points:",
        "",
        *[f"- [{p['status']}] ({p['community']}, {p['document']}) {p['claim']}" for p in result["points_text"]],  # type: ignore[attr-defined]
        "",
    ]
    (args.out / "overview.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
