"""Stage 1: read files into document text, and split that text into sentences with exact offsets."""

from citegraph.ingest.base import LoadedText, discover, load_file
from citegraph.ingest.sentences import Sentence, SentenceSplitter, split_blocks

__all__ = ["LoadedText", "Sentence", "SentenceSplitter", "discover", "load_file", "split_blocks"]
