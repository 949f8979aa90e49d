"""``citegraph eval support``: how well does a verifier tell supported claims from unsupported ones?

Two sources of (premise, claim, gold label) pairs, both read from paths given on the command line:

* HaluEval QA (``halueval_qa.jsonl``): each line gives knowledge, a question, a right answer and a
  hallucinated answer; the claim states the question and one answer, the premise is the knowledge.
* HotpotQA distractor (``hotpotqa_distractor_sample100.json``): the claim states the question and
  its answer; the supported premise is the gold supporting sentences, the unsupported premise is as
  many other sentences of the same paragraphs.

Lines are sampled with a fixed seed and split in halves, dev and test, by line (both pairs of one
line fall on the same side). The decision threshold is chosen on dev (the one that maximises
balanced accuracy) and only then applied to test. Reported: balanced accuracy, F1 of the supported
class, expected calibration error (10 equal-width bins) with a reliability plot, how often the
guards fired on truly supported claims, and the time per pair.

Calibration: the judge's raw P(yes) is a probability of a token, not of support. A Platt scaling
``sigmoid(a * logit(p) + b)`` is fitted on the dev half (maximum likelihood, Newton's method) and its
ECE on test is reported beside the raw one; ``a`` and ``b`` are in the JSON summary. Every pair's
score is written to ``{name}.pairs.jsonl`` so a report can be recomputed without the model.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from citegraph.errors import InputFileError, ModelOutputError
from citegraph.verify.guards import check_guards
from citegraph.verify.judge import LLMJudge

__all__ = ["Pair", "Platt", "Scored", "calibration", "evaluate", "fit_platt", "load_pairs", "metrics"]


@dataclass(frozen=True)
class Pair:
    premise: str
    claim: str
    supported: bool
    group: int  #: the source line: pairs of one line share a split
    answer: str = ""  #: the answer alone: the guards check it, not the question's own numbers and dates


@dataclass(frozen=True)
class Scored:
    pair: Pair
    score: float | None  #: the judge's P(supported), None when it gave no usable answer
    guards: tuple[str, ...]
    seconds: float


def _claim(question: str, answer: str) -> str:
    return f'The answer to "{" ".join(question.split())}" is: {" ".join(answer.split())}'


def load_pairs(path: Path, limit: int, seed: int = 13) -> tuple[str, list[Pair]]:
    """``(dataset name, pairs)`` for ``limit`` sampled lines (2 pairs per line), format detected from content."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read: {exc.strerror or exc}", "pass --data a HaluEval or HotpotQA file") from exc
    rng = random.Random(seed)
    if text.lstrip().startswith("["):
        rows = json.loads(text)
        picked = rng.sample(range(len(rows)), min(limit, len(rows)))
        return "hotpotqa", [p for i in picked for p in _hotpot_pairs(rows[i], i, rng)]
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not lines or not {"knowledge", "question", "right_answer", "hallucinated_answer"} <= set(lines[0]):
        raise InputFileError(str(path), "neither HaluEval QA lines nor a HotpotQA list", "see citegraph eval support --help")
    picked = rng.sample(range(len(lines)), min(limit, len(lines)))
    pairs = []
    for i in picked:
        row = lines[i]
        pairs.append(Pair(row["knowledge"], _claim(row["question"], row["right_answer"]), True, i, row["right_answer"]))
        pairs.append(Pair(row["knowledge"], _claim(row["question"], row["hallucinated_answer"]), False, i, row["hallucinated_answer"]))
    return "halueval_qa", pairs


