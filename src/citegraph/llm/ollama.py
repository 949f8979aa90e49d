"""Ollama's native API: ``/api/chat`` (JSON-schema ``format``, logprobs) and ``/api/embed``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import numpy as np

from citegraph.embed.base import Embedder, normalise
from citegraph.errors import ModelOutputError
from citegraph.llm.base import ChatModel, ChatResult, Message, wire
from citegraph.llm.http import post_json, stream_json, stream_lines

__all__ = ["OllamaChat", "OllamaEmbedder", "parse_chat_response"]


def parse_chat_response(data: dict[str, Any]) -> ChatResult:
    """Pure parser for a non-streaming ``/api/chat`` response (tested on recorded responses)."""
    message = data.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), str):
        raise ModelOutputError(f"ollama: response has no message content: {str(data)[:200]}")
    first: dict[str, float] = {}
    logprobs = data.get("logprobs") or []
    if logprobs and isinstance(logprobs[0], dict):
        entry = logprobs[0]
        for alt in entry.get("top_logprobs") or [{"token": entry.get("token", ""), "logprob": entry.get("logprob", 0.0)}]:
            first[str(alt["token"])] = max(first.get(str(alt["token"]), float("-inf")), float(alt["logprob"]))
    return ChatResult(message["content"], first)


class OllamaChat(ChatModel):
    concurrency = 4  # a server queues or batches concurrent requests

    def __init__(self, model: str, url: str, *, timeout: float = 120.0) -> None:
        self.model = model
        self.url = url.rstrip("/")
        self.name = f"ollama:{model}@{self.url}"
        self.client = httpx.Client(timeout=httpx.Timeout(timeout, connect=5.0))

    def close(self) -> None:
        self.client.close()

    def chat(
        self, messages: Sequence[Message], *, schema: dict[str, Any] | None = None, max_tokens: int = 512, top_logprobs: int = 0
    ) -> ChatResult:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": wire(messages),
            "stream": False,
            "options": {"temperature": 0, "num_predict": max_tokens, "seed": 0},
        }
        if schema is not None:
            payload["format"] = schema
        if top_logprobs:
            payload["logprobs"] = True
            payload["top_logprobs"] = top_logprobs
        return parse_chat_response(post_json(self.client, f"{self.url}/api/chat", payload, backend=self.name, model=self.model))

    def stream(self, messages: Sequence[Message], *, max_tokens: int = 512) -> Iterator[str]:
        """``/api/chat`` with ``stream: true``: one JSON object per line, each with a piece of the message."""
        payload = {
            "model": self.model,
            "messages": wire(messages),
            "stream": True,
            "options": {"temperature": 0, "num_predict": max_tokens, "seed": 0},
        }
        for line in stream_lines(self.client, f"{self.url}/api/chat", payload, backend=self.name, model=self.model):
            if not line.strip():
                continue
            data = stream_json(line, self.name)
            piece = (data.get("message") or {}).get("content") or ""
            if piece:
                yield piece
            if data.get("done"):
                return
        raise ModelOutputError(f"{self.name}: the stream ended before the model finished (no line with done: true)")


class OllamaEmbedder(Embedder):
    """Embeddings from a model served by Ollama (``--embedder ollama:nomic-embed-text``)."""

    def __init__(self, model: str, url: str, *, timeout: float = 120.0) -> None:
        self.model = model
        self.url = url.rstrip("/")
        self.name = f"ollama:{model}"
        self.client = httpx.Client(timeout=httpx.Timeout(timeout, connect=5.0))
        self.dim = len(self._embed(["dimension probe"])[0])

    def close(self) -> None:
        self.client.close()

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        data = post_json(
            self.client, f"{self.url}/api/embed", {"model": self.model, "input": list(texts)}, backend=self.name, model=self.model
        )
        vectors = data.get("embeddings")
        if not isinstance(vectors, list) or len(vectors) != len(texts):
            raise ModelOutputError(f"{self.name}: /api/embed returned {len(vectors or [])} vectors for {len(texts)} inputs")
        return vectors

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        out = []
        for at in range(0, len(texts), 64):
            out.extend(self._embed(texts[at : at + 64]))
        return normalise(np.asarray(out, dtype=np.float32))
