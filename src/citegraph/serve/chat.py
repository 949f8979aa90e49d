"""An OpenAI-compatible chat endpoint, so chat front ends (Open WebUI and the like) can use citegraph as
a model: ``POST /v1/chat/completions`` (streaming and not) and ``GET /v1/models``.

The last user message is the question; the reply is :func:`citegraph.output.answer_markdown` (the
answer with its ``[N]`` markers, the status in words, the warnings, a sources block naming each span
and its verdict), and the whole ``citegraph ask --json`` object rides along in the extension field
``citegraph``. The answer is checked before any of it is sent: a stream opens at once (the role),
then carries the checked reply in pieces and, in its last chunk, the ``citegraph`` object. Nothing
unchecked is ever streamed.

Access is the API's: ``Authorization: Bearer TOKEN`` reads with the token's labels. OpenAI clients
always send a key, so the key ``public`` reads as a caller without a token does (no more).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from citegraph import output
from citegraph.conversation import Turn
from citegraph.errors import CitegraphError, NotFound, UserError
from citegraph.models import Answer
from citegraph.pipeline import CiteGraph
from citegraph.serve.auth import chat_caller

__all__ = ["MODEL_ID", "add_chat_routes"]

MODEL_ID = "citegraph"
Labels = Annotated[tuple[str, ...], Depends(chat_caller)]


class ChatMessage(BaseModel):
    role: str
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    model: str = Field(MODEL_ID, description=f"'{MODEL_ID}' (GET /v1/models)")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    # what chat front ends send and citegraph does not use (temperature, max_tokens, ...) is ignored
    model_config = {"extra": "ignore"}


def _text(message: ChatMessage) -> str:
    if isinstance(message.content, list):  # content parts: the text ones
        return "\n".join(str(part.get("text", "")) for part in message.content if part.get("type") == "text")
    return message.content or ""


def question_of(messages: list[ChatMessage]) -> str:
    """The last user message's text: the question (earlier turns are the conversation before it)."""
    for message in reversed(messages):
        if message.role == "user" and _text(message).strip():
            return _text(message).strip()
    raise UserError("messages: no user message with text; the last user message is the question")


def conversation_of(messages: list[ChatMessage]) -> tuple[Turn, ...]:
    """The turns before the last user message: each earlier user message with the assistant's reply to
    it (read only for the names it gives, to read a follow-up by: never evidence). A reply's sources
    block is left out."""
    last = max((i for i, m in enumerate(messages) if m.role == "user" and _text(m).strip()), default=-1)
    turns: list[Turn] = []
    for message in messages[:last]:
        text = _text(message).strip()
        if message.role == "user" and text:
            turns.append(Turn(text))
        elif message.role == "assistant" and text and turns and not turns[-1].answer:
            turns[-1] = Turn(turns[-1].question, re.split(r"\n(?:\*\*Sources\*\*|Sources:)", text)[0].strip())
    return tuple(turns)


def _pieces(text: str, size: int = 80) -> Iterator[str]:
    """The reply in pieces of about ``size`` characters, split after spaces (a stream's deltas)."""
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            space = text.rfind(" ", start, end)
            end = space + 1 if space > start else end
        yield text[start:end]
        start = end


def add_chat_routes(app: FastAPI, graph: CiteGraph, run: Callable[[Callable[[], Answer]], Answer]) -> None:
    """Add ``/v1/models`` and ``/v1/chat/completions`` to ``app``; answers run through ``run`` (the
    app's read lock) with the labels of the caller's token (:func:`citegraph.serve.auth.chat_caller`)."""

    @app.get("/v1/models", tags=["openai"])
    def models(_labels: Labels) -> dict[str, Any]:
        """The one model: citegraph's checked answers over the documents the caller may read."""
        return {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "citegraph"}]}

    @app.post("/v1/chat/completions", tags=["openai"], response_model=None)
    async def completions(body: ChatRequest, labels: Labels) -> dict[str, Any] | StreamingResponse:
        """The last user message answered and checked; the reply cites its spans, and the extension field
        ``citegraph`` is the ``citegraph ask --json`` object. ``stream: true`` for server-sent events."""
        if body.model != MODEL_ID:
            raise NotFound("model", body.model, [MODEL_ID])
        question, conversation = question_of(body.messages), conversation_of(body.messages)
        ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())

        def answer() -> tuple[str, dict[str, Any]]:
            result = run(lambda: graph.ask(question, labels=labels, conversation=conversation))
            return output.answer_markdown(result), output.answer_json(result)

        if not body.stream:
            reply, data = await run_in_threadpool(answer)
            return {
                "id": ident,
                "object": "chat.completion",
                "created": created,
                "model": MODEL_ID,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                "citegraph": data,
            }

        def chunk(delta: dict[str, Any], finish: Literal["stop"] | None = None, **extra: Any) -> str:
            event = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": MODEL_ID,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **extra,
            }
            return f"data: {json.dumps(event, ensure_ascii=False)}\n\n"

        async def events() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": ""})
            try:
                reply, data = await run_in_threadpool(answer)
            except Exception as exc:  # the stream is open: the error goes in it, in OpenAI's shape
                known = isinstance(exc, CitegraphError)
                kind = type(exc).__name__ if known else "internal"
                message = str(exc) if known else f"internal error ({type(exc).__name__}); the server log has the details"
                yield f"data: {json.dumps({'error': {'message': message, 'type': kind}})}\n\n"
                return
            for piece in _pieces(reply):
                yield chunk({"content": piece})
            yield chunk({}, "stop", citegraph=data)
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
