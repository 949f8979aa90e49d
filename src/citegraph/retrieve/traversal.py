"""True multi-source breadth-first search: the walk from a question's seed entities along relations.

:class:`Reach` walks a caller's :class:`~citegraph.retrieve.view.GraphView` with array operations, a
depth at a time (:class:`Hops`: every relation as two directed hops in route order);
:func:`multi_source_bfs` is the same search written plainly over a mapping of edges, the reference
the array walk is tested against (same depths, same routes).

Every seed starts at depth 0 together, so a node's depth is its distance to the *nearest* seed and
no seed can shadow another (the seed notebook shared one visited set across seeds processed in
order, and lost nodes depending on that order). Each reached node keeps its best depth and one
route to it. Ties between equally short routes are broken by comparing the routes themselves
(entity keys, relation types, directions, spans), never by the order of seeds or edges given, so
the result is a function of the *set* of seeds and the graph alone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from citegraph.models import Hop, ReachedNode
from citegraph.retrieve.arrays import csr, firsts, gather, rank_of

if TYPE_CHECKING:
    from citegraph.retrieve.view import GraphView

__all__ = ["Edge", "Hops", "Reach", "multi_source_bfs"]

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


class Hops:
    """Every relation as two directed hops (one for a self-loop), with each hop's place in route order."""

    def __init__(self, view: GraphView) -> None:
        c = view.columns
        loops = c.relation_source == c.relation_target
        rows = np.arange(len(c.relation_source))
        self.source = np.concatenate([c.relation_source, c.relation_target[~loops]])
        self.target = np.concatenate([c.relation_target, c.relation_source[~loops]])
        self.relation = np.concatenate([rows, rows[~loops]])
        self.outgoing = np.concatenate([np.ones(len(rows), dtype=bool), np.zeros(int((~loops).sum()), dtype=bool)])
        # Route order compares hops by (source key, relation type, direction, target key, span): the
        # rank of each hop in that order, so routes compare as integer pairs.
        key_rank = view.key_rank
        type_rank = rank_of(c.types)
        order = np.lexsort(
            (
                view.span_rank[c.relation_span[self.relation]],
                key_rank[self.target],
                self.outgoing,  # "in" < "out"
                type_rank[c.relation_type[self.relation]] if len(c.types) else self.relation,
                key_rank[self.source],
            )
        )
        self.rank = np.zeros(len(order), dtype=np.int64)
        self.rank[order] = np.arange(len(order))
        self.key_rank = key_rank
        self.pointers, self.by_source = csr(self.source, np.arange(len(self.source)), view.n_entities)


