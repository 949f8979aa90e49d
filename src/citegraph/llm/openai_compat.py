"""Any OpenAI-compatible ``/chat/completions`` server: llama.cpp's server, vLLM, LM Studio, Ollama's /v1."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import httpx

from citegraph.errors import ModelOutputError
from citegraph.llm.base import ChatModel, ChatResult, Message, wire
from citegraph.llm.http import RequestRejected, post_json, stream_json, stream_lines

__all__ = ["OpenAIChat", "parse_completion"]


def parse_completion(data: dict[str, Any], backend: str = "openai") -> ChatResult:
    """Pure parser for a chat completion (tested on recorded responses)."""
    try:
        choice = data["choices"][0]
        text = choice["message"]["content"] or ""
    except (KeyError, IndexError, TypeError) as exc:
        raise ModelOutputError(f"{backend}: completion has no choices[0].message.content: {str(data)[:200]}") from exc
    first: dict[str, float] = {}
    content = ((choice.get("logprobs") or {}).get("content")) or []
    if content:
        for alt in content[0].get("top_logprobs") or [content[0]]:
            first[str(alt["token"])] = max(first.get(str(alt["token"]), float("-inf")), float(alt["logprob"]))
    return ChatResult(text, first)


def stream_deltas(lines: Iterable[str], backend: str) -> Iterator[str]:
    """The text pieces of an OpenAI-style stream of server-sent events (``data: {chunk}`` lines, ``data: [DONE]``)."""
    finished = False  # a choice's finish_reason, or [DONE]: a stream that ends without either was cut short
    for line in lines:
        if not line.startswith("data:"):
            continue
        body = line[5:].strip()
        if body == "[DONE]":
            return
        chunk = stream_json(body, backend)
        choices = chunk.get("choices") or [{}]
        choice = choices[0] if isinstance(choices[0], dict) else {}
        piece = (choice.get("delta") or {}).get("content") or ""
        if piece:
            yield piece
        finished = finished or bool(choice.get("finish_reason"))
    if not finished:
        raise ModelOutputError(f"{backend}: the stream ended before the model finished (no finish_reason, no [DONE])")


class OpenAIChat(ChatModel):
    concurrency = 4  # a server queues or batches concurrent requests

    def __init__(self, model: str, base_url: str, *, timeout: float = 120.0) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.name = f"openai:{model}@{self.base_url}"
        # The OpenAI shape first; llama-cpp-python's server only takes {"type": "json_object", "schema": ...}.
        self.schema_style = "json_schema"
        headers = (
            {"Authorization": f"Bearer {os.environ['CITEGRAPH_OPENAI_API_KEY']}"} if os.environ.get("CITEGRAPH_OPENAI_API_KEY") else {}
        )
        self.client = httpx.Client(timeout=httpx.Timeout(timeout, connect=5.0), headers=headers)

    def chat(
        self, messages: Sequence[Message], *, schema: dict[str, Any] | None = None, max_tokens: int = 512, top_logprobs: int = 0
    ) -> ChatResult:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": wire(messages),
            "temperature": 0,
            "max_tokens": max_tokens,
            "seed": 0,
        }
        if top_logprobs:
            payload["logprobs"] = True
            payload["top_logprobs"] = top_logprobs
        if schema is None:
            return self._post(payload)
        if self.schema_style == "json_schema":
            payload["response_format"] = {"type": "json_schema", "json_schema": {"name": "output", "schema": schema, "strict": True}}
            try:
                return self._post(payload)
            except RequestRejected:
                self.schema_style = "json_object"
        payload["response_format"] = {"type": "json_object", "schema": schema}
        return self._post(payload)

    def close(self) -> None:
        self.client.close()

    def stream(self, messages: Sequence[Message], *, max_tokens: int = 512) -> Iterator[str]:
        """``/chat/completions`` with ``stream: true``: server-sent events, each ``data:`` a chunk whose
        ``choices[0].delta.content`` is a piece of the message, until ``data: [DONE]``."""
        payload = {"model": self.model, "messages": wire(messages), "temperature": 0, "max_tokens": max_tokens, "seed": 0, "stream": True}
        yield from stream_deltas(
            stream_lines(self.client, f"{self.base_url}/chat/completions", payload, backend=self.name, model=self.model), self.name
        )

    def _post(self, payload: dict[str, Any]) -> ChatResult:
        data = post_json(self.client, f"{self.base_url}/chat/completions", payload, backend=self.name, model=self.model)
        return parse_completion(data, self.name)
