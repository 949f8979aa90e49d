"""The screen: a small classifier that settles the clear cases between the quote check and the judge.

A language-model judge costs seconds per claim-span pair on a laptop; some pairs are not hard. The
screen is a logistic regression over features computed in tens of milliseconds, most of it the
MiniLM embedding of the claim and at most four cited sentences (:func:`features`):

* content-word overlap of claim and cited text (whole text and best sentence; exact and by 5-letter
  prefix, so "cancellation" meets "cancelling"), word bigrams, the claim's missing words;
* names (capitalised words) and numbers of the claim found in the cited text;
* the longest phrase of the claim the cited text never says;
* MiniLM cosine of the claim with the cited sentences that share most words with it
  (all-MiniLM-L6-v2, the embedder citegraph ships);
* negation of claim and best sentence, the guards' signals (:func:`citegraph.verify.guards.signals`),
  and the assertion frames of the best sentence (:mod:`citegraph.verify.assertion`).

It was trained on the dev halves only (``bench/train_screen.py``; the data, the split, the
regularisation and the thresholds are in the weights file), and it **abstains when unsure**: it
settles a pair only when its probability is at least ``high`` (``supported``) or at most ``low``
(``not_supported``), thresholds chosen on dev (out-of-fold) so that what it settles is right at
least 95% of the time on each dev set. Anything between goes on to the judge, or stays
``unverified`` without one. It never settles a near-quote whose source frames it (that is the
assertion check's finding, which its lexical features cannot see past), and it never settles
``supported`` where :func:`doubt` finds a guard signal or a role swap (names or numbers in another
order): built from HotpotQA sentences, every swapped claim used to pass it (bench/contradictions.py).

Measured on the held-out test halves (docs/results/2026-11-30/screen.md), it settles about 1% of
HaluEval QA pairs, 9% of HotpotQA's and 8% of AttributionBench's, right on 86%, 100% and 96% of
them: lexical features see an unrelated or reworded sentence, not a fluent, on-topic hallucination.

The weights ship as ``data/screen.json``, pinned by sha256 (:data:`SCREEN_SHA256`) and checked when
loaded, like the embedder's ONNX file: a changed file is refused, not used. Retraining
(``bench/train_screen.py``) writes the same file from the same data; pin the sha256 it prints.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from citegraph.errors import ModelUnavailable
from citegraph.verify.assertion import NOT_ASSERTED, FrameKind, unkept_frames
from citegraph.verify.guards import signals
from citegraph.verify.text import FUNCTION_WORDS, content_words, has_negation, numbers_in, premise_sentences, singular, tokenize

if TYPE_CHECKING:
    from citegraph.embed.base import Embedder

__all__ = ["FEATURES", "SCREEN_PATH", "SCREEN_SHA256", "Screen", "ScreenModel", "ScreenResult", "features", "load_screen"]

SCREEN_PATH = Path(__file__).parent / "data" / "screen.json"
SCREEN_SHA256 = "dbda8f15a46df7d5c24bd59b32c99709e3fbec4764a5a14325876d9c28ce5e44"
FORMAT = "citegraph-screen/1"

FEATURES = (
    "overlap",  # share of the claim's content words that occur in the cited text
    "overlap_prefix",  # the same, words compared by their first 5 letters
    "best_sentence_overlap",  # the largest share found in one sentence (prefixes)
    "missing_words",  # log(1 + claim content words not in the cited text, by prefix)
    "bigrams",  # share of the claim's word bigrams (not both function words) that occur in the cited text
    "names",  # share of the claim's capitalised words found in the cited text (1 when it has none)
    "missing_names",  # log(1 + those not found)
    "numbers",  # share of the claim's numbers found in the cited text (1 when it has none)
    "has_numbers",
    "novel_run",  # log(1 + the longest run of consecutive claim content words absent from the cited text)
    "cos_best",  # MiniLM cosine of the claim with its closest candidate sentence
    "claim_negated",
    "negation_mismatch",  # the claim and its best sentence differ in polarity
    "signal_number",  # the guards' signals: a number, date word, negation, quantifier not repeated
    "signal_date",
    "signal_negation",
    "signal_quantifier",
    "frame_not_asserted",  # the best sentence reports, hedges, denies, asks or instructs, and the claim drops it
    "frame_qualified",  # the best sentence qualifies ("only", "after", "not"), and the claim drops it
    "claim_words",  # log(1 + claim content words)
    "premise_words",  # log(1 + cited text content words)
)

_CANDIDATES = 4  #: sentences embedded per pair: the ones sharing most words with the claim
_MAX_SENTENCE_CHARS = 400  #: embedding and frame parse read at most this much of a sentence (attention is quadratic)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def _prefixes(words: frozenset[str]) -> set[str]:
    return {w[:5] for w in words}


def _bigrams(tokens: list[str]) -> set[tuple[str, str]]:
    return {(a, b) for a, b in pairwise(tokens) if not (a in FUNCTION_WORDS and b in FUNCTION_WORDS)}


def _names(text: str) -> set[str]:
    """Capitalised words that do not open a sentence, lower-cased: names, titles, places."""
    out = set()
    for m in _WORD.finditer(text):
        word = m.group()
        before = text[: m.start()].rstrip(" \"'“‘(")
        if word[0].isupper() and before and before[-1] not in ".!?:" and word.lower() not in FUNCTION_WORDS:
            out.add(word.lower().strip("'’"))
    return out


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def _novel_run(claim_tokens: list[str], premise_prefixes: set[str]) -> int:
    """The longest run of consecutive content words of the claim that the cited text does not have: a
    phrase the source never says ("was started first", a hallucinated name)."""
    longest = run = 0
    for token in claim_tokens:
        word = token if token[0].isdigit() else singular(token)[:5]
        if token in FUNCTION_WORDS or len(word) < 2:
            continue
        if word in premise_prefixes:
            run = 0
        else:
            run += 1
            longest = max(longest, run)
    return longest


def features(claim: str, premise: str, embedder: Embedder) -> dict[str, float]:
    """The screen's features for ``claim`` against ``premise``, by name (see :data:`FEATURES`)."""
    claim_words = content_words(claim)
    premise_words = content_words(premise)
    claim_prefixes, premise_prefixes = _prefixes(claim_words), _prefixes(premise_words)
    sentences = premise_sentences(premise) or [premise]
    sentence_prefixes = [_prefixes(content_words(s)) for s in sentences]
    shared = [len(claim_prefixes & p) for p in sentence_prefixes]
    order = sorted(range(len(sentences)), key=lambda i: (-shared[i], i))[:_CANDIDATES]
    claim_tokens, premise_tokens = tokenize(claim), tokenize(premise)
    claim_bigrams = _bigrams(claim_tokens)
    names = _names(claim)
    premise_lower = {w.lower().strip("'’") for w in _WORD.findall(premise)}
    numbers = {v for v, _ in numbers_in(claim_tokens)}
    premise_numbers = {v for v, _ in numbers_in(premise_tokens)}
    vectors = embedder.embed([claim, *(sentences[i][:_MAX_SENTENCE_CHARS] for i in order)])
    cosines = vectors[1:] @ vectors[0]
    best = order[int(np.argmax(cosines))]
    best_sentence = sentences[best]
    fired = {g.code for g in signals(claim, premise)}
    frames = unkept_frames(claim, [best_sentence[:_MAX_SENTENCE_CHARS]])
    return {
        "overlap": _share(len(claim_words & premise_words), len(claim_words)),
        "overlap_prefix": _share(len(claim_prefixes & premise_prefixes), len(claim_prefixes)),
        "best_sentence_overlap": max(_share(s, len(claim_prefixes)) for s in shared),
        "missing_words": math.log1p(len(claim_prefixes - premise_prefixes)),
        "bigrams": _share(len(claim_bigrams & _bigrams(premise_tokens)), len(claim_bigrams)),
        "names": _share(len(names & premise_lower), len(names)),
        "missing_names": math.log1p(len(names - premise_lower)),
        "numbers": _share(len(numbers & premise_numbers), len(numbers)),
        "has_numbers": float(bool(numbers)),
        "novel_run": math.log1p(_novel_run(claim_tokens, {t if t[0].isdigit() else singular(t)[:5] for t in premise_tokens})),
        "cos_best": float(cosines.max()),
        "claim_negated": float(has_negation(claim_tokens)),
        "negation_mismatch": float(has_negation(claim_tokens) != has_negation(tokenize(best_sentence))),
        "signal_number": float("number" in fired),
        "signal_date": float("date" in fired),
        "signal_negation": float("negation" in fired),
        "signal_quantifier": float("quantifier" in fired),
        # as the screen was fitted: a directive ("Order the laptop…") counted with the frames that do not assert
        "frame_not_asserted": float(any(f.kind in NOT_ASSERTED or f.kind is FrameKind.DIRECTIVE for f in frames)),
        "frame_qualified": float(any(f.kind is FrameKind.QUALIFIED for f in frames)),
        "claim_words": math.log1p(len(claim_words)),
        "premise_words": math.log1p(len(premise_words)),
    }


