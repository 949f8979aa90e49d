"""``citegraph mcp``: a Model Context Protocol server, so agents get the same checked citations people do.

Built on the official SDK (``mcp``'s ``MCPServer``). Tools:

- ``ask``: answer a question; every claim with its cited spans, verdicts and the stage that decided
  each, the status, the warnings (the ``citegraph ask --json`` object), and ``reply``, the answer as
  text with a sources block;
- ``verify_answer``: check an answer written elsewhere (``[N]`` markers into the question's context)
  against that context, as ``ask --answer-file`` does;
- ``search_evidence``: the ranked evidence for a query (spans, scores, how each was found, routes),
  with no answer written;
- ``show_document``: a document's version, or a span of it with its surroundings;
- ``list_documents``: the documents the caller may read, with versions, dates and labels.

Access is the API's. Over stdio the caller's labels are fixed when the server starts (``--token``,
else ``public``); over streamable HTTP each request's ``Authorization: Bearer TOKEN`` gives its labels
(no header: ``public``; an unknown or revoked token: 401 before any tool runs). Every tool passes the
labels to the same :class:`~citegraph.pipeline.CiteGraph` methods the CLI calls, so what a caller
cannot read never reaches it through any tool. Tools run one at a time on one graph.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from starlette.types import ASGIApp, Receive, Scope, Send

from citegraph import output
from citegraph.conversation import Turn
from citegraph.errors import CitegraphError, NotFound
from citegraph.pipeline import CiteGraph
from citegraph.serve.auth import Unauthorised, bearer_labels
from citegraph.serve.tokens import TokenStore

__all__ = ["TokenCheck", "build_server"]

T = TypeVar("T")
INSTRUCTIONS = (
    "citegraph answers questions from the user's own documents. Every claim in an answer points at the exact "
    "source sentence (document, version, character offsets) and says whether that sentence was checked to "
    "support it (label, score, the stage that decided). Quote the spans, not your memory; report the status "
    "and warnings (conflicting or stale sources, not found) instead of smoothing them over."
)
EXCERPT = 4000  #: characters of a document show_document returns without a span


def _labels_from(tokens: TokenStore, headers: Mapping[str, str] | None) -> tuple[str, ...]:
    """The labels of a request's bearer token (:func:`~citegraph.serve.auth.bearer_labels`); ``public``
    without one."""
    value = None if headers is None else next((v for k, v in headers.items() if k.lower() == "authorization"), None)
    return bearer_labels(tokens, value)


def build_server(graph: CiteGraph, tokens: TokenStore | None = None, *, labels: tuple[str, ...] = ("public",)) -> MCPServer:
    """The MCP server over ``graph``. With ``tokens`` (streamable HTTP), each request reads with its
    bearer token's labels; without (stdio), every call reads with ``labels``."""
    server = MCPServer("citegraph", instructions=INSTRUCTIONS)
    lock = threading.Lock()

    def caller(ctx: Context) -> tuple[str, ...]:
        try:
            return labels if tokens is None else _labels_from(tokens, ctx.headers)
        except Unauthorised as exc:
            raise ToolError(str(exc)) from exc

    def run(call: Callable[[], T]) -> T:
        with lock:
            try:
                return call()
            except CitegraphError as exc:  # bad input, not found, a model unavailable: the agent reads why
                raise ToolError(str(exc)) from exc

    @server.tool()
    def ask(
        question: str,
        ctx: Context,
        as_of: str | None = None,
        include_superseded: bool = False,
        hops: int | None = None,
        top_k: int | None = None,
        scope: str = "auto",
        conversation: list[dict[str, str]] | None = None,
    ) -> dict[str, Any]:
        """Answer a question from the documents the caller may read. Every claim carries its cited spans
        (document, version, start, end, sentence) and a support verdict (label, score, stage). `status`:
        verified, quoted, related (supported quotes that nothing shows answer the question: related
        evidence, not an answer), conflicting, cited, partially_supported, unsupported, no_evidence or
        not_found (the documents do not answer it). `reply` is the answer as text with a sources block.
        `as_of` (YYYY-MM-DD) answers from the documents current on that day. `scope`: 'global' answers
        from the communities of the graph (one cited point per community, `communities` names them),
        'local' by ranking sentences, 'auto' (default) globally when the question asks about the whole corpus.
        `conversation`: the turns before, oldest first, each {"question": ..., "answer": ...}: the question is
        read as their follow-up ("Which office is she in?"), and a `follow_up` warning says how it was read."""
        who = caller(ctx)
        turns = tuple(Turn(str(t.get("question", "")), str(t.get("answer", ""))) for t in conversation or () if t.get("question"))
        answer = run(
            lambda: graph.ask(
                question,
                labels=who,
                hops=hops,
                top_k=top_k,
                include_superseded=include_superseded,
                as_of=as_of,
                scope=scope,
                conversation=turns,
            )
        )
        return {"reply": output.answer_markdown(answer), **output.answer_json(answer)}

    @server.tool()
    def verify_answer(question: str, answer: str, ctx: Context) -> dict[str, Any]:
        """Check an answer written elsewhere: its [N] markers refer to the question's context (the evidence
        `search_evidence` or `ask` lists for the same question, numbered from 1). Each claim is resolved to
        its span and checked; markers that resolve to nothing are reported, never dropped."""
        who = caller(ctx)
        checked = run(lambda: graph.ask(question, labels=who, answer_text=answer))
        return {"reply": output.answer_markdown(checked), **output.answer_json(checked)}

    @server.tool()
    def search_evidence(query: str, ctx: Context, top_k: int = 8, as_of: str | None = None) -> dict[str, Any]:
        """The evidence retrieval ranks for a query, best first, as numbered context: each span (document,
        version, start, end, sentence), its score, how it was found and the graph route that found it.
        No answer is written and nothing is checked."""
        who = caller(ctx)
        if not 1 <= top_k <= 50:
            raise ToolError("top_k must be between 1 and 50")
        answer = run(lambda: graph.ask(query, labels=who, top_k=top_k, answer_text="", as_of=as_of))
        data = output.answer_json(answer)
        return {
            "query": query,
            "evidence": data["context"][:top_k],
            "retrieval": {k: data["retrieval"][k] for k in ("seeds", "hops", "reached")},
        }

    @server.tool()
    def show_document(
        document: str, ctx: Context, version: str | None = None, start: int | None = None, end: int | None = None, around: int = 400
    ) -> dict[str, Any]:
        """A document the caller may read: one version (default: the current one) with every version's
        record. With `start` and `end` (a span's character offsets) the span and `around` characters
        either side; else the first 4,000 characters."""
        who = caller(ctx)
        versions = run(lambda: graph.history(document, labels=who))
        chosen = [v for v in versions if version is None or v.document.version.startswith(version)]
        if not chosen:
            raise ToolError(str(NotFound(f"version of {document!r}", version or "", [v.document.version for v in versions])))
        shown = chosen[0].document
        text = shown.text
        out: dict[str, Any] = {"document": document, "version": shown.version, "current": shown.current, "length": len(text)}
        if (start is None) != (end is None):
            raise ToolError("give start and end together (a span's offsets), or neither")
        if start is not None and end is not None:
            if not 0 <= start < end <= len(text):
                raise ToolError(f"start and end must satisfy 0 <= start < end <= {len(text)} (the version's length)")
            lo, hi = max(0, start - max(0, around)), min(len(text), end + max(0, around))
            out.update(span={"start": start, "end": end, "sentence": text[start:end]}, excerpt_start=lo, excerpt=text[lo:hi])
        else:
            out.update(excerpt_start=0, excerpt=text[:EXCERPT], truncated=len(text) > EXCERPT)
        out["versions"] = output.documents_json(versions)
        return out

    @server.tool()
    def list_documents(ctx: Context) -> dict[str, Any]:
        """The documents the caller may read: id, versions, dates, labels, and whether each is current."""
        who = caller(ctx)
        return {"documents": output.documents_json(run(lambda: graph.documents(labels=who)))}

    return server


class TokenCheck:
    """ASGI middleware for the HTTP transport: a request whose bearer token is unknown or revoked gets
    401 before the MCP layer reads it (no header reads as ``public``, as the API does)."""

    def __init__(self, app: ASGIApp, tokens: TokenStore) -> None:
        self.app, self.tokens = app, tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            try:
                _labels_from(self.tokens, headers)
            except Unauthorised as exc:
                from starlette.responses import JSONResponse

                response = JSONResponse({"ok": False, "error": {"type": "unauthorised", "message": str(exc)}}, status_code=401)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
