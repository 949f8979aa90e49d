"""Stage: write an answer from numbered evidence, then resolve its citations into claims."""

from citegraph.answer.base import Answerer
from citegraph.answer.citations import answer_status, parse_markers, resolve_claims, split_claims
from citegraph.answer.extractive import ExtractiveAnswerer

__all__ = ["Answerer", "ExtractiveAnswerer", "answer_status", "parse_markers", "resolve_claims", "split_claims"]
