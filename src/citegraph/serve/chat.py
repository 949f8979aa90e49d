"""An OpenAI-compatible chat endpoint, so chat front ends (Open WebUI and the like) can use citegraph as
a model: ``POST /v1/chat/completions`` (streaming and not) and ``GET /v1/models``.

The last user message is the question; the reply is :func:`citegraph.output.answer_markdown` (the
answer with its ``[N]`` markers, the status in words, the warnings, a sources block naming each span
and its verdict), and the whole ``citegraph ask --json`` object rides along in the extension field
``citegraph``. A stream opens at once (the role); with a language model as the generator its text
follows piece by piece as the model writes it, under "Draft, being checked:" (:data:`DRAFT_HEAD`);
then, under "Checked:", the checked reply, in which a claim its check did not support is struck
through; the last chunk carries the ``citegraph`` object. The extractive answerer writes nothing to
stream: its stream is the checked reply alone, as before.

Access is the API's: ``Authorization: Bearer TOKEN`` reads with the token's labels. OpenAI clients
always send a key, so the key ``public`` reads as a caller without a token does (no more).
"""

from __future__ import annotations

import asyncio
import html
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
#: above a language model's text while it streams (nothing in it is checked yet), and above the checked reply after it
DRAFT_HEAD = "_Draft, being checked:_\n\n"
CHECKED_HEAD = "\n\n---\n\n**Checked:**\n\n"
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
            turns[-1] = Turn(turns[-1].question, _answered(text))
    return tuple(turns)


#: where a reply's answer ends: its status line (``_Label: …_ (`code`)``), its warnings, nearest evidence or sources
_ANSWER_ENDS = re.compile(r"\n\s*(?:_[^_\n]+_ \(`\w+`\)|\*\*(?:Warnings|Nearest evidence|Sources)\*\*|Sources:)")


def _answered(reply: str) -> str:
    """What an earlier reply answered, for the names it gives: its checked part (after a streamed draft),
    before its status line, warnings and sources, with the claims its check struck through left out; a
    reply that says the documents do not answer (its status line first) gives nothing."""
    if CHECKED_HEAD.strip() in reply:
        reply = reply.split(CHECKED_HEAD.strip(), 1)[1]
    elif DRAFT_HEAD.strip() in reply:  # a draft whose check never came: nothing in it was checked
        return ""
    reply = _ANSWER_ENDS.split("\n" + reply.strip(), maxsplit=1)[0]
    return html.unescape(re.sub(r"~~.*?~~", "", reply, flags=re.DOTALL)).strip()  # "&#40;" read as "("


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

        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        def work() -> None:
            # a language model's pieces are passed on as it writes them; the checked reply follows
            def told(kind: str, payload: object) -> None:
                if kind == "token":
                    loop.call_soon_threadsafe(queue.put_nowait, ("token", payload))

            try:
                result = run(lambda: graph.ask(question, labels=labels, conversation=conversation, on_event=told))
                loop.call_soon_threadsafe(queue.put_nowait, ("done", (output.answer_markdown(result), output.answer_json(result))))
            except Exception as exc:  # the stream is open: the error goes in it, in OpenAI's shape
                loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))

        async def events() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": ""})
            task = loop.run_in_executor(None, work)
            drafted = False
            event, payload = await queue.get()
            while event == "token":  # shown at once, under a line that says it is not checked yet
                if not drafted:
                    drafted = True
                    yield chunk({"content": DRAFT_HEAD})
                yield chunk({"content": output.defuse(payload)})
                event, payload = await queue.get()
            await task
            if event == "error":
                exc = payload
                known = isinstance(exc, CitegraphError)
                kind = type(exc).__name__ if known else "internal"
                message = str(exc) if known else f"internal error ({type(exc).__name__}); the server log has the details"
                yield f"data: {json.dumps({'error': {'message': message, 'type': kind}})}\n\n"
                return
            reply, data = payload
            for piece in _pieces((CHECKED_HEAD if drafted else "") + reply):
                yield chunk({"content": piece})
            yield chunk({}, "stop", citegraph=data)
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
