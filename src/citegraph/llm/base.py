"""The chat-model interface every local backend implements, and its fake for tests.

One small surface: send messages, optionally constrained by a JSON schema, and get back the text
and, when asked, the top log-probabilities of the first generated token (what an entailment judge
needs). Backends raise :class:`~citegraph.errors.BackendUnavailable` when the server or model is
not there, and :class:`~citegraph.errors.ModelOutputError` when it answered in a broken shape;
they never return an empty result in place of an error.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from citegraph.errors import ModelUnavailable

__all__ = ["ChatModel", "ChatResult", "FakeChatModel", "Message", "wire"]


@dataclass(frozen=True)
class Message:
    role: str  #: ``system`` | ``user`` | ``assistant``
    content: str


def wire(messages: Sequence[Message]) -> list[dict[str, str]]:
    """Messages in the ``{"role", "content"}`` shape every backend's API takes."""
    return [{"role": m.role, "content": m.content} for m in messages]


@dataclass(frozen=True)
class ChatResult:
    text: str
    #: log-probabilities of the most likely first tokens, ``{token: logprob}``, when requested
    first_token_logprobs: dict[str, float] = field(default_factory=dict)
    #: the model's last hidden state (after its final norm) at the position that predicts the first
    #: answer token, when requested of a backend that exposes it (:attr:`ChatModel.exposes_state`)
    state: tuple[float, ...] | None = None


class ChatModel(ABC):
    name: str  #: the model spec it was made from, e.g. ``ollama:qwen2.5@http://127.0.0.1:11434``
    #: how many calls may be in flight at once: servers queue or batch them; an in-process model
    #: holds one context and must be called from one thread at a time
    concurrency: int = 1
    #: whether :meth:`first_token` can return the hidden state (an in-process model can; a server cannot)
    exposes_state: bool = False

    @abstractmethod
    def chat(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        top_logprobs: int = 0,
    ) -> ChatResult:
        """One completion at temperature 0."""

    def stream(self, messages: Sequence[Message], *, max_tokens: int = 512) -> Iterator[str]:
        """One completion at temperature 0, as it is generated: its text in pieces (tokens, or what the
        server sends at once), which joined are :meth:`chat`'s text. The default, for a backend that
        cannot stream, yields the whole text once."""
        yield self.chat(messages, max_tokens=max_tokens).text

    def first_token(self, messages: Sequence[Message], *, top_logprobs: int = 10, state: bool = False) -> ChatResult:
        """The first answer token's log-probabilities and, with ``state`` where :attr:`exposes_state`, the
        hidden state that predicts it (ModelUnavailable where the backend does not expose it)."""
        if state and not self.exposes_state:
            raise ModelUnavailable(f"{self.name} does not expose its hidden state (only in-process gguf models do)")
        return self.chat(messages, max_tokens=1, top_logprobs=top_logprobs)

    def close(self) -> None:
        """Release connections or memory held by the backend (a no-op by default)."""

    def check(self) -> None:
        """Raise BackendUnavailable unless the model answers. The default sends a tiny request."""
        self.chat([Message("user", "Reply with OK.")], max_tokens=2)


class FakeChatModel(ChatModel):
    """A scripted model for tests: ``respond(messages) -> text``. Records every call."""

    def __init__(self, respond: Callable[[Sequence[Message]], str], name: str = "fake", logprobs: dict[str, float] | None = None) -> None:
        self.respond = respond
        self.name = name
        self.logprobs = logprobs or {}
        self.calls: list[list[Message]] = []

    def chat(
        self, messages: Sequence[Message], *, schema: dict[str, Any] | None = None, max_tokens: int = 512, top_logprobs: int = 0
    ) -> ChatResult:
        self.calls.append(list(messages))
        return ChatResult(self.respond(messages), dict(self.logprobs) if top_logprobs else {})

    def stream(self, messages: Sequence[Message], *, max_tokens: int = 512) -> Iterator[str]:
        """The scripted text word by word (each piece a word and the space after it), as a model streams."""
        text = self.chat(messages, max_tokens=max_tokens).text
        yield from re.findall(r"\S+\s*|\s+", text)
