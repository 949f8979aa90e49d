"""An answerer backed by a local language model.

The prompt numbers the evidence sentences (the spans themselves) inside an ``<evidence>`` block that
document text cannot close, and asks for short claims each ending with its ``[N]``. Whatever comes
back goes through the same citation resolution as any other answer, so a marker the model invents
(or that a document talked it into) is reported as ``invalid_marker``, never trusted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from citegraph.answer.base import Answerer
from citegraph.llm.base import ChatModel, Message
from citegraph.models import ContextItem
from citegraph.prompts import load_prompt, render

__all__ = ["ABSTENTION", "LLMAnswerer", "evidence_block", "is_abstention"]

ABSTENTION = "NOT FOUND"  #: what the prompt asks a model to write when no evidence sentence answers
_ABSTAINS = re.compile(
    r"^\W*(?:not[ _]found|the (?:evidence|context|documents?) (?:does|do) not (?:answer|say|state|contain|mention)\b.*"
    r"|(?:i )?cannot (?:answer|find)\b.*|no evidence sentence answers\b.*|(?:there is )?no (?:answer|information)\b.*)\W*$",
    re.IGNORECASE | re.DOTALL,
)


def is_abstention(text: str) -> bool:
    """The answer says the evidence does not answer (``NOT FOUND``, or the same in a sentence), and
    cites nothing."""
    return not re.search(r"\[\s*\d", text) and bool(_ABSTAINS.match(text.strip()))


_DELIMITER = re.compile(r"</?\s*evidence\s*>", re.IGNORECASE)


def evidence_block(context: Sequence[ContextItem]) -> str:
    """``[N] sentence`` lines; text that would open or close the data block is defused."""
    return "\n".join(f"[{item.marker}] " + _DELIMITER.sub("(evidence)", " ".join(item.span.text.split())) for item in context)


class LLMAnswerer(Answerer):
    model: ChatModel

    def __init__(self, model: ChatModel, *, max_tokens: int = 300) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.name = model.name

    def close(self) -> None:
        self.model.close()

    def messages(self, question: str, context: Sequence[ContextItem]) -> list[Message]:
        return [
            Message("system", load_prompt("answer_system").strip()),
            Message("user", render("answer_user", question=" ".join(question.split()), evidence=evidence_block(context)).strip()),
        ]

    def answer(self, question: str, context: Sequence[ContextItem], on_token: Callable[[str], None] | None = None) -> str:
        """The model's answer; with ``on_token``, streamed: each piece told as the model writes it
        (:meth:`ChatModel.stream <citegraph.llm.base.ChatModel.stream>`), the whole returned at the end."""
        if not context:
            return ""
        messages = self.messages(question, context)
        if on_token is None:
            return self.model.chat(messages, max_tokens=self.max_tokens).text.strip()
        pieces = []
        for piece in self.model.stream(messages, max_tokens=self.max_tokens):
            pieces.append(piece)
            on_token(piece)
        return "".join(pieces).strip()

    def respond(
        self,
        question: str,
        context: Sequence[ContextItem],
        lead: int | None = None,
        *,
        summary: bool = False,
        on_token: Callable[[str], None] | None = None,
    ) -> str:
        return self.answer(question, context, on_token)
