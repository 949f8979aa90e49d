"""A deterministic bag-of-words embedder for tests and for machines without the ONNX model.

Each lower-cased word (with a crude plural strip) is hashed with blake2b into one of ``dim``
buckets with a fixed sign. Texts that share words get positive cosine similarity, and the same
text always gets the same vector: no random numbers anywhere.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from citegraph.embed.base import Embedder, normalise

__all__ = ["HashingEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "do",
        "does",
        "for",
        "from",
        "how",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "the",
        "to",
        "what",
        "when",
        "which",
        "who",
        "with",
    ]
)


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


class HashingEmbedder(Embedder):
    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hashing-bow-{dim}"

    def _bucket(self, word: str) -> tuple[int, float]:
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, 1.0 if (value >> 63) & 1 else -1.0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                if word in _STOP:
                    continue
                bucket, sign = self._bucket(_stem(word))
                out[row, bucket] += sign
        return normalise(out)
