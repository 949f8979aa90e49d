"""The answerer interface: question and numbered context in, answer text with ``[N]`` markers out.

The context an answerer sees is the evidence *sentences themselves* (the spans), numbered, never
entity descriptions; whatever it writes is then resolved and checked by
:mod:`citegraph.answer.citations`, so an answerer cannot mark its own work.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from citegraph.llm.base import ChatModel
from citegraph.models import AnswerWarning, ContextItem

__all__ = ["Answerer"]


class Answerer(ABC):
    name: str
    model: ChatModel | None = None  #: the language model that writes its answers, if one does

    def close(self) -> None:
        """Release what the answerer holds (a model connection); a no-op by default."""

    @abstractmethod
    def answer(self, question: str, context: Sequence[ContextItem]) -> str:
        """Answer text whose claims end with ``[N]`` markers into ``context``."""

    def respond(
        self,
        question: str,
        context: Sequence[ContextItem],
        lead: int | None = None,
        *,
        summary: bool = False,
        on_token: Callable[[str], None] | None = None,
    ) -> str:
        """What the pipeline calls: :meth:`answer`, unless an answerer uses more of what is known before
        it writes: ``lead``, the marker of the sentence the reader found the answer in, and ``summary``,
        that the question asks for a document's gist (the context holds a few sentences per section).
        ``on_token(piece)``: told each piece of the text as it is written, by an answerer that writes
        as it goes (a language model); one that does not is silent and the caller shows its text whole."""
        return self.answer(question, context)

    def warnings(
        self, question: str, context: Sequence[ContextItem], lead: int | None = None, *, summary: bool = False
    ) -> list[AnswerWarning]:
        """What :meth:`respond` left out of the evidence it was given and why; none by default."""
        return []
