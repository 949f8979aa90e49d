"""export.py: the graph as GraphML or node-link JSON that networkx reads back, every edge with the
sentence that states it (document, version, offsets), in one order whatever the order of ingest, and
only what the caller may read."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest

from citegraph.embed import HashingEmbedder
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.sentences import SentenceSplitter
from citegraph.store import SQLiteStore

NEW_FAQ = "Snapshot exports stay available for 30 days after cancellation. Billing questions go to the help desk."
POLICY = "Exports use the latest snapshot. The retention service deletes old snapshots."
SECRET = "The Zephyrion merger closes in March. Exports of Zephyrion data use a private snapshot."


def test_export_loads_in_networkx_with_provenance(graph: CiteGraph, tmp_path: Path) -> None:
    graph.ingest_texts([TextInput("policy.md", POLICY), TextInput("faq.md", NEW_FAQ)])
    path = tmp_path / "g.graphml"
    path.write_text(graph.export("graphml"), encoding="utf-8")
    g = nx.read_graphml(path, force_multigraph=True)
    assert isinstance(g, nx.MultiDiGraph) and g.number_of_edges() == len(graph.relations())
    for _s, _t, attrs in g.edges(data=True):
        doc = graph.store.get_document(attrs["document"], attrs["version"])
        assert doc is not None and doc.text[attrs["start"] : attrs["end"]] == attrs["sentence"]
    mentions = json.loads(g.nodes["export"]["mentions"])
    assert {m["document"] for m in mentions} == {"policy.md", "faq.md"}

    data = json.loads(graph.export("json"))
    j = nx.node_link_graph(data, edges="edges")
    assert set(j.nodes) == set(g.nodes) and j.number_of_edges() == g.number_of_edges()
    assert {d["id"] for d in data["graph"]["documents"]} == {"policy.md", "faq.md"}
    with pytest.raises(Exception, match="unknown export format"):
        graph.export("csv")


def test_the_export_is_the_same_whatever_the_order_of_ingest(splitter: SentenceSplitter) -> None:
    texts = [TextInput("policy.md", POLICY), TextInput("faq.md", NEW_FAQ)]
    exports = []
    for order in (texts, texts[::-1]):
        with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter) as g:
            g.ingest_texts(order)
            exports.append((g.export("json"), g.export("graphml")))
    assert exports[0] == exports[1]


def test_the_export_holds_only_what_the_caller_may_read(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("policy.md", POLICY)])
    graph.ingest_texts([TextInput("secret.md", SECRET)], access=("legal",))
    public = graph.export("json", labels=("public",))
    assert "Zephyrion" not in public and "secret.md" not in public
    assert "Zephyrion" in graph.export("json", labels=("public", "legal"))
