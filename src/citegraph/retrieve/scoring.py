"""Index builders over a caller's view: BM25 over its sentences and the transition matrix that
personalized PageRank walks. :class:`~citegraph.retrieve.view.GraphView` builds and caches them;
the modes (:mod:`citegraph.retrieve.modes`) read them from the view. Below both, so nothing imports
in a circle."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["BM25", "ppr_matrix", "terms"]

_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    "a an and are as at be by did do does for from had has have how in is it its of on or that the this to was were what when where "
    "which who whom whose why will with".split()
)


def terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in _STOP]


@dataclass
class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over the caller's sentences.

    Written here rather than taken from a library because its statistics must be those of the
    caller's view (a private sentence must not move a public caller's IDF) and it is rebuilt with
    the view; it is twenty lines over a scipy sparse matrix.
    """

    matrix: Any  #: scipy.sparse csr [terms × spans] of BM25 weights
    vocabulary: dict[str, int]

    @classmethod
    def build(cls, texts: Sequence[str], k1: float = 1.2, b: float = 0.75) -> BM25:
        from scipy import sparse

        vocabulary: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        tfs: list[int] = []
        lengths = np.zeros(len(texts), dtype=np.float64)
        for j, text in enumerate(texts):
            counts = Counter(terms(text))
            lengths[j] = sum(counts.values())
            for term, count in counts.items():
                rows.append(vocabulary.setdefault(term, len(vocabulary)))
                cols.append(j)
                tfs.append(count)
        tf = np.asarray(tfs, dtype=np.float64)
        df = np.bincount(np.asarray(rows, dtype=np.int64), minlength=len(vocabulary)) if rows else np.zeros(0)
        n = max(len(texts), 1)
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        avg = lengths.mean() if len(texts) else 1.0
        col = np.asarray(cols, dtype=np.int64)
        weight = (
            idf[np.asarray(rows, dtype=np.int64)] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[col] / max(avg, 1e-9))) if rows else tf
        )
        matrix = sparse.csr_matrix((weight, (rows, cols)), shape=(len(vocabulary), len(texts)))
        return cls(matrix, vocabulary)

    def scores(self, query: str) -> np.ndarray:
        ids = [self.vocabulary[t] for t in set(terms(query)) if t in self.vocabulary]
        if not ids:
            return np.zeros(self.matrix.shape[1], dtype=np.float32)
        return np.asarray(self.matrix[ids].sum(axis=0)).ravel().astype(np.float32)


def ppr_matrix(
    n_entities: int,
    n_spans: int,
    n_docs: int,
    mentions: np.ndarray,
    relations: np.ndarray,
    span_doc: np.ndarray,
) -> Any:
    """The column-stochastic transition matrix of the entity–sentence–passage graph (undirected).

    ``mentions`` are ``(entity, span)`` rows (a repeated pair counts once), ``relations`` are
    ``(source, target)`` rows (each counts; a self-loop not at all)."""
    from scipy import sparse

    n = n_entities + n_spans + n_docs
    pairs = np.unique(np.asarray(mentions, dtype=np.int64).reshape(-1, 2), axis=0)
    links = np.asarray(relations, dtype=np.int64).reshape(-1, 2)
    links = links[links[:, 0] != links[:, 1]]
    spans = np.arange(n_spans)
    src_arr = np.concatenate(
        [pairs[:, 0], n_entities + pairs[:, 1], links[:, 0], links[:, 1], n_entities + spans, n_entities + n_spans + span_doc]
    )
    dst_arr = np.concatenate(
        [n_entities + pairs[:, 1], pairs[:, 0], links[:, 1], links[:, 0], n_entities + n_spans + span_doc, n_entities + spans]
    )
    adjacency = sparse.csr_matrix((np.ones(len(src_arr)), (dst_arr, src_arr)), shape=(n, n))
    out_degree = np.asarray(adjacency.sum(axis=0)).ravel()
    scale = np.divide(1.0, out_degree, out=np.zeros_like(out_degree), where=out_degree > 0)
    return (adjacency @ sparse.diags(scale)).tocsr()
