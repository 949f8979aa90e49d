"""Stage: find evidence. Entry entities by similarity, multi-source traversal, ranked spans."""

from citegraph.retrieve.retriever import GraphView, Retriever
from citegraph.retrieve.traversal import multi_source_bfs

__all__ = ["GraphView", "Retriever", "multi_source_bfs"]