def _hotpot_pairs(row: dict, index: int, rng: random.Random) -> list[Pair]:
    titles, sentences = row["context"]["title"], row["context"]["sentences"]
    gold = set(zip(row["supporting_facts"]["title"], row["supporting_facts"]["sent_id"], strict=True))
    by_title = dict(zip(titles, sentences, strict=True))
    support = [by_title[t][i].strip() for t, i in sorted(gold) if t in by_title and i < len(by_title[t])]
    others = [
        s.strip() for t in {t for t, _ in gold} if t in by_title for i, s in enumerate(by_title[t]) if (t, i) not in gold and s.strip()
    ]
    claim = _claim(row["question"], row["answer"])
    pairs = [Pair(" ".join(support), claim, True, index, row["answer"])]
    if others:
        pairs.append(Pair(" ".join(rng.sample(others, min(len(support), len(others)))), claim, False, index, row["answer"]))
    return pairs


def evaluate(pairs: Sequence[Pair], judge: LLMJudge | None, progress: Callable[[int, int], None] = lambda i, n: None) -> list[Scored]:
    """Score every pair. Pairs sharing a premise run back to back, so the judge's KV cache is reused."""
    order = sorted(range(len(pairs)), key=lambda i: (pairs[i].premise, i))
    out: dict[int, Scored] = {}
    for n, i in enumerate(order):
        pair = pairs[i]
        start = time.perf_counter()
        guards = tuple(str(g) for g in check_guards(pair.answer or pair.claim, pair.premise))
        score = None
        if judge is not None:
            try:
                score = judge.score(pair.claim, pair.premise)
            except ModelOutputError:
                score = None
        out[i] = Scored(pair, score, guards, time.perf_counter() - start)
        progress(n + 1, len(pairs))
    return [out[i] for i in range(len(pairs))]


@dataclass
class Metrics:
    n: int
    threshold: float
    balanced_accuracy: float
    f1: float
    precision: float
    recall: float
    ece: float | None
    unanswered: int
    bins: list[tuple[float, float, int]] = field(default_factory=list)  #: (mean score, accuracy, count) per bin


def _decide(s: Scored, threshold: float, use_guards: bool) -> bool:
    if use_guards and s.guards:
        return False
    return s.score is not None and s.score >= threshold


def metrics(scored: Sequence[Scored], threshold: float, use_guards: bool = True) -> Metrics:
    tp = sum(1 for s in scored if s.pair.supported and _decide(s, threshold, use_guards))
    fn = sum(1 for s in scored if s.pair.supported and not _decide(s, threshold, use_guards))
    tn = sum(1 for s in scored if not s.pair.supported and not _decide(s, threshold, use_guards))
    fp = sum(1 for s in scored if not s.pair.supported and _decide(s, threshold, use_guards))
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    precision = tp / (tp + fp) if tp + fp else 0.0
    f1 = 2 * precision * tpr / (precision + tpr) if precision + tpr else 0.0
    ece, bins = calibration(scored)
    return Metrics(len(scored), threshold, (tpr + tnr) / 2, f1, precision, tpr, ece, sum(1 for s in scored if s.score is None), bins)


def calibration(scored: Sequence[Scored], n_bins: int = 10) -> tuple[float | None, list[tuple[float, float, int]]]:
    """Expected calibration error of the judge's score as P(supported), and the reliability bins."""
    with_score = [s for s in scored if s.score is not None]
    if not with_score:
        return None, []
    bins: list[list[Scored]] = [[] for _ in range(n_bins)]
    for s in with_score:
        bins[min(int((s.score or 0.0) * n_bins), n_bins - 1)].append(s)
    ece = 0.0
    table = []
    for members in bins:
        if not members:
            continue
        confidence = sum(s.score or 0.0 for s in members) / len(members)
        accuracy = sum(1 for s in members if s.pair.supported) / len(members)
        ece += len(members) / len(with_score) * abs(confidence - accuracy)
        table.append((confidence, accuracy, len(members)))
    return ece, table


@dataclass(frozen=True)
class Platt:
    """``sigmoid(a * logit(p) + b)``: a monotone map, so it changes calibration, never the ranking."""

    a: float = 1.0
    b: float = 0.0

    def __call__(self, p: float) -> float:
        return _sigmoid(self.a * _logit(p) + self.b)


