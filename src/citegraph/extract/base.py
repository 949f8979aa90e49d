"""The extractor interface.

An extractor receives the sentences the program cut from one document and returns entities and
relations, each tied to the sentence *the program* handed over: provenance never comes from text
a model returns. What it cannot use it reports as a :class:`~citegraph.models.Rejection`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from citegraph.extract.keys import entity_key
from citegraph.models import Document, Extraction
from citegraph.sentences import Sentence

__all__ = ["Extractor", "occurs_in", "sentence_lemmas"]


def sentence_lemmas(text: str, nlp: Any | None) -> set[str]:
    """The words and lemmas of a sentence, case-folded (just the words without a parser)."""
    if nlp is None:
        return set(text.casefold().split())
    doc = nlp(text)
    return {t.lemma_.casefold() for t in doc} | {t.text.casefold() for t in doc}


def occurs_in(name: str, sentence: str, lemmas: set[str], nlp: Any | None = None) -> bool:
    """Whether ``name`` is written in ``sentence``: as it is (case-insensitive), or word by word in
    the sentence's lemmas ("Exports" in "the export is kept"). A model or an import file may name
    only what the sentence says."""
    if name.casefold() in sentence.casefold():
        return True
    words = entity_key(name, nlp).split()
    return bool(words) and all(w in lemmas for w in words)


class Extractor(ABC):
    name: str

    def close(self) -> None:
        """Release what the extractor holds (a model connection); a no-op by default."""

    @abstractmethod
    def extract(self, document: Document, sentences: Sequence[Sentence]) -> Extraction:
        """Entities and relations found in ``sentences`` (all from ``document``)."""
