"""``citegraph eval support``: how well does a verifier tell supported claims from unsupported ones?

Two sources of (premise, claim, gold label) pairs, both read from paths given on the command line:

* HaluEval QA (``halueval_qa.jsonl``): each line gives knowledge, a question, a right answer and a
  hallucinated answer; the claim states the question and one answer, the premise is the knowledge.
* HotpotQA distractor (``hotpotqa_distractor_sample100.json``): the claim states the question and
  its answer; the supported premise is the gold supporting sentences, the unsupported premise is as
  many other sentences of the same paragraphs.
* AttributionBench (``dev_all_subset_balanced.jsonl``): real answers of search-engine QA systems;
  the claim is the ``claim`` field (an answer or one sentence of it), the premise its ``references``
  joined by blank lines, and the label a person's ``attribution_label``. One pair per line. The file
  is the benchmark's dev split: its figures are dev figures, whatever half they come from.
* Behaviour families (``{family, premise, claim, label}`` per line: :mod:`citegraph.eval.behaviour`,
  ``bench/build_behaviour.py``): every line, reported per family as the share of cases the product
  labels as the family expects (nothing is fitted on them). A premise whose structure marks text
  as not asserted (a code block, ``~~`` or ``<del>``, a framing heading or sentence) is cited as
  ingest would store it: its sentences, each with its frame (:func:`premise_spans`).

Lines are sampled with a fixed seed and split in halves, dev and test, by a hash of the line's
index in its file (both pairs of one line fall on the same side, and a line is on the same side
whatever ``--limit`` samples, so the screen, trained on dev lines, never sees a test line). The
decision threshold is chosen on dev (the one that maximises balanced accuracy) and only then applied
to test.

Every pair goes through the product's own path, :class:`~citegraph.verify.cascade.CheckingVerifier`:
guards, then citegraph's trained checker (or, with ``--verifier guards``, the near-quote rule and
the screen), then the judge when one is named. Its label, score and deciding stage are
recorded; the judge is also asked about the pairs an earlier stage settled (``judge_all``), outside
the timing, so the judge alone can be compared with the cascade. Reported: balanced accuracy, F1 of
the supported class, expected calibration error (10 equal-width bins) with a reliability plot; the
share of pairs each stage settles and its accuracy on them; how often each guard fired (conflicts,
which overrule, and signals) on supported and unsupported pairs; mean and p95 seconds per pair of
the product's path. The contradiction prompt is not asked (it does not change supported or not).

Calibration: the judge's raw P(yes) is a probability of a token, not of support. A Platt scaling
``sigmoid(a * logit(p) + b)`` is fitted on the dev pairs the judge decides (maximum likelihood,
Newton's method) and its ECE on the test pairs the judge decides is reported beside the raw one;
``--fit FILE`` writes it as a calibration record (:mod:`citegraph.verify.calibration`) that the
verifier applies. Every pair's score is written to ``{name}.pairs.jsonl`` so a report can be
recomputed without the model.

Why this file is long (~750 lines): one harness, from the pairs of each data set to the report that
reads every stage of the cascade on them; its metrics, calibration and report share the scored
pairs' record. Dividing it into loaders, metrics and report is left for a later step.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from citegraph.errors import InputFileError, ModelOutputError, UserError
from citegraph.eval import Bars, no_bars, report_name
from citegraph.eval.formats import MultiHopRow, is_multihop, multihop_row, read_json
from citegraph.ingest.structure import frame_at, structural_frames
from citegraph.models import Span, Stage
from citegraph.verify.calibration import Calibration, Platt
from citegraph.verify.cascade import CheckingVerifier
from citegraph.verify.guards import check_guards
from citegraph.verify.judge import LLMJudge
from citegraph.verify.screen import Screen

__all__ = [
    "Pair",
    "Platt",
    "Scored",
    "calibration",
    "evaluate",
    "fit_platt",
    "fit_record",
    "is_dev",
    "load_pairs",
    "metrics",
    "report",
    "split",
]


@dataclass(frozen=True)
class Pair:
    premise: str
    claim: str
    supported: bool
    group: int  #: the source line: pairs of one line share a split
    answer: str = ""  #: the answer alone (HaluEval, HotpotQA), kept for reports
    source: str = ""  #: the sub-set a line comes from, where the data names one (AttributionBench's src_dataset)


@dataclass(frozen=True)
class Scored:
    pair: Pair
    score: float | None  #: the judge's raw P(supported), None when there is no judge or it gave no usable answer
    guards: tuple[str, ...]  #: every guard that fired on the claim: conflicts (which overrule) and signals
    seconds: float  #: the product's path, up to the stage that decided
    stage: str = Stage.JUDGE.value  #: the stage that decided in the product's path
    settled: bool | None = None  #: that stage's decision (supported?) when it came before the judge
    label: str = ""  #: the product's label (at its own threshold)
    product_score: float | None = None  #: the score the product shows (screen probability, calibrated or raw judge score)


def _claim(question: str, answer: str) -> str:
    return f'The answer to "{" ".join(question.split())}" is: {" ".join(answer.split())}'


#: HaluEval's grounded tasks: (source field, claim fields for the right and the hallucinated output, name)
_HALUEVAL = (
    ("knowledge", ("right_answer", "hallucinated_answer"), "halueval_qa"),
    ("knowledge", ("right_response", "hallucinated_response"), "halueval_dialogue"),
    ("document", ("right_summary", "hallucinated_summary"), "halueval_summarization"),
)


def load_pairs(path: Path, limit: int, seed: int = 13) -> tuple[str, list[Pair]]:
    """``(dataset name, pairs)`` for ``limit`` sampled lines (2 pairs per line; AttributionBench 1), format
    detected from content: HaluEval (QA, dialogue, summarization), AttributionBench, or multi-hop
    questions in any layout :mod:`citegraph.eval.formats` reads (HotpotQA, 2WikiMultihopQA, MuSiQue)."""
    rng = random.Random(seed)
    rows = read_json(path)
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        raise InputFileError(str(path), "no data: expected JSON objects, a list or one per line", _FORMATS)
    first = rows[0]
    picked = rng.sample(range(len(rows)), min(limit, len(rows)))
    if is_multihop(first):
        pairs = []
        for i in picked:
            pairs += _multihop_pairs(multihop_row(rows[i], i, str(path)), i, rng)
        # 2WikiMultihopQA shares HotpotQA's own layout and adds its reasoning triples, "evidences"
        return ("musique" if "paragraphs" in first else "2wikimultihopqa" if "evidences" in first else "hotpotqa"), pairs
    if {"family", "premise", "claim", "label"} <= set(first):  # behaviour families (citegraph.eval.behaviour), every line
        return "behaviour", [_behaviour_pair(row, i, path) for i, row in enumerate(rows)]
    if {"claim", "references", "attribution_label"} <= set(first):
        return "attributionbench", [_attribution_pair(rows[i], i, path) for i in picked]
    for source, (right, wrong), name in _HALUEVAL:
        if {source, right, wrong} <= set(first):
            pairs = []
            for i in picked:
                row = rows[i]
                needed = (source, right, wrong, "question") if name == "halueval_qa" else (source, right, wrong)
                missing = [k for k in needed if not isinstance(row.get(k), str)]
                if missing:
                    raise InputFileError(f"{path}:{i + 1}", f"{name} line without text in {', '.join(missing)}", _FORMATS)
                # a QA answer is a phrase: the claim states it with its question; a response or summary stands alone
                claims = (
                    (_claim(row["question"], row[right]), _claim(row["question"], row[wrong]))
                    if name == "halueval_qa"
                    else (row[right], row[wrong])
                )
                pairs.append(Pair(row[source], " ".join(claims[0].split()), True, i, row[right]))
                pairs.append(Pair(row[source], " ".join(claims[1].split()), False, i, row[wrong]))
            return name, pairs
    if {"user_query", "chatgpt_response", "hallucination"} <= set(first):
        raise InputFileError(
            str(path),
            "HaluEval's general set gives no source text to check an answer against (it measures open-domain factuality)",
            "use its qa, dialogue or summarization files",
        )
    raise InputFileError(str(path), f"unknown data: the first object's fields are {sorted(first)[:12]}", _FORMATS)


_FORMATS = (
    "pass --data a HaluEval (qa, dialogue, summarization), AttributionBench, behaviour families (bench/build_behaviour.py), HotpotQA, 2WikiMultihopQA or MuSiQue file; "
    "see citegraph eval support --help"
)


def _behaviour_pair(row: dict, index: int, path: Path) -> Pair:
    """One behaviour case: ``{family, premise, claim, label}`` with ``label`` supported or not_supported."""
    if row.get("label") not in ("supported", "not_supported") or not all(
        isinstance(row.get(k), str) for k in ("family", "premise", "claim")
    ):
        raise InputFileError(
            f"{path}:{index + 1}",
            "a behaviour case needs text in family, premise and claim, and label supported or not_supported",
            _FORMATS,
        )
    return Pair(row["premise"], " ".join(row["claim"].split()), row["label"] == "supported", index, source=row["family"])


def _attribution_pair(row: dict, index: int, path: Path) -> Pair:
    """One AttributionBench line: does ``references`` (joined) support ``claim``, as a person labelled it?"""
    label = " ".join(str(row.get("attribution_label", "")).lower().replace("_", " ").split())
    if label not in ("attributable", "not attributable") or not isinstance(row.get("references"), list) or "claim" not in row:
        raise InputFileError(
            f"{path}:{index + 1}",
            f"attribution_label {row.get('attribution_label')!r}, references {type(row.get('references')).__name__}"
            + ("" if "claim" in row else ", no claim"),
            "AttributionBench lines give a claim, label it 'attributable' or 'not attributable' and give references as a list",
        )
    claim = " ".join(str(row["claim"]).split())
    premise = "\n\n".join(str(r).strip() for r in row["references"] if str(r).strip())
    return Pair(premise, claim, label == "attributable", index, claim, str(row.get("src_dataset") or ""))


def _multihop_pairs(row: MultiHopRow, index: int, rng: random.Random) -> list[Pair]:
    """The question and its answer as the claim. Supported premise: the supporting sentences. Unsupported:
    as many other sentences of the same paragraphs (HotpotQA, 2Wiki); for paragraph-level gold (MuSiQue)
    the supporting paragraphs without the ones that state the answer or one of its aliases (as whole
    words), with as many distractor paragraphs that state neither (no pair where every supporting
    paragraph states the answer). A row whose supporting sentences are all missing gives no pair."""
    claim = _claim(row.question, row.answer)
    if row.sentence_gold:
        gold = set(row.gold)
        # in title order (then sentence order): the order the figures under docs/results were made with
        title = [t for t, _ in row.paragraphs]
        support = [row.paragraphs[p][1][i].strip() for p, i in sorted(gold, key=lambda g: (title[g[0]], g[1]))]
        others = [
            s.strip()
            for p in sorted(row.gold_paragraphs, key=lambda p: title[p])
            for i, s in enumerate(row.paragraphs[p][1])
            if (p, i) not in gold and s.strip()
        ]
        if not support:
            return []
        pairs = [Pair(" ".join(support), claim, True, index, row.answer)]
        if others:
            pairs.append(Pair(" ".join(rng.sample(others, min(len(support), len(others)))), claim, False, index, row.answer))
        return pairs
    if not row.gold_paragraphs or not row.answer.strip():
        return []  # MuSiQue's unanswerable questions
    texts = [" ".join(s.strip() for s in row.paragraphs[p][1]) for p in range(len(row.paragraphs))]
    names = [n.strip() for n in (row.answer, *row.aliases) if n.strip()]
    stated = re.compile("|".join(rf"(?<!\w){re.escape(n)}(?!\w)" for n in names), re.IGNORECASE)
    states = [bool(stated.search(t)) for t in texts]
    pairs = [Pair("\n\n".join(texts[p] for p in row.gold_paragraphs), claim, True, index, row.answer)]
    kept = [texts[p] for p in row.gold_paragraphs if not states[p]]
    removed = len(row.gold_paragraphs) - len(kept)
    distractors = [texts[p] for p in range(len(texts)) if p not in row.gold_paragraphs and not states[p] and texts[p]]
    if kept and removed:
        pairs.append(Pair("\n\n".join(kept + rng.sample(distractors, min(removed, len(distractors)))), claim, False, index, row.answer))
    return pairs


class _RecordingJudge(LLMJudge):
    """The judge, keeping each raw P(yes) it returns: the product's path may calibrate the score it shows."""

    def __init__(self, judge: LLMJudge) -> None:
        super().__init__(judge.model, top_logprobs=judge.top_logprobs, head=judge.head or False)
        self.inner = judge
        self.raw: dict[tuple[str, str], float] = {}

    def score(self, claim: str, premise: str) -> float:
        p = self.inner.score(claim, premise)
        self.raw[claim, premise] = p
        return p


