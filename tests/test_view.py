"""retrieve/view.py, the caller's graph as arrays, gives what the per-row code gave: the columnar
view, the array walk (retrieve/traversal.py's Reach against its plain BFS), exact top-k, the
approximate index (and that it never holds a span the caller may not read), and nodes made only when
read. bench/query.py measures the speed; these tests pin the results."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from citegraph.embed.base import ExactIndex, IVFIndex, normalise, top_indices
from citegraph.models import Span
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.retrieve.traversal import multi_source_bfs
from citegraph.retrieve.view import GraphView
from citegraph.store.columns import GraphColumns, GraphData

ROOT = Path(__file__).resolve().parents[1]
KEYS = [f"n{i}" for i in range(8)]


def _graph_data(edges: list[tuple[int, str, int]], mentions: list[tuple[int, int]], seed: int = 0) -> GraphData:
    """A two-document graph: one sentence per relation (in doc a) plus two more sentences (doc b);
    each relation's endpoints are mentioned in its sentence, ``mentions`` adds (entity, span) rows."""
    rng = np.random.default_rng(seed)
    n_rel = len(edges)
    spans = [Span("a", "v1", 10 * i, 10 * i + 7, "x y z w") for i in range(n_rel)]
    spans += [Span("b", "v1", 0, 7, "x y z w"), Span("b", "v1", 8, 11, "x y")]
    rows: list[tuple[int, int, str, bool]] = []
    for i, (a, _t, b) in enumerate(edges):
        rows += [(a, i, KEYS[a], False), (b, i, KEYS[b].upper(), False)]
    rows += [(e, s % len(spans), KEYS[e], False) for e, s in mentions]
    used = sorted({e for e, *_ in rows})
    index = {e: i for i, e in enumerate(used)}
    vectors = normalise(rng.standard_normal((len(spans), 8)).astype(np.float32))
    return GraphData(
        spans,
        vectors,
        [True] * len(spans),
        [KEYS[e] for e in used],
        normalise(rng.standard_normal((len(used), 8)).astype(np.float32)),
        [(index[e], s, surface, inferred) for e, s, surface, inferred in rows],
        [(100 + i, index[a], index[b], t, i) for i, (a, t, b) in enumerate(edges)],
    )


def _same(a: GraphData, b: GraphData) -> bool:
    """Field by field, arrays by value."""
    return all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
        for x, y in zip(dataclasses.astuple(a), dataclasses.astuple(b), strict=True)
    )


edges_st = st.lists(st.tuples(st.integers(0, 7), st.sampled_from(["a", "b", "c"]), st.integers(0, 7)), min_size=1, max_size=20)
mentions_st = st.lists(st.tuples(st.integers(0, 7), st.integers(0, 30)), max_size=10)


@settings(max_examples=300, deadline=None)
@given(edges_st, mentions_st, st.lists(st.integers(0, 7), min_size=1, max_size=4), st.integers(0, 4))
def test_reach_is_multi_source_bfs_in_depth_route_and_order(edges, mentions, seeds, hops) -> None:  # type: ignore[no-untyped-def]
    view = GraphView.build(_graph_data(edges, mentions))
    keys = [KEYS[s] for s in seeds if KEYS[s] in view.index] or [view.keys[0]]
    expected = multi_source_bfs(keys, view.adjacency, hops)
    reach = view.reach(keys, hops)
    assert list(reach.as_dict().items()) == list(expected.items())  # the order too: bfs breaks ties by it
    nodes = reach.nodes()
    assert [(n.entity, n.depth, n.route) for n in nodes] == sorted(
        ((k, d, r) for k, (d, r) in expected.items()), key=lambda x: (x[1], x[0])
    )


