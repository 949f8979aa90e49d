"""An answerer backed by a local language model.

The prompt numbers the evidence sentences (the spans themselves) inside an ``<evidence>`` block that
document text cannot close, and asks for short claims each ending with its ``[N]``. Whatever comes
back goes through the same citation resolution as any other answer, so a marker the model invents
(or that a document talked it into) is reported as ``invalid_marker``, never trusted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citegraph.answer.base import Answerer
from citegraph.llm.base import ChatModel, Message
from citegraph.models import ContextItem
from citegraph.prompts import load_prompt, render

__all__ = ["LLMAnswerer", "evidence_block"]

_DELIMITER = re.compile(r"</?\s*evidence\s*>", re.IGNORECASE)


def evidence_block(context: Sequence[ContextItem]) -> str:
    """``[N] sentence`` lines; text that would open or close the data block is defused."""
    return "\n".join(f"[{item.marker}] " + _DELIMITER.sub("(evidence)", " ".join(item.span.text.split())) for item in context)


class LLMAnswerer(Answerer):
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

    def answer(self, question: str, context: Sequence[ContextItem]) -> str:
        if not context:
            return ""
        return self.model.chat(self.messages(question, context), max_tokens=self.max_tokens).text.strip()
