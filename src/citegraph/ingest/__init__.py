"""Stage 1: read files into document text, index it (sentences, extraction, embeddings) and write it
to a store. Sentence splitting itself is on the ground floor (:mod:`citegraph.sentences`), since
extraction, verification and answering use it too."""

from citegraph.ingest.base import LoadedText, discover, load_file

__all__ = ["LoadedText", "discover", "load_file"]