def _logit(p: float, eps: float = 1e-6) -> float:
    p = min(max(p, eps), 1 - eps)
    return math.log(p / (1 - p))


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def fit_platt(scored: Sequence[Scored], iterations: int = 100) -> Platt:
    """Maximum-likelihood Platt scaling on these (dev) pairs, with Platt's smoothed targets.

    Newton's method with a backtracking line search (Lin, Lin and Weng, 2007): plain Newton steps
    diverge when the judge's scores sit near 0 and 1, as a confident model's P(yes) does. With the
    smoothed targets the optimum is finite even when dev is perfectly separated.
    """
    import numpy as np

    rows = [(s.score, s.pair.supported) for s in scored if s.score is not None]
    positives = sum(1 for _, y in rows if y)
    negatives = len(rows) - positives
    if not positives or not negatives:
        return Platt()
    x = np.array([_logit(p) for p, _ in rows])
    # Platt (1999): targets (N+ + 1) / (N+ + 2) and 1 / (N- + 2) instead of 1 and 0, against overfitting.
    t = np.array([(positives + 1) / (positives + 2) if y else 1 / (negatives + 2) for _, y in rows])

    def loss(a: float, b: float) -> float:
        z = a * x + b  # cross-entropy with logits, computed stably
        return float(np.sum(np.logaddexp(0, z) - t * z))

    a, b = 1.0, 0.0
    current = loss(a, b)
    for _ in range(iterations):
        q = 0.5 * (1 + np.tanh(0.5 * (a * x + b)))  # sigmoid without overflow
        w = q * (1 - q)
        gradient = np.array([np.sum((q - t) * x), np.sum(q - t)])
        if float(np.abs(gradient).max()) < 1e-9:
            break
        hessian = np.array([[np.sum(w * x * x), np.sum(w * x)], [np.sum(w * x), np.sum(w)]]) + 1e-12 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        size = 1.0
        while size > 1e-10:
            candidate = loss(a - size * float(step[0]), b - size * float(step[1]))
            if candidate < current - 1e-4 * size * float(gradient @ step):  # Armijo: enough decrease
                break
            size /= 2
        else:
            break  # no step decreases the loss: at the optimum, to numerical precision
        a, b, current = a - size * float(step[0]), b - size * float(step[1]), candidate
    if not (math.isfinite(a) and math.isfinite(b)) or a <= 0:
        # not finite, or a decreasing map that would turn the judge's ranking upside down: keep raw scores
        return Platt()
    return Platt(a, b)


def calibrated(scored: Sequence[Scored], platt: Platt) -> list[Scored]:
    return [Scored(s.pair, None if s.score is None else platt(s.score), s.guards, s.seconds) for s in scored]


def best_threshold(scored: Sequence[Scored], use_guards: bool = True) -> float:
    """The threshold that maximises balanced accuracy on these (dev) pairs; ties go to 0.5's side."""
    candidates = sorted({round(s.score, 4) for s in scored if s.score is not None} | {0.5})
    return max(candidates, key=lambda t: (round(metrics(scored, t, use_guards).balanced_accuracy, 6), -abs(t - 0.5)))


def split(scored: Sequence[Scored]) -> tuple[list[Scored], list[Scored]]:
    """Dev and test halves, by source line, fixed by the sample's seed."""
    groups = sorted({s.pair.group for s in scored})
    dev_groups = set(groups[::2])
    return [s for s in scored if s.pair.group in dev_groups], [s for s in scored if s.pair.group not in dev_groups]