@dataclass(frozen=True)
class ScreenModel:
    """A standardised logistic regression and the two thresholds between which it abstains."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    low: float  #: at or below: ``not_supported``
    high: float  #: at or above: ``supported``
    meta: tuple[tuple[str, Any], ...] = ()  #: how it was trained (data, split, regularisation, threshold rule)

    def probability(self, x: Sequence[float]) -> float:
        z = self.bias + sum(w * (v - m) / s for w, v, m, s in zip(self.weights, x, self.mean, self.scale, strict=True))
        return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))

    def decide(self, p: float) -> bool | None:
        """True (supported), False (not supported), or None: unsure, abstain."""
        return True if p >= self.high else False if p <= self.low else None

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "bias": self.bias,
            "low": self.low,
            "high": self.high,
            "meta": dict(self.meta),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScreenModel:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a screen model (format {data.get('format')!r}, expected {FORMAT!r})")
        model = cls(
            tuple(data["features"]),
            tuple(float(v) for v in data["mean"]),
            tuple(float(v) for v in data["scale"]),
            tuple(float(v) for v in data["weights"]),
            float(data["bias"]),
            float(data["low"]),
            float(data["high"]),
            tuple(sorted(data.get("meta", {}).items())),
        )
        if model.features != FEATURES:
            raise ValueError(f"the model's features {model.features} are not this version's {FEATURES}")
        if not len(model.mean) == len(model.scale) == len(model.weights) == len(FEATURES):
            raise ValueError("the model's vectors do not match its features")
        return model

    def dumps(self) -> str:
        """The weights file's exact text (its sha256 is pinned)."""
        return json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n"


