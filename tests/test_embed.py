from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from citegraph.embed import ExactIndex, HashingEmbedder, MiniLMEmbedder
from citegraph.embed.minilm import default_model_path
from citegraph.errors import ModelUnavailable


def test_minilm_matches_the_reference_figures(minilm: MiniLMEmbedder) -> None:
    # MODELS.md: cos("Exports use the latest snapshot.", "Snapshots are used for exports") = 0.80; unrelated ~ -0.1.
    v = minilm.embed(["Exports use the latest snapshot.", "Snapshots are used for exports", "The cat sat on the mat in Paris yesterday."])
    assert v.shape == (3, 384) and np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert abs(float(v[0] @ v[1]) - 0.80) < 0.02
    assert float(v[0] @ v[2]) < 0.1


def test_minilm_batching_and_padding_do_not_change_vectors(minilm: MiniLMEmbedder) -> None:
    texts = ["short", "a much longer sentence about exports, snapshots and retention after cancellation", "mid length text"]
    together = minilm.embed(texts)
    alone = np.vstack([minilm.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_a_model_file_with_the_wrong_hash_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "model.onnx"
    shutil.copy(default_model_path(), bad)
    with bad.open("r+b") as fh:
        fh.seek(1000)
        fh.write(b"\x00\x01\x02\x03")
    with pytest.raises(ModelUnavailable, match="does not match the pinned"):
        MiniLMEmbedder(model_path=bad)
    with pytest.raises(ModelUnavailable, match="missing"):
        MiniLMEmbedder(model_path=tmp_path / "absent.onnx")


def test_hashing_embedder_is_deterministic_and_word_sensitive() -> None:
    e = HashingEmbedder()
    a, b, c = e.embed(["Exports use snapshots", "snapshot export use", "billing period ends"])
    assert np.array_equal(e.embed(["Exports use snapshots"])[0], a)
    assert float(a @ b) > 0.9 and abs(float(a @ c)) < 0.5


def test_exact_index_ties_are_broken_by_row() -> None:
    index = ExactIndex(np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32))
    assert index.search(np.array([1, 0], dtype=np.float32), 2) == [(0, 1.0), (1, 1.0)]
    assert index.search(np.array([1, 0], dtype=np.float32), 0) == []