def report(name: str, verifier: str, scored: Sequence[Scored], out_dir: Path) -> dict:
    """Pick the threshold on dev, measure test, write ``{name}.md``, ``{name}.json`` and ``{name}.png``."""
    dev, test = split(scored)
    threshold = best_threshold(dev) if any(s.score is not None for s in dev) else 0.5
    rows = {
        "dev": metrics(dev, threshold),
        "test": metrics(test, threshold),
        "test, judge only": metrics(test, threshold, use_guards=False),
    }
    platt = fit_platt(dev)
    calibrated_test = metrics(calibrated(test, platt), platt(threshold))
    latency = sum(s.seconds for s in scored) / max(len(scored), 1)
    guard_fp = sum(1 for s in test if s.pair.supported and s.guards) / max(sum(1 for s in test if s.pair.supported), 1)
    guard_tp = sum(1 for s in test if not s.pair.supported and s.guards) / max(sum(1 for s in test if not s.pair.supported), 1)
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = [
        f"# Support verification: {name}",
        "",
        f"verifier: `{verifier}`; {len(scored)} pairs ({len(dev)} dev, {len(test)} test); threshold {threshold:.4f} chosen on dev",
        "",
        "| split | pairs | balanced accuracy | F1 (supported) | precision | recall | ECE | no answer |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, m in rows.items():
        ece = "n/a" if m.ece is None else f"{m.ece:.3f}"
        lines.append(
            f"| {label} | {m.n} | {m.balanced_accuracy:.3f} | {m.f1:.3f} | {m.precision:.3f} | {m.recall:.3f} | {ece} | {m.unanswered} |"
        )
    lines += [
        "",
        f"Platt scaling fitted on dev: a = {platt.a:.3f}, b = {platt.b:.3f}; test ECE calibrated "
        + ("n/a" if calibrated_test.ece is None else f"{calibrated_test.ece:.3f}")
        + (" (raw n/a)." if rows["test"].ece is None else f" (raw {rows['test'].ece:.3f}).")
        + " Balanced accuracy is unchanged: the map is monotone and the threshold moves with it.",
        "",
        f"Guards fired on {guard_fp:.1%} of supported and {guard_tp:.1%} of unsupported test pairs.",
        f"Mean time per pair: {latency * 1000:.0f} ms (guards + judge, KV cache reused across pairs sharing a premise).",
        "",
        "Reliability (test): mean score, observed supported rate, pairs per bin, raw and after Platt scaling:",
        "",
        "| score | mean score | supported rate | pairs |",
        "|---|---|---|---|",
        *[f"| raw | {c:.2f} | {a:.2f} | {k} |" for c, a, k in rows["test"].bins],
        *[f"| calibrated | {c:.2f} | {a:.2f} | {k} |" for c, a, k in calibrated_test.bins],
    ]
    (out_dir / f"{name}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = {
        "dataset": name,
        "verifier": verifier,
        "threshold": threshold,
        "seconds_per_pair": latency,
        "guards_on_supported": guard_fp,
        "guards_on_unsupported": guard_tp,
        "platt": {"a": platt.a, "b": platt.b},
        "test_ece_calibrated": calibrated_test.ece,
        **{label: {k: v for k, v in vars(m).items() if k != "bins"} for label, m in rows.items()},
    }
    (out_dir / f"{name}.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    dev_groups = {s.pair.group for s in dev}
    with (out_dir / f"{name}.pairs.jsonl").open("w", encoding="utf-8") as handle:
        for s in scored:
            record = {**vars(s.pair), "split": "dev" if s.pair.group in dev_groups else "test"}
            record.update(score=s.score, guards=list(s.guards), seconds=s.seconds)
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    _plot(rows["test"].bins, f"{name}: reliability on test ({verifier})", out_dir / f"{name}.png", calibrated_test.bins)
    return summary


def _plot(bins: list[tuple[float, float, int]], title: str, path: Path, after: list[tuple[float, float, int]] | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.5, 4.5), dpi=100)
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    if bins:
        ax.plot([b[0] for b in bins], [b[1] for b in bins], marker="o", label="judge, raw P(yes)")
        for c, a, k in bins:
            ax.annotate(str(k), (c, a), textcoords="offset points", xytext=(4, -10), fontsize=7)
    if after:
        ax.plot([b[0] for b in after], [b[1] for b in after], marker="s", label="after Platt scaling (fit on dev)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("score: P(supported)")
    ax.set_ylabel("observed fraction supported")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