_PIECE = re.compile(r"[^\n]+")
_SENTENCE = re.compile(r"\S.*?(?:[.!?](?=\s|$)|$)")


def premise_spans(premise: str) -> list[Span]:
    """A pair's premise as the product would cite it: one span, or, where its structure marks some of
    it as not asserted (a code block, struck-through text, a framing heading or sentence: read as
    ingest reads a document, :mod:`citegraph.ingest.structure`), its lines, each with its frame."""
    regions = structural_frames(premise)
    if not regions:
        return [Span("eval", "pair", 0, len(premise), premise)]
    spans = []
    for line in _PIECE.finditer(premise):
        for piece in _SENTENCE.finditer(line.group()):
            start, end = line.start() + piece.start(), line.start() + piece.end()
            spans.append(Span("eval", "pair", start, end, premise[start:end], frame_at(regions, start, end)))
    return spans or [Span("eval", "pair", 0, len(premise), premise)]


def evaluate(
    pairs: Sequence[Pair],
    judge: LLMJudge | None,
    progress: Callable[[int, int], None] = lambda i, n: None,
    *,
    screen: Screen | bool = True,
    calibration: Calibration | bool = True,
    judge_all: bool = True,
    checker: bool = True,
) -> list[Scored]:
    """Run every pair through :class:`CheckingVerifier` (the product's path). Pairs sharing a premise
    run back to back, so the judge's KV cache is reused. With ``judge_all``, the judge also scores the
    pairs an earlier stage settled (not timed), for the judge-alone comparison and the calibration fit."""
    recorder = _RecordingJudge(judge) if judge is not None else None
    verifier = CheckingVerifier(recorder, contradiction=False, screen=screen, calibration=calibration, checker=checker)
    order = sorted(range(len(pairs)), key=lambda i: (pairs[i].premise, i))
    out: dict[int, Scored] = {}
    for n, i in enumerate(order):
        pair = pairs[i]
        premise = pair.premise if pair.premise.strip() else "(no text)"
        spans = premise_spans(premise)
        start = time.perf_counter()
        support = verifier.verify(pair.claim, spans)
        seconds = time.perf_counter() - start
        raw = recorder.raw.pop((pair.claim, " ".join(premise.split())), None) if recorder is not None else None
        if raw is None and judge is not None and judge_all and support.stage != Stage.JUDGE:
            try:
                raw = judge.score(pair.claim, " ".join(premise.split()))
            except ModelOutputError:
                raw = None
        stage = str(support.stage)
        settled = (support.label == "supported") if stage in (Stage.GUARDS, Stage.QUOTE, Stage.CHECKER, Stage.SCREEN) else None
        guards = tuple(str(g) for g in check_guards(pair.claim, " ".join(premise.split())))  # the text the verifier checks
        out[i] = Scored(pair, raw, guards, seconds, stage, settled, support.label, support.score)
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
    """The cascade's decision (``use_guards``: a stage before the judge settles it when it did), else the judge's."""
    if use_guards and s.settled is not None:
        return s.settled
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


