"""The default answerer: no language model, the best evidence sentences quoted as claims."""

from __future__ import annotations

from collections.abc import Sequence

from citegraph.answer.base import Answerer
from citegraph.answer.citations import MARKER
from citegraph.models import ContextItem

__all__ = ["ExtractiveAnswerer"]


class ExtractiveAnswerer(Answerer):
    """Quotes the top context sentence, plus any within ``relative`` of its score (at most ``max_claims``).

    Each quoted sentence is a claim followed by its own marker, so the citation is exact by
    construction; quoting two sources that disagree shows the disagreement instead of hiding it.
    """

    name = "extractive"

    def __init__(self, max_claims: int = 3, relative: float = 0.8) -> None:
        self.max_claims = max_claims
        self.relative = relative

    def answer(self, question: str, context: Sequence[ContextItem]) -> str:
        if not context:
            return ""
        top = context[0].evidence.score
        chosen = [c for c in context if c.evidence.score >= self.relative * top][: self.max_claims]
        parts = []
        for item in chosen:
            # A bracketed number inside a quoted source is not a citation: defuse it.
            sentence = MARKER.sub(lambda m: f"({m.group(1)})", " ".join(item.span.text.split()))
            body, end = (sentence[:-1], sentence[-1]) if sentence[-1] in ".!?" else (sentence, ".")
            parts.append(f"{body} [{item.marker}]{end}")
        return " ".join(parts)
