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

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from citegraph.answer.base import Answerer
from citegraph.answer.compose import Limits, compose
from citegraph.answer.extractive import ExtractiveAnswerer
from citegraph.answer.reader import Reader
from citegraph.components import GraphSpec, check_store_embedder, make_answerer, make_embedder, make_extractor, make_verifier
from citegraph.conversation import Turn, resolve
from citegraph.embed.base import Embedder
from citegraph.errors import UserError
from citegraph.extract.base import Extractor
from citegraph.extract.imported import ImportedExtractions
from citegraph.extract.spacy_extractor import SpacyExtractor
from citegraph.facade import Lifecycle, Reads
from citegraph.ingest.base import IngestOptions
from citegraph.ingest.indexer import Indexer, TextInput, content_version
from citegraph.ingest.ingester import Ingester, Progress, access_labels
from citegraph.ingest.loaders import parse_date
from citegraph.llm.base import ChatModel
from citegraph.models import Answer, IngestReport
from citegraph.question import Question
from citegraph.retrieve.retriever import Retriever
from citegraph.sentences import SentenceSplitter
from citegraph.settings import DEFAULTS, check_setting
from citegraph.store import open_store
from citegraph.store.base import Store, as_seen_in
from citegraph.verify.base import UncheckedVerifier, Verifier

__all__ = ["CiteGraph", "TextInput", "content_version", "make_answerer", "make_embedder", "make_extractor", "make_verifier"]


