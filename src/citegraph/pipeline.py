"""The pipeline object. The CLI, the Python API and (later) the HTTP API are thin layers over it.

ingest:   files -> documents -> sentences -> extraction -> embeddings -> store (one transaction per document)
ask:      question -> retrieval (seeds, traversal, evidence) -> numbered context -> answer -> claims -> verdicts
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from citegraph.answer.base import Answerer
from citegraph.answer.citations import answer_status, parse_markers, resolve_claims, split_claims
from citegraph.answer.extractive import ExtractiveAnswerer
from citegraph.answer.relevance import check_relevance
from citegraph.embed.base import Embedder
from citegraph.errors import AccessConflict, BackendUnavailable, CitegraphError, InputFileError, NotFound, UserError
from citegraph.extract.base import Extractor
from citegraph.extract.imported import ImportedExtractions, load_extractions
from citegraph.extract.spacy_extractor import SpacyExtractor
from citegraph.ingest.base import FoundFile, UnsupportedFile, discover, load_file
from citegraph.ingest.indexer import CHUNK_CHARS, IndexedDocument, Indexer, IndexFailure, TextInput, content_version
from citegraph.ingest.sentences import SentenceSplitter
from citegraph.models import (
    Answer,
    AnswerWarning,
    ContextItem,
    Document,
    DocumentReport,
    DocumentStatus,
    Entity,
    EntityMention,
    IngestReport,
    ReachedNode,
    Relation,
    Relevance,
)
from citegraph.retrieve.retriever import GraphView, Retriever
from citegraph.settings import check_setting, setting
from citegraph.store.base import DeleteResult, Problem, RelabelResult, Store, StoredDocument
from citegraph.store.sqlite import SQLiteStore
from citegraph.verify.base import UncheckedVerifier, Verifier

__all__ = ["CiteGraph", "TextInput", "content_version", "make_answerer", "make_embedder", "make_extractor", "make_verifier"]

Progress = Callable[[int, int, str], None]  # (done, total, current document id)


@dataclass
class _IngestState:
    unavailable: str | None = None  #: set once a model backend is down: the rest of the run fails fast


def make_embedder(name: str, *, timeout: float = 120.0) -> Embedder:
    from citegraph.embed import HashingEmbedder, MiniLMEmbedder

    if name == "minilm":
        return MiniLMEmbedder()
    if name == "hashing":
        return HashingEmbedder()
    if name.startswith("ollama:"):
        from citegraph.llm.ollama import OllamaEmbedder
        from citegraph.llm.spec import OLLAMA_URL, parse_spec

        spec = parse_spec(name)
        return OllamaEmbedder(spec.model, spec.url or OLLAMA_URL, timeout=timeout)
    raise UserError(f"unknown embedder {name!r}; choose 'minilm', 'ollama:MODEL[@URL]' or 'hashing'")


def make_extractor(spec: str, splitter: SentenceSplitter, *, timeout: float = 120.0) -> Extractor:
    """``spacy`` or a model spec; a model that does not answer is an error here, before any work."""
    if spec == "spacy":
        return SpacyExtractor(splitter)
    from citegraph.extract.llm_extractor import LLMExtractor
    from citegraph.llm.spec import make_chat_model

    model = make_chat_model(spec, timeout=timeout)
    return LLMExtractor(model, nlp=splitter.nlp, parallel=model.concurrency)


def make_answerer(spec: str, *, timeout: float = 120.0) -> Answerer:
    if spec == "extractive":
        return ExtractiveAnswerer()
    from citegraph.answer.llm_answerer import LLMAnswerer
    from citegraph.llm.spec import make_chat_model

    return LLMAnswerer(make_chat_model(spec, timeout=timeout))


def _labels(access: Iterable[str]) -> tuple[str, ...]:
    """Sorted, distinct labels; ``"a,b"`` is two labels, as on the command line."""
    labels = tuple(sorted({a.strip() for item in access for a in item.split(",") if a.strip()}))
    if not labels:
        raise UserError("a document needs at least one access label (default: public)")
    return labels


def make_verifier(spec: str, *, threshold: float = 0.5, timeout: float = 120.0) -> Verifier:
    """``none`` (label everything unverified), ``guards`` (no model), or a judge model spec."""
    from citegraph.verify.judge import CheckingVerifier, LLMJudge

    if spec == "none":
        return UncheckedVerifier()
    if spec == "guards":
        return CheckingVerifier(threshold=threshold)
    from citegraph.llm.spec import make_chat_model

    return CheckingVerifier(LLMJudge(make_chat_model(spec, timeout=timeout)), threshold=threshold)


class CiteGraph:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        splitter: SentenceSplitter | None = None,
        extractor: Extractor | None = None,
        answerer: Answerer | None = None,
        verifier: Verifier | None = None,
        retrieval: str = str(setting("retrieval").default),
        hops: int = int(setting("hops").default),  # type: ignore[call-overload]
        top_k: int = int(setting("top-k").default),  # type: ignore[call-overload]
        context_size: int = int(setting("context-size").default),  # type: ignore[call-overload]
        depth_penalty: float = float(setting("depth-penalty").default),  # type: ignore[arg-type]
        dangling: str = str(setting("dangling").default),
        max_file_mb: float = float(setting("max-file-mb").default),  # type: ignore[arg-type]
        max_answer_chars: int = int(setting("max-answer-chars").default),  # type: ignore[call-overload]
        max_claims: int = int(setting("max-claims").default),  # type: ignore[call-overload]
    ) -> None:
        numbers = {"hops": hops, "top-k": top_k, "context-size": context_size, "depth-penalty": depth_penalty}
        numbers |= {"max-file-mb": max_file_mb, "max-answer-chars": max_answer_chars, "max-claims": max_claims}
        for name, value in numbers.items():
            check_setting(name, value)  # the ranges of the settings table
        self.max_file_mb = max_file_mb
        self.max_answer_chars = max_answer_chars
        self.max_claims = max_claims
        if dangling not in {"infer", "reject"}:
            raise UserError(f"dangling must be 'infer' or 'reject', not {dangling!r}")
        stored = store.embedder_name()
        if stored is not None and stored != embedder.name:

            def flag(name: str) -> str:  # the --embedder value that opens a store built with ``name``
                return "hashing" if name.startswith("hashing-") else "minilm" if name.startswith("all-MiniLM-") else name

            built = stored if flag(stored) == stored else f"{flag(stored)} ({stored})"
            raise UserError(f"this store was built with --embedder {built}; open it with that, not --embedder {flag(embedder.name)}")
        self.store = store
        self.embedder = embedder
        self.splitter = splitter or SentenceSplitter()
        extractor = extractor or SpacyExtractor(self.splitter)
        self.answerer = answerer or ExtractiveAnswerer()
        self.verifier = verifier or UncheckedVerifier()
        self.context_size = context_size
        self.dangling = dangling
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
        self.indexer = Indexer(
            self.splitter, extractor, embedder, dangling=dangling, missing_keys=store.missing_keys, nlp=self._nlp_or_none()
        )

    @classmethod
    def open(
        cls,
        db: str | Path,
        embedder: str = "minilm",
        *,
        extractor: str = "spacy",
        generator: str = "extractive",
        verifier: str = "guards",
        support_threshold: float = 0.5,
        timeout: float = 120.0,
        create: bool = True,
        lock_timeout: float = float(setting("lock-timeout").default),  # type: ignore[arg-type]
        **options: object,
    ) -> CiteGraph:
        """Open (or, with ``create``, create) a store, with components named by spec strings (see
        ``citegraph models``). With ``create=False`` a missing store is a :class:`UserError`."""
        for name, value in (("support-threshold", support_threshold), ("timeout", timeout), ("lock-timeout", lock_timeout)):
            check_setting(name, value)
        splitter = options.pop("splitter", None) or SentenceSplitter()
        if not isinstance(splitter, SentenceSplitter):
            raise TypeError(f"splitter must be a SentenceSplitter, not {type(splitter).__name__}")
        return cls(
            SQLiteStore(db, create=create, lock_timeout=lock_timeout),
            make_embedder(embedder, timeout=timeout),
            splitter=splitter,
            extractor=make_extractor(extractor, splitter, timeout=timeout),
            answerer=make_answerer(generator, timeout=timeout),
            verifier=make_verifier(verifier, threshold=support_threshold, timeout=timeout),
            **options,  # type: ignore[arg-type]
        )

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
    ) -> IngestReport:
        """Ingest files and folders. One bad file never loses the others' work.

        ``prefix`` is put before every document id (a namespace: ``pub/`` makes ``notes.txt``
        ``pub/notes.txt``), so two folders with the same file names can be ingested side by side.
        """
        labels = _labels(access)
        imported = load_extractions(Path(extractions)) if extractions else None
        found = list(discover([Path(p) for p in paths]))
        if doc_id is not None:
            if len(found) != 1:
                raise UserError(f"--id names one document, but {len(found)} files were found")
            found = [FoundFile(found[0].path, doc_id, found[0].skip, found[0].fail)]
        if prefix:
            found = [FoundFile(f.path, prefix + f.doc_id, f.skip, f.fail) for f in found]
        reports: list[DocumentReport] = []
        seen: set[str] = set()
        pending: list[TextInput] = []
        done = 0
        state = _IngestState()

        def flush() -> None:
            nonlocal done
            reports.extend(self._ingest_batch(pending, labels, imported, version_label, state))
            done += len(pending)
            if progress and pending:
                progress(done, len(found), pending[-1].id)
            pending.clear()

        def report(f: FoundFile, status: DocumentStatus, reason: str) -> None:
            nonlocal done
            reports.append(DocumentReport(f.doc_id, None, status, f.source, reason=reason))
            done += 1

        for f in found:
            if f.doc_id in seen:
                report(f, DocumentStatus.FAILED, "duplicate document id in this ingest")
                continue
            seen.add(f.doc_id)
            if f.skip or f.fail:
                report(f, DocumentStatus.SKIPPED if f.skip else DocumentStatus.FAILED, f.skip or f.fail or "")
                continue
            try:
                loaded = load_file(f.path, self.max_file_mb)
            except UnsupportedFile as exc:
                report(f, DocumentStatus.SKIPPED, exc.reason)
                continue
            except InputFileError as exc:
                report(f, DocumentStatus.FAILED, exc.reason)
                continue
            pending.append(TextInput(f.doc_id, loaded.text, loaded.media_type, f.source))
            # A batch is parsed and embedded at once: bounded in documents and in text.
            if len(pending) >= batch_size or sum(len(p.text) for p in pending) >= CHUNK_CHARS:
                flush()
        flush()
        unmatched = tuple(imported.unmatched(seen)) if imported else ()
        return IngestReport(tuple(reports), unmatched, state.unavailable)

    def ingest_texts(
        self,
        items: Sequence[TextInput],
        *,
        access: Iterable[str] = ("public",),
        version_label: str | None = None,
        extractions: ImportedExtractions | None = None,
    ) -> IngestReport:
        state = _IngestState()
        reports = self._ingest_batch(list(items), _labels(access), extractions, version_label, state)
        return IngestReport(tuple(reports), (), state.unavailable)

    def relabel(self, doc_id: str, access: Iterable[str]) -> RelabelResult:
        """Give a document (every stored version) new access labels: the one way labels change.

        An ingest never relabels; this is the explicit act, and its result says which labels gained
        and which lost the right to read the document.
        """
        result = self.store.relabel(doc_id, _labels(access))
        self.retriever.clear_cache()
        return result

    def _ingest_batch(
        self,
        items: list[TextInput],
        access: tuple[str, ...],
        imported: ImportedExtractions | None,
        version_label: str | None,
        state: _IngestState,
    ) -> list[DocumentReport]:
        reports: dict[str, DocumentReport] = {}
        docs: list[Document] = []
        now = datetime.now(UTC).isoformat(timespec="seconds")
        for item in items:
            version = content_version(item.text)
            stored_access = self.store.document_access(item.id)
            if state.unavailable:
                reports[item.id] = DocumentReport(item.id, version, DocumentStatus.FAILED, item.source, reason=state.unavailable)
            elif stored_access is not None and stored_access != access:
                reason = str(AccessConflict(item.id, stored_access, access))
                reports[item.id] = DocumentReport(item.id, version, DocumentStatus.FAILED, item.source, reason=reason)
            elif (existing := self.store.get_document(item.id, version)) is not None and self.store.document_status(
                item.id, version
            ) != DocumentStatus.PARTIAL.value:
                # Identical content is a no-op, unless its last ingest was partial: then it is extracted again.
                reports[item.id] = self._restate(existing)
            else:
                docs.append(
                    Document(item.id, version, item.text, item.source or item.id, access, version_label, now, True, item.media_type)
                )

        def extractor_for(doc: Document) -> Extractor | None:
            return imported.extractor_for(doc.id, self._nlp_or_none()) if imported else None

        for result in self.indexer.index(docs, extractor_for):
            doc = result.document
            if isinstance(result, IndexFailure) or state.unavailable:
                reason = state.unavailable or (result.reason if isinstance(result, IndexFailure) else "")
                if isinstance(result, IndexFailure) and result.unavailable:
                    state.unavailable = state.unavailable or result.reason
                reports[doc.id] = DocumentReport(doc.id, doc.version, DocumentStatus.FAILED, doc.source, reason=reason)
                continue
            reports[doc.id] = self._write(result, state)
        return [reports[item.id] for item in items]

    def _restate(self, existing: Document) -> DocumentReport:
        """Identical content is a no-op, except to make an old version current again."""
        superseded = None
        reason = ""
        if not existing.current:
            superseded = self.store.make_current(existing.id, existing.version)
            reason = "an earlier version with identical content was made current again"
        return DocumentReport(
            existing.id, existing.version, DocumentStatus.UNCHANGED, existing.source, reason=reason, superseded=superseded
        )

    def _write(self, indexed: IndexedDocument, state: _IngestState) -> DocumentReport:
        doc = indexed.document

        def failed(reason: str) -> DocumentReport:
            return DocumentReport(doc.id, doc.version, DocumentStatus.FAILED, doc.source, reason=reason, extractor=indexed.extractor)

        try:
            result = self.store.write_document(indexed)
        except BackendUnavailable as exc:
            if indexed.error is None:
                raise
            # A model went down while a long document was being indexed: it and the rest fail fast.
            state.unavailable = str(exc)
            return failed(state.unavailable)
        except AccessConflict as exc:  # another ingest stored this id with other labels meanwhile
            return failed(str(exc))
        except CitegraphError as exc:
            if indexed.error is exc:  # the extractor failed on this document: the others go on
                return failed(f"extraction failed: {exc}")
            raise  # the store itself failed (locked, read-only, damaged, full): the run stops; what was written stays
        if self.store.embedder_name() is None:
            self.store.set_embedder_name(self.embedder.name)
        if result.unchanged:
            return DocumentReport(
                doc.id, doc.version, DocumentStatus.UNCHANGED, doc.source, reason="another ingest stored this version meanwhile"
            )
        rules = indexed.rules
        status = rules.status
        return DocumentReport(
            doc.id,
            doc.version,
            status,
            doc.source,
            sentences=rules.sentences,
            entities=len(rules.keys),
            relations=result.relations,
            inferred_entities=len(rules.inferred - rules.extracted),
            rejected=tuple(rules.rejected),
            reason="no text: the file is empty or holds no sentences"
            if not rules.sentences
            else ("nothing extracted" if status == DocumentStatus.EMPTY else ""),
            superseded=result.superseded,
            extractor=indexed.extractor,
            notes=indexed.notes,
        )

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
            raise UserError(
                f"the answer text has {len(text):,} characters, over the limit of {self.max_answer_chars:,}; "
                "raise the setting max-answer-chars (--max-answer-chars, CITEGRAPH_MAX_ANSWER_CHARS) to check it"
            )
        claims = sum(1 for raw in split_claims(text) if parse_markers(raw)[0])
        if claims > self.max_claims:
            raise UserError(
                f"the answer text has {claims:,} claims, over the limit of {self.max_claims:,}; "
                "raise the setting max-claims (--max-claims, CITEGRAPH_MAX_CLAIMS) to check it"
            )

    # -- inspect ----------------------------------------------------------------------------------
    def traverse(self, names: Sequence[str], *, labels: Collection[str] | None = ("public",), hops: int | None = None) -> list[ReachedNode]:
        view = self.retriever.view(labels)
        seeds = self.retriever.resolve(names, view)
        return self.retriever.traverse(view, seeds, self.retriever.hops if hops is None else hops)

    def entity(self, name: str, *, labels: Collection[str] | None = ("public",)) -> Entity:
        """Every visible mention of one entity, current and superseded (flagged), each with its span."""
        view = self.retriever.view(labels, include_superseded=True)
        key = self.retriever.resolve([name], view)[0]
        index = view.index[key]
        data = view.data
        rows = [m for m in data.mentions if m[0] == index]
        mentions = tuple(
            sorted(
                (EntityMention(data.spans[s], surface, "", data.span_current[s], inferred) for _, s, surface, inferred in rows),
                key=lambda m: (not m.current, m.span.document, m.span.version, m.span.start),
            )
        )
        current = [m for m in mentions if m.current] or list(mentions)
        name_counts = Counter(m.surface for m in current)
        best_name = min(name_counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        return Entity(key, best_name, "", mentions, all(m.inferred for m in mentions))

    def relations(
        self, *, labels: Collection[str] | None = ("public",), between: tuple[str, str] | None = None, include_superseded: bool = False
    ) -> list[Relation]:
        view: GraphView = self.retriever.view(labels, include_superseded)
        data = view.data
        wanted = set(self.retriever.resolve(list(between), view)) if between else None
        out = []
        for rid, src, dst, type_, span in data.relations:
            s, t = data.keys[src], data.keys[dst]
            if wanted is not None and {s, t} != wanted and not (len(wanted) == 1 and s == t):
                continue
            out.append(Relation(rid, s, t, type_, data.spans[span], data.span_current[span]))
        return sorted(out, key=lambda r: (r.source, r.target, r.type, r.span.document, r.span.start))

    def documents(self, *, labels: Collection[str] | None = ("public",)) -> list[StoredDocument]:
        return self.store.documents(labels, include_superseded=True)

    def history(self, doc_id: str, *, labels: Collection[str] | None = ("public",)) -> list[StoredDocument]:
        """Every version of one document the caller may read, the current one first, then newest first."""
        versions = self.store.documents(labels, include_superseded=True, doc_id=doc_id)
        if not versions:
            raise NotFound.among("document", doc_id, (d for d, _v in self.store.visible(labels, include_superseded=True)))
        return versions

    # -- lifecycle --------------------------------------------------------------------------------
    def remove(self, doc_ids: Sequence[str]) -> list[DeleteResult]:
        """Delete documents, every version; entities and relations survive only with a live span.

        Each document goes in its own transaction; an unknown id raises NotFound before anything is
        deleted. No model is called: provenance rows say what each span supported.
        """
        known = {doc_id for doc_id, _version in self.store.visible(None, include_superseded=True)}
        for doc_id in doc_ids:
            if doc_id not in known:
                raise NotFound.among("document", doc_id, known)
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