def _logit(p: float, eps: float = 1e-6) -> float:
    p = min(max(p, eps), 1 - eps)
    return math.log(p / (1 - p))


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
    return [replace(s, score=None if s.score is None else platt(s.score)) for s in scored]


def best_threshold(scored: Sequence[Scored], use_guards: bool = True) -> float:
    """The threshold that maximises balanced accuracy on these (dev) pairs; ties go to 0.5's side."""
    candidates = sorted({round(s.score, 4) for s in scored if s.score is not None} | {0.5})
    return max(candidates, key=lambda t: (round(metrics(scored, t, use_guards).balanced_accuracy, 6), -abs(t - 0.5)))


def is_dev(group: int) -> bool:
    """Whether source line ``group`` is in the dev half: a hash of its index, so a line's half does not
    depend on which other lines were sampled."""
    return hashlib.sha256(f"line {group}".encode()).digest()[0] % 2 == 0


def split(scored: Sequence[Scored]) -> tuple[list[Scored], list[Scored]]:
    """Dev and test halves, by source line (:func:`is_dev`)."""
    return [s for s in scored if is_dev(s.pair.group)], [s for s in scored if not is_dev(s.pair.group)]


_SETTLING = (Stage.GUARDS, Stage.QUOTE, Stage.CHECKER, Stage.SCREEN, Stage.JUDGE, Stage.NONE)