@settings(max_examples=200, deadline=None)
@given(edges_st, mentions_st)
def test_view_arrays_are_those_of_the_per_row_loops(edges, mentions) -> None:  # type: ignore[no-untyped-def]
    data = _graph_data(edges, mentions)
    view = GraphView.build(data)
    # Entity vectors, summed span by span in float32 as the loop did: bit-identical.
    sums = np.zeros_like(data.key_vectors)
    counts = np.zeros(len(data.keys), dtype=np.float32)
    seen: list[set[int]] = [set() for _ in data.keys]
    surfaces: list[Counter[str]] = [Counter() for _ in data.keys]
    for e, s, surface, _inferred in data.mentions:
        if s not in seen[e]:
            seen[e].add(s)
            sums[e] += data.span_vectors[s]
            counts[e] += 1
        surfaces[e][surface] += 1
    assert np.array_equal(view.entity_vectors, normalise(data.key_vectors + sums / np.maximum(counts, 1)[:, None]))
    assert view.names == [min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for c in surfaces]
    assert view.mention_spans == [sorted(s) for s in seen]
    centroids = np.zeros((2, data.span_vectors.shape[1]), dtype=np.float32)
    np.add.at(centroids, view.span_doc, data.span_vectors)
    assert np.array_equal(view.passage_centroids, normalise(centroids))
    span_entities: list[list[int]] = [[] for _ in data.spans]
    for e, spans in enumerate(view.mention_spans):
        for s in spans:
            span_entities[s].append(e)
    assert view.span_entities == span_entities
    topic: dict[int, list[int]] = defaultdict(list)
    for d, first in enumerate(view.first_spans):
        assert first == min(view.doc_spans[d], key=lambda i: (data.spans[i].start, data.spans[i].end))
        for e in span_entities[int(first)]:
            topic[e].append(d)
    assert view.topic_passages == dict(topic)
    assert _same(view.data, data)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=60), st.integers(0, 70))
def test_top_indices_is_the_stable_sort(values, k) -> None:  # type: ignore[no-untyped-def]
    scores = np.array(values, dtype=np.float32)
    assert top_indices(scores, k).tolist() == np.argsort(-scores, kind="stable")[:k].tolist()


def test_ivf_is_exact_when_it_probes_every_list_and_finds_clustered_neighbours() -> None:
    rng = np.random.default_rng(3)
    centres = normalise(rng.standard_normal((40, 32)).astype(np.float32))
    vectors = normalise(centres[rng.integers(0, 40, 4000)] + 0.1 * rng.standard_normal((4000, 32)).astype(np.float32))
    ivf, exact = IVFIndex(vectors), ExactIndex(vectors)
    queries = normalise(vectors[:30] + 0.05 * rng.standard_normal((30, 32)).astype(np.float32))
    for q in queries:
        found, expected = ivf.search(q, 10, probe=ivf.lists), exact.search(q, 10)
        assert [i for i, _ in found] == [i for i, _ in expected]
        assert np.allclose([s for _, s in found], [s for _, s in expected], atol=1e-6)
    recall = np.mean([len({i for i, _ in ivf.search(q, 10)} & {i for i, _ in exact.search(q, 10)}) / 10 for q in queries])
    assert recall >= 0.9


PUBLIC = ["Exports use the latest snapshot. Snapshot exports stay available for 30 days after cancellation."]
PRIVATE = ["Exports of payroll data use the archive vault. The archive vault keeps payroll for seven years."]


def _store(graph: CiteGraph, private: bool) -> CiteGraph:
    graph.ingest_texts([TextInput(f"pub{i}.md", t) for i, t in enumerate(PUBLIC * 3)], access=("public",))
    graph.ingest_texts([TextInput("faq.md", "Snapshots are kept for 30 days. Payroll exports stay private.")], access=("public",))
    if private:
        graph.ingest_texts([TextInput(f"hr{i}.md", t) for i, t in enumerate(PRIVATE * 3)], access=("hr",))
    return graph


