"""The embedder and vector-index interfaces.

Vectors are float32 and L2-normalised, so a dot product is the cosine similarity.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

__all__ = ["Embedder", "ExactIndex", "VectorIndex"]


class Embedder(ABC):
    name: str
    dim: int

    def close(self) -> None:
        """Release what the embedder holds (a no-op by default)."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """``[len(texts), dim]`` float32, each row L2-normalised (a zero row for empty text)."""


class VectorIndex(ABC):
    """Top-k search over a fixed matrix of vectors. An ANN index can replace the exact one."""

    @abstractmethod
    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Row indices and cosine scores of the ``k`` best rows, best first, ties by row index."""


class ExactIndex(VectorIndex):
    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = np.asarray(vectors, dtype=np.float32).reshape(-1, vectors.shape[-1] if vectors.size else 1)

    def scores(self, query: np.ndarray) -> np.ndarray:
        if len(self.vectors) == 0:
            return np.zeros(0, dtype=np.float32)
        return self.vectors @ np.asarray(query, dtype=np.float32)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        return self.top(self.scores(query), k)

    @staticmethod
    def top(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The ``k`` best of already computed scores, best first, ties by row index."""
        if k <= 0 or len(scores) == 0:
            return []
        # Stable sort on the negated score: equal scores keep row order, so results are deterministic.
        order = np.argsort(-scores, kind="stable")[:k]
        return [(int(i), float(scores[i])) for i in order]


def normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32)
