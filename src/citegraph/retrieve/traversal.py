"""True multi-source breadth-first search.

Every seed starts at depth 0 together, so a node's depth is its distance to the *nearest* seed and
no seed can shadow another (the seed notebook shared one visited set across seeds processed in
order, and lost nodes depending on that order). Each reached node keeps its best depth and one
route to it. Ties between equally short routes are broken by comparing the routes themselves
(entity keys, relation types, directions, spans), never by the order of seeds or edges given, so
the result is a function of the *set* of seeds and the graph alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from citegraph.models import Hop

__all__ = ["Edge", "multi_source_bfs"]

Edge = Hop  # an edge seen from one endpoint is exactly one hop of a route


def _route_key(route: Sequence[Hop]) -> tuple:
    return tuple((h.source, h.relation, h.direction, h.target, h.span.document, h.span.version, h.span.start, h.span.end) for h in route)


def multi_source_bfs(
    seeds: Iterable[str],
    edges: Mapping[str, Sequence[Edge]] | Callable[[str], Sequence[Edge]],
    hops: int,
) -> dict[str, tuple[int, tuple[Hop, ...]]]:
    """``{node: (depth, route)}`` for every node within ``hops`` of any seed (seeds at depth 0).

    ``edges(node)`` (or ``edges[node]``) lists the hops leaving ``node``: each has ``source == node``
    and follows one relation in either direction.
    """
    neighbours = edges if callable(edges) else (lambda node: edges.get(node, ()))  # type: ignore[union-attr]
    best: dict[str, tuple[int, tuple[Hop, ...]]] = {seed: (0, ()) for seed in set(seeds)}
    frontier = sorted(best)
    for depth in range(1, max(hops, 0) + 1):
        found: dict[str, tuple[Hop, ...]] = {}
        for node in frontier:
            route = best[node][1]
            for edge in neighbours(node):
                if edge.target in best:
                    continue
                candidate = (*route, edge)
                held = found.get(edge.target)
                if held is None or _route_key(candidate) < _route_key(held):
                    found[edge.target] = candidate
        if not found:
            break
        for node, route in found.items():
            best[node] = (depth, route)
        frontier = sorted(found)
    return best
