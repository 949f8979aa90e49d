"""Indexing in worker processes: ``citegraph ingest --workers N``.

Each worker process builds its own :class:`~citegraph.ingest.indexer.Indexer` once (spaCy, the
extractor and the embedder named by spec strings, loaded when the process starts) and indexes the
batches of documents it is sent; what it sends back is the store writes, made whole
(:meth:`IndexedDocument.whole`), or the failures. The ingesting process checks, writes and reports
them in the order the documents came (one writer: the rules of a run stay in
:class:`~citegraph.ingest.ingester.Ingester`). A worker reads the store only to ask which entity
keys still need a vector.

A batch whose worker died (killed, out of memory) is indexed again in the ingesting process, so
its documents are not lost; the pool is replaced for the batches after it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from citegraph.components import GraphSpec
from citegraph.errors import UserError
from citegraph.ingest.indexer import IndexedDocument, Indexer, IndexFailure
from citegraph.models import Document

__all__ = ["EXECUTORS", "Indexing", "ProcessIndexing", "RayIndexing", "check_executor", "start_indexing"]

Result = IndexedDocument | IndexFailure
EXECUTORS = ("process", "ray")  #: where ``ingest --workers`` indexes: local processes, or Ray actors


class Indexing(Protocol):
    """Where batches are indexed: :class:`ProcessIndexing` or :class:`RayIndexing`."""

    workers: int
    retried: list[str]

    def submit(self, documents: list[Document]) -> Any: ...

    def result(self, pending: Any, documents: list[Document]) -> list[Result]: ...

    def close(self) -> None: ...


def check_executor(executor: str) -> None:
    if executor not in EXECUTORS:
        raise UserError(f"executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")


def start_indexing(
    spec: GraphSpec, workers: int, executor: str, fallback: Callable[[list[Document]], list[Result]], address: str | None = None
) -> Indexing:
    """``workers`` indexers built from ``spec``: local processes (``executor="process"``, the cores
    shared among them) or Ray actors (``"ray"``, on the cluster at ``address`` or a local one)."""
    check_executor(executor)
    if executor == "ray":
        return RayIndexing(spec, workers, fallback, address)
    return ProcessIndexing(spec, workers, fallback)


def build_indexer(spec: GraphSpec, threads: int = 1) -> Indexer:
    """A worker's indexer. It reads the store only to ask which entity keys still need a vector and
    which of a document's sentences it already holds; where the store cannot be reached from the
    worker (a SQLite file on another machine), it embeds every key and sentence, and the writer
    keeps the vectors of the keys still missing."""
    from citegraph.components import make_embedder, make_extractor
    from citegraph.errors import CitegraphError
    from citegraph.sentences import SentenceSplitter
    from citegraph.store import open_store

    splitter = SentenceSplitter()
    store = None
    with contextlib.suppress(CitegraphError):
        store = open_store(spec.db, create=False, lock_timeout=spec.lock_timeout)
    return Indexer(
        splitter,
        make_extractor(spec.extractor, splitter, timeout=spec.timeout),
        make_embedder(spec.embedder, timeout=spec.timeout, threads=threads),
        dangling=spec.dangling,
        graph=store,
        nlp=splitter.nlp,
    )


_indexer: Indexer | None = None  # the worker process's own, built once by _start
_failed: IndexFailure | None = None  # why it could not be built (its models would not load), if so


def _start(spec: GraphSpec, threads: int = 1) -> None:
    global _indexer, _failed
    from citegraph.errors import BackendUnavailable, CitegraphError

    try:
        _indexer = build_indexer(spec, threads)
    except CitegraphError as exc:  # said on every document it is sent, instead of a broken pool
        _failed = IndexFailure(
            Document("", "", "", "", (), None, "", True), f"worker could not load its models: {exc}", isinstance(exc, BackendUnavailable)
        )


def _index(documents: list[Document]) -> list[Result]:
    if _failed is not None:
        return [IndexFailure(d, _failed.reason, _failed.unavailable) for d in documents]
    assert _indexer is not None, "the worker was not started"
    return whole(_indexer.index(documents))


def whole(results: Any) -> list[Result]:
    """Each result made whole, to be sent to another process: a document's parts made now (a part
    that fails makes the document an :class:`IndexFailure`)."""
    return [r.whole() if isinstance(r, IndexedDocument) else r for r in results]


class ProcessIndexing:
    """``workers`` processes indexing batches of documents; :meth:`submit` returns at once, and
    :meth:`result` waits for one batch (indexing it here, with ``fallback``, if its worker died)."""

    def __init__(self, spec: GraphSpec, workers: int, fallback: Callable[[list[Document]], list[Result]]) -> None:
        import multiprocessing

        self.spec = spec
        self.workers = workers
        self.fallback = fallback
        self.retried: list[str] = []  #: ids of documents indexed here after their worker died
        # "spawn": a fresh interpreter per worker (no copy of this process's models, threads or connections)
        self._context = multiprocessing.get_context("spawn")
        self._pool = self._new_pool()
        self._generation = 0  # which pool: a batch of a pool already replaced does not replace the new one
        self._of: dict[int, int] = {}  # id(future) -> the generation of the pool that runs it

    def _new_pool(self) -> ProcessPoolExecutor:
        threads = default_threads(self.workers)  # the machine's cores shared among the workers
        return ProcessPoolExecutor(self.workers, mp_context=self._context, initializer=_start, initargs=(self.spec, threads))

    def submit(self, documents: list[Document]) -> Future[list[Result]]:
        try:
            future = self._pool.submit(_index, documents)
        except BrokenProcessPool:
            self._replace(self._generation)
            future = self._pool.submit(_index, documents)
        self._of[id(future)] = self._generation
        return future

    def result(self, future: Future[list[Result]], documents: list[Document]) -> list[Result]:
        generation = self._of.pop(id(future), self._generation)
        try:
            return future.result()
        except BrokenProcessPool:
            self.retried.extend(d.id for d in documents)
            self._replace(generation)
            return self.fallback(documents)

    def _replace(self, generation: int) -> None:
        if generation != self._generation:  # replaced already, when an earlier batch of that pool failed
            return
        self._pool.shutdown(wait=False, cancel_futures=False)
        self._pool = self._new_pool()
        self._generation += 1

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def default_threads(workers: int) -> int:
    """The embedder's threads per worker: the cores shared out, at least one."""
    return max(1, (os.cpu_count() or 1) // workers)


class _IndexActor:
    """A Ray actor holding one indexer (its models loaded once)."""

    def __init__(self, spec: GraphSpec) -> None:
        _start(spec)

    def index(self, documents: list[Document]) -> list[Result]:
        return _index(documents)


class RayIndexing:
    """``workers`` Ray actors indexing batches (``citegraph ingest --executor ray``), round robin.

    Connects to the cluster at ``address`` (``ray start --head`` prints it), or starts a local one
    when it is None. An actor that dies is restarted once and its batch retried by Ray; a batch that
    still fails is indexed in the ingesting process (``fallback``) and its documents say so.
    """

    def __init__(
        self, spec: GraphSpec, workers: int, fallback: Callable[[list[Document]], list[Result]], address: str | None = None
    ) -> None:
        try:
            import ray
        except ImportError as exc:
            from citegraph.errors import MissingExtra

            raise MissingExtra("--executor ray", "ray", "ray") from exc
        import ray.exceptions

        from citegraph.errors import BackendUnavailable

        self._ray = ray
        self._started = not ray.is_initialized()
        if self._started:
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
            except (ConnectionError, RuntimeError, ray.exceptions.RayError) as exc:
                where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
                raise BackendUnavailable(f"could not reach {where}: {exc}") from exc
        self.workers = workers
        self.fallback = fallback
        self.retried: list[str] = []
        actor = ray.remote(num_cpus=1, max_restarts=1, max_task_retries=1)(_IndexActor)
        self._actors: list[Any] = [actor.remote(spec) for _ in range(workers)]
        self._turn = 0

    def submit(self, documents: list[Document]) -> Any:
        actor = self._actors[self._turn % len(self._actors)]
        self._turn += 1
        return actor.index.remote(documents)

    def result(self, pending: Any, documents: list[Document]) -> list[Result]:
        from ray.exceptions import RayError

        try:
            results: list[Result] = self._ray.get(pending)
        except RayError:
            self.retried.extend(d.id for d in documents)
            return self.fallback(documents)
        return results

    def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        if self._started:
            self._ray.shutdown()
