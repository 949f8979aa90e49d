"""citegraph: local GraphRAG where every claim points at, and is checked against, its source sentence."""

from citegraph.errors import BackendUnavailable, CitegraphError, ModelUnavailable, NotFound, UserError
from citegraph.models import Answer, AnswerStatus, Citation, Claim, ClaimStatus, Span
from citegraph.pipeline import CiteGraph, TextInput

__version__ = "0.1.0"

__all__ = [
    "Answer",
    "AnswerStatus",
    "BackendUnavailable",
    "Citation",
    "CiteGraph",
    "CitegraphError",
    "Claim",
    "ClaimStatus",
    "ModelUnavailable",
    "NotFound",
    "Span",
    "TextInput",
    "UserError",
    "__version__",
]