class CiteGraph(Reads, Lifecycle):
    """A store and the components that ingest into it and answer from it: made with :meth:`open` (components
    by spec string) or from instances, with ``settings`` (a :class:`~citegraph.components.GraphSpec`) or
    its fields as keywords (``hops=3``), checked against the settings table."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        splitter: SentenceSplitter | None = None,
        extractor: Extractor | None = None,
        answerer: Answerer | None = None,
        verifier: Verifier | None = None,
        settings: GraphSpec | None = None,
        rewriter: ChatModel | None = None,
        **overrides: Any,
    ) -> None:
        # A GraphSpec's numbers are checked when it is made; ``overrides`` (hops=2, ...) are its fields too.
        self.settings = settings = (settings or GraphSpec()).replace(**overrides)
        self.limits = Limits(settings.max_question_chars, settings.max_answer_chars, settings.max_claims)
        self.store = store
        self.embedder = embedder
        self.splitter = splitter or SentenceSplitter()
        extractor = extractor or SpacyExtractor(self.splitter)
        self.answerer = answerer or ExtractiveAnswerer()
        self.verifier = verifier or UncheckedVerifier()
        self.rewriter = rewriter or self.answerer.model  #: writes out follow-ups the rules cannot read (one given: the caller's to close)
        indexer = Indexer(self.splitter, extractor, embedder, dangling=settings.dangling, graph=store, nlp_of=self.splitter)
        check_store_embedder(store.embedder_name(), embedder.name)
        self.ingester = Ingester(store, indexer, max_file_mb=settings.max_file_mb, max_text_mb=settings.max_text_mb)
        self.spec: GraphSpec | None = None  #: what :meth:`from_spec` was given: worker processes open the same
        self.retriever = Retriever(store, embedder, nlp_of=self.splitter, **settings.retriever_options())

    @classmethod
    def open(
        cls,
        db: str | Path,
        embedder: str = DEFAULTS.embedder,
        *,
        create: bool = True,
        splitter: SentenceSplitter | None = None,
        **options: Any,
    ) -> CiteGraph:
        """Open (or, with ``create``, create) the store ``db`` (a SQLite file or a ``postgresql://`` URL), with
        components named by spec strings (:mod:`citegraph.components`, ``citegraph models``); ``options`` are
        :class:`~citegraph.components.GraphSpec`'s fields. With ``create=False`` a missing store is a :class:`UserError`."""
        return cls.from_spec(GraphSpec(db=str(db), embedder=embedder, **options), create=create, splitter=splitter)

    @classmethod
    def from_spec(cls, spec: GraphSpec, *, create: bool = True, splitter: SentenceSplitter | None = None) -> CiteGraph:
        """The graph ``spec`` describes; ``ingest(workers=N)`` hands the same spec to its workers."""
        if splitter is not None and not isinstance(splitter, SentenceSplitter):
            raise TypeError(f"splitter must be a SentenceSplitter, not {type(splitter).__name__}")
        splitter = splitter or SentenceSplitter()
        store = open_store(spec.db, create=create, lock_timeout=spec.lock_timeout)
        try:
            graph = cls(
                store,
                make_embedder(spec.embedder, timeout=spec.timeout),
                splitter=splitter,
                extractor=make_extractor(spec.extractor, splitter, timeout=spec.timeout),
                answerer=make_answerer(spec.generator, timeout=spec.timeout),
                verifier=make_verifier(spec.verifier, threshold=spec.support_threshold, timeout=spec.timeout),
                settings=spec,
            )
        except BaseException:
            store.close()
            raise
        graph.spec = spec
        return graph

    @property
    def indexer(self) -> Indexer:
        """Documents -> what the store writes (see :mod:`citegraph.ingest.indexer`)."""
        return self.ingester.indexer

    @indexer.setter
    def indexer(self, indexer: Indexer) -> None:
        self.ingester.indexer = indexer

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

    # -- ingest -----------------------------------------------------------------------------------
    def ingest(
        self, paths: Sequence[str | Path], options: IngestOptions | None = None, *, progress: Progress | None = None, **settings: Any
    ) -> IngestReport:
        """Ingest files and folders as ``options`` say (:class:`~citegraph.ingest.base.IngestOptions`),
        or as keyword ``settings`` of the same names over them (``access=["staff"]``, ``workers=2``).
        One bad file never loses the others' work (the rules of a run: :mod:`citegraph.ingest.ingester`).

        ``prefix`` is put before every document id (a namespace: ``pub/`` makes ``notes.txt``
        ``pub/notes.txt``), so two folders with the same file names can be ingested side by side.
        ``workers`` > 1 indexes in that many processes (:mod:`citegraph.ingest.workers`; a graph
        made by :meth:`open`), each loading its models once; this process writes. ``executor="ray"``
        indexes on that many Ray actors instead, on the cluster at ``ray_address`` (or a local one).
        ``dated`` (``YYYY-MM-DD``) is the date of every document of this ingest, over the date a file
        gives itself (front matter ``date:``/``updated:``, an HTML meta date, a PDF's date).
        Hidden files and folders under a folder are reported as skipped unless ``include_hidden``;
        ``sources`` records another source than the path for the files it names (an upload's name).
        """
        unknown = sorted(set(settings) - {f.name for f in fields(IngestOptions)})
        if unknown:
            raise UserError(f"CiteGraph.ingest: no option {', '.join(unknown)}; the options are the fields of IngestOptions")
        options = replace(options or IngestOptions(), **settings)
        dated = None if options.dated is None else parse_date(options.dated, "--date")
        options = replace(options, access=access_labels(options.access), dated=dated)
        return self.ingester.ingest_paths(paths, options, spec=self.spec, progress=progress)

    def ingest_texts(
        self,
        items: Sequence[TextInput],
        *,
        access: Iterable[str] = ("public",),
        version_label: str | None = None,
        extractions: ImportedExtractions | None = None,
        dated: str | None = None,
    ) -> IngestReport:
        dated = None if dated is None else parse_date(dated, "dated")
        return self.ingester.ingest_texts(items, access_labels(access), imported=extractions, version_label=version_label, dated=dated)

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
        as_of: str | None = None,
        scope: str = "auto",
        on_event: Callable[[str, object], None] | None = None,
        conversation: Sequence[Turn] = (),
    ) -> Answer:
        """Retrieve, answer (or take ``answer_text`` written elsewhere), resolve and check citations. ``as_of``
        (``YYYY-MM-DD``): from the documents current on that day. ``scope``: see :meth:`Retriever.retrieve
        <citegraph.retrieve.retriever.Retriever.retrieve>`. ``on_event``: told ``("stage", "retrieving")``, then what
        :func:`~citegraph.answer.compose.compose` tells (the page streams it). ``conversation``: the turns before,
        oldest first; the question is read as their follow-up (:func:`resolve`, with :attr:`rewriter`)."""
        self.limits.check_question(question)
        for name, value in (("hops", hops), ("top-k", top_k)):
            if value is not None:
                check_setting(name, value)
        if answer_text is not None:
            self.limits.check_answer(answer_text)  # before any retrieval
        day = None if as_of is None else parse_date(as_of, "as-of")
        if on_event is not None:
            on_event("stage", "retrieving")
        follow_up = resolve(question, conversation, model=self.rewriter)  # "Which office is she in?" written out from the turns before
        asked = Question.read(follow_up.question)  # parsed once: retrieval links its names, the checks read its type and terms
        retrieval = self.retriever.retrieve(
            asked, labels, hops=hops, top_k=top_k, include_superseded=include_superseded, as_of=day, scope=scope
        )
        models = self.models(generator="answer-file" if answer_text is not None else None)
        answer = compose(
            asked,
            retrieval,
            context_size=self.settings.context_size,
            answerer=self.answerer,
            verifier=self.verifier,
            limits=self.limits,
            models=models,
            answer_text=answer_text,
            document=as_seen_in(self.store, labels),
            as_of=day,
            on_event=on_event,
        )
        return replace(answer, warnings=(follow_up.warning(), *answer.warnings)) if follow_up.told else answer

    def models(self, *, generator: str | None = None) -> tuple[tuple[str, str], ...]:
        """``(role, model name)`` of the extractor, embedder, generator (or ``generator``: what wrote
        an answer instead), verifier and the reader (whether the context answers at all), as an
        answer records them."""
        return (
            ("extractor", self.extractor.name),
            ("embedder", self.embedder.name),
            ("generator", generator or self.answerer.name),
            ("verifier", self.verifier.name),
            ("reader", Reader.name),
        )
