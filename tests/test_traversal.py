"""Multi-source BFS: every seed at depth 0 together; the result depends on the set of seeds only."""

from __future__ import annotations

import itertools
from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from citegraph.models import Hop, Span
from citegraph.retrieve.traversal import multi_source_bfs


def _adjacency(edges: list[tuple[str, str, str]]) -> dict[str, list[Hop]]:
    adj: dict[str, list[Hop]] = defaultdict(list)
    for i, (a, rel, b) in enumerate(edges):
        span = Span("doc", "v", i * 10, i * 10 + 5, "x" * 5)
        adj[a].append(Hop(a, rel, "out", b, span))
        if a != b:
            adj[b].append(Hop(b, rel, "in", a, span))
    return adj


# The seed lesson's graph (Table 4): 4 relations, two of them between Export and Snapshot.
LESSON = [
    ("cancellation", "ends", "export"),
    ("export", "uses", "snapshot"),
    ("export", "related to", "snapshot"),
    ("snapshot", "governed by", "retention"),
]


def test_lesson_table_4_both_seed_orders_reach_retention_at_depth_1() -> None:
    adj = _adjacency(LESSON)
    for seeds in (["cancellation", "snapshot"], ["snapshot", "cancellation"]):
        reached = multi_source_bfs(seeds, adj, hops=2)
        assert {k: d for k, (d, _) in reached.items()} == {"cancellation": 0, "snapshot": 0, "export": 1, "retention": 1}
        _depth, route = reached["retention"]
        assert [(h.source, h.relation, h.direction, h.target) for h in route] == [("snapshot", "governed by", "out", "retention")]


def test_edges_are_followed_both_ways_with_direction_recorded() -> None:
    reached = multi_source_bfs(["retention"], _adjacency(LESSON), hops=3)
    _, route = reached["cancellation"]
    assert [(h.source, h.direction, h.target) for h in route] == [
        ("retention", "in", "snapshot"),
        ("snapshot", "in", "export"),
        ("export", "in", "cancellation"),
    ]


def test_hop_limit_is_respected() -> None:
    reached = multi_source_bfs(["cancellation"], _adjacency(LESSON), hops=1)
    assert set(reached) == {"cancellation", "export"}
    assert multi_source_bfs(["cancellation"], _adjacency(LESSON), hops=0) == {"cancellation": (0, ())}


nodes = st.sampled_from([f"n{i}" for i in range(8)])
graphs = st.lists(st.tuples(nodes, st.sampled_from(["a", "b", "c"]), nodes), max_size=20)


@settings(max_examples=300, deadline=None)
@given(graphs, st.lists(nodes, min_size=1, max_size=4, unique=True), st.integers(0, 4), st.randoms(use_true_random=False))
def test_result_does_not_depend_on_seed_or_edge_order(edges, seeds, hops, rnd) -> None:  # type: ignore[no-untyped-def]
    expected = multi_source_bfs(seeds, _adjacency(edges), hops)
    shuffled_seeds = list(seeds)
    rnd.shuffle(shuffled_seeds)
    adj = _adjacency(edges)
    for hops_list in adj.values():
        rnd.shuffle(hops_list)
    assert multi_source_bfs(shuffled_seeds, adj, hops) == expected
    # Depth is the distance to the nearest seed: every seed is at 0, each route is that long and valid.
    for node, (depth, route) in expected.items():
        assert len(route) == depth
        assert (route[0].source if route else node) in seeds
        assert all(a.target == b.source for a, b in itertools.pairwise(route))
        assert depth <= hops
