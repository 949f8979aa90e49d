"""citegraph as a LlamaIndex retriever and tool (``pip install 'citegraph[integrations]'``)::

    from citegraph import CiteGraph
    from citegraph.integrations.llamaindex import CiteGraphRetriever, citation_check_tool

    graph = CiteGraph.open("citegraph.db")
    retriever = CiteGraphRetriever(graph, labels=("public",))
    nodes = retriever.retrieve("How many vacation days do employees get?")
    nodes[0].node.text              # the source sentence itself
    nodes[0].node.metadata["where"] # "handbook.md@3f2a9c1e:1042-1101": document, version, offsets
    nodes[0].score                  # its ranking score
    check = citation_check_tool(graph)  # a FunctionTool: checks an answer's [N] citations
    check.call(question="...", answer="Employees get 25 days [1].").raw_output["status"]

A node's ``metadata`` is :func:`citegraph.integrations.evidence.passages`'s (span, labels, route,
stale); its ``id_`` is the span's ``where``. The retriever reads only what ``labels`` may.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citegraph.errors import MissingExtra

try:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
    from llama_index.core.tools import FunctionTool
except ImportError as exc:  # pragma: no cover - exercised by hiding the module in tests
    raise MissingExtra("the LlamaIndex retriever", "llama-index-core", "integrations") from exc

from citegraph.integrations.evidence import check_answer, passages
from citegraph.pipeline import CiteGraph

__all__ = ["CiteGraphRetriever", "citation_check_tool"]


class CiteGraphRetriever(BaseRetriever):
    """The evidence sentences citegraph would cite for a question, best first, as scored text nodes."""

    def __init__(
        self,
        graph: CiteGraph,
        labels: Sequence[str] = ("public",),
        *,
        top_k: int | None = None,
        as_of: str | None = None,
        include_superseded: bool = False,
    ) -> None:
        super().__init__()
        self.graph = graph
        self.labels = tuple(labels)
        self.top_k, self.as_of, self.include_superseded = top_k, as_of, include_superseded

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        found = passages(
            self.graph,
            query_bundle.query_str,
            labels=self.labels,
            top_k=self.top_k,
            as_of=self.as_of,
            include_superseded=self.include_superseded,
        )
        return [
            NodeWithScore(
                node=TextNode(
                    id_=p.metadata["where"],
                    text=p.text,
                    metadata=p.metadata,
                    # the route and offsets are for the application, not for a model's prompt
                    excluded_llm_metadata_keys=[k for k in p.metadata if k not in ("source", "where")],
                    excluded_embed_metadata_keys=list(p.metadata),
                ),
                score=p.score,
            )
            for p in found
        ]


def citation_check_tool(
    graph: CiteGraph,
    labels: Sequence[str] = ("public",),
    *,
    top_k: int | None = None,
    as_of: str | None = None,
    include_superseded: bool = False,
) -> FunctionTool:
    """A tool that checks an answer written by any model against the sources: its ``[N]`` markers
    number the nodes :class:`CiteGraphRetriever` returns for the same question (``metadata["marker"]``) when
    built with the same options (``labels``, ``top_k``, ``as_of``, ``include_superseded``)."""
    held = tuple(labels)

    def check_citations(question: str, answer: str) -> dict[str, Any]:
        """Check that each claim of an answer is supported by the source sentence its [N] marker cites
        (markers number the retriever's nodes for the same question). Returns a status per claim."""
        return check_answer(graph, question, answer, labels=held, top_k=top_k, as_of=as_of, include_superseded=include_superseded)

    return FunctionTool.from_defaults(fn=check_citations, name="check_citations")
