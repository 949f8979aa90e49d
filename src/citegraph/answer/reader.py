"""The reader: does this passage answer this question, and where? all-MiniLM-L6-v2 fine-tuned as an
extractive question-answering model (a start and an end score per word piece, the [CLS] piece standing
for "no answer here"), run as int8 ONNX (no torch), like the support checker
(:mod:`citegraph.verify.crossencoder`).

Word overlap cannot tell a passage that answers a question from one that only talks about its
subject: asked "Which city is the Oberoi Group's head office in?", a paragraph about the Oberoi family
names every term and answers nothing. The reader is trained for exactly that
(``bench/build_reader_data.py``, ``bench/train_reader.py``): on HaluEval QA's HotpotQA questions, to
point at the answer in the paragraph that holds it, and at [CLS] in the other supporting paragraph,
in the same paragraph with the answer's sentences cut out, and in the nearest paragraphs of other
questions. None of the evaluation questions is trained on. Its weights ship inside citegraph and are
checked by sha256 before use; the figures are on its card (``answer/data/reader-minilm.json``).

Its score, P(answers), is the logistic of the best span's score over the no-answer score (the
SQuAD 2.0 reading). It is one feature of :func:`citegraph.answer.answerable.assess`, not a verdict.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.errors import ModelUnavailable
from citegraph.once import loaded_once
from citegraph.verify.crossencoder import TOKENIZER_PATH, fit_premise, padded, too_long
from citegraph.verify.crossencoder import load_tokenizer as load_pair_tokenizer

__all__ = ["CARD_PATH", "MAX_ANSWER", "Reader", "Reading", "default_reader", "encode", "load_tokenizer", "readings"]

CARD_PATH = Path(__file__).parent / "data" / "reader-minilm.json"
MAX_ANSWER = 24  #: the longest answer span, in word pieces
MAX_QUESTION = 64  #: a question longer than this (in words) is read by its first ones


@dataclass(frozen=True)
class Reading:
    """What the reader makes of one passage: P(it answers) and the span it points at."""

    probability: float
    answer: str  #: the span's text ("" when it points at no answer)
    passage: str  #: the passage as read (fitted to the window: a long one keeps its sentences nearest the question)


def load_tokenizer() -> Any:
    """all-MiniLM-L6-v2's word pieces, set to truncate the passage (the second text), never the question."""
    return load_pair_tokenizer(strategy="only_second")


