"""The verifier interface: does this span (or these spans) entail this claim?

Until an entailment model is configured, :class:`UncheckedVerifier` labels every citation
``unverified`` with no score. It never says ``supported``: a resolved marker is *cited*, not
*verified*, and a constant confidence would be a lie.

Besides checking claims against their spans, a verifier may check an answer's claims against each
other (:meth:`Verifier.contradictions`); the default answers "not checked" for every pair.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import NamedTuple

from citegraph.models import Span, Stage, Support, Verdict

__all__ = ["PairCheck", "UncheckedVerifier", "Verifier"]


class PairCheck(NamedTuple):
    """Whether one claim of an answer contradicts another."""

    contradiction: float | None  #: P(the two claims contradict each other); None when not checked
    note: str = ""  #: why the check could not be made, when it failed
    by: str = "judge"  #: what answered: ``judge`` (a language model's prompt) or ``checker`` (the trained checker)


class Verifier(ABC):
    name: str

    def close(self) -> None:
        """Release what the verifier holds (a model connection); a no-op by default."""

    @abstractmethod
    def verify(self, claim: str, spans: Sequence[Span]) -> Support:
        """Whether ``spans`` together support ``claim``; ``score`` is a probability or None."""

    def verify_many(self, jobs: Sequence[tuple[str, Sequence[Span]]]) -> list[Support]:
        """``verify`` for each ``(claim, spans)``, in order; concurrently where the backend allows."""
        return [self.verify(claim, spans) for claim, spans in jobs]

    def contradictions(self, pairs: Sequence[tuple[str, str]], *, fast: bool = False) -> list[PairCheck]:
        """For each ``(first, second)`` pair of claims, P(they contradict each other); not checked by default.
        ``fast``: many pairs (a whole context): only a fast model may answer, never a slow judge."""
        return [PairCheck(None) for _ in pairs]


class UncheckedVerifier(Verifier):
    name = "none"

    def verify(self, claim: str, spans: Sequence[Span]) -> Support:
        return Support(Verdict.UNVERIFIED, None, self.name, stage=Stage.NONE)
