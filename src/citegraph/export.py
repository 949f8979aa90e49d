"""``citegraph export``: the graph one caller may see, with provenance, as GraphML or JSON.

Both formats load in NetworkX (``nx.read_graphml``, ``nx.node_link_graph(data, edges="edges")``)
and GraphML opens in Gephi. The graph is a multigraph: one edge per relation row, each with the
sentence (document, version, character offsets, text) that asserted it. Nodes are entity keys,
each with the spans that mention it. GraphML attributes must be scalars, so a node's mentions are
a JSON string there and a list in the JSON export.

Only what the caller's labels may read is exported: the view comes from the same access-filtered
store read that traversal uses, and superseded versions only with ``include_superseded``; every span
is checked again against the document versions the live store lists for the caller (``readable``),
and an entity left with no readable mention is not a node.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from citegraph.models import Span
from citegraph.retrieve.view import GraphView
from citegraph.store.base import StoredDocument

__all__ = ["FORMATS", "build_graph", "export_graph"]

FORMATS = ("graphml", "json")


def build_graph(view: GraphView, documents: Sequence[StoredDocument], readable: Callable[[Span], bool] = lambda _span: True) -> Any:
    """A ``networkx.MultiDiGraph`` of the view, in a canonical order (no internal ids): the mentions
    and relations whose span is ``readable``, and the entities with at least one such mention."""
    import networkx as nx

    data = view.data
    graph = nx.MultiDiGraph(name="citegraph")
    mentions: list[list[dict[str, Any]]] = [[] for _ in data.keys]
    for m in data.mentions:
        span = data.spans[m.span]
        if not readable(span):
            continue
        mentions[m.entity].append(
            {
                "document": span.document,
                "version": span.version,
                "start": span.start,
                "end": span.end,
                "sentence": span.text,
                "surface": m.surface,
                "inferred": m.inferred,
                "current": data.span_current[m.span],
            }
        )
    for i, key in enumerate(data.keys):
        if not mentions[i]:
            continue
        rows = sorted(mentions[i], key=lambda m: (m["document"], m["version"], m["start"], m["surface"], m["inferred"]))
        graph.add_node(
            key,
            name=view.names[i],
            mentions=rows,
            documents=sorted({f"{m['document']}@{m['version']}" for m in rows}),
            inferred=all(m["inferred"] for m in rows),
            current=any(m["current"] for m in rows),
        )
    edges = sorted(
        (data.keys[r.source], data.keys[r.target], r.type, data.spans[r.span], data.span_current[r.span])
        for r in data.relations
        if readable(data.spans[r.span]) and mentions[r.source] and mentions[r.target]
    )
    for n, (source, target, type_, span, current) in enumerate(edges):
        graph.add_edge(
            source,
            target,
            key=f"r{n}",
            type=type_,
            document=span.document,
            version=span.version,
            start=span.start,
            end=span.end,
            sentence=span.text,
            current=current,
        )
    graph.graph["documents"] = [
        {
            "id": d.document.id,
            "version": d.document.version,
            "label": d.document.label or "",
            "current": d.document.current,
            "source": d.document.source,
            "access": list(d.document.access),
            "status": d.status,
        }
        for d in documents
    ]
    return graph


def export_graph(
    view: GraphView, documents: Sequence[StoredDocument], fmt: str, *, readable: Callable[[Span], bool] = lambda _span: True
) -> str:
    """The view as GraphML or node-link JSON text (only ``readable`` spans: see :func:`build_graph`)."""
    import networkx as nx

    graph = build_graph(view, documents, readable)
    if fmt == "json":
        return json.dumps(nx.node_link_data(graph, edges="edges"), ensure_ascii=False, indent=2)
    if fmt != "graphml":
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    # GraphML holds scalars only: lists become JSON strings (Gephi shows them as text). Edge
    # attributes are scalars already.
    for attrs in (graph.graph, *(a for _node, a in graph.nodes(data=True))):
        for name, value in attrs.items():
            if isinstance(value, list):
                attrs[name] = json.dumps(value, ensure_ascii=False)
    return "\n".join(nx.generate_graphml(graph, encoding="utf-8", prettyprint=True)) + "\n"