def encode(tokenizer: Any, question: str, passages: Sequence[str]) -> tuple[dict[str, np.ndarray], list[Any], list[str]]:
    """The model's inputs for ``question`` against each passage (fitted with
    :func:`~citegraph.verify.crossencoder.fit_premise`), the encodings (for their offsets) and the
    fitted passages. Training and use both call this."""
    words = question.split()[:MAX_QUESTION]  # a very long question is read by its first words
    fitted = [fit_premise(p, " ".join(words)) for p in passages]
    while True:
        try:
            rows = [tokenizer.encode(" ".join(words), p) for p in fitted]
            break
        except Exception as exc:  # the question alone fills the window (long words): halve it
            if len(words) <= 1 or not too_long(exc):
                raise
            words = words[: len(words) // 2]
    return padded(rows), rows, fitted


def readings(start: np.ndarray, end: np.ndarray, rows: Sequence[Any], fitted: Sequence[str]) -> list[Reading]:
    """Each passage's best span (start <= end, at most :data:`MAX_ANSWER` pieces, inside the passage)
    against its no-answer score; P(answers) = logistic(best - no answer)."""
    out = []
    for i, row in enumerate(rows):
        inside = np.array([s == 1 for s in row.sequence_ids])
        n = len(row.ids)
        s, e = start[i, :n].astype(np.float64), end[i, :n].astype(np.float64)
        null = s[0] + e[0]
        best, span = -np.inf, (0, 0)
        candidates = np.flatnonzero(inside)
        if len(candidates):
            s_in = np.where(inside, s, -np.inf)
            e_in = np.where(inside, e, -np.inf)
            for a in candidates[np.argsort(-s[candidates])[:20]]:
                stop = min(n, a + MAX_ANSWER)
                b = a + int(np.argmax(e_in[a:stop]))
                if s_in[a] + e_in[b] > best:
                    best, span = s_in[a] + e_in[b], (int(a), int(b))
        margin = float(best - null) if np.isfinite(best) else -50.0
        p = 1.0 / (1.0 + np.exp(-margin))
        text = _whole_words(fitted[i], row.offsets[span[0]][0], row.offsets[span[1]][1]) if np.isfinite(best) else ""
        out.append(Reading(float(p), text, fitted[i]))
    return out


def _whole_words(text: str, start: int, end: int) -> str:
    """``text[start:end]`` widened to whole words: a span the model starts or ends inside a word (on
    one of its word pieces, "e stomach" of "the stomach") is read as the words it cuts."""
    while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while 0 < end < len(text) and text[end].isalnum() and text[end - 1].isalnum():
        end += 1
    return text[start:end]


class Reader:
    """P(answers) and the answer span for (question, passage) pairs.

    One passage per run by default: int8 dynamic quantisation scales activations over the whole
    batch, so in a batch a passage's score would depend on its neighbours (and one at a time is no
    slower here, with no padding: 12 ms per pair on 2 cores). The runs of one :meth:`read` go side by
    side, each on one core (``threads`` of them, default the machine's cores): on two cores 16
    passages took 39 ms against 52 ms one after another with both cores per run, with the same
    outputs (docs/results/2026-12-05/reader-threads)."""

    name = "reader-minilm-int8"

    def __init__(self, card_path: Path = CARD_PATH, *, batch_size: int = 1, threads: int = 0) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ModelUnavailable("onnxruntime is needed for the reader: pip install onnxruntime") from exc
        from citegraph.embed.minilm import TOKENIZER_SHA256, check_sha256

        try:
            card = json.loads(card_path.read_text(encoding="utf-8"))
            model, sha256, outputs = card_path.parent / card["model_file"], card["sha256"], tuple(card["outputs"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelUnavailable(f"reader card {card_path} unreadable or missing model_file/sha256/outputs ({exc})") from exc
        if outputs != ("start_logits", "end_logits"):
            raise ModelUnavailable(f"{card_path}: outputs {outputs} are not ('start_logits', 'end_logits')")
        check_sha256(model, sha256)
        check_sha256(TOKENIZER_PATH, TOKENIZER_SHA256)
        self.tokenizer = load_tokenizer()
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one core per run; the runs of a read go side by side
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.batch_size = batch_size
        self.threads = threads or min(os.cpu_count() or 1, 8)
        # one pool per reader, its threads shared by every caller: at most ``threads`` runs at once
        self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="citegraph-reader")

    def read(self, question: str, passages: Sequence[str]) -> list[Reading]:
        """A :class:`Reading` of each passage, in their order (a passage seen twice is read once)."""
        distinct = list(dict.fromkeys(passages))
        order = sorted(range(len(distinct)), key=lambda i: len(distinct[i]))
        batches = [[distinct[i] for i in order[at : at + self.batch_size]] for at in range(0, len(order), self.batch_size)]

        def run(batch: list[str]) -> list[Reading]:
            feed, rows, fitted = encode(self.tokenizer, question, batch)
            start, end = self.session.run(None, feed)
            return readings(start, end, rows, fitted)

        done: dict[str, Reading] = {}
        runs = self._pool.map(run, batches) if len(batches) > 1 else map(run, batches)
        for batch, read in zip(batches, runs, strict=True):
            done.update(zip(batch, read, strict=True))
        return [done[p] for p in passages]

    def scores(self, question: str, passages: Sequence[str]) -> np.ndarray:
        """P(answers) of each passage for ``question``, in their order."""
        return np.array([r.probability for r in self.read(question, passages)], dtype=np.float32)


@loaded_once
def default_reader() -> Reader:
    """The shipped reader, loaded once per process."""
    return Reader()