def _judged(scored: Sequence[Scored]) -> list[Scored]:
    """The pairs the product sends to the judge, with a score: where a calibration of the judge is used."""
    return [s for s in scored if s.stage == Stage.JUDGE and s.score is not None]


def _stages(test: Sequence[Scored], threshold: float) -> list[dict]:
    """Per stage: the share of pairs it decides and its accuracy on them (the judge at ``threshold``)."""
    rows = []
    for stage in _SETTLING:
        members = [s for s in test if s.stage == stage]
        if stage == Stage.NONE:
            right = None
        elif stage == Stage.JUDGE:
            right = sum(1 for s in members if (s.score is not None and s.score >= threshold) == s.pair.supported)
        else:
            right = sum(1 for s in members if s.settled == s.pair.supported)
        rows.append(
            {
                "stage": stage.value,
                "pairs": len(members),
                "share": len(members) / max(len(test), 1),
                "accuracy": None if right is None or not members else right / len(members),
            }
        )
    return rows


def _guard_rates(test: Sequence[Scored]) -> dict[str, dict[str, float]]:
    """For each guard kind, as a conflict and as a signal: the share of supported and unsupported pairs it fired on."""
    out: dict[str, dict[str, float]] = {}
    for label, members in (
        ("supported", [s for s in test if s.pair.supported]),
        ("unsupported", [s for s in test if not s.pair.supported]),
    ):
        for s in members:
            for g in set(s.guards):
                head = g.split(":", 1)[0]
                conflict = head.endswith(" conflict")
                key = head if head == "unrelated" else head.replace(" conflict", "") + (" (conflict)" if conflict else " (signal)")
                out.setdefault(key, {"supported": 0.0, "unsupported": 0.0})[label] += 1 / len(members)
    return dict(sorted(out.items()))