def load_screen(path: Path = SCREEN_PATH, sha256: str | None = SCREEN_SHA256) -> ScreenModel:
    """The screen model in ``path``, refused unless its sha256 is the pinned one (pass None to skip
    the check: only for a file just trained, never for the shipped one)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ModelUnavailable(f"screen weights missing: {path} ({exc.strerror or exc})") from exc
    actual = hashlib.sha256(raw).hexdigest()
    if sha256 is not None and actual != sha256:
        raise ModelUnavailable(f"{path}: sha256 {actual} does not match the pinned {sha256}; refusing to load it")
    try:
        return ScreenModel.from_json(json.loads(raw))
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelUnavailable(f"{path}: unreadable screen weights: {exc}") from exc


@dataclass(frozen=True)
class ScreenResult:
    probability: float  #: P(supported) by the logistic regression
    decision: bool | None  #: True supported, False not supported, None: abstained
    held: str = ""  #: why a ``supported`` the probability alone would give was not settled (see :func:`doubt`)


_ANCHOR = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d,.]*")


def _anchors(text: str, names: set[str]) -> list[str]:
    """The names of ``names`` and the numbers in ``text``, in the order they first occur."""
    seen: dict[str, None] = {}
    for m in _ANCHOR.finditer(text):
        token = m.group().lower().strip("'’.,")
        if token and (token in names or token[0].isdigit()):
            seen.setdefault(token, None)
    return list(seen)


def doubt(claim: str, premise: str, values: dict[str, float]) -> str:
    """Why the screen must not settle ``supported`` however high its probability: a number, date,
    negation or quantifier of the claim the cited text does not repeat (a guard's signal), or the
    claim's names and numbers in another order than every cited sentence that holds two of them
    ("VIVA Media AG (until 2004 'VIVA Media GmbH')" for "VIVA Media GmbH (until 2004 'VIVA Media
    AG')": the same words, roles swapped). Lexical features cannot tell these from support; the judge
    (or ``unverified``) decides them. Empty when there is no doubt."""
    fired = [
        name.removeprefix("signal_")
        for name in ("signal_number", "signal_date", "signal_negation", "signal_quantifier")
        if values.get(name)
    ]
    if values.get("negation_mismatch") and "negation" not in fired:
        fired.append("negation")
    if fired:
        return f"the cited text does not repeat the claim's {' / '.join(fired)}"
    names = _names(claim)
    ordered = _anchors(claim, names)
    disagree = agree = 0
    for sentence in premise_sentences(premise) or [premise]:
        theirs = _anchors(sentence, names)
        shared = [a for a in ordered if a in theirs]
        if len(shared) < 2:
            continue
        if [a for a in theirs if a in shared] == shared:
            agree += 1
        else:
            disagree += 1
    if disagree and not agree:
        return "the claim orders its names and numbers differently from the cited text (roles swapped?)"
    return ""


_embedder_lock = threading.Lock()


@lru_cache(maxsize=1)
def _default_embedder() -> Embedder:
    from citegraph.embed import MiniLMEmbedder

    return MiniLMEmbedder()


class Screen:
    """The shipped (or a given) screen model with its embedder, both loaded on first use."""

    def __init__(self, model: ScreenModel | None = None, embedder: Embedder | None = None) -> None:
        self._model = model
        self._embedder = embedder

    @property
    def model(self) -> ScreenModel:
        if self._model is None:
            self._model = load_screen()
        return self._model

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            with _embedder_lock:
                self._embedder = _default_embedder()
        return self._embedder

    @property
    def name(self) -> str:
        return "screen"

    def assess(self, claim: str, premise: str) -> ScreenResult:
        model = self.model
        values = features(claim, premise, self.embedder)
        p = model.probability([values[name] for name in model.features])
        decision = model.decide(p)
        if decision is True:
            held = doubt(claim, premise, values)
            if held:
                return ScreenResult(p, None, held)
        return ScreenResult(p, decision)
