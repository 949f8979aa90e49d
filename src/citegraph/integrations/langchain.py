"""citegraph as a LangChain retriever and tool (``pip install 'citegraph[integrations]'``)::

    from citegraph import CiteGraph
    from citegraph.integrations.langchain import CiteGraphRetriever, citation_check_tool

    graph = CiteGraph.open("citegraph.db")
    retriever = CiteGraphRetriever(graph=graph, labels=("public",))
    docs = retriever.invoke("How many vacation days do employees get?")
    docs[0].page_content            # the source sentence itself
    docs[0].metadata["where"]       # "handbook.md@3f2a9c1e:1042-1101": document, version, offsets
    check = citation_check_tool(graph)  # give it to an agent: it checks an answer's [N] citations
    check.invoke({"question": "...", "answer": "Employees get 25 days [1]."})["status"]

A document's ``metadata`` is :func:`citegraph.integrations.evidence.passages`'s (span, labels,
route, stale); its ``id`` is the span's ``where``. The retriever reads only what ``labels`` may.
"""

from __future__ import annotations

from typing import Any

from citegraph.errors import MissingExtra

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.tools import StructuredTool
except ImportError as exc:  # pragma: no cover - exercised by hiding the module in tests
    raise MissingExtra("the LangChain retriever", "langchain-core", "integrations") from exc
from pydantic import ConfigDict

from citegraph.integrations.evidence import check_answer, passages
from citegraph.pipeline import CiteGraph

__all__ = ["CiteGraphRetriever", "citation_check_tool"]


class CiteGraphRetriever(BaseRetriever):
    """The evidence sentences citegraph would cite for a question, best first, as LangChain documents."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    graph: CiteGraph
    labels: tuple[str, ...] = ("public",)  #: the access labels the caller holds
    top_k: int | None = None  #: entry entities taken by similarity (None: the graph's setting)
    as_of: str | None = None  #: YYYY-MM-DD: from the documents current on that day
    include_superseded: bool = False

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        found = passages(
            self.graph, query, labels=self.labels, top_k=self.top_k, as_of=self.as_of, include_superseded=self.include_superseded
        )
        return [Document(page_content=p.text, metadata={**p.metadata, "score": p.score}, id=p.metadata["where"]) for p in found]


def citation_check_tool(
    graph: CiteGraph,
    labels: tuple[str, ...] = ("public",),
    *,
    top_k: int | None = None,
    as_of: str | None = None,
    include_superseded: bool = False,
) -> StructuredTool:
    """A tool that checks an answer written by any model against the sources: its ``[N]`` markers
    number the documents :class:`CiteGraphRetriever` returns for the same question (``metadata["marker"]``)
    when built with the same options (``labels``, ``top_k``, ``as_of``, ``include_superseded``).
    Returns the answer's status, each claim's verdict with its span, and a Markdown ``reply``."""

    def check_citations(question: str, answer: str) -> dict[str, Any]:
        return check_answer(graph, question, answer, labels=labels, top_k=top_k, as_of=as_of, include_superseded=include_superseded)

    return StructuredTool.from_function(
        func=check_citations,
        name="check_citations",
        description=(
            "Check that each claim of an answer is supported by the source sentence its [N] marker cites "
            "(markers number the retriever's documents for the same question). Returns a status per claim."
        ),
    )
