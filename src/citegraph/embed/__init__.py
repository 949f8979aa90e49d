"""Stage: sentence embeddings (all-MiniLM-L6-v2 as int8 ONNX) and exact vector search."""

from citegraph.embed.base import Embedder, ExactIndex, VectorIndex
from citegraph.embed.fake import HashingEmbedder
from citegraph.embed.minilm import MiniLMEmbedder

__all__ = ["Embedder", "ExactIndex", "HashingEmbedder", "MiniLMEmbedder", "VectorIndex"]
