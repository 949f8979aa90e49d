"""facade.py: the reads a caller gets besides ``ask`` (entities, relations, traversal, history) and
the explicit changes (relabel, supersede, delete). What a caller may not read does not exist for it
(the same NotFound as a name never stored, naming nothing hidden), every span is checked against the
live store even when the cached view is out of date, and a delete is all-or-nothing per call."""

from __future__ import annotations

import pytest

from citegraph.errors import AccessDenied, NotFound
from citegraph.pipeline import CiteGraph, TextInput

POLICY = "Exports use the latest snapshot. The retention service deletes old snapshots."
SECRET = "The Zephyrion merger closes in March. Zephyrion exports use a private snapshot."


def _two_labels(graph: CiteGraph) -> CiteGraph:
    graph.ingest_texts([TextInput("policy.md", POLICY)], access=("public",))
    graph.ingest_texts([TextInput("merger.md", SECRET)], access=("legal",))
    return graph


def test_what_the_caller_may_not_read_is_not_found_like_what_was_never_stored(graph: CiteGraph) -> None:
    _two_labels(graph)
    assert graph.entity("Zephyrion", labels=("legal",)).mentions
    for hidden, never in (
        (lambda: graph.entity("Zephyrion", labels=("public",)), lambda: graph.entity("Quorblax", labels=("public",))),
        (lambda: graph.history("merger.md", labels=("public",)), lambda: graph.history("nothing.md", labels=("public",))),
    ):
        with pytest.raises(NotFound) as seen:
            hidden()
        with pytest.raises(NotFound) as absent:
            never()
        assert type(seen.value) is type(absent.value)
        assert "merger" not in str(seen.value).replace("'merger.md'", "")  # no suggestion names a hidden document


def test_reads_check_the_live_store_when_the_view_is_out_of_date(graph: CiteGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """A view read before a relabel (a saved graph mapped by another process) still shows the
    document; what the reads return is checked against the live store and leaves it out."""
    _two_labels(graph)
    stale = graph.retriever.view(("public",))
    stale_all = graph.retriever.view(("public",), include_superseded=True)
    assert any(r.span.document == "policy.md" for r in graph.relations(labels=("public",)))
    assert graph.traverse(["export"], labels=("public",), hops=1)[1:]
    graph.relabel("policy.md", ("legal",))
    monkeypatch.setattr(graph.retriever, "view", lambda labels, include_superseded=False: stale_all if include_superseded else stale)
    assert graph.retriever.view(("public",)) is stale  # the reads below see the old view ...
    assert not graph.relations(labels=("public",))  # ... and return nothing from it
    assert graph.traverse(["export"], labels=("public",), hops=1)[1:] == []  # no route through a sentence it cannot read
    with pytest.raises(NotFound):
        graph.entity("export", labels=("public",))


def test_a_delete_names_an_unknown_id_before_deleting_anything_and_stays_within_the_callers_labels(graph: CiteGraph) -> None:
    _two_labels(graph)
    with pytest.raises(NotFound):
        graph.remove(["policy.md", "nothing.md"])
    assert {d.document.id for d in graph.documents(labels=None)} == {"policy.md", "merger.md"}  # nothing went
    with pytest.raises(NotFound):  # a document it cannot read does not exist for it
        graph.remove(["merger.md"], labels=("public",))
    graph.ingest_texts([TextInput("shared.md", "Snapshots are kept for 30 days.")], access=("public", "legal"))
    with pytest.raises(AccessDenied):  # readable, but it carries a label this caller does not hold
        graph.remove(["shared.md"], labels=("public",))
    assert [r.doc_id for r in graph.remove(["shared.md"], labels=("public", "legal"))] == ["shared.md"]


def test_a_supersession_a_label_cannot_see_is_named(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("faq.md", "Exports are removed at cancellation.")], access=("public", "support"))
    graph.ingest_texts([TextInput("policy.md", POLICY)], access=("public",))
    assert graph.unseen_supersession("faq.md", "policy.md") == ("support",)
    assert graph.supersede("faq.md", by="policy.md") is None
    assert graph.supersede("faq.md", by=None) == "policy.md"  # the mark taken away names what set it
