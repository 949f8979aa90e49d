"""Which sentences of an article a summary quotes: a trained scorer.

An article (a document of one section that is no chat log or transcript) is written lead first, and a
summary taken as "its lead, then the sentences most like its centroid" stayed a little under the
lead-3 baseline on news. The scorer here learns which sentences a human summary draws on: a logistic
model over each sentence's place in the article, its length, its likeness to the article's centroid
and to its first sentence, a quote mark, a figure, the article's length, and the sentence's MiniLM
vector (what kind of sentence it is: a remark quoted, a background detail, what happened), fitted
by ``bench/train_summary.py`` to the sentences a greedy ROUGE-L oracle picks against the reference
summaries of HaluEval's CNN/DailyMail documents (SummaRuNNer's labels, Nallapati et al. 2017), on
the support checker's train split; its dev split chose the L2 strength. Its card, with the weights,
is :data:`ARTICLE_WEIGHTS`, pinned by sha256. The vector weights mean something only for the
embedder they were fitted on: with another (the hashing embedder of the tests), :func:`article_order`
gives None and the summary keeps the lead and the sentences nearest the centroid.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from citegraph.errors import ModelUnavailable
from citegraph.once import loaded_once

__all__ = ["ARTICLE_WEIGHTS", "ARTICLE_WEIGHTS_SHA256", "article_features", "article_order", "article_scorer"]

#: the article scorer's weights and card (``bench/train_summary.py``), and their pinned sha256
ARTICLE_WEIGHTS = Path(__file__).parent / "data" / "article-sentences.json"
ARTICLE_WEIGHTS_SHA256 = "138abdf2042020f27be159f3d8bad13577f5fa4051a195a439302aca933aeb4c"


#: the quote marks that open or close a quoted remark ("…," he said)
_QUOTED = re.compile('["\u201c\u201d]')


def article_features(texts: Sequence[str], vectors: np.ndarray) -> np.ndarray:
    """Each sentence of an article (its quotable sentences in order, with their unit vectors) as the
    features :data:`ARTICLE_WEIGHTS` weigh: its place (share of the way in, 1/(place+1), one flag for
    each of the first five), log of its words, its likeness to the article's centroid and to its first
    sentence, a quote mark, a figure, log of the article's length, then its vector. Training
    (``bench/train_summary.py``) and use both call this."""
    n = len(texts)
    vectors = np.asarray(vectors, dtype=np.float32)
    centroid = vectors.mean(axis=0)
    centroid = centroid / (float(np.linalg.norm(centroid)) or 1.0)
    place = np.arange(n, dtype=np.float32)
    firsts = np.stack([(place == k).astype(np.float32) for k in range(5)], axis=1)
    words = np.log1p(np.array([len(t.split()) for t in texts], dtype=np.float32))
    marks = np.array([[_QUOTED.search(t) is not None, re.search(r"\d", t) is not None] for t in texts], dtype=np.float32)
    own = np.column_stack(
        [
            place / n,
            1.0 / (place + 1.0),
            firsts,
            words,
            vectors @ centroid,
            vectors @ vectors[0],
            marks,
            np.full(n, math.log(n), dtype=np.float32),
        ]
    )
    return np.hstack([own, vectors]).astype(np.float32)


@loaded_once
def article_scorer() -> tuple[str, np.ndarray]:
    """The scorer's embedder (the one whose vectors it was fitted on) and weights (intercept first),
    read once from :data:`ARTICLE_WEIGHTS` and checked against their pinned sha256: a changed file is
    refused, never read as another model."""
    raw = ARTICLE_WEIGHTS.read_bytes()
    if hashlib.sha256(raw).hexdigest() != ARTICLE_WEIGHTS_SHA256:
        raise ModelUnavailable(f"{ARTICLE_WEIGHTS} is not the pinned file (sha256 {ARTICLE_WEIGHTS_SHA256[:16]}…): reinstall citegraph")
    card = json.loads(raw)
    return str(card["embedder"]), np.asarray(card["weights"], dtype=np.float32)


def article_order(texts: Sequence[str], vectors: np.ndarray, embedder: str) -> list[int] | None:
    """An article's sentences, the likeliest summary sentence first (ties: the earlier), or None
    where its vectors are another embedder's than the one the scorer was fitted on (its weights
    would read them as something they are not)."""
    fitted, weights = article_scorer()
    if embedder != fitted:
        return None
    scores = weights[0] + article_features(texts, vectors) @ weights[1:]
    return sorted(range(len(texts)), key=lambda j: (-float(scores[j]), j))
