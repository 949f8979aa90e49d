"""The embedder and vector-index interfaces.

Vectors are float32 and L2-normalised, so a dot product is the cosine similarity.

:class:`ExactIndex` scores every row; :class:`IVFIndex` is the approximate index retrieval puts in
front of it above a size threshold (an inverted file: rows clustered by spherical k-means, a query
scores exactly only the rows of its nearest clusters).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

__all__ = ["Embedder", "ExactIndex", "IVFIndex", "VectorIndex", "dot_rows", "top_indices"]


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

    vectors: np.ndarray
    approximate: bool = False  #: may miss some of the true top k

    @abstractmethod
    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Row indices and cosine scores of the ``k`` best rows, best first, ties by row index."""


class ExactIndex(VectorIndex):
    """Every row scored: the reference, and what retrieval uses below its size threshold."""

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
        order = top_indices(scores, k)
        return [(int(i), float(scores[i])) for i in order]


def top_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` best scores, best first, ties by index: ``argsort(-scores, stable)[:k]``.

    For a small ``k`` only the rows at or above the k-th best score are sorted (a partition first),
    which gives the same indices in the same order as the full stable sort.
    """
    n = len(scores)
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    negated = -np.asarray(scores)
    if k * 8 < n:
        kth = np.partition(negated, k - 1)[k - 1]
        if not np.isnan(kth):
            candidates = np.flatnonzero(negated <= kth)
            return candidates[np.argsort(negated[candidates], kind="stable")][:k].astype(np.int64)
    return np.argsort(negated, kind="stable")[:k].astype(np.int64)


class IVFIndex(VectorIndex):
    """An inverted file: approximate top-k over a fixed matrix of unit vectors.

    The rows are clustered into ``lists`` (about √n) by spherical k-means, trained on a seeded
    sample, so the same rows always give the same index; a query scores exactly, and only, the rows
    of the ``probe`` clusters whose centroids are nearest to it (about ``scan`` rows). Every row it
    returns carries its exact score, so a caller can merge or rescore results; what it can miss is
    a true top-k row in a cluster it did not probe (its recall, which ``bench/query.py`` reports).

    Chosen over a graph index (HNSW, e.g. usearch) because on two cores it builds a million rows
    in seconds (one matrix product assigns them) where HNSW took minutes, it keeps no copy of the
    vectors, and it is deterministic.
    """

    approximate = True

    def __init__(
        self,
        vectors: np.ndarray,
        *,
        lists: int | None = None,
        probe: int | None = None,
        scan: int = 8192,
        iterations: int = 6,
        sample: int = 32,
        seed: int = 0,
    ) -> None:
        self.vectors = vectors
        n = len(vectors)
        self.lists = max(1, min(n, lists if lists is not None else round(n**0.5)))
        per_list = max(n / self.lists, 1.0)
        self.probe = max(1, min(self.lists, probe if probe is not None else max(4, int(np.ceil(scan / per_list)))))
        rng = np.random.default_rng(seed)
        train = vectors[np.sort(rng.choice(n, size=min(n, self.lists * sample), replace=False))]
        centroids = train[np.sort(rng.choice(len(train), size=self.lists, replace=False))]
        for _ in range(iterations):
            assigned = np.argmax(train @ centroids.T, axis=1)
            order = np.argsort(assigned, kind="stable")
            counts = np.bincount(assigned, minlength=self.lists)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            sums = np.add.reduceat(train[order], np.minimum(starts, len(train) - 1), axis=0)
            empty = counts == 0  # reduceat gives a neighbour's row there: re-seed the cluster instead
            sums[empty] = train[rng.choice(len(train), size=int(empty.sum()), replace=False)]
            centroids = normalise(sums)
        self.centroids = centroids.astype(np.float32)
        assignment = np.empty(n, dtype=np.int64)
        step = 16384
        for at in range(0, n, step):  # the build's main cost: n x lists products (about 10 s at a million rows)
            assignment[at : at + step] = np.argmax(vectors[at : at + step] @ self.centroids.T, axis=1)
        self.order = np.argsort(assignment, kind="stable")  # row ids, cluster by cluster, ascending within one
        self.bounds = np.concatenate([[0], np.cumsum(np.bincount(assignment, minlength=self.lists))])

    def state(self) -> dict[str, np.ndarray]:
        """What :meth:`restore` needs besides the vectors: the clusters and which rows each holds."""
        return {"centroids": self.centroids, "order": self.order, "bounds": self.bounds, "probe": np.array([self.probe])}

    @classmethod
    def restore(cls, vectors: np.ndarray, state: dict[str, np.ndarray]) -> IVFIndex:
        """The index :meth:`state` was taken from, over the same ``vectors``, without building it again."""
        index = cls.__new__(cls)
        index.vectors = vectors
        index.centroids = np.asarray(state["centroids"], dtype=np.float32)
        index.order, index.bounds = state["order"], state["bounds"]
        index.lists, index.probe = len(index.centroids), int(state["probe"][0])
        return index

    def candidates(self, query: np.ndarray, probe: int | None = None) -> np.ndarray:
        """Row ids of the ``probe`` clusters nearest to ``query``, ascending."""
        nearest = top_indices(self.centroids @ np.asarray(query, dtype=np.float32), probe or self.probe)
        rows = np.concatenate([self.order[self.bounds[c] : self.bounds[c + 1]] for c in nearest.tolist()])
        rows.sort()
        return rows

    def search(self, query: np.ndarray, k: int, probe: int | None = None) -> list[tuple[int, float]]:
        rows = self.candidates(query, probe)
        scores = dot_rows(self.vectors, rows, query)
        return [(int(rows[i]), float(scores[i])) for i in top_indices(scores, k)]


def dot_rows(vectors: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``vectors[rows] @ query`` for a few thousand rows, without BLAS: a threaded matrix-vector
    product costs more in hand-offs than it saves at this size (measured 2-3x slower on two cores)."""
    return np.einsum("ij,j->i", vectors[rows], np.asarray(query, dtype=vectors.dtype))


def normalise(matrix: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), as float32; ``out`` may be ``matrix``.

    Done a block of rows at a time, so a million-row matrix needs no full-size temporaries; each
    row's norm and quotient are those of the whole-matrix expression, bit for bit."""
    matrix = np.asarray(matrix)
    result = np.empty(matrix.shape, dtype=np.float32) if out is None else out
    step = 65536
    for at in range(0, max(len(matrix), 1), step):
        block = matrix[at : at + step]
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        result[at : at + step] = block / norms
    return result
