"""A trained head on the LLM judge's hidden state (issue 22, item 3), and the cascade re-tuned with it
(item 4).

The judge's verdict is read today from one token: P("yes") among "yes"/"no" after the support prompt.
The hidden state that predicts that token holds more than the two logits do. This script

1. ``extract``: runs the judge prompt (:class:`citegraph.verify.judge.LLMJudge`) on a sample of
   ``build_support_data.py``'s pairs, per split and source (seed 13), and keeps for each pair the
   raw P(yes) and the last position's hidden state (llama.cpp's embeddings output, after the final
   norm; 1536 numbers for Qwen2.5-Coder-1.5B), appending to ``FEATURES.jsonl`` so an interrupted run
   resumes where it stopped;
2. ``fit``: fits an L2-regularised logistic regression on the train pairs (supported against not),
   on the standardised state and logit P(yes), chooses the regularisation on dev (log-loss), folds
   the standardisation into the weights and writes the head record
   (``src/citegraph/verify/data/judge-head-*.json``: the weights, the judge, its prompt version, the
   data's sha256, sizes, and dev/test figures). Then it re-tunes the cascade on dev: guards, then the
   checker settling only where it is sure, the judge's head the rest; the checker's ``settle``
   thresholds are chosen on dev to keep the cascade's balanced accuracy within 0.01 of the best
   while sending the fewest pairs to the judge. Test is read once, for the report.

Every figure sits beside the length-only baseline and the judge's P(yes) calibrated by Platt scaling
on the same train pairs (what the shipped calibration record does).

    python bench/judge_head.py extract --data support-data --judge qwen2.5-coder-1.5b --out /tmp/head/features.jsonl
    python bench/judge_head.py fit --data support-data --features /tmp/head/features.jsonl \\
        --record src/citegraph/verify/data/judge-head-qwen2.5-coder-1.5b.json --out docs/results/DATE/judge-head/README.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from support_baselines import balanced_accuracy

#: pairs per source and split (train / dev / test): the real data sets first; long premises cost
#: seconds each (HaluEval summarization's documents are about 600 words), so fewer of those
REAL = {
    "halueval_dialogue": (160, 50, 80),
    "halueval_qa": (160, 40, 80),
    "halueval_summarization": (60, 20, 24),
    "hotpotqa": (92, 16, 86),
    "attributionbench": (160, 60, 80),
}
#: the built sources (rules), fewer each: they teach equivalence, timing and the makers' changes
BUILT = ("sentence", "equivalent", "context", "number", "negation", "swap", "timing", "date", "frame")
BUILT_COUNTS = (12, 4, 4)
SPLITS = ("train", "dev", "test")


def _rows(folder: Path, split: str) -> list[dict[str, Any]]:
    with (folder / f"{split}.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _key(row: dict[str, Any]) -> str:
    return hashlib.sha256(f"{row['item']}\0{row['claim']}\0{row['premise']}".encode()).hexdigest()[:16]


def sample(folder: Path) -> list[tuple[str, dict[str, Any]]]:
    """``(split, row)`` for every pair the head is trained, tuned or tested on; deterministic."""
    counts: dict[str, tuple[int, int, int]] = dict(REAL)
    for name in BUILT:
        counts[f"built:{name}"] = BUILT_COUNTS
        counts[f"built:{name}:alone"] = BUILT_COUNTS
    chosen: list[tuple[str, dict[str, Any]]] = []
    for s, split in enumerate(SPLITS):
        by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in _rows(folder, split):
            if row["source"] in counts:
                by_source[row["source"]].append(row)
        rng = random.Random(13)
        for source in sorted(by_source):
            group = sorted(by_source[source], key=_key)
            rng.shuffle(group)
            want = counts[source][s]
            if source in REAL:  # as many supported as not, where the source has both
                pos = [r for r in group if r["label"] == "supported"][: want // 2]
                neg = [r for r in group if r["label"] != "supported"][: want - len(pos)]
                group = pos + neg
            chosen.extend((split, row) for row in group[:want])
    return chosen


def extract(args: argparse.Namespace) -> None:
    from citegraph.errors import ModelOutputError
    from citegraph.llm.gguf import GGUFChat
    from citegraph.verify.judge import LLMJudge, p_yes

    judge = LLMJudge(GGUFChat(args.judge))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if args.out.exists():
        with args.out.open(encoding="utf-8") as handle:
            done = {json.loads(line)["key"] for line in handle}
    pairs = sample(args.data)
    order = sorted(range(len(pairs)), key=lambda i: SPLITS.index(pairs[i][0]))
    todo = [pairs[i] for i in order if _key(pairs[i][1]) not in done]
    print(f"{len(pairs)} pairs, {len(done)} done, {len(todo)} to run", file=sys.stderr)
    started = time.perf_counter()
    with args.out.open("a", encoding="utf-8") as out:
        for n, (split, row) in enumerate(todo, 1):
            t0 = time.perf_counter()
            try:
                result = judge.model.first_token(judge.messages(row["claim"], row["premise"]), top_logprobs=judge.top_logprobs, state=True)
            except ModelOutputError as exc:  # e.g. longer than the context window: the product says unverified
                failed = {"key": _key(row), "split": split, "source": row["source"], "label": row["label"], "error": str(exc)}
                out.write(json.dumps(failed) + "\n")
                out.flush()
                continue
            assert result.state is not None
            record = {
                "key": _key(row),
                "split": split,
                "source": row["source"],
                "label": row["label"],
                "claim_words": len(row["claim"].split()),
                "p_yes": p_yes(result.first_token_logprobs),
                "seconds": round(time.perf_counter() - t0, 3),
                "state": [round(v, 4) for v in result.state],
            }
            out.write(json.dumps(record) + "\n")
            out.flush()
            if n % 25 == 0:
                rate = (time.perf_counter() - started) / n
                print(f"{n}/{len(todo)}  {rate:.2f} s/pair  ~{rate * (len(todo) - n) / 60:.0f} min left", file=sys.stderr)


# ---------------------------------------------------------------------------------------------- fit


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(z, -40, 40)))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float, weight: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Weights and bias minimising the mean weighted log-loss plus ``l2 * |w|^2 / 2`` (bias free), by L-BFGS."""
    from scipy.optimize import minimize

    weight = np.ones(len(y)) if weight is None else weight
    weight = weight / weight.mean()

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        z = x @ w + b
        p = _sigmoid(z)
        ll = weight * (np.logaddexp(0, z) - y * z)
        g = weight * (p - y) / len(y)
        return float(ll.mean() + l2 * (w @ w) / 2), np.concatenate([x.T @ g + l2 * w, [g.sum()]])

    theta = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B", options={"maxiter": 2000}).x
    return theta[:-1], float(theta[-1])


