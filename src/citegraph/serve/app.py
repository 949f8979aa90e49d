"""The HTTP API: the CLI's contract over HTTP, the same JSON shapes, one long-lived graph.

``create_app(graph, tokens)`` builds a FastAPI app around an open :class:`~citegraph.pipeline.CiteGraph`
(its store, embedder, spaCy and models stay loaded across requests) and a
:class:`~citegraph.serve.tokens.TokenStore`. Access is by bearer token: no token reads as
``public``; a token reads with the labels it was given; an unknown or revoked token is refused (401).
Every endpoint that reads passes the caller's labels to the same :class:`CiteGraph` methods the CLI
calls, so the label filter is the CLI's, during traversal and again when building context.

Errors have one shape, ``{"ok": false, "error": {"type", "message"}}``, with the status taken from
the exception tree: 400 bad input, 401 no or bad token, 403 a write outside the token's labels,
404 not found (or not readable by this caller: the same answer), 413 a file over ``max-file-mb``, an
upload body over ``max-request-mb`` or any other body over ``max-query-kb``, 422 a malformed request
or an input over a limit (``max-question-chars``), 503 a model or backend unavailable or the store
held by another writer past the lock timeout, 500 anything else (logged; the text
of an exception citegraph did not raise itself is not sent, only its type).

In one process, reads run one at a time under a lock (the view cache and the models are shared).
Writes (uploads, deletes) run on a second graph over the same store file, under their own lock:
SQLite's WAL gives the readers the last committed state meanwhile, and a reader's view is rebuilt
when the store's change token moves. Several readers at once are several processes
(``citegraph serve --workers N``, each built by :func:`app_from_env`); upload jobs live in the store
(:mod:`citegraph.serve.jobs`), so any process reports any job. After a write, the saved graph of
each caller who had one (a large store) is prepared again in the background, under the write lock.

Why this file is long: each endpoint is a few lines over the facade, and they share the request
models, the error mapping and the two locks defined here; divided, each part would import the rest back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citegraph import output
from citegraph.components import GraphSpec
from citegraph.conversation import Turn
from citegraph.cores import one_blas_thread
from citegraph.errors import (
    AccessDenied,
    BackendUnavailable,
    CitegraphError,
    LimitExceeded,
    ModelUnavailable,
    NotFound,
    StoreLocked,
    UserError,
)
from citegraph.pipeline import CiteGraph
from citegraph.serve.auth import Unauthorised as _Unauthorised
from citegraph.serve.auth import caller as _caller
from citegraph.serve.chat import add_chat_routes
from citegraph.serve.jobs import JobStore
from citegraph.serve.tables import close_pools
from citegraph.serve.tokens import TokenStore, digest
from citegraph.serve.uploads import TooLarge as _TooLarge
from citegraph.serve.uploads import Uploads
from citegraph.settings import DEFAULTS

__all__ = ["OPTIONS_ENV", "AskRequest", "app_from_env", "create_app", "open_served"]

log = logging.getLogger("citegraph.serve")
OPTIONS_ENV = "CITEGRAPH_SERVE_OPTIONS"  #: the GraphSpec (as JSON) and the app's limits, for each worker process of `serve --workers N`
T = TypeVar("T")


class AskRequest(BaseModel):
    question: str = Field(min_length=1, description="the question")
    answer_text: str | None = Field(None, description="check this answer (written elsewhere) instead of answering")
    hops: int | None = Field(None, ge=0, le=6)
    top_k: int | None = Field(None, ge=1, le=50)
    include_superseded: bool = False
    as_of: str | None = Field(None, description="answer from the documents current on this day (YYYY-MM-DD)")
    scope: Literal["auto", "global", "local"] = Field(
        "auto", description="'global': answer from the graph's communities (a question about the whole corpus); 'auto': when asked so"
    )
    conversation: list[dict[str, str]] = Field([], description='the turns before, oldest first: {"question", "answer"}')


class VerifyRequest(BaseModel):
    question: str = Field(min_length=1)
    answer_text: str = Field(min_length=1, description="the answer to check, with [N] markers into the question's context")
    hops: int | None = Field(None, ge=0, le=6)
    top_k: int | None = Field(None, ge=1, le=50)


class UploadedFile(BaseModel):
    name: str = Field(
        min_length=1,
        description="file name (its extension picks the reader: .txt .md .html .pdf .docx .xlsx .pptx .csv .tsv .eml .vtt .srt, a chat export .json); the document id",
    )
    text: str | None = Field(None, description="the file's text")
    content_base64: str | None = Field(None, description="or its bytes, base64 (a PDF, an Office file)")


class UploadRequest(BaseModel):
    documents: list[UploadedFile] = Field(min_length=1, max_length=500)
    access: list[str] | None = Field(None, description="the documents' labels; default: the token's; each must be one of the token's")
    prefix: str = Field("", description="put before every document id, e.g. 'pub/'")


class _Forbidden(CitegraphError):
    pass


# The HTTP status of each error, most specific class first (NotFound is a UserError).
_STATUSES: tuple[tuple[type[CitegraphError], int, str], ...] = (
    (_Unauthorised, 401, "unauthorised"),
    (_Forbidden, 403, "forbidden"),
    (AccessDenied, 403, "forbidden"),
    (_TooLarge, 413, "too_large"),
    (NotFound, 404, "not_found"),
    (LimitExceeded, 422, "too_long"),
    (UserError, 400, "bad_input"),
    (BackendUnavailable, 503, "unavailable"),
    (StoreLocked, 503, "busy"),  # another writer held the store past the lock timeout: try again
)


def _status_of(exc: BaseException) -> tuple[int, str, str]:
    """(HTTP status, error type, message) of an exception, as every endpoint reports it."""
    if isinstance(exc, CitegraphError):
        for kind, status, name in _STATUSES:
            if isinstance(exc, kind):
                return status, name, str(exc)
        log.error("citegraph error", exc_info=exc)
        return 500, type(exc).__name__, str(exc)
    log.error("internal error", exc_info=exc)
    return 500, "internal", f"internal error ({type(exc).__name__}); the server log has the details"


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"ok": False, "error": {"type": kind, "message": message}}, status_code=status)


Labels = Annotated[tuple[str, ...], Depends(_caller)]


def _megabytes(value: float) -> int:
    return int(value * 1024 * 1024)


class _BodyLimit:
    """Refuses a request body over its limit with 413 before the app reads it: by its Content-Length,
    or, for a chunked body, as soon as the bytes received pass the limit (the app's read then fails
    and the error handler answers 413). Uploads (``POST /documents``) may be as large as
    ``upload_limit`` (megabytes); every other body (a question, an answer to check) only as large as
    ``query_limit`` (kilobytes), so a huge question is refused before it is read or parsed."""

    def __init__(self, app: ASGIApp, upload_limit: int, query_limit: int) -> None:
        self.app, self.upload_limit, self.query_limit = app, upload_limit, query_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("method") == "POST" and scope.get("path", "").rstrip("/") == "/documents":
            limit = self.upload_limit
            message = f"the request body is over the limit of {limit / 1048576:.1f} MB (max-request-mb); send fewer or smaller documents"
        else:
            limit = self.query_limit
            message = (
                f"the request body is over the limit of {limit / 1024:.0f} KB (max-query-kb); "
                "a question or an answer to check is far smaller: send less, or raise max-query-kb"
            )
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await _error(413, "too_large", message)(scope, receive, send)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            event = await receive()
            if event["type"] == "http.request":
                received += len(event.get("body", b""))
                if received > limit:
                    scope["citegraph.too_large"] = message
                    raise _TooLarge(message)
            return event

        await self.app(scope, limited, send)


def _writer(request: Request, labels: Labels, authorization: Annotated[str | None, Header()] = None) -> tuple[str, ...]:
    """A caller that may write: one with a token (a request without one reads as public, never writes)."""
    if authorization is None:
        raise _Unauthorised(
            "uploading and deleting need a token: citegraph token add NAME --labels LABELS, then 'Authorization: Bearer TOKEN'"
        )
    return labels


Writer = Annotated[tuple[str, ...], Depends(_writer)]


def create_app(
    graph: CiteGraph,
    tokens: TokenStore,
    *,
    writer: CiteGraph | None = None,
    max_file_bytes: int | None = None,
    max_request_bytes: int | None = None,
    max_query_bytes: int | None = None,
    on_close: Callable[[], None] | None = None,
) -> FastAPI:
    """The app over ``graph``. With ``writer`` (a second graph on the same store file: its own SQLite
    connection and spaCy pipeline), uploads and deletes run on it under their own lock, so readers
    go on answering from the last committed state while a write works; without it, writes take the
    readers' lock. An upload's body over ``max_request_bytes`` (default ``max-request-mb``), or any
    other body over ``max_query_bytes`` (default ``max-query-kb``), is refused (413) before it is read. ``on_close`` runs when the server shuts down."""

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        parse_in_background()
        try:
            yield
        finally:
            with parsing_lock:
                stopping.set()  # the parsing ahead ends before the graph it reads can be closed
            for thread in parsing:
                thread.join()
            close_pools()  # the PostgreSQL connections the token and job tables borrowed (none on SQLite)
            if on_close is not None:
                on_close()

    app = FastAPI(title="citegraph", summary="Answers whose every claim points at the exact source sentence, checked.", lifespan=lifespan)
    app.state.tokens = tokens
    app.add_middleware(
        _BodyLimit,
        upload_limit=max_request_bytes if max_request_bytes is not None else _megabytes(DEFAULTS.max_request_mb),
        query_limit=max_query_bytes if max_query_bytes is not None else int(DEFAULTS.max_query_kb * 1024),
    )
    lock = threading.Lock()
    write_lock = threading.Lock() if writer is not None else lock
    target = writer if writer is not None else graph

    def run(call: Callable[[], T]) -> T:
        with lock:
            return call()

    def write(call: Callable[[], T]) -> T:
        with write_lock:
            return call()

    stopping = threading.Event()
    parsing: list[threading.Thread] = []
    parsing_lock = threading.Lock()

    def parse_in_background() -> None:
        """A small store's sentences parsed while the server waits for questions, at its start and
        after each write (an answer then finds its context parsed: docs/results/2026-12-06/parse-ahead/)."""
        with parsing_lock:
            if not stopping.is_set():
                parsing[:] = [t for t in parsing if t.is_alive()]
                parsing.append(threading.Thread(target=parse_ahead, name="parse-ahead", daemon=True))
                parsing[-1].start()

    def parse_ahead() -> None:
        from citegraph.answer.extractive import claim_forms
        from citegraph.sentences import forget_ahead
        from citegraph.sentences import parse_ahead as parse

        try:
            if stopping.is_set():
                return
            sentences, leads = run(graph.texts_to_parse)
            forms = claim_forms(sentences)  # what the checks of their quotes parse: read off the text, no lock held
            forget_ahead({*sentences, *leads, *forms})  # what a write removed leaves room for what it added
            # the lead-ins before the forms: every answer reads one per context sentence, and the parses kept
            # ahead are bounded (a store near its 5,000 sentences may not fit all three)
            done = parse(sentences, stop=stopping) + parse(leads, dependencies=False, stop=stopping) + parse(forms, stop=stopping)
            log.info("parsed %d sentences and lead-ins ahead of the questions", done)
        except ModelUnavailable as exc:
            log.info("nothing parsed ahead: %s", exc)
        except Exception:  # a server that answers slower, not one that fails
            log.exception("parsing the store's sentences ahead failed")

    def prepare(callers: list[tuple[tuple[str, ...] | None, bool]]) -> None:
        try:
            write(lambda: target.prepare_views(callers))
        except Exception:  # the write is done; the next ask reads the store instead
            log.exception("preparing the saved graphs after a write failed")

    def written(call: Callable[[], T]) -> T:
        """A write, then the saved graph of each caller who had one prepared again for the next ask
        (:meth:`~citegraph.facade.Lifecycle.prepare_views`), in the background and under the write
        lock only: readers answer meanwhile from their own graph (with a second graph for writes)."""
        callers = target.saved_callers()
        result = write(call)
        if callers and writer is not None:
            threading.Thread(target=prepare, args=(callers,), name="prepare-views", daemon=True).start()
        parse_in_background()  # the new sentences (the others are kept)
        return result

    @app.exception_handler(CitegraphError)
    async def _citegraph_error(_request: Request, exc: CitegraphError) -> JSONResponse:
        return _error(*_status_of(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if request.scope.get("citegraph.too_large"):  # the body limit, hit while the body was read
            return _error(413, "too_large", str(request.scope["citegraph.too_large"]))
        kinds = {400: "bad_input", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}
        return _error(exc.status_code, kinds.get(exc.status_code, "http_error"), str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return _error(422, "invalid_request", problems)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error")
        return _error(500, "internal", f"internal error ({type(exc).__name__}); the server log has the details")

    static = Path(__file__).parent / "static"

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        """The page: ask, audit an answer, see each claim against its source sentence."""
        return FileResponse(static / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=static), name="static")

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"ok": True, "models": dict(graph.models())}

    def asked(body: AskRequest, labels: tuple[str, ...], on_event: Callable[[str, Any], None] | None = None) -> Any:
        """The answer to an ``/ask`` body, under the read lock (``on_event``: told as it takes shape)."""
        return run(
            lambda: graph.ask(
                body.question,
                labels=labels,
                hops=body.hops,
                top_k=body.top_k,
                answer_text=body.answer_text,
                include_superseded=body.include_superseded,
                as_of=body.as_of,
                scope=body.scope,
                on_event=on_event,
                conversation=tuple(Turn(t.get("question", ""), t.get("answer", "")) for t in body.conversation if t.get("question")),
            )
        )

    @app.post("/ask")
    def ask(body: AskRequest, labels: Labels) -> dict[str, Any]:
        """The ``citegraph ask --json`` object."""
        return output.answer_json(asked(body, labels))

    @app.post("/ask/stream")
    async def ask_stream(body: AskRequest, labels: Labels) -> StreamingResponse:
        """``/ask`` as server-sent events, as the answer takes shape: ``stage`` (retrieving, answering,
        checking, comparing), ``context`` (the numbered evidence), ``token`` (a piece of a language
        model's text, as it writes it: not checked), ``draft`` (the answer's text, written, not yet
        checked), ``claim`` (``{index, claim}``, as each claim is checked), then ``done`` (the
        ``/ask`` object, final) or ``error`` (``{status, type, message}``)."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        def emit(kind: str, payload: Any) -> None:
            if kind == "context":
                data: Any = output.context_json(payload)
            elif kind == "claim":
                data = {"index": payload[0], "claim": output.claim_json(payload[1])}
            else:
                data = payload
            loop.call_soon_threadsafe(queue.put_nowait, (kind, data))

        def work() -> None:
            try:
                answer = asked(body, labels, emit)
                loop.call_soon_threadsafe(queue.put_nowait, ("done", output.answer_json(answer)))
            except Exception as exc:  # the stream is open: the error is its last event
                status, kind, message = _status_of(exc)
                loop.call_soon_threadsafe(queue.put_nowait, ("error", {"status": status, "type": kind, "message": message}))

        async def events() -> AsyncIterator[str]:
            task = loop.run_in_executor(None, work)
            while True:
                kind, data = await queue.get()
                yield f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
                if kind in ("done", "error"):
                    break
            await task

        return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

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
    def document(doc_id: str, labels: Labels, version: str | None = None) -> dict[str, Any]:
        """One version's text (``version``, or the current one, or the newest the caller may read),
        with every version's record: a citation's offsets index this text."""
        versions = run(lambda: graph.history(doc_id, labels=labels))
        chosen = [v for v in versions if version is None or v.document.version == version]
        if not chosen:
            raise NotFound(f"version of {doc_id!r}", version or "", [v.document.version for v in versions])  # all of them: a few
        shown = chosen[0].document
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

    @app.get("/vocabulary")
    def vocabulary() -> dict[str, Any]:
        """What each answer status and claim verdict means: its label, its tone (only ``good`` reads as
        checked) and a sentence; the page shows these words."""
        return output.vocabulary_json()

    @app.get("/models")
    def models() -> dict[str, Any]:
        """The models in use, and the known local models: pulled or not, and whether a calibration record ships."""
        from citegraph.components import check_models

        # citegraph models' own report, less where the server keeps its files
        known = [{k: v for k, v in vars(m).items() if k != "path"} for m in check_models({}, check=False).known]
        return {"in_use": dict(graph.models()), "known": known}

    @app.get("/graph")
    def subgraph(
        labels: Labels,
        entity: Annotated[list[str] | None, Query()] = None,
        question: str | None = None,
        hops: Annotated[int, Query(ge=0, le=6)] = 2,
        limit: Annotated[int, Query(ge=1, le=2000)] = 200,
    ) -> dict[str, Any]:
        """The caller's graph around named entities (``entity``, repeatable) or a question: the reached
        entities (nearest first, at most ``limit``) and, for each, the relation that reached it, with
        the sentence that asserts it."""
        if (entity is None) == (question is None):
            raise UserError("give entity (repeatable) or question, not both: /graph?entity=Export or /graph?question=...")
        if entity is not None:
            nodes = run(lambda: graph.traverse(entity, labels=labels, hops=hops))
        else:
            nodes = run(lambda: graph.reach(question or "", labels=labels, hops=hops))
        shown = nodes[:limit]
        edges = []
        for n in shown:
            if n.route:
                h = n.route[-1]
                source, target = (h.source, h.target) if h.direction == "out" else (h.target, h.source)
                edges.append({"source": source, "relation": h.relation, "target": target, "span": output.span_json(h.span)})
        return {
            "reached": len(nodes),
            "nodes": [{"entity": n.entity, "name": n.name, "depth": n.depth, "seed": n.seed} for n in shown],
            "edges": edges,
        }

    add_chat_routes(app, graph, run)  # /v1/chat/completions, /v1/models: chat front ends

    jobs = JobStore(tokens.path, lock_timeout=getattr(target.store, "lock_timeout", DEFAULTS.lock_timeout))
    uploads = Uploads(jobs, max_file_bytes if max_file_bytes is not None else _megabytes(DEFAULTS.max_file_mb))

    @app.post("/documents", status_code=202)
    def upload(body: UploadRequest, labels: Writer, authorization: Annotated[str, Header()]) -> dict[str, Any]:
        """Ingest files in the background; ``GET /jobs/{id}`` has the progress and, when done, the report."""
        access = tuple(dict.fromkeys(body.access or labels))
        outside = [a for a in access if a not in labels]
        if outside:
            raise _Forbidden(f"this token cannot label documents {', '.join(outside)}: it holds {', '.join(labels)}")
        job = uploads.start(
            [(item.name, item.text, item.content_base64) for item in body.documents],
            owner=digest(authorization),
            ingest=lambda paths, sources, progress: written(
                lambda: target.ingest(paths, access=access, prefix=body.prefix, progress=progress, sources=sources)
            ),
        )
        return {"job": job.id, "documents": len(body.documents), "access": list(access)}

    @app.get("/jobs/{job_id}")
    def job_status(job_id: str, _labels: Writer, authorization: Annotated[str, Header()]) -> dict[str, Any]:
        job = jobs.get(job_id, digest(authorization))
        if job is None:  # another token's job does not exist for this one
            raise NotFound("job", job_id)
        return job.to_json()

    @app.delete("/documents/{doc_id:path}")
    def delete(doc_id: str, labels: Writer) -> list[dict[str, Any]]:
        """Delete every version of a document the token can read and whose every label it holds."""

        def remove() -> list[Any]:
            return target.remove([doc_id], labels=labels)

        return output.removed_json(written(remove))

    return app