def test_an_approximate_view_holds_only_what_the_caller_may_read(graph: CiteGraph, splitter) -> None:  # type: ignore[no-untyped-def]
    from citegraph.embed import HashingEmbedder
    from citegraph.store import SQLiteStore

    _store(graph, private=True)
    graph.retriever.approximate_above = 0  # every view approximate, however small
    view = graph.retriever.view(["public"])
    assert view.approximate
    public_spans = len(graph.store.graph(["public"]).spans)
    assert len(view.span_index.vectors) == public_spans and len(view.passage_index.vectors) == 4
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter) as only:
        _store(only, private=False)
        only.retriever.approximate_above = 0
        for mode in ("bridge", "bfs", "dense-sentence"):
            full = graph.retriever.retrieve("How long do payroll exports stay?", ["public"], mode=mode).evidence
            alone = only.retriever.retrieve("How long do payroll exports stay?", ["public"], mode=mode).evidence
            assert full == alone and full, mode
            assert all(e.span.document.startswith(("pub", "faq")) for e in full)


def test_an_approximate_view_that_finds_every_neighbour_ranks_as_the_exact_one(graph: CiteGraph) -> None:
    """On a store small enough that the index probes every cluster, the approximate path (lazy
    scores, candidate pools, names many passages are about) must give the exact path's ranking."""
    from citegraph.eval.retrieval import load, prepare

    data = load(ROOT / "tests" / "data" / "hotpot_sample.json")
    prepare(data, graph)
    retriever = graph.retriever
    for mode in ("bridge-embedded", "bridge", "bfs", "dense-sentence"):
        ranked = {}
        for threshold in (0, 10**9):
            retriever.approximate_above = threshold
            retriever.clear_cache()
            ranked[threshold] = [
                [
                    (e.span.document, e.span.start, e.found_by, e.entity, e.route)
                    for e in retriever.retrieve(q.text, ["public"], mode=mode).evidence
                ]
                for q in data.questions
            ]
        assert ranked[0] == ranked[10**9], mode


def test_a_leaky_columnar_read_still_cannot_reach_the_context(graph: CiteGraph) -> None:
    _store(graph, private=True)
    leaky = graph.store.graph_columns(None)  # type: ignore[attr-defined]
    graph.store.graph_columns = lambda labels, include_superseded=False: leaky  # type: ignore[attr-defined]
    graph.retriever.clear_cache()
    answer = graph.ask("Where do exports of payroll data go?", labels=("public",))
    assert answer.context and all(not item.span.document.startswith("hr") for item in answer.context)


def test_columns_are_the_graph_and_visible_among_is_visible(graph: CiteGraph) -> None:
    _store(graph, private=True)
    graph.ingest_texts([TextInput("faq.md", "Snapshots are kept for 14 days. Payroll exports stay private.")], access=("public",))
    store = graph.store
    for labels in (["public"], ["hr"], None, []):
        for superseded in (False, True):
            columns = store.graph_columns(labels, superseded)  # type: ignore[attr-defined]
            assert _same(columns.to_graph_data(), store.graph(labels, superseded))
            assert _same(GraphColumns.from_graph_data(columns.to_graph_data()).to_graph_data(), columns.to_graph_data())
            everything = store.visible(None, include_superseded=True) | {("nope.md", "v")}
            assert store.visible_among(labels, superseded, everything) == store.visible(labels, superseded)  # type: ignore[attr-defined]


def test_nodes_are_made_when_read_and_equal_the_traversal(graph: CiteGraph) -> None:
    _store(graph, private=False)
    for mode in ("bfs", "bridge", "ppr"):
        retrieval = graph.retriever.retrieve("How long do exports stay available?", ["public"], mode=mode)
        view = graph.retriever.view(["public"])
        assert retrieval.nodes == tuple(graph.retriever.traverse(view, list(retrieval.seeds), retrieval.hops))
        assert dataclasses.replace(retrieval, evidence=()).nodes == retrieval.nodes
        assert retrieval == dataclasses.replace(retrieval)


def test_bench_query_runs_on_a_tiny_synthetic_store(tmp_path: Path) -> None:
    out = tmp_path / "query.json"
    command = [sys.executable, str(ROOT / "bench" / "query.py"), "--scale", "0.0005", "--store", str(tmp_path / "q.db")]
    run = subprocess.run([*command, "--questions", "3", "--json-out", str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    figures = json.loads(out.read_text())
    assert set(figures["modes"]) == {"bridge-embedded", "bfs"} and figures["store"]["sentences"] == 500
    assert figures["notebook_ratio"] is not None
