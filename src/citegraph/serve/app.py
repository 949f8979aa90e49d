"""The HTTP API: the CLI's contract over HTTP, the same JSON shapes, one long-lived graph.

``create_app(graph, tokens)`` builds a FastAPI app around an open :class:`~citegraph.pipeline.CiteGraph`
(its store, embedder, spaCy and models stay loaded across requests) and a
:class:`~citegraph.serve.tokens.TokenStore`. Access is by bearer token: no token reads as
``public``; a token reads with the labels it was given; an unknown or revoked token is refused (401).
Every endpoint that reads passes the caller's labels to the same :class:`CiteGraph` methods the CLI
calls, so the label filter is the CLI's, during traversal and again when building context.

Errors have one shape, ``{"ok": false, "error": {"type", "message"}}``, with the status taken from
the exception tree: 404 not found, 400 bad input, 401 bad token, 422 a malformed request, 503 a
model or backend unavailable, 500 anything else (logged, its text not sent).

Graph calls run one at a time under a lock: the view cache and the models are shared, and SQLite
reads are cheap next to a model call. (Parallel readers are issue 11's later part.)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from citegraph import output
from citegraph.errors import BackendUnavailable, CitegraphError, NotFound, UserError
from citegraph.pipeline import CiteGraph
from citegraph.serve.tokens import TokenStore

__all__ = ["AskRequest", "create_app"]

log = logging.getLogger("citegraph.serve")
T = TypeVar("T")


class AskRequest(BaseModel):
    question: str = Field(min_length=1, description="the question")
    answer_text: str | None = Field(None, description="check this answer (written elsewhere) instead of answering")
    hops: int | None = Field(None, ge=0, le=6)
    top_k: int | None = Field(None, ge=1, le=50)
    include_superseded: bool = False


class VerifyRequest(BaseModel):
    question: str = Field(min_length=1)
    answer_text: str = Field(min_length=1, description="the answer to check, with [N] markers into the question's context")
    hops: int | None = Field(None, ge=0, le=6)
    top_k: int | None = Field(None, ge=1, le=50)


class _Unauthorised(CitegraphError):
    pass


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"ok": False, "error": {"type": kind, "message": message}}, status_code=status)


def _caller(request: Request, authorization: Annotated[str | None, Header()] = None) -> tuple[str, ...]:
    """The labels the request reads with: ``public`` without a token, the token's with one."""
    if authorization is None:
        return ("public",)
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _Unauthorised("the Authorization header must be 'Bearer TOKEN'")
    labels: tuple[str, ...] | None = request.app.state.tokens.labels(token.strip())
    if labels is None:
        raise _Unauthorised("unknown or revoked token; make one with: citegraph token add NAME --labels LABELS")
    return labels


Labels = Annotated[tuple[str, ...], Depends(_caller)]


def create_app(graph: CiteGraph, tokens: TokenStore) -> FastAPI:
    app = FastAPI(title="citegraph", summary="Answers whose every claim points at the exact source sentence, checked.")
    app.state.tokens = tokens
    lock = threading.Lock()

    def run(call: Callable[[], T]) -> T:
        with lock:
            return call()

    @app.exception_handler(CitegraphError)
    async def _citegraph_error(_request: Request, exc: CitegraphError) -> JSONResponse:
        if isinstance(exc, _Unauthorised):
            return _error(401, "unauthorised", str(exc))
        if isinstance(exc, NotFound):
            return _error(404, "not_found", str(exc))
        if isinstance(exc, UserError):
            return _error(400, "bad_input", str(exc))
        if isinstance(exc, BackendUnavailable):
            return _error(503, "unavailable", str(exc))
        log.exception("citegraph error")
        return _error(500, type(exc).__name__, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return _error(422, "invalid_request", problems)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error")
        return _error(500, "internal", f"internal error ({type(exc).__name__}); the server log has the details")

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"ok": True, "models": dict(_models(graph))}

    @app.post("/ask")
    def ask(body: AskRequest, labels: Labels) -> dict[str, Any]:
        """The ``citegraph ask --json`` object."""
        answer = run(
            lambda: graph.ask(
                body.question,
                labels=labels,
                hops=body.hops,
                top_k=body.top_k,
                answer_text=body.answer_text,
                include_superseded=body.include_superseded,
            )
        )
        return output.answer_json(answer)

    @app.post("/verify")
    def verify(body: VerifyRequest, labels: Labels) -> dict[str, Any]:
        """Check an answer written elsewhere against the question's context (``ask --answer-file``)."""
        answer = run(lambda: graph.ask(body.question, labels=labels, hops=body.hops, top_k=body.top_k, answer_text=body.answer_text))
        return output.answer_json(answer)

    @app.get("/documents")
    def documents(labels: Labels) -> list[dict[str, Any]]:
        return output.documents_json(run(lambda: graph.documents(labels=labels)))

    @app.get("/documents/{doc_id:path}/history")
    def history(doc_id: str, labels: Labels) -> list[dict[str, Any]]:
        return output.documents_json(run(lambda: graph.history(doc_id, labels=labels)))

    @app.get("/documents/{doc_id:path}")
    def document(doc_id: str, labels: Labels) -> dict[str, Any]:
        """The current version's text (or the newest the caller may read), with every version's record."""
        versions = run(lambda: graph.history(doc_id, labels=labels))
        shown = versions[0].document
        return {
            "id": doc_id,
            "version": shown.version,
            "current": shown.current,
            "text": shown.text,
            "versions": output.documents_json(versions),
        }

    @app.get("/entities/{name}")
    def entity(name: str, labels: Labels) -> dict[str, Any]:
        return output.entity_json(run(lambda: graph.entity(name, labels=labels)))

    @app.get("/relations")
    def relations(labels: Labels, between: Annotated[list[str] | None, Query()] = None) -> list[dict[str, Any]]:
        if between is not None and len(between) not in (1, 2):
            raise UserError("give 'between' once or twice: /relations?between=A&between=B")
        pair = None if between is None else (between[0], between[-1])
        return output.relations_json(run(lambda: graph.relations(labels=labels, between=pair)))

    @app.get("/traverse")
    def traverse(
        labels: Labels, entity: Annotated[list[str], Query(min_length=1)], hops: Annotated[int, Query(ge=0, le=6)] = 2
    ) -> dict[str, Any]:
        return output.traverse_json(run(lambda: graph.traverse(entity, labels=labels, hops=hops)), hops)

    return app


def _models(graph: CiteGraph) -> list[tuple[str, str]]:
    return [
        ("extractor", graph.extractor.name),
        ("embedder", graph.embedder.name),
        ("generator", graph.answerer.name),
        ("verifier", graph.verifier.name),
    ]
