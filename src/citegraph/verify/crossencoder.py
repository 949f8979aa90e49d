"""citegraph's own support checker: all-MiniLM-L6-v2 fine-tuned as a cross-encoder with three outputs
(``supported``, ``contradicted``, ``neither``), run as int8 ONNX by onnxruntime (no torch).

No registry ships an NLI model, so this one is trained here (``bench/train_support.py`` on the set
``bench/build_support_data.py`` builds; model card: ``docs/support-checker.md``). The weights ship
inside citegraph and are checked by sha256 before use, like the embedder's.

The premise a claim is checked against is fitted to the model's window the same way in training and
in use (:func:`fit_premise`): a long premise keeps the sentences that share the most content words
with the claim, in their order. :func:`encode` is the one tokenisation both use.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.errors import ModelUnavailable
from citegraph.once import loaded_once
from citegraph.verify.text import content_words, premise_sentences

__all__ = [
    "LABELS",
    "CrossEncoder",
    "batched_logits",
    "default_cross_encoder",
    "encode",
    "fit_premise",
    "load_tokenizer",
    "padded",
    "too_long",
]

LABELS = ("supported", "contradicted", "neither")
MAX_TOKENS = 256  #: premise and claim together, in word pieces
PREMISE_WORDS = 160  #: a premise longer than this keeps its sentences closest to the claim
DATA = Path(__file__).parent / "data"
CARD_PATH = DATA / "support-minilm.json"
TOKENIZER_PATH = Path(__file__).parents[1] / "embed" / "data" / "all-MiniLM-L6-v2.tokenizer.json"


def fit_premise(premise: str, claim: str, max_words: int = PREMISE_WORDS) -> str:
    """``premise`` with its whitespace collapsed; when longer than ``max_words``, only its sentences
    sharing the most content words with ``claim`` (ties: the earlier), kept in their order."""
    words = premise.split()
    if len(words) <= max_words:
        return " ".join(words)
    sentences = [" ".join(s.split()) for s in premise_sentences(premise)]
    wanted = content_words(claim)
    ranked = sorted(range(len(sentences)), key=lambda i: (-len(wanted & content_words(sentences[i])), i))
    keep: list[int] = []
    used = 0
    for i in ranked:
        size = len(sentences[i].split())
        if keep and used + size > max_words:
            continue
        keep.append(i)
        used += size
        if used >= max_words:
            break
    return " ".join(sentences[i] for i in sorted(keep))


def load_tokenizer(path: Path = TOKENIZER_PATH, *, strategy: str = "only_first") -> Any:
    """all-MiniLM-L6-v2's word-piece tokenizer, unpadded, set to truncate only the first text of a
    pair (the premise, never the claim; the reader passes ``only_second``: the passage)."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ModelUnavailable("the tokenizers package is needed: pip install tokenizers") from exc
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS, strategy=strategy)
    return tokenizer


def encode(tokenizer: Any, pairs: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
    """``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, padded to the longest) for
    ``(premise, claim)`` pairs, each premise fitted with :func:`fit_premise`. A claim too long for the
    window on its own is cut to leave the premise 32 pieces."""
    rows = []
    for premise, claim in pairs:
        fitted = fit_premise(premise, claim)
        try:
            rows.append(tokenizer.encode(fitted, " ".join(claim.split())))
        except Exception as exc:  # the claim alone is longer than the window: cut it, keep 32 pieces of premise
            if not too_long(exc):
                raise
            head = tokenizer.encode(" ".join(claim.split()), add_special_tokens=False)
            short = tokenizer.decode(head.ids[: MAX_TOKENS - 32 - 3])
            rows.append(tokenizer.encode(fitted, short))
    return padded(rows)


def too_long(exc: Exception) -> bool:
    """Whether ``exc`` is the tokenizer saying a pair cannot be truncated to the window (it raises a
    bare ``Exception`` for it): the one failure the callers mend by cutting their input; any other is a bug."""
    return str(exc).startswith("Truncation error")


def padded(rows: Sequence[Any]) -> dict[str, np.ndarray]:
    """``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, padded to the longest) of encodings."""
    width = max((len(r.ids) for r in rows), default=0)
    out = {name: np.zeros((len(rows), width), dtype=np.int64) for name in ("input_ids", "attention_mask", "token_type_ids")}
    for i, row in enumerate(rows):
        n = len(row.ids)
        out["input_ids"][i, :n] = row.ids
        out["attention_mask"][i, :n] = 1
        out["token_type_ids"][i, :n] = row.type_ids
    return out


def batched_logits(
    session: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], batch_size: int = 16, lock: threading.Lock | None = None
) -> np.ndarray:
    """The model's raw scores for ``pairs``, in their order, run in batches of similar length (less
    padding); ``lock``, when given, is held around each run of the session."""
    out = np.zeros((len(pairs), len(LABELS)), dtype=np.float32)
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        feed = encode(tokenizer, [pairs[i] for i in batch])
        if lock is None:
            (scores,) = session.run(None, feed)
        else:
            with lock:
                (scores,) = session.run(None, feed)
        out[batch] = scores
    return out


