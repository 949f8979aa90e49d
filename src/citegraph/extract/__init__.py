"""Stage: find entities and relations in sentences, each tied to the span it came from."""

from citegraph.extract.base import Extractor
from citegraph.extract.imported import ImportedExtractions, load_extractions
from citegraph.extract.keys import entity_key
from citegraph.extract.spacy_extractor import SpacyExtractor

__all__ = ["Extractor", "ImportedExtractions", "SpacyExtractor", "entity_key", "load_extractions"]
