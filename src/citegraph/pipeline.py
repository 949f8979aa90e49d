"""The pipeline object: the CLI, the Python API and the HTTP API are thin layers over it, and it is
a thin facade itself. It sequences the services; each rule lives in the service that owns it.

ingest:   files -> documents (:class:`~citegraph.ingest.ingester.Ingester`: the rules of a run) -> sentences
          -> extraction -> embeddings (:class:`~citegraph.ingest.indexer.Indexer`: the dangling and status
          rules) -> store (one transaction per document)
ask:      question -> retrieval (seeds, traversal, evidence) -> numbered context -> answer -> claims -> verdicts
show, export: the caller's visible graph (:class:`~citegraph.retrieve.view.GraphView`), as retrieval reads it

Components named by spec strings come from :mod:`citegraph.components`; defaults from
:data:`citegraph.settings.DEFAULTS`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from citegraph.answer.base import Answerer
from citegraph.answer.citations import answer_status, parse_markers, resolve_claims, split_claims
from citegraph.answer.extractive import ExtractiveAnswerer
from citegraph.answer.relevance import check_relevance
from citegraph.components import check_store_embedder, make_answerer, make_embedder, make_extractor, make_verifier
from citegraph.embed.base import Embedder
from citegraph.errors import AccessDenied, CitegraphError, LimitExceeded, NotFound, UserError
from citegraph.extract.base import Extractor
from citegraph.extract.imported import ImportedExtractions, load_extractions
from citegraph.extract.spacy_extractor import SpacyExtractor
from citegraph.ingest.base import discover
from citegraph.ingest.indexer import IndexedDocument, Indexer, IndexFailure, TextInput, content_version
from citegraph.ingest.ingester import Ingester, Progress, access_labels
from citegraph.ingest.workers import EXECUTORS, IndexerSpec, Indexing, ProcessIndexing, RayIndexing, default_threads, whole
from citegraph.models import (
    Answer,
    AnswerWarning,
    ContextItem,
    Document,
    Entity,
    IngestReport,
    ReachedNode,
    Relation,
    Relevance,
)
from citegraph.retrieve.retriever import Retriever
from citegraph.sentences import SentenceSplitter
from citegraph.settings import DEFAULTS, check_setting
from citegraph.store import open_store
from citegraph.store.base import DeleteResult, Problem, RelabelResult, Store, StoredDocument
from citegraph.verify.base import UncheckedVerifier, Verifier

__all__ = ["CiteGraph", "TextInput", "content_version", "make_answerer", "make_embedder", "make_extractor", "make_verifier"]


class CiteGraph:
    """A store and the components that ingest into it and answer from it. Make one with
    :meth:`open` (components by spec string) or from instances; numeric options are checked against
    the settings table."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        splitter: SentenceSplitter | None = None,
        extractor: Extractor | None = None,
        answerer: Answerer | None = None,
        verifier: Verifier | None = None,
        retrieval: str = DEFAULTS.retrieval,
        hops: int = DEFAULTS.hops,
        top_k: int = DEFAULTS.top_k,
        context_size: int = DEFAULTS.context_size,
        depth_penalty: float = DEFAULTS.depth_penalty,
        dangling: str = DEFAULTS.dangling,
        max_file_mb: float = DEFAULTS.max_file_mb,
        max_answer_chars: int = DEFAULTS.max_answer_chars,
        max_claims: int = DEFAULTS.max_claims,
        max_question_chars: int = DEFAULTS.max_question_chars,
    ) -> None:
        numbers = {"hops": hops, "top-k": top_k, "context-size": context_size, "depth-penalty": depth_penalty}
        numbers |= {"max-file-mb": max_file_mb, "max-answer-chars": max_answer_chars, "max-claims": max_claims}
        numbers["max-question-chars"] = max_question_chars
        for name, value in numbers.items():
            check_setting(name, value)  # the ranges of the settings table
        self.max_answer_chars = max_answer_chars
        self.max_claims = max_claims
        self.max_question_chars = max_question_chars
        self.store = store
        self.embedder = embedder
        self.splitter = splitter or SentenceSplitter()
        extractor = extractor or SpacyExtractor(self.splitter)
        self.answerer = answerer or ExtractiveAnswerer()
        self.verifier = verifier or UncheckedVerifier()
        self.context_size = context_size
        indexer = Indexer(self.splitter, extractor, embedder, dangling=dangling, missing_keys=store.missing_keys, nlp=self._nlp_or_none())
        check_store_embedder(store.embedder_name(), embedder.name)
        self.ingester = Ingester(store, indexer, max_file_mb=max_file_mb)
        self.index_spec: IndexerSpec | None = None  #: the spec strings :meth:`open` was given
        self.retriever = Retriever(
            store,
            embedder,
            top_k=top_k,
            hops=hops,
            context_size=context_size,
            depth_penalty=depth_penalty,
            nlp=self._nlp_or_none(),
            mode=retrieval,
        )

    @classmethod
    def open(
        cls,
        db: str | Path,
        embedder: str = DEFAULTS.embedder,
        *,
        extractor: str = DEFAULTS.extractor,
        generator: str = DEFAULTS.generator,
        verifier: str = DEFAULTS.verifier,
        support_threshold: float = DEFAULTS.support_threshold,
        timeout: float = DEFAULTS.timeout,
        create: bool = True,
        lock_timeout: float = DEFAULTS.lock_timeout,
        **options: Any,
    ) -> CiteGraph:
        """Open (or, with ``create``, create) a store, with components named by spec strings (see
        :mod:`citegraph.components` and ``citegraph models``). ``db`` is a SQLite file or a
        ``postgresql://`` URL (:func:`citegraph.store.open_store`). ``options`` are the constructor's
        keyword arguments. With ``create=False`` a missing store is a :class:`UserError`."""
        for name, value in (("support-threshold", support_threshold), ("timeout", timeout), ("lock-timeout", lock_timeout)):
            check_setting(name, value)
        splitter = options.pop("splitter", None) or SentenceSplitter()
        if not isinstance(splitter, SentenceSplitter):
            raise TypeError(f"splitter must be a SentenceSplitter, not {type(splitter).__name__}")
        return cls(
            open_store(db, create=create, lock_timeout=lock_timeout),
            make_embedder(embedder, timeout=timeout),
            splitter=splitter,
            extractor=make_extractor(extractor, splitter, timeout=timeout),
            answerer=make_answerer(generator, timeout=timeout),
            verifier=make_verifier(verifier, threshold=support_threshold, timeout=timeout),
            **options,
        )._named(IndexerSpec(str(db), embedder, extractor, str(options.get("dangling", DEFAULTS.dangling)), timeout, lock_timeout))

    def _named(self, spec: IndexerSpec) -> CiteGraph:
        """Remember the spec strings this graph was opened with: ``ingest(workers=N)`` builds its
        workers' indexers from them."""
        self.index_spec = spec
        return self

    @property
    def indexer(self) -> Indexer:
        """Documents -> what the store writes (see :mod:`citegraph.ingest.indexer`)."""
        return self.ingester.indexer

    @indexer.setter
    def indexer(self, indexer: Indexer) -> None:
        self.ingester.indexer = indexer

    @property
    def dangling(self) -> str:
        return self.indexer.dangling

    @property
    def max_file_mb(self) -> float:
        return self.ingester.max_file_mb

    @max_file_mb.setter
    def max_file_mb(self, value: float) -> None:
        self.ingester.max_file_mb = value

    @property
    def extractor(self) -> Extractor:
        """The configured extractor (documents an import file names use the import instead)."""
        return self.indexer.extractor

    @extractor.setter
    def extractor(self, extractor: Extractor) -> None:
        self.indexer.extractor = extractor

    def close(self) -> None:
        for part in (self.extractor, self.answerer, self.verifier, self.embedder):
            part.close()
        self.store.close()

    def __enter__(self) -> CiteGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _nlp_or_none(self) -> object | None:
        try:
            return self.splitter.nlp
        except CitegraphError:
            return None

    # -- ingest -----------------------------------------------------------------------------------
    def ingest(
        self,
        paths: Sequence[str | Path],
        *,
        access: Iterable[str] = ("public",),
        extractions: str | Path | None = None,
        doc_id: str | None = None,
        prefix: str = "",
        version_label: str | None = None,
        progress: Progress | None = None,
        batch_size: int = 32,
        workers: int = 1,
        executor: str = "process",
        ray_address: str | None = None,
    ) -> IngestReport:
        """Ingest files and folders. One bad file never loses the others' work (the rules of a run:
        :mod:`citegraph.ingest.ingester`).

        ``prefix`` is put before every document id (a namespace: ``pub/`` makes ``notes.txt``
        ``pub/notes.txt``), so two folders with the same file names can be ingested side by side.
        ``workers`` > 1 indexes in that many processes (:mod:`citegraph.ingest.workers`; a graph
        made by :meth:`open`), each loading its models once; this process writes. ``executor="ray"``
        indexes on that many Ray actors instead, on the cluster at ``ray_address`` (or a local one).
        """
        check_setting("workers", workers)
        if executor not in EXECUTORS:
            raise UserError(f"executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")
        labels = access_labels(access)
        imported = load_extractions(Path(extractions)) if extractions else None
        found = list(discover([Path(p) for p in paths]))
        indexing: Indexing | None = None
        if workers > 1 or executor == "ray":
            if self.index_spec is None:
                raise UserError("ingest with workers needs a graph made by CiteGraph.open (its components named by spec strings)")
            spec = replace(self.index_spec, dangling=self.dangling, threads=default_threads(workers) if executor == "process" else 1)

            def here(docs: list[Document]) -> list[IndexedDocument | IndexFailure]:
                return whole(self.indexer.index(docs))

            indexing = RayIndexing(spec, workers, here, ray_address) if executor == "ray" else ProcessIndexing(spec, workers, here)
            batch_size = max(1, min(batch_size, -(-len(found) // (2 * workers))))  # every worker gets work
        try:
            return self.ingester.ingest_files(
                found,
                labels,
                imported=imported,
                doc_id=doc_id,
                prefix=prefix,
                version_label=version_label,
                progress=progress,
                batch_size=batch_size,
                indexing=indexing,
            )
        finally:
            if indexing is not None:
                indexing.close()

    def ingest_texts(
        self,
        items: Sequence[TextInput],
        *,
        access: Iterable[str] = ("public",),
        version_label: str | None = None,
        extractions: ImportedExtractions | None = None,
    ) -> IngestReport:
        return self.ingester.ingest_texts(items, access_labels(access), imported=extractions, version_label=version_label)

    def relabel(self, doc_id: str, access: Iterable[str]) -> RelabelResult:
        """Give a document (every stored version) new access labels: the one way labels change.

        An ingest never relabels; this is the explicit act, and its result says which labels gained
        and which lost the right to read the document.
        """
        result = self.store.relabel(doc_id, access_labels(access))
        self.retriever.clear_cache()
        return result

    # -- ask --------------------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        *,
        labels: Collection[str] | None = ("public",),
        hops: int | None = None,
        top_k: int | None = None,
        answer_text: str | None = None,
        include_superseded: bool = False,
    ) -> Answer:
        """Retrieve, answer (or take ``answer_text`` written elsewhere), resolve and check citations."""
        if not question.strip():
            raise UserError("the question is empty")
        if len(question) > self.max_question_chars:  # before any parse or embedding: its cost is bounded here
            raise LimitExceeded(
                f"the question has {len(question):,} characters, over the limit of {self.max_question_chars:,}; "
                "ask a shorter question, or raise the setting max-question-chars (--max-question-chars, CITEGRAPH_MAX_QUESTION_CHARS)"
            )
        for name, value in (("hops", hops), ("top-k", top_k)):
            if value is not None:
                check_setting(name, value)
        if answer_text is not None:
            self._bound_answer(answer_text)
        retrieval = self.retriever.retrieve(question, labels, hops=hops, top_k=top_k, include_superseded=include_superseded)
        context = tuple(ContextItem(i + 1, e) for i, e in enumerate(retrieval.evidence[: self.context_size]))
        text = answer_text if answer_text is not None else self.answerer.answer(question, context)
        if answer_text is None:
            self._bound_answer(text)  # a generated answer is held to the same caps, before any check
        claims, warnings = resolve_claims(text, context, self.verifier)
        if answer_text is None and isinstance(self.answerer, ExtractiveAnswerer):  # evidence it would not quote, said
            warnings[:0] = self.answerer.warnings(question, context)
        if not context:
            warnings.insert(0, AnswerWarning("no_evidence", "no stored sentence visible to this caller matches the question"))
        models = self.models(generator="answer-file" if answer_text is not None else None)
        status = answer_status(claims, context, warnings)
        relevance = check_relevance(question, [c.text for c in claims]) if context else Relevance("unchecked", None, None, None)
        return Answer(question, text, status, context, tuple(claims), tuple(warnings), retrieval, models, relevance)

    def models(self, *, generator: str | None = None) -> tuple[tuple[str, str], ...]:
        """``(role, model name)`` of the extractor, embedder, generator (or ``generator``: what wrote
        an answer instead) and verifier, as an answer records them."""
        return (
            ("extractor", self.extractor.name),
            ("embedder", self.embedder.name),
            ("generator", generator or self.answerer.name),
            ("verifier", self.verifier.name),
        )

    def _bound_answer(self, text: str) -> None:
        """Refuse answer text over ``max_answer_chars`` or ``max_claims``: every claim costs checks, so
        the cost of one answer is bounded before any is run."""
        if len(text) > self.max_answer_chars:
            raise LimitExceeded(
                f"the answer text has {len(text):,} characters, over the limit of {self.max_answer_chars:,}; "
                "raise the setting max-answer-chars (--max-answer-chars, CITEGRAPH_MAX_ANSWER_CHARS) to check it"
            )
        claims = sum(1 for raw in split_claims(text) if parse_markers(raw)[0])
        if claims > self.max_claims:
            raise LimitExceeded(
                f"the answer text has {claims:,} claims, over the limit of {self.max_claims:,}; "
                "raise the setting max-claims (--max-claims, CITEGRAPH_MAX_CLAIMS) to check it"
            )

    # -- inspect ----------------------------------------------------------------------------------
    def traverse(self, names: Sequence[str], *, labels: Collection[str] | None = ("public",), hops: int | None = None) -> list[ReachedNode]:
        view = self.retriever.view(labels)
        seeds = self.retriever.resolve(names, view)
        return self.retriever.traverse(view, seeds, self.retriever.hops if hops is None else hops)

    def reach(self, question: str, *, labels: Collection[str] | None = ("public",), hops: int | None = None) -> list[ReachedNode]:
        """The entities a question's retrieval reaches from its seeds, nearest first, each with the
        relation that reached it: the graph the page draws."""
        return list(self.retriever.retrieve(question, labels, hops=hops).nodes)

    def entity(self, name: str, *, labels: Collection[str] | None = ("public",)) -> Entity:
        """Every visible mention of one entity, current and superseded (flagged), each with its span."""
        view = self.retriever.view(labels, include_superseded=True)
        return view.entity(self.retriever.resolve([name], view)[0])

    def relations(
        self, *, labels: Collection[str] | None = ("public",), between: tuple[str, str] | None = None, include_superseded: bool = False
    ) -> list[Relation]:
        view = self.retriever.view(labels, include_superseded)
        return view.relations(self.retriever.resolve(list(between), view) if between else None)

    def documents(self, *, labels: Collection[str] | None = ("public",)) -> list[StoredDocument]:
        return self.store.documents(labels, include_superseded=True)

    def history(self, doc_id: str, *, labels: Collection[str] | None = ("public",)) -> list[StoredDocument]:
        """Every version of one document the caller may read, the current one first, then newest first."""
        versions = self.store.documents(labels, include_superseded=True, doc_id=doc_id)
        if not versions:
            raise NotFound.among("document", doc_id, (d for d, _v in self.store.visible(labels, include_superseded=True)))
        return versions

    # -- lifecycle --------------------------------------------------------------------------------
    def remove(self, doc_ids: Sequence[str], *, labels: Collection[str] | None = None) -> list[DeleteResult]:
        """Delete documents, every version; entities and relations survive only with a live span.

        Each document goes in its own transaction; an unknown id raises NotFound before anything is
        deleted. No model is called: provenance rows say what each span supported. With ``labels``
        (a token's), a document must be readable with them (else NotFound, as for any read) and
        carry no label outside them (else :class:`AccessDenied`): a caller deletes only what it
        could have written.
        """
        known = {doc_id for doc_id, _version in self.store.visible(labels, include_superseded=True)}
        for doc_id in doc_ids:
            if doc_id not in known:
                raise NotFound.among("document", doc_id, known)
            held = self.store.document_access(doc_id) or ()
            if labels is not None and not set(held) <= set(labels):
                raise AccessDenied(f"document {doc_id!r} also carries labels this caller does not hold; it cannot delete it")
        results = [self.store.delete_document(doc_id) for doc_id in dict.fromkeys(doc_ids)]
        self.retriever.clear_cache()  # no view built before the delete stays in memory
        return results

    def check(self) -> list[Problem]:
        """The store's integrity check (``citegraph check``): an empty list means sound."""
        return self.store.check()

    def export(self, fmt: str, *, labels: Collection[str] | None = ("public",), include_superseded: bool = False) -> str:
        """The graph the caller may see, with provenance, as GraphML or JSON (see :mod:`citegraph.export`)."""
        from citegraph.export import FORMATS, export_graph

        if fmt not in FORMATS:
            raise UserError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
        with self.store.snapshot():  # the graph and its document list from one state of the store
            self.retriever.clear_cache()
            view = self.retriever.view(labels, include_superseded)
            documents = self.store.documents(labels, include_superseded=include_superseded)
        return export_graph(view, documents, fmt)