@dataclass(frozen=True)
class Card:
    """What ships beside the weights: the file, its sha256, the temperature and the thresholds at which
    it settles a pair before a judge (``supported``, ``contradicted``: at or above; ``not_supported``:
    P(supported) at or below), all chosen on dev."""

    model_file: str
    sha256: str
    temperature: float
    labels: tuple[str, ...]
    settle: dict[str, float]
    platt: tuple[float, float]  #: P(supported) shown = sigmoid(a * logit(p) + b), fitted on dev

    @classmethod
    def load(cls, path: Path = CARD_PATH) -> Card:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelUnavailable(f"support checker card unreadable: {path} ({exc})") from exc
        try:
            settle = {k: float(raw["settle"][k]) for k in ("supported", "contradicted", "not_supported")}
            platt = (float(raw["platt"]["a"]), float(raw["platt"]["b"]))
            return cls(raw["model_file"], raw["sha256"], float(raw["temperature"]), tuple(raw["labels"]), settle, platt)
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelUnavailable(f"support checker card {path}: field {exc} missing or not a number") from exc


class CrossEncoder:
    """P(supported), P(contradicted), P(neither) for (premise, claim) pairs, temperature-calibrated."""

    name = "support-minilm-int8"

    def __init__(self, card_path: Path = CARD_PATH, *, batch_size: int = 16, threads: int = 0) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ModelUnavailable("onnxruntime is needed for the support checker: pip install onnxruntime") from exc
        from citegraph.embed.minilm import TOKENIZER_SHA256, check_sha256

        self.card = Card.load(card_path)
        if self.card.labels != LABELS:
            raise ModelUnavailable(f"{card_path}: labels {self.card.labels} are not {LABELS}")
        model = card_path.parent / self.card.model_file
        check_sha256(model, self.card.sha256)
        check_sha256(TOKENIZER_PATH, TOKENIZER_SHA256)
        self.tokenizer = load_tokenizer()
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.batch_size = batch_size
        self._lock = threading.Lock()  # one run at a time: onnxruntime's threads are already all the cores

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return batched_logits(self.session, self.tokenizer, pairs, self.batch_size, self._lock)

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Rows of (supported, contradicted, neither), summing to 1 (temperature-scaled)."""
        scaled = self.logits(pairs) / self.card.temperature
        scaled -= scaled.max(axis=1, keepdims=True)
        exp = np.exp(scaled)
        return exp / exp.sum(axis=1, keepdims=True)

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Rows of (P(supported), P(contradicted)): the first calibrated as a yes/no probability on
        dev (the card's Platt scaling), the second the 3-way probability."""
        probs = self.probabilities(pairs)
        a, b = self.card.platt
        p = np.clip(probs[:, 0], 1e-6, 1 - 1e-6)
        supported = 1 / (1 + np.exp(-(a * np.log(p / (1 - p)) + b)))
        return np.stack([supported, probs[:, 1]], axis=1)


@loaded_once
def default_cross_encoder() -> CrossEncoder:
    """The shipped checker, loaded once per process."""
    return CrossEncoder()
