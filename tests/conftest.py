"""Shared fixtures: real spaCy and SQLite everywhere (cheap), the real ONNX embedder where ranking
matters, and the deterministic hashing embedder elsewhere. No test reaches a network."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from citegraph.embed import HashingEmbedder, MiniLMEmbedder
from citegraph.ingest.sentences import SentenceSplitter
from citegraph.pipeline import CiteGraph
from citegraph.store import SQLiteStore

LARKSPUR = Path(__file__).resolve().parents[1] / "src" / "citegraph" / "demo" / "larkspur"


@pytest.fixture(scope="session")
def larkspur() -> Path:
    return LARKSPUR


@pytest.fixture(scope="session")
def splitter() -> SentenceSplitter:
    return SentenceSplitter()


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def graph(splitter: SentenceSplitter) -> Iterator[CiteGraph]:
    """A fresh in-memory store with the hashing embedder (fast, deterministic)."""
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter) as g:
        yield g


@pytest.fixture
def minilm_graph(splitter: SentenceSplitter, minilm: MiniLMEmbedder) -> Iterator[CiteGraph]:
    with CiteGraph(SQLiteStore(":memory:"), minilm, splitter=splitter) as g:
        yield g


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    """write("a.md", "text") -> path under a fresh folder."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return _write