def open_served(spec: GraphSpec) -> tuple[CiteGraph, CiteGraph]:
    """The two graphs one server process runs on, opened from ``spec`` on an existing store: one for
    reads, and one for writes with its own SQLite connection and spaCy pipeline, so readers keep
    answering while an upload runs."""
    from citegraph.sentences import SentenceSplitter, fresh_spacy

    graph = CiteGraph.from_spec(spec, create=False)
    try:
        writer = CiteGraph.from_spec(
            spec.replace(generator="extractive", verifier="none"), create=False, splitter=SentenceSplitter(nlp=fresh_spacy())
        )
    except BaseException:
        graph.close()
        raise
    return graph, writer


def app_from_env() -> FastAPI:
    """The app of one worker process of ``citegraph serve --workers N`` (uvicorn's factory), built
    from what the command put in ``CITEGRAPH_SERVE_OPTIONS``: ``{"graph": the GraphSpec as JSON,
    "app": create_app's limits}``; its graphs are closed at shutdown."""
    import json
    import os

    one_blas_thread()  # a worker process: the models' onnxruntime sessions take the cores (citegraph.cores)
    raw = os.environ.get(OPTIONS_ENV)
    if not raw:
        raise UserError(f"{OPTIONS_ENV} is not set: start the server with `citegraph serve`")
    options = json.loads(raw)
    spec = GraphSpec.from_json(options["graph"])
    graph, writer = open_served(spec)

    def close() -> None:
        writer.close()
        graph.close()

    return create_app(graph, TokenStore(spec.db), writer=writer, on_close=close, **options["app"])