def _seconds(scored: Sequence[Scored]) -> tuple[float, float]:
    times = sorted(s.seconds for s in scored)
    if not times:
        return 0.0, 0.0
    return sum(times) / len(times), times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)]


def _product_ece(test: Sequence[Scored]) -> float | None:
    """ECE of the score the product shows (screen probability or judge score), over the pairs that have one."""
    shown = [replace(s, score=s.product_score) for s in test if s.product_score is not None]
    return calibration(shown)[0]


def report(name: str, verifier: str, scored: Sequence[Scored], out_dir: Path) -> dict:
    """Pick the threshold on dev, measure test, write ``{name}.md``, ``{name}.json`` and ``{name}.png``."""
    dev, test = split(scored)
    threshold = best_threshold(dev) if any(s.score is not None for s in dev) else 0.5
    rows = {
        "dev": metrics(dev, threshold),
        "test": metrics(test, threshold),
        "test, judge only": metrics(test, threshold, use_guards=False),
    }
    product = _label_metrics(test)
    platt = fit_platt(_judged(dev))
    judged_test = _judged(test)
    raw_judged = calibration(judged_test)[0]
    calibrated_test = metrics(calibrated(judged_test, platt), platt(threshold))
    mean, p95 = _seconds(scored)
    any_sup = sum(1 for s in test if s.pair.supported and s.guards) / max(sum(1 for s in test if s.pair.supported), 1)
    any_uns = sum(1 for s in test if not s.pair.supported and s.guards) / max(sum(1 for s in test if not s.pair.supported), 1)
    conflict_sup = sum(1 for s in test if s.pair.supported and s.stage == Stage.GUARDS) / max(sum(1 for s in test if s.pair.supported), 1)
    conflict_uns = sum(1 for s in test if not s.pair.supported and s.stage == Stage.GUARDS) / max(
        sum(1 for s in test if not s.pair.supported), 1
    )
    stages = _stages(test, threshold)
    guard_rates = _guard_rates(test)
    # behaviour families are not fitted on: each is measured on every case (dev and test alike)
    by_source = _by_source(scored if name == "behaviour" else test, threshold)
    product_ece = _product_ece(test)
    out_dir.mkdir(parents=True, exist_ok=True)

    def cell(v: float | None, fmt: str = ".3f") -> str:
        return "n/a" if v is None else format(v, fmt)

    lines = [
        f"# Support verification: {name}",
        "",
        f"verifier: `{verifier}`; {len(scored)} pairs ({len(dev)} dev, {len(test)} test); judge threshold {threshold:.4f} chosen on dev",
        "",
        "| split | pairs | balanced accuracy | F1 (supported) | precision | recall | ECE (judge, raw) | no answer |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, m in rows.items():
        lines.append(
            f"| {label} | {m.n} | {m.balanced_accuracy:.3f} | {m.f1:.3f} | {m.precision:.3f} | {m.recall:.3f} | {cell(m.ece)} | {m.unanswered} |"
        )
    lines.append(
        f"| test, the product's labels | {product.n} | {product.balanced_accuracy:.3f} | {product.f1:.3f} | {product.precision:.3f} "
        f"| {product.recall:.3f} | {cell(product_ece)} | {product.unanswered} |"
    )
    lines += [
        "",
        "`test`: the cascade (guards, the checker or quote and screen settle what they can; the judge at the dev threshold the rest). "
        "`the product's labels`: exactly what `CheckingVerifier` answered (judge at its own threshold; `unverified` counts as "
        "not supported; its ECE is that of the score it shows, over the pairs that have one).",
        "",
        *(
            [
                (
                    "By family (every case; accuracy: the share the product labels as the family expects):"
                    if name == "behaviour"
                    else "By source (test; the threshold is the one chosen on all of dev, none is fitted per source):"
                ),
                "",
                "| source | pairs | supported | balanced accuracy | the product's labels | accuracy (the product's labels) |",
                "|---|---|---|---|---|---|",
                *[
                    f"| {k} | {v['pairs']} | {v['supported']} | {cell(v['balanced_accuracy'])} | {cell(v['product_balanced_accuracy'])} "
                    f"| {v['accuracy']:.3f} |"
                    for k, v in by_source.items()
                ],
                "",
            ]
            if by_source
            else []
        ),
        "Stages on test (share of pairs each decides, and its accuracy on them):",
        "",
        "| stage | pairs | share | accuracy |",
        "|---|---|---|---|",
        *[f"| {r['stage']} | {r['pairs']} | {r['share']:.1%} | {cell(r['accuracy'])} |" for r in stages],
        "",
        f"Platt scaling fitted on the {len(_judged(dev))} dev pairs the judge decides: a = {platt.a:.3f}, b = {platt.b:.3f}; "
        f"ECE on the {len(judged_test)} test pairs the judge decides: {cell(calibrated_test.ece)} calibrated, {cell(raw_judged)} raw.",
        "",
        f"Guards fired on {any_sup:.1%} of supported and {any_uns:.1%} of unsupported test pairs; a proof (a conflict or an "
        f"unrelated text: it overrules) on {conflict_sup:.1%} and {conflict_uns:.1%}. By kind:",
        "",
        "| guard | supported | unsupported |",
        "|---|---|---|",
        *[f"| {k} | {v['supported']:.1%} | {v['unsupported']:.1%} |" for k, v in guard_rates.items()],
        "",
        f"Seconds per pair (the product's path, all pairs): mean {mean:.3f}, p95 {p95:.3f}.",
        "",
        "Reliability (test, the pairs the judge decides): mean score, observed supported rate, pairs per bin, raw and after Platt scaling:",
        "",
        "| score | mean score | supported rate | pairs |",
        "|---|---|---|---|",
        *[f"| raw | {c:.2f} | {a:.2f} | {k} |" for c, a, k in calibration(judged_test)[1]],
        *[f"| calibrated | {c:.2f} | {a:.2f} | {k} |" for c, a, k in calibrated_test.bins],
    ]
    (out_dir / f"{name}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = {
        "dataset": name,
        "verifier": verifier,
        "threshold": threshold,
        "seconds_per_pair": mean,
        "seconds_p95": p95,
        "guards_on_supported": any_sup,
        "guards_on_unsupported": any_uns,
        "conflicts_on_supported": conflict_sup,
        "conflicts_on_unsupported": conflict_uns,
        "guard_rates": guard_rates,
        "stages": stages,
        "by_source": by_source,
        "platt": {"a": platt.a, "b": platt.b},
        "test_ece_calibrated": calibrated_test.ece,
        "test, product labels": {k: v for k, v in vars(product).items() if k != "bins"} | {"ece": product_ece},
        **{label: {k: v for k, v in vars(m).items() if k != "bins"} for label, m in rows.items()},
    }
    (out_dir / f"{name}.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    with (out_dir / f"{name}.pairs.jsonl").open("w", encoding="utf-8") as handle:
        for s in scored:
            record = {**vars(s.pair), "split": "dev" if is_dev(s.pair.group) else "test"}
            record.update(
                score=s.score, guards=list(s.guards), seconds=s.seconds, stage=s.stage, label=s.label, product_score=s.product_score
            )
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    _plot(calibration(judged_test)[1], f"{name}: reliability on test ({verifier})", out_dir / f"{name}.png", calibrated_test.bins)
    return summary


def _by_source(test: Sequence[Scored], threshold: float) -> dict[str, dict[str, Any]]:
    """Metrics per sub-set (AttributionBench's sources, behaviour families); balanced accuracy is None
    where one class is absent, and ``accuracy`` is the share of the product's labels that are right."""
    groups: dict[str, list[Scored]] = {}
    for s in test:
        if s.pair.source:
            groups.setdefault(s.pair.source, []).append(s)
    out = {}
    for source in sorted(groups):
        members = groups[source]
        supported = sum(1 for s in members if s.pair.supported)
        both = 0 < supported < len(members)
        out[source] = {
            "pairs": len(members),
            "supported": supported,
            "balanced_accuracy": metrics(members, threshold).balanced_accuracy if both else None,
            "product_balanced_accuracy": _label_metrics(members).balanced_accuracy if both else None,
            "accuracy": sum((s.label == "supported") == s.pair.supported for s in members) / len(members),
        }
    return out


def _label_metrics(scored: Sequence[Scored]) -> Metrics:
    """Metrics of the product's own labels (``supported`` or not)."""
    as_scores = [replace(s, score=1.0 if s.label == "supported" else 0.0, settled=None) for s in scored]
    m = metrics(as_scores, 0.5, use_guards=False)
    return replace(m, ece=None, bins=[], unanswered=sum(1 for s in scored if s.label == "unverified"))


def fit_record(scored: Sequence[Sequence[Scored]], judge: LLMJudge, data: str) -> Calibration:
    """The calibration record of ``judge`` fitted on the dev halves of ``scored`` (one list per data set):
    Platt scaling on the dev pairs the judge decides in the product's path (every dev pair with a score
    when fewer than 20), the threshold chosen on dev (mapped to the calibrated scale), and the ECE on the
    matching test pairs."""
    halves = [split(one) for one in scored]
    dev = [s for d, _ in halves for s in d]
    test = [s for _, t in halves for s in t]
    fitted, which = _judged(dev), "dev, the pairs the judge decides behind guards, quote and screen"
    test_pairs = _judged(test)
    if len(fitted) < 20:
        fitted, which = [s for s in dev if s.score is not None], "dev, every pair the judge scored"
        test_pairs = [s for s in test if s.score is not None]
    platt = fit_platt(fitted)
    threshold = best_threshold(dev) if fitted else 0.5
    ece = calibration(calibrated(test_pairs, platt))[0]
    return Calibration(judge.name, judge.prompt, platt, data, which, len(fitted), platt(threshold), ece, len(test_pairs))


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


def run(
    paths: Sequence[Path],
    verifier: str,
    *,
    timeout: float,
    limit: int,
    out: Path,
    fit: Path | None = None,
    bars: Bars = no_bars,
    each: Callable[[Path], None] = lambda report: None,
    say: Callable[[str], None] = lambda message: None,
) -> list[dict]:
    """``citegraph eval support``: every file's pairs through the product's check with the judge
    ``verifier`` names, one report per file under ``out`` (``each`` is told each report's Markdown
    file as it is written); with ``fit``, the judge's calibration record, fitted on the dev halves of
    every file, is written there. Returns the reports' summaries."""
    from citegraph.components import DEMO_MODEL, make_judge

    judge = make_judge(verifier, timeout=timeout)
    if fit is not None and judge is None:
        raise UserError(f"--fit needs a judge model: pass --verifier SPEC (e.g. gguf:{DEMO_MODEL})")
    if fit is not None and judge is not None and judge.head is not None:
        # the record calibrates P(yes); a head is its own calibration (bench/judge_head.py trains it)
        say(f"--fit calibrates {judge.name}'s P(yes): its trained head is not used in this run")
        judge.head = None
    summaries: list[dict] = []
    every: list[list[Scored]] = []
    names: list[str] = []
    taken: set[str] = set()
    try:
        for path in paths:
            name, pairs = load_pairs(path, limit)
            name = report_name(name, taken, path)
            with bars(name) as advance:
                # --fit: the record is fitted on raw scores, so the product's path runs uncalibrated here
                scored = evaluate(pairs, judge, advance, calibration=fit is None, checker=verifier not in ("guards", "none"))
            summaries.append(report(name, verifier, scored, out))
            every.append(scored)
            names.append(name)
            each(out / f"{name}.md")
    finally:
        if judge is not None:
            judge.model.close()
    if fit is not None and judge is not None:
        record = fit_record(every, judge, "+".join(names))
        record.save(fit)
        say(f"calibration record for {record.judge} ({record.split}, n={record.n}) written to {fit}")
    return summaries
