"""A local stand-in for an Ollama server, following its documented HTTP API.

No Ollama binary can be installed on the machines these tests run on, so the native client is tested
against this: ``POST /api/chat`` (``format`` as a JSON schema, ``logprobs`` / ``top_logprobs``; with
``stream: true``, one JSON object per line, a word each, as Ollama streams), ``POST /api/embed``,
``GET /api/tags``, and Ollama's error shape ``{"error": "..."}`` with 404 for a model that is not
pulled and 400 for a bad request. It also answers ``POST /v1/chat/completions`` in the shape of an
OpenAI-compatible server (llama.cpp's, vLLM's), streaming as server-sent events with ``stream: true``.
It listens on 127.0.0.1 only, on a free port, and stops with the test.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from citegraph.embed import HashingEmbedder

Responder = Callable[[list[dict[str, str]], Any], str]


class StandIn:
    def __init__(self, models: dict[str, Responder], logprobs: dict[str, float] | None = None) -> None:
        self.models = models
        self.logprobs = logprobs or {"Yes": -0.1, "No": -2.4}
        self.requests: list[dict[str, Any]] = []
        self.embedder = HashingEmbedder(dim=64)
        self.streamed = 0  #: replies sent as a stream


def _handler(state: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, media_type: str, pieces: list[str]) -> None:
            """A streamed reply: no length, each piece written and flushed, the connection closed at the end."""
            self.send_response(200)
            self.send_header("Content-Type", media_type)
            self.end_headers()
            for piece in pieces:
                self.wfile.write(piece.encode())
                self.wfile.flush()
            state.streamed += 1

        def do_GET(self) -> None:
            if self.path == "/api/tags":
                self._send(200, {"models": [{"name": m, "model": m} for m in state.models]})
            else:
                self._send(404, {"error": "404 page not found"})

        def do_POST(self) -> None:
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": "invalid JSON body"})
                return
            state.requests.append({"path": self.path, **body})
            model = body.get("model")
            if self.path not in ("/api/chat", "/api/embed", "/v1/chat/completions"):
                self._send(404, {"error": "404 page not found"})
            elif not model:
                self._send(400, {"error": "model is required"})
            elif model not in state.models:
                self._send(404, {"error": f'model "{model}" not found, try pulling it first'})
            elif self.path == "/api/embed":
                inputs = body.get("input")
                inputs = [inputs] if isinstance(inputs, str) else inputs
                self._send(200, {"model": model, "embeddings": state.embedder.embed(inputs).tolist()})
            elif self.path == "/v1/chat/completions":
                content = state.models[model](body.get("messages", []), body.get("response_format"))
                if body.get("stream"):
                    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
                    chunks += [{"choices": [{"index": 0, "delta": {"content": w}}]} for w in _words(content)]
                    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                    self._stream("text/event-stream", [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"])
                else:
                    message = {"role": "assistant", "content": content}
                    self._send(200, {"object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
            elif body.get("stream"):
                content = state.models[model](body.get("messages", []), body.get("format"))
                lines = [{"model": model, "message": {"role": "assistant", "content": w}, "done": False} for w in _words(content)]
                lines.append({"model": model, "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})
                self._stream("application/x-ndjson", [json.dumps(line) + "\n" for line in lines])
            else:
                content = state.models[model](body.get("messages", []), body.get("format"))
                reply: dict[str, Any] = {
                    "model": model,
                    "created_at": "2026-11-30T00:00:00Z",
                    "message": {"role": "assistant", "content": content},
                    "done": True,
                    "done_reason": "stop",
                }
                if body.get("logprobs"):
                    top = sorted(state.logprobs.items(), key=lambda kv: -kv[1])[: body.get("top_logprobs", 1)]
                    reply["logprobs"] = [
                        {"token": top[0][0], "logprob": top[0][1], "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}
                    ]
                self._send(200, reply)

    return Handler


def _words(text: str) -> list[str]:
    """The pieces a stream sends: each word with the space after it."""
    return re.findall(r"\S+\s*|\s+", text)


@contextmanager
def serve(state: StandIn) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
