"""The LangChain and LlamaIndex retrievers and citation tools (issue 38, item 5), through the real
pipeline (SQLite in memory, spaCy, the hashing embedder) and the real libraries (langchain-core,
llama-index-core: the ``integrations`` extra). Each document or node is one source sentence with its
span, its document's labels and the route that found it; a caller never receives a sentence of a
document it may not read; the tool checks an answer's citations as ``citegraph ask --answer`` does."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from citegraph.embed import HashingEmbedder
from citegraph.errors import MissingExtra
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter
from citegraph.store import SQLiteStore
from citegraph.verify.cascade import CheckingVerifier

pytest.importorskip("langchain_core")
pytest.importorskip("llama_index.core")

from citegraph.integrations import evidence
from citegraph.integrations import langchain as lc
from citegraph.integrations import llamaindex as li

QUESTION = "How long are exports kept after cancelling?"
PUBLIC = "Acme Cloud keeps customer exports for 30 days after a workspace is cancelled."
SECRET = "The internal escrow copy of every export is kept for 7 years by the legal team."


@pytest.fixture
def acme(splitter: SentenceSplitter, write: Callable[[str, str], Path]) -> CiteGraph:
    policy = write("policy.md", f"# Retention\n\n{PUBLIC} Support can restore a cancelled workspace within that time.\n")
    legal = write("legal/escrow.md", f"# Escrow\n\n{SECRET}\n")
    g = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    g.ingest([policy])
    g.ingest([legal], access=["legal"])
    return g


def test_the_langchain_retriever_returns_source_sentences_with_their_span_labels_and_route(acme: CiteGraph) -> None:
    docs = lc.CiteGraphRetriever(graph=acme).invoke(QUESTION)
    assert docs, "the retriever found nothing"
    first = next(d for d in docs if d.page_content == PUBLIC)
    meta = first.metadata
    stored = acme.store.get_document("policy.md")
    assert stored is not None and meta["document"] == "policy.md" and meta["version"] == stored.version
    assert stored.text[meta["start"] : meta["end"]] == PUBLIC  # the offsets are the sentence's, in that version
    assert first.id == meta["where"] == f"policy.md@{stored.version[:8]}:{meta['start']}-{meta['end']}"
    assert meta["labels"] == ["public"] and isinstance(meta["route"], list) and meta["found_by"]
    assert [d.metadata["marker"] for d in docs] == list(range(1, len(docs) + 1))  # numbered as an answer's context
    assert all(SECRET not in d.page_content for d in docs)  # the legal file is not the public caller's


def test_a_caller_with_the_label_is_given_the_labelled_sentence_and_its_labels(acme: CiteGraph) -> None:
    docs = lc.CiteGraphRetriever(graph=acme, labels=("public", "legal")).invoke("How long does the legal team keep the escrow copy?")
    secret = [d for d in docs if d.page_content == SECRET]
    assert secret and secret[0].metadata["labels"] == ["legal"]


def test_the_llamaindex_retriever_returns_the_same_sentences_as_scored_nodes(acme: CiteGraph) -> None:
    nodes = li.CiteGraphRetriever(acme).retrieve(QUESTION)
    docs = lc.CiteGraphRetriever(graph=acme).invoke(QUESTION)
    assert [n.node.get_content() for n in nodes] == [d.page_content for d in docs]
    assert [n.node.id_ for n in nodes] == [d.id for d in docs]
    assert all(isinstance(n.score, float) for n in nodes)
    assert nodes[0].node.metadata == {k: v for k, v in docs[0].metadata.items() if k != "score"}
    # what a model's prompt reads of a node: the sentence and where it is, not offsets and routes
    prompt = nodes[0].node.get_content(metadata_mode="llm")  # type: ignore[arg-type]
    assert nodes[0].node.metadata["where"] in prompt and "route" not in prompt
    assert all(SECRET not in n.node.get_content() for n in li.CiteGraphRetriever(acme, labels=("public",)).retrieve(SECRET))


def test_the_citation_tools_check_each_claim_against_the_sentence_it_cites(acme: CiteGraph) -> None:
    marker = next(d.metadata["marker"] for d in lc.CiteGraphRetriever(graph=acme).invoke(QUESTION) if d.page_content == PUBLIC)
    right = f"Acme Cloud keeps customer exports for 30 days after a workspace is cancelled [{marker}]."
    wrong = f"Acme Cloud keeps customer exports for 90 days after a workspace is cancelled [{marker}]."
    langchain_tool, llamaindex_tool = lc.citation_check_tool(acme), li.citation_check_tool(acme)
    checks: list[Callable[[str, str], dict[str, Any]]] = [
        lambda q, a: langchain_tool.invoke({"question": q, "answer": a}),
        lambda q, a: llamaindex_tool.call(question=q, answer=a).raw_output,
    ]
    for check in checks:
        ok, bad, dangling = check(QUESTION, right), check(QUESTION, wrong), check(QUESTION, "Exports are kept for 30 days [99].")
        assert ok["claims"][0]["status"] == "supported" and ok["claims"][0]["citations"][0]["sentence"] == PUBLIC
        assert bad["claims"][0]["status"] == "contradicted" and bad["status"] != ok["status"]
        assert dangling["claims"][0]["invalid_markers"] == [99]  # reported, never dropped
        assert PUBLIC in ok["reply"]  # the Markdown reply quotes the source


def test_both_tools_are_named_and_described_for_an_agent(acme: CiteGraph) -> None:
    langchain_tool, llamaindex_tool = lc.citation_check_tool(acme), li.citation_check_tool(acme)
    assert langchain_tool.name == llamaindex_tool.metadata.name == "check_citations"
    for description in (langchain_tool.description, llamaindex_tool.metadata.description):
        assert "[N]" in description and "supported" in description


@pytest.mark.parametrize(
    ("module", "hidden", "needs"), [("langchain", "langchain_core", "langchain-core"), ("llamaindex", "llama_index", "llama-index-core")]
)
def test_without_the_extra_importing_an_integration_names_its_install(
    monkeypatch: pytest.MonkeyPatch, module: str, hidden: str, needs: str
) -> None:
    for name in [m for m in sys.modules if m == hidden or m.startswith(hidden + ".") or m == f"citegraph.integrations.{module}"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, hidden, None)  # importing it now raises ImportError
    with pytest.raises(MissingExtra, match=rf"needs {needs}, which is not installed: pip install 'citegraph\[integrations\]'"):
        importlib.import_module(f"citegraph.integrations.{module}")


def test_the_tools_check_against_the_evidence_a_retriever_with_the_same_options_returns(acme: CiteGraph) -> None:
    """Built with the retriever's options, a tool numbers the same evidence: [N] means the same sentence."""
    options: dict[str, Any] = {"top_k": 1, "include_superseded": True}
    for tool, retrieved in (
        (
            lambda q, a: lc.citation_check_tool(acme, **options).invoke({"question": q, "answer": a}),
            lc.CiteGraphRetriever(graph=acme, **options),
        ),
        (lambda q, a: li.citation_check_tool(acme, **options).call(question=q, answer=a).raw_output, None),
    ):
        first = evidence.passages(acme, QUESTION, **options)[0]
        if retrieved is not None:
            assert retrieved.invoke(QUESTION)[0].page_content == first.text
        checked = tool(QUESTION, f"{first.text} [{first.metadata['marker']}]")
        assert checked["claims"][0]["citations"][0]["sentence"] == first.text
