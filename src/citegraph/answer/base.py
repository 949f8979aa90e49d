"""The answerer interface: question and numbered context in, answer text with ``[N]`` markers out.

The context an answerer sees is the evidence *sentences themselves* (the spans), numbered, never
entity descriptions; whatever it writes is then resolved and checked by
:mod:`citegraph.answer.citations`, so an answerer cannot mark its own work.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from citegraph.models import ContextItem

__all__ = ["Answerer"]


class Answerer(ABC):
    name: str

    def close(self) -> None:
        """Release what the answerer holds (a model connection); a no-op by default."""

    @abstractmethod
    def answer(self, question: str, context: Sequence[ContextItem]) -> str:
        """Answer text whose claims end with ``[N]`` markers into ``context``."""