class Reach:
    """:func:`~citegraph.retrieve.traversal.multi_source_bfs` over a view's arrays.

    Every node gets the same depth and the same route as that function gives (the lexicographically
    smallest shortest route, compared hop by hop on entity keys, relation type, direction and span),
    computed a depth at a time with array operations; routes are made into :class:`Hop` tuples only
    for the entities asked for. ``order`` lists the reached entities as that function's result
    dict does: the seeds (in ``set`` order), then each depth in order of discovery.
    """

    def __init__(self, view: GraphView, seeds: Collection[str], hops: int) -> None:
        self.view = view
        n = view.n_entities
        self.depth = np.full(n, -1, dtype=np.int64)
        self.arrived = np.full(n, -1, dtype=np.int64)  # the hop each non-seed was reached by
        seed_order = np.array([view.index[s] for s in set(seeds)], dtype=np.int64)
        self.depth[seed_order] = 0
        levels = [seed_order]
        if len(seed_order) and hops > 0 and len(view.columns.relation_source):
            h = view.hops
            route = np.zeros(n, dtype=np.int64)  # rank of a node's route among the routes of its depth
            frontier = seed_order
            for depth in range(1, hops + 1):
                candidates, _owner = gather(h.pointers, h.by_source, frontier)
                candidates = candidates[self.depth[h.target[candidates]] < 0]
                if not len(candidates):
                    break
                targets = h.target[candidates]
                # The route to each target: the smallest (route to the hop's source, hop).
                best = np.lexsort((h.rank[candidates], route[h.source[candidates]], targets))
                first = firsts(targets[best])
                chosen = candidates[best][first]
                found = h.target[chosen]
                ranks = np.lexsort((h.rank[chosen], route[h.source[chosen]]))
                route[found[ranks]] = np.arange(len(found))
                self.depth[found] = depth
                self.arrived[found] = chosen
                # Discovery order: the frontier walked in key order, each node's hops in relation order.
                seen = np.lexsort((view.hops.relation[candidates], h.key_rank[h.source[candidates]], targets))
                earliest = firsts(targets[seen])
                first_hop = candidates[seen][earliest]
                discovered = h.target[first_hop][np.lexsort((h.relation[first_hop], h.key_rank[h.source[first_hop]]))]
                levels.append(discovered)
                frontier = found
        self.order = np.concatenate(levels) if levels else np.zeros(0, dtype=np.int64)
        self.position = np.full(n, -1, dtype=np.int64)
        self.position[self.order] = np.arange(len(self.order))
        self._routes: dict[int, tuple[Hop, ...]] = {}

    def route(self, entity: int) -> tuple[Hop, ...]:
        """The route to a reached entity (empty for a seed)."""
        if entity in self._routes:
            return self._routes[entity]
        hop = int(self.arrived[entity])
        if hop < 0:
            route: tuple[Hop, ...] = ()
        else:
            view, h, c = self.view, self.view.hops, self.view.columns
            r = int(h.relation[hop])
            step = Hop(
                view.keys[int(h.source[hop])],
                c.types[int(c.relation_type[r])],
                "out" if h.outgoing[hop] else "in",
                view.keys[entity],
                view.span(int(c.relation_span[r])),
            )
            route = (*self.route(int(h.source[hop])), step)
        self._routes[entity] = route
        return route

    def as_dict(self) -> dict[str, tuple[int, tuple[Hop, ...]]]:
        """What :func:`multi_source_bfs` returns, in its order."""
        return {self.view.keys[e]: (int(self.depth[e]), self.route(e)) for e in self.order.tolist()}

    def nodes(self) -> tuple[ReachedNode, ...]:
        """Every reached entity with its route, by depth then key."""
        view = self.view
        reached = self.order[np.lexsort((view.key_rank[self.order], self.depth[self.order]))] if len(self.order) else self.order
        # The columns each route step needs, fetched for all nodes at once; by depth, a node's route
        # extends its predecessor's, which is already made.
        h, c = view.hops, view.columns
        arrived = self.arrived[reached]
        steps: tuple[np.ndarray, ...]
        if len(h.source):
            hop = np.maximum(arrived, 0)  # a seed's row is read but not used
            relation = h.relation[hop]
            steps = (h.source[hop], h.outgoing[hop], c.relation_type[relation], c.relation_span[relation])
        else:  # no relation: every reached entity is a seed
            steps = tuple(np.zeros(len(reached), dtype=np.int64) for _ in range(4))
        columns = zip(reached.tolist(), self.depth[reached].tolist(), arrived.tolist(), *(a.tolist() for a in steps), strict=True)
        keys, names, types, routes, spans = view.keys, view.names, c.types, self._routes, {}
        out = []
        for e, depth, arrived, source, outgoing, type_, span in columns:
            route = routes.get(e)
            if route is None:
                if arrived < 0:
                    route = ()
                else:
                    if span not in spans:
                        spans[span] = view.span(span)
                    route = (*routes[source], Hop(keys[source], types[type_], "out" if outgoing else "in", keys[e], spans[span]))
                routes[e] = route
            key = keys[e]
            out.append(ReachedNode(key, names[e], depth, route[0].source if route else key, route))
        return tuple(out)
