"""Stage: find evidence. Entry entities by similarity, multi-source traversal, ranked spans."""

from citegraph.retrieve.retriever import Retriever
from citegraph.retrieve.traversal import multi_source_bfs
from citegraph.retrieve.view import GraphView

__all__ = ["GraphView", "Retriever", "multi_source_bfs"]