def accuracy(truth: Sequence[bool], predicted: Sequence[bool]) -> float:
    return sum(t == p for t, p in zip(truth, predicted, strict=True)) / len(truth)


def _ece(truth: np.ndarray, score: np.ndarray, bins: int = 10) -> float:
    idx = np.minimum((score * bins).astype(int), bins - 1)
    return float(sum(abs(score[idx == b].mean() - truth[idx == b].mean()) * (idx == b).mean() for b in range(bins) if (idx == b).any()))


def _auroc(truth: np.ndarray, score: np.ndarray) -> float | None:
    from scipy.stats import rankdata

    pos, neg = truth.sum(), (1 - truth).sum()
    if not pos or not neg:
        return None
    ranks = rankdata(score)
    return float((ranks[truth == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def _balance_weights(records: Sequence[dict[str, Any]], y: np.ndarray) -> np.ndarray:
    """Each source weighs the same in training, and within a source each label as much as the other."""
    weight = np.ones(len(y))
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        groups[(r["source"].split(":")[0] if r["source"].startswith("built") else r["source"], int(y[i]))].append(i)
    for members in groups.values():
        weight[members] = 1 / len(members)
    return weight


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _cascade_label(guard: str, p_sup: float, p_con: float, head: float, settle: dict[str, float], threshold: float) -> tuple[bool, str]:
    """(supported?, stage) as the cascade decides it: guards, the checker where sure, else the judge."""
    if guard:
        return False, "guards"
    if p_sup >= settle["supported"]:
        return True, "checker"
    if p_con >= settle["contradicted"] or p_sup <= settle["not_supported"]:
        return False, "checker"
    return head >= threshold, "judge"


def fit(args: argparse.Namespace) -> None:
    from citegraph.verify.calibration import Platt
    from citegraph.verify.crossencoder import default_cross_encoder
    from citegraph.verify.guards import check_guards
    from citegraph.verify.judge import LLMJudge

    with args.features.open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    by_key = {r["key"]: r for r in records}
    wanted = {_key(row): (split, row) for split, row in sample(args.data)}
    missing = [k for k in wanted if k not in by_key]
    if missing:
        raise SystemExit(f"{args.features}: {len(missing)} of {len(wanted)} sampled pairs have no features: run extract first")
    records = [by_key[k] for k in wanted]
    rows = {k: wanted[k][1] for k in wanted}
    split = np.array([r["split"] for r in records])
    y = np.array([r["label"] == "supported" for r in records], dtype=float)
    # a pair the judge could not read (longer than its context window) has no state: the product
    # says `unverified` (not supported) there, and so does every score below; it is not trained on
    ok = np.array(["state" in r for r in records])
    width = len(next(r["state"] for r in records if "state" in r))
    state = np.array([r["state"] if "state" in r else [0.0] * width for r in records], dtype=np.float64)
    logit_p = _logit(np.array([r.get("p_yes", 0.5) for r in records]))
    split_tr, split_dv, te = (split == "train"), (split == "dev"), (split == "test")
    tr, dv = split_tr & ok, split_dv & ok
    mean, scale = state[tr].mean(0), state[tr].std(0) + 1e-6
    x = np.column_stack([(state - mean) / scale, logit_p])
    weight = _balance_weights([records[i] for i in np.flatnonzero(tr)], y[tr])

    # the baseline the head must beat: P(yes) with Platt scaling fitted on the same train pairs
    (pa,), pb = fit_logistic(logit_p[tr, None], y[tr], 0.0, weight)
    platt = Platt(float(pa), pb)
    p_platt = np.where(ok, [platt(float(r.get("p_yes", 0.5))) for r in records], 0.0)

    grid = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
    tried = []
    for l2 in grid:
        w, b = fit_logistic(x[tr], y[tr], l2, weight)
        p = _sigmoid(x[dv] @ w + b)
        dev_weight = _balance_weights([records[i] for i in np.flatnonzero(dv)], y[dv])
        loss = float((dev_weight * (np.logaddexp(0, x[dv] @ w + b) - y[dv] * (x[dv] @ w + b))).sum() / dev_weight.sum())
        tried.append((loss, l2, w, b))
        print(
            f"l2 {l2}: dev log-loss {loss:.4f}, balanced accuracy {balanced_accuracy(list(y[dv] == 1), list(p >= 0.5)):.3f}",
            file=sys.stderr,
        )
    _, l2, w, b = min(tried, key=lambda t: t[0])
    head = np.where(ok, _sigmoid(x @ w + b), 0.0)
    # fold the standardisation in: the record maps the raw state and logit P(yes) straight to a logit
    state_weights = w[:-1] / scale
    bias = float(b - (w[:-1] * mean / scale).sum())

    # the checker and the guards on every pair, for the cascade
    checker = default_cross_encoder()
    premises_claims = [(rows[r["key"]]["premise"], rows[r["key"]]["claim"]) for r in records]
    probs = checker.scores(premises_claims)
    p_sup, p_con = probs[:, 0], probs[:, 1]
    guard = [next((g.code for g in check_guards(claim, premise) if g.overrules), "") for premise, claim in premises_claims]

    # cascade re-tune on dev: the fewest pairs to the judge within 0.01 of the best balanced accuracy
    dev_idx = np.flatnonzero(split_dv)
    real_dev = [i for i in dev_idx if not records[i]["source"].startswith("built")]

    def cascade(idx: Sequence[int], settle: dict[str, float]) -> tuple[float, float]:
        out = [_cascade_label(guard[i], p_sup[i], p_con[i], head[i], settle, 0.5) for i in idx]
        per_source: dict[str, tuple[list[bool], list[bool]]] = defaultdict(lambda: ([], []))
        for i, (label, _stage) in zip(idx, out, strict=True):
            per_source[records[i]["source"]][0].append(y[i] == 1)
            per_source[records[i]["source"]][1].append(label)
        scores = [balanced_accuracy(t, p) for t, p in per_source.values()]
        return float(np.mean([s for s in scores if s is not None])), sum(stage == "judge" for _, stage in out) / len(out)

    options = []
    for s_sup in (0.8, 0.85, 0.9, 0.93, 0.96, 0.98, 1.01):
        for s_not in (-0.01, 0.02, 0.05, 0.1, 0.2, 0.3):
            for s_con in (0.9, 0.945, 0.98, 1.01):
                settle = {"supported": s_sup, "not_supported": s_not, "contradicted": s_con}
                options.append((*cascade(real_dev, settle), settle))
    best = max(o[0] for o in options)
    chosen = min((o for o in options if o[0] >= best - 0.01), key=lambda o: (o[1], -o[0]))
    settle = chosen[2]
    print(f"cascade on dev: best {best:.3f}; chosen {chosen[0]:.3f} with {chosen[1]:.0%} to the judge, settle {settle}", file=sys.stderr)

    judge_seconds = float(np.mean([r["seconds"] for r in records if "seconds" in r]))

    # the report, per split and source
    def figures(idx: Sequence[int]) -> dict[str, Any]:
        truth = y[idx]
        lab = [bool(t) for t in truth]
        casc = [_cascade_label(guard[i], p_sup[i], p_con[i], head[i], settle, 0.5) for i in idx]
        checker_alone = [False if guard[i] else p_sup[i] >= 0.5 for i in idx]
        out: dict[str, Any] = {"pairs": len(idx), "supported": int(truth.sum()), "judge_could_not_read": int((~ok[idx]).sum())}
        for name, predicted, score in (
            ("head", list(head[idx] >= 0.5), head[idx]),
            ("p_yes_platt", list(p_platt[idx] >= 0.5), p_platt[idx]),
            ("checker", checker_alone, p_sup[idx]),
            ("cascade", [c[0] for c in casc], None),
        ):
            ba = balanced_accuracy(lab, predicted)
            out[name] = {
                "balanced_accuracy": None if ba is None else round(ba, 3),
                "accuracy": round(accuracy(lab, predicted), 3),
                **({"auroc": _round(_auroc(truth, score)), "ece": round(_ece(truth, score), 3)} if score is not None else {}),
            }
        out["cascade"]["to_judge"] = round(sum(c[1] == "judge" for c in casc) / len(casc), 3)
        out["cascade"]["seconds_per_pair"] = round(
            float(np.mean([records[i].get("seconds", 0.0) if c[1] == "judge" else 0.0 for i, c in zip(idx, casc, strict=True)])) + 0.02, 3
        )
        return out

    def _round(v: float | None) -> float | None:
        return None if v is None else round(v, 3)

    # the length-only baseline: one threshold on the claim's words, fitted on the source's train pairs
    words = [len(rows[r["key"]]["claim"].split()) for r in records]

    def length_baseline(source: str, idx: Sequence[int]) -> float | None:
        train_idx = [i for i in np.flatnonzero(split_tr) if records[i]["source"] == source]
        if not train_idx:
            return None
        best_rule, best_score = (0, True), -1.0
        for t in sorted({words[i] for i in train_idx}):
            for shorter in (True, False):
                pred = [(words[i] <= t) == shorter for i in train_idx]
                s = balanced_accuracy([y[i] == 1 for i in train_idx], pred)
                if s is not None and s > best_score:
                    best_rule, best_score = (t, shorter), s
        t, shorter = best_rule
        return balanced_accuracy([y[i] == 1 for i in idx], [(words[i] <= t) == shorter for i in idx])

    report: dict[str, Any] = {"l2": l2, "settle": settle, "judge_seconds_mean": round(judge_seconds, 3), "splits": {}}
    for name, mask in (("dev", split_dv), ("test", te)):
        per: dict[str, Any] = {}
        sources = sorted({records[i]["source"] for i in np.flatnonzero(mask)})
        for source in sources:
            idx = [i for i in np.flatnonzero(mask) if records[i]["source"] == source]
            per[source] = figures(idx)
            lb = length_baseline(source, idx)
            per[source]["length_only"] = None if lb is None else round(lb, 3)
        real = [i for i in np.flatnonzero(mask) if not records[i]["source"].startswith("built")]
        per["all real sets"] = figures(real)
        report["splits"][name] = per

    judge = LLMJudge.__new__(LLMJudge)
    judge.minicheck = False
    record = {
        "format": "citegraph-judge-head/1",
        "judge": f"gguf:{args.judge}",
        "prompt": judge.prompt,
        "features": "the last prompt position's hidden state (llama.cpp embeddings, after the final norm), then logit P(yes)",
        "weights": [round(float(v), 7) for v in state_weights],
        "p_yes_weight": round(float(w[-1]), 7),
        "bias": round(bias, 7),
        "threshold": 0.5,
        "l2": l2,
        "data": {
            "train.jsonl": _sha256(args.data / "train.jsonl"),
            "dev.jsonl": _sha256(args.data / "dev.jsonl"),
            "test.jsonl": _sha256(args.data / "test.jsonl"),
        },
        "pairs": {"train": int(tr.sum()), "dev": int(split_dv.sum()), "test": int(te.sum()), "unreadable": int((~ok).sum())},
        "settle": settle,
        "figures": {k: v.get("all real sets") for k, v in report["splits"].items()},
    }
    if args.record:
        args.record.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"head record written to {args.record}", file=sys.stderr)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report["splits"]["test"]["all real sets"], indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("extract", help="run the judge and keep P(yes) and the hidden state of every sampled pair")
    ex.add_argument("--data", type=Path, required=True)
    ex.add_argument("--judge", default="qwen2.5-coder-1.5b")
    ex.add_argument("--out", type=Path, required=True)
    fi = sub.add_parser("fit", help="fit the head on train, choose on dev, report dev and test, write the record")
    fi.add_argument("--data", type=Path, required=True)
    fi.add_argument("--judge", default="qwen2.5-coder-1.5b")
    fi.add_argument("--features", type=Path, required=True)
    fi.add_argument("--record", type=Path)
    fi.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    extract(args) if args.command == "extract" else fit(args)


if __name__ == "__main__":
    main()
