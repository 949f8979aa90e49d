"""The extractor interface.

An extractor receives the sentences the program cut from one document and returns entities and
relations, each tied to the sentence *the program* handed over: provenance never comes from text
a model returns. What it cannot use it reports as a :class:`~citegraph.models.Rejection`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from citegraph.ingest.sentences import Sentence
from citegraph.models import Document, Extraction

__all__ = ["Extractor"]


class Extractor(ABC):
    name: str

    def close(self) -> None:
        """Release what the extractor holds (a model connection); a no-op by default."""

    @abstractmethod
    def extract(self, document: Document, sentences: Sequence[Sentence]) -> Extraction:
        """Entities and relations found in ``sentences`` (all from ``document``)."""
