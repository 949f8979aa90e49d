"""Array helpers shared by the view and the modes: grouping (CSR), gathering groups, ranks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["csr", "firsts", "gather", "rank_of"]


def csr(rows: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(pointers, values)`` grouping ``values`` by ``rows`` into ``n`` groups (stable: each group
    keeps the order its values had); group ``r`` is ``values[pointers[r] : pointers[r + 1]]``."""
    order = np.argsort(rows, kind="stable")
    pointers = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=pointers[1:])
    return pointers, values[order]


def gather(pointers: np.ndarray, values: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The groups of ``rows`` concatenated, and for each item the position in ``rows`` it came from."""
    rows = np.asarray(rows, dtype=np.int64)
    starts, ends = pointers[rows], pointers[rows + 1]
    counts = ends - starts
    total = int(counts.sum())
    if total == 0:
        return values[:0], np.zeros(0, dtype=np.int64)
    owner = np.repeat(np.arange(len(rows)), counts)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return values[starts[owner] + offsets], owner


def firsts(groups: np.ndarray) -> np.ndarray:
    """Where each run of equal values in a sorted array starts."""
    first = np.ones(len(groups), dtype=bool)
    first[1:] = groups[1:] != groups[:-1]
    return first


def rank_of(items: Sequence[Any]) -> np.ndarray:
    """Each item's position in sorted order (Python's comparison)."""
    order = sorted(range(len(items)), key=items.__getitem__)
    out = np.zeros(len(items), dtype=np.int64)
    out[order] = np.arange(len(items))
    return out
