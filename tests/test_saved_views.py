"""Saved caller graphs (citegraph.store.snapshots): a later process maps the graph an earlier one
read instead of reading the store again, never across a write, a label set or a deletion."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import citegraph.store.snapshots as snapshots
from citegraph.embed import HashingEmbedder
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.store import SQLiteStore
from citegraph.store.snapshots import TextColumn

PUBLIC = [
    TextInput("larkspur.md", "Larkspur is a project tracker made by Quillon Labs. Exports stay available for 30 days."),
    TextInput("quillon.md", "Quillon Labs was founded in Tallinn in 2014. Its support desk answers in English and Estonian."),
]
SECRET = TextInput("merger.md", "The Zephyrion merger closes in March. Quillon Labs keeps the Zephyrion data private.")
QUESTION = "Where was the company that makes Larkspur founded?"


@pytest.fixture(autouse=True)
def save_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshots, "SAVE_ABOVE", 1)  # every graph is "large"


def _open(db: Path) -> CiteGraph:
    return CiteGraph(SQLiteStore(db), HashingEmbedder())


def _saved(db: Path) -> list[str]:
    root = Path(str(db) + ".views")
    return sorted(p.name for p in root.iterdir() if (p / "complete").exists()) if root.exists() else []


def _answer(graph: CiteGraph, labels: list[str]) -> list[tuple[str, int, int, float]]:
    evidence = graph.retriever.retrieve(QUESTION, labels).evidence
    return [(e.span.document, e.span.start, e.span.end, round(e.score, 6)) for e in evidence]


@pytest.mark.parametrize("approximate", [False, True])
def test_a_later_process_reads_the_saved_graph_and_what_its_view_made(tmp_path: Path, approximate: bool) -> None:
    """The second process reads no row of the store and builds no index: it maps the graph, the
    mention graph, the indexes and the per-sentence arrays the first one made, and ranks the same."""
    db = tmp_path / "store.db"
    with _open(db) as graph:
        graph.ingest_texts(PUBLIC, access=("public",))
        graph.retriever.approximate_above = 0 if approximate else 10**9
        first = _answer(graph, ["public"])
        (name,) = _saved(db)
    kept = {p.name for p in (Path(str(db) + ".views") / name).iterdir()}
    assert {"derived-mentions.entity_vectors.npy", "derived-word_counts.npy", "derived-topic.pointers.npy"} <= kept
    assert ("derived-span_ivf.centroids.npy" in kept) == approximate
    with _open(db) as graph:

        def unread(*_args: object, **_kwargs: object) -> None:
            raise AssertionError("the store's rows were read again")

        graph.store.graph_columns = unread  # type: ignore[method-assign]
        graph.retriever.approximate_above = 0 if approximate else 10**9
        built = snapshots.Derived.put
        snapshots.Derived.put = lambda *_a, **_k: pytest.fail("a view of the saved graph made something again")  # type: ignore[method-assign]
        try:
            assert _answer(graph, ["public"]) == first
        finally:
            snapshots.Derived.put = built  # type: ignore[method-assign]
        view = graph.retriever.view(["public"])
        assert isinstance(view.columns.span_text, TextColumn) and isinstance(view.columns.span_vectors, np.memmap)


def test_a_write_a_label_set_and_a_deletion_each_keep_a_saved_graph_from_serving(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    with _open(db) as graph:
        graph.ingest_texts(PUBLIC, access=("public",))
        graph.retriever.view(["public"])
        (before,) = _saved(db)
        graph.ingest_texts([SECRET], access=("finance",))  # a write: a new generation
    with _open(db) as graph:
        # the private caller reads its own graph, never the public one saved before
        assert any(
            e.span.document == "merger.md" for e in graph.retriever.retrieve("When does the Zephyrion merger close?", ["finance"]).evidence
        )
        assert not any(
            e.span.document == "merger.md" for e in graph.retriever.retrieve("When does the Zephyrion merger close?", ["public"]).evidence
        )
        names = _saved(db)
        assert before not in names and len(names) == 2  # the older generation went when a newer one was saved
        graph.remove(["merger.md"])
        assert _saved(db) == []  # deleted text does not stay in a saved graph


def test_a_text_column_reads_like_the_list_it_holds() -> None:
    texts = ["Exports stay.", "", "Zürich – 30 days", "\udcff lone surrogate"]
    column = TextColumn.of(texts)
    assert list(column) == texts and [column[i] for i in range(len(texts))] == texts
    assert column[-1] == texts[-1] and column[1:3] == texts[1:3] and len(column) == 4
    with pytest.raises(IndexError):
        column[4]
