"""Calibration records: what turns a judge's raw P(yes) into a measured probability of support.

A judge model's first-token P(yes) is the probability of a token, not of support: on the shared data
sets Qwen2.5-Coder-1.5B puts truly supported pairs at 0.3-0.45 (ECE 0.25-0.32). A Platt scaling
``sigmoid(a * logit(p) + b)`` fitted on a dev split maps it to a probability (ECE 0.07-0.09 on test).
A :class:`Calibration` is that map together with where it came from: the judge model and the version
of its prompt, the data, split and number of pairs it was fitted on, the threshold chosen on dev (on
the calibrated scale) and the ECE it reached on test. ``citegraph eval support --fit FILE`` writes
one; :class:`~citegraph.verify.cascade.CheckingVerifier` applies it, so the ``score`` a user sees is
the calibrated probability, and says ``calibrated: false`` when it has none.

A record applies only to the judge and prompt it was fitted for: a record whose ``prompt`` differs
from the judge's current prompt version is not used (a changed prompt changes the scores).

A :class:`JudgeHead` goes further where the judge runs in-process (``gguf:``): instead of reading
P(yes) from one token, a logistic regression on the hidden state that predicts that token (and on
logit P(yes)), trained on labelled pairs (``bench/judge_head.py``), gives P(supported) directly, so
it is its own calibration and the Platt record is not used with it.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from citegraph.errors import InputFileError

__all__ = ["FORMAT", "HEAD_FORMAT", "Calibration", "JudgeHead", "Platt", "prompt_version", "registered", "registered_head"]

FORMAT = "citegraph-calibration/1"
HEAD_FORMAT = "citegraph-judge-head/1"


def _logit(p: float, eps: float = 1e-6) -> float:
    p = min(max(p, eps), 1 - eps)
    return math.log(p / (1 - p))


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


@dataclass(frozen=True)
class Platt:
    """``sigmoid(a * logit(p) + b)``: a monotone map, so it changes calibration, never the ranking."""

    a: float = 1.0
    b: float = 0.0

    def __call__(self, p: float) -> float:
        return _sigmoid(self.a * _logit(p) + self.b)


def prompt_version(names: tuple[str, ...]) -> str:
    """``sha256:`` and the first 12 hex digits of the prompt files ``names``, in order: a record
    fitted under one prompt does not apply under another."""
    from citegraph.prompts import load_prompt

    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + load_prompt(name).encode() + b"\0")
    return "sha256:" + digest.hexdigest()[:12]


@dataclass(frozen=True)
class Calibration:
    judge: str  #: the judge model's name as the verifier reports it, e.g. ``gguf:qwen2.5-coder-1.5b``
    prompt: str  #: :func:`prompt_version` of the judge's support prompt when the record was fitted
    platt: Platt
    data: str  #: the data set(s) it was fitted on
    split: str  #: which pairs: ``dev`` and how they were chosen
    n: int  #: pairs fitted on
    threshold: float  #: chosen on dev (best balanced accuracy), on the calibrated scale
    test_ece: float | None  #: expected calibration error on the test half, after calibration
    test_n: int = 0  #: test pairs the ECE was measured on

    def __call__(self, raw: float) -> float:
        return self.platt(raw)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a calibration record (format {data.get('format')!r}, expected {FORMAT!r})")
        fields = {k: v for k, v in data.items() if k != "format"}
        platt = fields.pop("platt")
        return cls(platt=Platt(float(platt["a"]), float(platt["b"])), **fields)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
        except OSError as exc:
            raise InputFileError(
                str(path), f"cannot read: {exc.strerror or exc}", "pass a file written by citegraph eval support --fit"
            ) from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise InputFileError(
                str(path), f"not a calibration record: {exc}", "pass a file written by citegraph eval support --fit"
            ) from exc


def registered(judge: str) -> Calibration | None:
    """The calibration record the model registry carries for ``judge`` (``gguf:NAME`` of a known
    model), or None. Only the in-process GGUF file is pinned by hash: the same name served by Ollama
    or an OpenAI-compatible server may be another quantisation, so it gets no record."""
    from citegraph.llm.registry import KNOWN_MODELS

    scheme, _, name = judge.partition(":")
    model = KNOWN_MODELS.get(name) if scheme == "gguf" else None
    if model is None or model.calibration is None:
        return None
    return Calibration.from_json(dict(model.calibration))


@dataclass(frozen=True)
class JudgeHead:
    """P(supported) = sigmoid(weights . state + p_yes_weight * logit(P(yes)) + bias), for one judge model
    and prompt version; ``state`` is the hidden state at the position that predicts the answer's first
    token. Written by ``bench/judge_head.py fit`` with where it came from (data sha256, sizes, figures)."""

    judge: str  #: e.g. ``gguf:qwen2.5-coder-1.5b``
    prompt: str  #: :func:`prompt_version` of the support prompt it was trained under
    weights: tuple[float, ...]
    p_yes_weight: float
    bias: float
    threshold: float = 0.5  #: on its own scale, chosen on dev
    #: the checker's thresholds in front of this judge (re-tuned on dev with the head: what the checker
    #: settles alone), or None for the checker card's own
    settle: dict[str, float] | None = None
    provenance: dict[str, Any] | None = None  #: data, pairs, regularisation, figures: for the record only

    def __call__(self, state: tuple[float, ...] | list[float], p_yes: float) -> float:
        if len(state) != len(self.weights):
            raise ValueError(f"a hidden state of {len(state)} numbers, the head expects {len(self.weights)}")
        z = math.fsum(w * v for w, v in zip(self.weights, state, strict=True)) + self.p_yes_weight * _logit(p_yes) + self.bias
        return _sigmoid(z)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JudgeHead:
        if data.get("format") != HEAD_FORMAT:
            raise ValueError(f"not a judge head (format {data.get('format')!r}, expected {HEAD_FORMAT!r})")
        known = {"format", "judge", "prompt", "weights", "p_yes_weight", "bias", "threshold", "settle"}
        return cls(
            judge=str(data["judge"]),
            prompt=str(data["prompt"]),
            weights=tuple(float(v) for v in data["weights"]),
            p_yes_weight=float(data["p_yes_weight"]),
            bias=float(data["bias"]),
            threshold=float(data.get("threshold", 0.5)),
            settle={str(k): float(v) for k, v in data["settle"].items()} if data.get("settle") else None,
            provenance={k: v for k, v in data.items() if k not in known},
        )

    @classmethod
    def load(cls, path: Path) -> JudgeHead:
        fix = "pass a file written by bench/judge_head.py fit"
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
        except OSError as exc:
            raise InputFileError(str(path), f"cannot read: {exc.strerror or exc}", fix) from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise InputFileError(str(path), f"not a judge head: {exc}", fix) from exc


def registered_head(judge: str) -> JudgeHead | None:
    """The head shipped for ``judge`` (``gguf:NAME``: ``citegraph/verify/data/judge-head-NAME.json``), or
    None. Only in-process GGUF models expose their hidden state, and only their files are pinned."""
    from importlib import resources

    scheme, _, name = judge.partition(":")
    if scheme != "gguf":
        return None
    record = resources.files("citegraph.verify") / "data" / f"judge-head-{name}.json"
    if not record.is_file():
        return None
    return JudgeHead.from_json(json.loads(record.read_text(encoding="utf-8")))
