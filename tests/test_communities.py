"""retrieve/communities.py and retrieve/overview.py: communities of the caller's entity graph, their
cited summaries, and a question about the whole corpus answered one community at a time.

Three sources that share no entity make three communities; "What are the main topics?" draws on each
of them, every point a checked quote, the whole answer never green (nothing checks that the points
are the corpus's main ones); a deleted or superseded sentence is never in a summary; a document the
caller may not read changes nothing it sees (tests/test_access.py checks the same on random stores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.components import make_verifier
from citegraph.errors import UserError
from citegraph.models import AnswerStatus, ClaimStatus
from citegraph.output import communities_json
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.retrieve.overview import Overview, overview_request

SOURCES = {
    "security.md": (
        "Henrik Dahl owns the Security Policy. The Security Policy requires hardware keys for Google Workspace. "
        "Henrik Dahl reviews the Security Policy with the Leadership Team every quarter. "
        "Google Workspace accounts use hardware keys from Yubico."
    ),
    "travel.md": (
        "The Finance Director approves trips over 1,500 pounds. Travel Desk books flights with Amex GBT. "
        "The Finance Director sets the London hotel limit for Travel Desk. Amex GBT sends invoices to the Finance Director."
    ),
    "garden.md": (
        "Mira Santos grows tomatoes in the Riverside Allotment. The Riverside Allotment opens to Mira Santos on Saturdays. "
        "Mira Santos shares tomatoes with the Harbour Food Bank. The Harbour Food Bank collects from the Riverside Allotment."
    ),
}


def _ingest(graph: CiteGraph) -> CiteGraph:
    graph.ingest_texts([TextInput(doc, text) for doc, text in SOURCES.items()])
    return graph


def test_sources_that_share_no_entity_are_separate_communities_each_summed_up_by_its_own_sentences(graph: CiteGraph) -> None:
    reports = _ingest(graph).communities(labels=("public",))
    assert len(reports) >= 3
    by_document = {}
    for c in reports:
        assert c.size >= 2 and c.names and c.summary
        documents = {span.document for span in c.summary}
        assert len(documents) == 1  # a community's sentences come from the one source it belongs to
        by_document.setdefault(documents.pop(), []).append(c)
        for span in c.summary:
            doc = graph.store.get_document(span.document, span.version)
            assert doc is not None and doc.text[span.start : span.end] == span.text  # a span, exactly
    assert set(by_document) == set(SOURCES)
    assert [c.id for c in reports] == [f"0.{i}" for i in range(len(reports))]
    assert graph.communities(labels=("public",)) == reports  # the same graph, the same communities
    with pytest.raises(UserError, match="level"):
        graph.communities(level=7)


def test_a_deleted_or_superseded_sentence_is_never_in_a_summary(graph: CiteGraph) -> None:
    _ingest(graph)
    graph.remove(["garden.md"])
    assert all(s.document != "garden.md" for c in graph.communities() for s in c.summary)
    graph.ingest_texts([TextInput("travel-2026.md", "The Chief Financial Officer approves trips over 2,000 pounds.")])
    graph.supersede("travel.md", by="travel-2026.md")
    assert all(s.document != "travel.md" for c in graph.communities() for s in c.summary)
    answer = graph.ask("What are the main topics of these documents?")
    assert all(item.span.document not in ("garden.md", "travel.md") for item in answer.context)


def test_a_document_the_caller_may_not_read_changes_nothing_it_sees(graph: CiteGraph, splitter) -> None:  # type: ignore[no-untyped-def]
    from citegraph.embed import HashingEmbedder
    from citegraph.store import SQLiteStore

    _ingest(graph)
    graph.ingest_texts(
        [TextInput("merger.md", "Henrik Dahl leads the Zephyrion merger. The Finance Director funds the Zephyrion merger.")],
        access=("legal",),
    )
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter) as only_public:
        _ingest(only_public)
        for level in range(3):
            assert communities_json(graph.communities(level=level)) == communities_json(only_public.communities(level=level))
    assert any("Zephyrion" in name for c in graph.communities(labels=("public", "legal")) for name in c.names)


def test_the_main_topics_draw_on_every_source_and_every_point_is_a_checked_quote(graph: CiteGraph) -> None:
    unchecked = _ingest(graph).ask("What are the main topics of these documents?")
    assert unchecked.status == AnswerStatus.CITED  # no verifier: cited, never more
    graph.verifier = make_verifier("guards")
    answer = graph.ask("What are the main topics of these documents?")
    assert {item.span.document for item in answer.context} == set(SOURCES)
    assert len(answer.context) <= 2 * len(SOURCES)
    assert answer.claims and all(c.status == ClaimStatus.SUPPORTED for c in answer.claims)
    assert answer.status == AnswerStatus.RELATED  # exact quotes; that they are the main points is not checked
    assert [w.code for w in answer.warnings if w.code == "overview"] == ["overview"]
    drawn = dict(answer.retrieval.communities)
    assert {item.evidence.community for item in answer.context} == set(drawn)
    assert all(c.citations[0].community in drawn for c in answer.claims)


def test_what_the_documents_say_about_a_topic_draws_on_the_communities_about_it(graph: CiteGraph) -> None:
    answer = _ingest(graph).ask("What do our documents say about the Riverside Allotment?")
    assert answer.retrieval.communities and answer.retrieval.summary == "what the documents say about the Riverside Allotment"
    assert answer.context[0].span.document == "garden.md"


def test_scope_forces_or_refuses_the_communities(graph: CiteGraph) -> None:
    _ingest(graph)
    forced = graph.ask("Who approves trips?", scope="global")
    assert forced.retrieval.communities
    local = graph.ask("What are the main topics of these documents?", scope="local")
    assert not local.retrieval.communities
    with pytest.raises(UserError, match="scope"):
        graph.ask("Who approves trips?", scope="everywhere")


def test_communities_on_the_command_line(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for doc, text in SOURCES.items():
        (folder / doc).write_text(text, encoding="utf-8")
    db = str(tmp_path / "g.db")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", "--db", db, "--embedder", "hashing", str(folder)]).exit_code == 0
    listed = runner.invoke(main, ["communities", "--db", db, "--embedder", "hashing", "--json"])
    assert listed.exit_code == 0, listed.output
    data = json.loads(listed.output)
    assert data and {"id", "size", "entities", "documents", "summary", "parent", "level", "title"} <= set(data[0])
    shown = runner.invoke(main, ["communities", "--db", db, "--embedder", "hashing"])
    assert shown.exit_code == 0 and "0.0" in shown.output and "security.md" in shown.output
    asked = runner.invoke(main, ["ask", "--db", db, "--embedder", "hashing", "--scope", "global", "--json", "Who approves trips?"])
    assert asked.exit_code == 0, asked.output
    assert json.loads(asked.output)["retrieval"]["communities"]


def _questions() -> dict[str, list[dict[str, object]]]:
    return json.loads((Path(__file__).parent / "data" / "scope_questions.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.mark.parametrize("item", _questions()["dev"], ids=lambda item: str(item["q"]))
def test_a_question_about_the_whole_corpus_is_recognised_by_its_form(item: dict[str, object]) -> None:
    """The dev half of tests/data/scope_questions.json (the test half is only reported: bench/overview.py)."""
    found = overview_request(str(item["q"]))
    assert (found is not None) == item["global"]
    if found is not None:
        assert found == Overview(str(item.get("topic", "")))


def test_no_sentence_stands_for_two_communities(graph: CiteGraph) -> None:
    answer = _ingest(graph).ask("What do our documents say about Henrik Dahl and the Finance Director?")
    spans = [(item.span.document, item.span.start) for item in answer.context]
    assert answer.retrieval.communities and len(spans) == len(set(spans))
    overview = graph.ask("What are the main topics of these documents?")
    spans = [(item.span.document, item.span.start) for item in overview.context]
    assert len(spans) == len(set(spans))


def test_communities_are_found_without_importing_matplotlib_which_still_imports_after() -> None:
    """igraph's package would import matplotlib.pyplot (0.6 s) for plots never drawn here; a fresh
    process finds communities without it, and matplotlib imports as usual afterwards."""
    import subprocess
    import sys

    pytest.importorskip("matplotlib")
    script = (
        "import sys\n"
        "from citegraph.retrieve.communities import _igraph\n"
        "g = _igraph().Graph(n=4, edges=[(0, 1), (2, 3)])\n"
        "print(len(g.community_multilevel()), 'matplotlib' in sys.modules)\n"
        "import matplotlib\n"
        "print(bool(matplotlib.__version__))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["2", "False", "True"]
