"""The shipped support checker against a checkpoint of another encoder, raw (no cascade), on the
real sets of the support data's dev split (issue 34, item 3: "try all-mpnet-base-v2").

Both models read the same pairs through citegraph's own premise fitting
(:func:`citegraph.verify.crossencoder.encode`); the checkpoint runs in PyTorch (fp32) with the
tokenizer of its base folder. Reported per source: balanced accuracy of "supported" (the argmax)
against the rest, and seconds per pair on this machine.

    python bench/compare_support_raw.py --data support-data --checkpoint /tmp/mpnet-r1/checkpoint \\
        --tokenizer /tmp/mpnet/model/all-mpnet-base-v2/tokenizer.json --per-source 300 --out compare.json

Needs the ``train`` extra (torch, transformers).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from citegraph.verify.crossencoder import LABELS, CrossEncoder, encode, load_tokenizer
from train_support import inputs

REAL = ("halueval_dialogue", "halueval_summarization", "attributionbench", "hotpotqa")


def balanced(pred: np.ndarray, gold: np.ndarray) -> float:
    pos = gold == 0
    return 0.5 * (float((pred[pos] == 0).mean()) + float((pred[~pos] != 0).mean()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="the folder build_support_data.py wrote (dev.jsonl is read)")
    parser.add_argument("--checkpoint", type=Path, required=True, help="a folder train_support.py wrote")
    parser.add_argument("--tokenizer", type=Path, required=True, help="the checkpoint's base tokenizer.json")
    parser.add_argument("--per-source", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    import torch
    from transformers import AutoModelForSequenceClassification

    rows: dict[str, list[dict[str, str]]] = defaultdict(list)
    with (args.data / "dev.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["source"] in REAL:
                rows[row["source"]].append(row)
    rng = random.Random(args.seed)
    for group in rows.values():
        rng.shuffle(group)
    shipped = CrossEncoder()
    tokenizer = load_tokenizer(args.tokenizer)
    model = AutoModelForSequenceClassification.from_pretrained(str(args.checkpoint)).eval()
    torch.set_num_threads(2)
    out: dict[str, dict[str, float | int]] = {}
    for source in sorted(rows):
        sample = rows[source][: args.per_source]
        pairs = [(r["premise"], r["claim"]) for r in sample]
        gold = np.array([LABELS.index(r["label"]) for r in sample])
        started = time.perf_counter()
        p_shipped = shipped.probabilities(pairs)
        s_shipped = (time.perf_counter() - started) / len(pairs)
        started = time.perf_counter()
        probs = []
        with torch.no_grad():
            for i in range(0, len(pairs), 16):
                feed = inputs(model, encode(tokenizer, pairs[i : i + 16]), torch)
                probs.append(torch.softmax(model(**feed).logits, -1).numpy())
        p_other = np.concatenate(probs)
        s_other = (time.perf_counter() - started) / len(pairs)
        out[source] = {
            "n": len(sample),
            "shipped": round(balanced(p_shipped.argmax(1), gold), 3),
            "checkpoint": round(balanced(p_other.argmax(1), gold), 3),
            "s_pair_shipped": round(s_shipped, 4),
            "s_pair_checkpoint": round(s_other, 4),
        }
        print(source, out[source], flush=True)
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
