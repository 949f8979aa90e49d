"""The pipeline object. The CLI, the Python API and (later) the HTTP API are thin layers over it.

ingest:   files -> documents -> sentences -> extraction -> embeddings -> store (one transaction per document)
ask:      question -> retrieval (seeds, traversal, evidence) -> numbered context -> answer -> claims -> verdicts
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from citegraph.answer.base import Answerer
from citegraph.answer.citations import answer_status, resolve_claims
from citegraph.answer.extractive import ExtractiveAnswerer
from citegraph.embed.base import Embedder
from citegraph.errors import BackendUnavailable, CitegraphError, InputFileError, NotFound, UserError
from citegraph.extract.base import Extractor
from citegraph.extract.imported import ImportedExtractions, load_extractions
from citegraph.extract.spacy_extractor import SpacyExtractor
from citegraph.ingest.base import FoundFile, UnsupportedFile, discover, load_file
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
    ExtractedRelation,
    Extraction,
    IngestReport,
    ReachedNode,
    Rejection,
    Relation,
)
from citegraph.retrieve.retriever import GraphView, Retriever
from citegraph.settings import setting
from citegraph.store.base import DeleteResult, DocumentWrite, MentionRow, Problem, Store, StoredDocument
from citegraph.store.sqlite import SQLiteStore
from citegraph.verify.base import UncheckedVerifier, Verifier

__all__ = ["CiteGraph", "TextInput", "make_answerer", "make_embedder", "make_extractor", "make_verifier"]

Progress = Callable[[int, int, str], None]  # (done, total, current document id)


@dataclass
class _IngestState:
    unavailable: str | None = None  #: set once a model backend is down: the rest of the run fails fast


@dataclass(frozen=True)
class TextInput:
    """A document given as text rather than as a file."""

    id: str
    text: str
    media_type: str = "text/plain"
    source: str = ""


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


def content_version(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _labels(access: Iterable[str]) -> tuple[str, ...]:
    labels = tuple(sorted({a.strip() for a in access if a.strip()}))
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
        hops: int = int(setting("hops").default),  # type: ignore[call-overload]
        top_k: int = int(setting("top-k").default),  # type: ignore[call-overload]
        context_size: int = int(setting("context-size").default),  # type: ignore[call-overload]
        depth_penalty: float = float(setting("depth-penalty").default),  # type: ignore[arg-type]
        dangling: str = str(setting("dangling").default),
        max_file_mb: float = float(setting("max-file-mb").default),  # type: ignore[arg-type]
    ) -> None:
        if max_file_mb <= 0:
            raise UserError(f"max-file-mb must be positive, not {max_file_mb}")
        self.max_file_mb = max_file_mb
        if dangling not in {"infer", "reject"}:
            raise UserError(f"dangling must be 'infer' or 'reject', not {dangling!r}")
        stored = store.embedder_name()
        if stored is not None and stored != embedder.name:
            raise UserError(f"this store was built with the {stored} embedder; open it with that embedder, not {embedder.name}")
        self.store = store
        self.embedder = embedder
        self.splitter = splitter or SentenceSplitter()
        self.extractor = extractor or SpacyExtractor(self.splitter)
        self.answerer = answerer or ExtractiveAnswerer()
        self.verifier = verifier or UncheckedVerifier()
        self.context_size = context_size
        self.dangling = dangling
        self.retriever = Retriever(
            store, embedder, top_k=top_k, hops=hops, context_size=context_size, depth_penalty=depth_penalty, nlp=self._nlp_or_none()
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
        **options: object,
    ) -> CiteGraph:
        """Open (or create) a store, with components named by spec strings (see ``citegraph models``)."""
        splitter = SentenceSplitter()
        return cls(
            SQLiteStore(db),
            make_embedder(embedder, timeout=timeout),
            splitter=splitter,
            extractor=make_extractor(extractor, splitter, timeout=timeout),
            answerer=make_answerer(generator, timeout=timeout),
            verifier=make_verifier(verifier, threshold=support_threshold, timeout=timeout),
            **options,  # type: ignore[arg-type]
        )

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
        version_label: str | None = None,
        progress: Progress | None = None,
        batch_size: int = 32,
    ) -> IngestReport:
        """Ingest files and folders. One bad file never loses the others' work."""
        labels = _labels(access)
        imported = load_extractions(Path(extractions)) if extractions else None
        found = list(discover([Path(p) for p in paths]))
        if doc_id is not None:
            if len(found) != 1:
                raise UserError(f"--id names one document, but {len(found)} files were found")
            found = [FoundFile(found[0].path, doc_id)]
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

        for f in found:
            if f.doc_id in seen:
                reports.append(
                    DocumentReport(f.doc_id, None, DocumentStatus.FAILED, str(f.path), reason="duplicate document id in this ingest")
                )
                done += 1
                continue
            seen.add(f.doc_id)
            if f.skip:
                reports.append(DocumentReport(f.doc_id, None, DocumentStatus.SKIPPED, str(f.path), reason=f.skip))
                done += 1
                continue
            try:
                loaded = load_file(f.path, self.max_file_mb)
            except UnsupportedFile as exc:
                reports.append(DocumentReport(f.doc_id, None, DocumentStatus.SKIPPED, str(f.path), reason=exc.reason))
                done += 1
                continue
            except InputFileError as exc:
                reports.append(DocumentReport(f.doc_id, None, DocumentStatus.FAILED, str(f.path), reason=exc.reason))
                done += 1
                continue
            pending.append(TextInput(f.doc_id, loaded.text, loaded.media_type, str(f.path)))
            if len(pending) >= batch_size:
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

    def _ingest_batch(
        self,
        items: list[TextInput],
        access: tuple[str, ...],
        imported: ImportedExtractions | None,
        version_label: str | None,
        state: _IngestState | None = None,
    ) -> list[DocumentReport]:
        state = state or _IngestState()
        reports: dict[int, DocumentReport] = {}
        docs: list[tuple[int, Document]] = []
        now = datetime.now(UTC).isoformat(timespec="seconds")
        for i, item in enumerate(items):
            version = content_version(item.text)
            if state.unavailable:
                reports[i] = DocumentReport(item.id, version, DocumentStatus.FAILED, item.source, reason=state.unavailable)
                continue
            existing = self.store.get_document(item.id, version)
            # Identical content is a no-op, unless its last ingest was partial: then it is extracted again.
            if existing is not None and self.store.document_status(item.id, version) != DocumentStatus.PARTIAL.value:
                reports[i] = self._restate(existing, access)
                continue
            docs.append(
                (i, Document(item.id, version, item.text, item.source or item.id, access, version_label, now, True, item.media_type))
            )
        if not docs:
            return [reports[i] for i in range(len(items))]

        sentences = self.splitter.split_many([(d.id, d.version, d.text, d.media_type) for _, d in docs])
        plans: list[tuple[int, Document, list, Extraction]] = []
        for (i, doc), sents in zip(docs, sentences, strict=True):
            if state.unavailable:
                reports[i] = DocumentReport(doc.id, doc.version, DocumentStatus.FAILED, doc.source, reason=state.unavailable)
                continue
            extractor = (imported.extractor_for(doc.id, self._nlp_or_none()) if imported else None) or self.extractor
            try:
                extraction = extractor.extract(doc, sents)
            except BackendUnavailable as exc:
                # The model is down: this and every following document fail fast, none is written.
                state.unavailable = f"extraction model unavailable: {exc}"
                reports[i] = DocumentReport(doc.id, doc.version, DocumentStatus.FAILED, doc.source, reason=state.unavailable)
                continue
            except CitegraphError as exc:
                reports[i] = DocumentReport(doc.id, doc.version, DocumentStatus.FAILED, doc.source, reason=f"extraction failed: {exc}")
                continue
            plans.append((i, doc, sents, extraction))
        if not plans:
            return [reports[i] for i in range(len(items))]

        # One embedding call for the whole batch: sentences, imported spans, and keys new to the store.
        texts: list[str] = []
        for _, _, sents, extraction in plans:
            texts.extend(s.span.text for s in sents)
            texts.extend(s.text for s in extraction.extra_spans)
        new_keys = sorted(self.store.missing_keys({k for p in plans for k in self._keys(p[3])}))
        try:
            vectors = self.embedder.embed(texts + new_keys)
        except BackendUnavailable as exc:
            state.unavailable = f"embedding model unavailable: {exc}"
            for i, doc, _, _ in plans:
                reports[i] = DocumentReport(doc.id, doc.version, DocumentStatus.FAILED, doc.source, reason=state.unavailable)
            return [reports[i] for i in range(len(items))]
        key_vectors = dict(zip(new_keys, vectors[len(texts) :], strict=True))
        if self.store.embedder_name() is None:
            self.store.set_embedder_name(self.embedder.name)

        at = 0
        for i, doc, sents, extraction in plans:
            spans = [(s.span, "sentence") for s in sents] + [(s, "imported") for s in extraction.extra_spans]
            span_vectors = vectors[at : at + len(spans)]
            at += len(spans)
            reports[i] = self._write(doc, spans, span_vectors, extraction, key_vectors)
        return [reports[i] for i in range(len(items))]

    @staticmethod
    def _keys(extraction: Extraction) -> set[str]:
        return {e.key for e in extraction.entities} | {k for r in extraction.relations for k in (r.source_key, r.target_key)}

    def _restate(self, existing: Document, access: tuple[str, ...]) -> DocumentReport:
        """Identical content is a no-op, except to make an old version current again or relabel it."""
        notes = []
        relabel = tuple(existing.access) != access
        if not existing.current:
            notes.append("an earlier version with identical content was made current again")
        if relabel:
            notes.append(f"access labels changed from {','.join(existing.access)} to {','.join(access)}")
        superseded = None
        if notes:  # both changes in one transaction
            superseded = self.store.make_current(existing.id, existing.version, access if relabel else None)
        return DocumentReport(
            existing.id, existing.version, DocumentStatus.UNCHANGED, existing.source, reason="; ".join(notes), superseded=superseded
        )

    def _write(
        self, doc: Document, spans: list, span_vectors: np.ndarray, extraction: Extraction, key_vectors: dict[str, np.ndarray]
    ) -> DocumentReport:
        mentions = [MentionRow(e.key, e.sentence, e.name, e.type, e.start, e.end, e.description) for e in extraction.entities]
        known = {e.key for e in extraction.entities}
        rejected = list(extraction.rejected)
        relations: list[ExtractedRelation] = []
        inferred: set[str] = set()
        for r in extraction.relations:
            missing = [(k, n) for k, n in ((r.source_key, r.source_name), (r.target_key, r.target_name)) if k not in known]
            if missing and self.dangling == "reject":
                rejected.append(
                    Rejection(
                        "relation",
                        "missing_endpoint",
                        f"{', '.join(repr(n or k) for k, n in missing)} was never extracted as an entity of {doc.id}",
                        f"{r.source_name or r.source_key} -[{r.type}]-> {r.target_name or r.target_key}",
                    )
                )
                continue
            for key, name in missing:
                mentions.append(MentionRow(key, r.sentence, name or key, "INFERRED", inferred=True))
                known.add(key)
                inferred.add(key)
            relations.append(r)
        entities = len({m.key for m in mentions})
        if rejected:
            status = DocumentStatus.PARTIAL
        elif not mentions and not relations:
            status = DocumentStatus.EMPTY
        else:
            status = DocumentStatus.OK
        write = DocumentWrite(
            doc,
            status.value,
            extraction.extractor,
            tuple(spans),
            span_vectors,
            tuple(mentions),
            tuple(relations),
            {k: v for k, v in key_vectors.items() if k in known},
            tuple(rejected),
        )
        try:
            result = self.store.write_document(write)
        except CitegraphError as exc:
            return DocumentReport(doc.id, doc.version, DocumentStatus.FAILED, doc.source, reason=f"store write failed: {exc}")
        return DocumentReport(
            doc.id,
            doc.version,
            status,
            doc.source,
            sentences=sum(1 for _, kind in spans if kind == "sentence"),
            entities=entities,
            relations=result.relations,
            inferred_entities=len(inferred),
            rejected=tuple(rejected),
            reason="no text: the file is empty or holds no sentences"
            if not spans
            else ("nothing extracted" if status == DocumentStatus.EMPTY else ""),
            superseded=result.superseded,
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
        retrieval = self.retriever.retrieve(question, labels, hops=hops, top_k=top_k, include_superseded=include_superseded)
        context = tuple(ContextItem(i + 1, e) for i, e in enumerate(retrieval.evidence[: self.context_size]))
        text = answer_text if answer_text is not None else self.answerer.answer(question, context)
        claims, warnings = resolve_claims(text, context, self.verifier)
        if not context:
            warnings.insert(0, AnswerWarning("no_evidence", "no stored sentence visible to this caller matches the question"))
        models = (
            ("extractor", self.extractor.name),
            ("embedder", self.embedder.name),
            ("generator", "answer-file" if answer_text is not None else self.answerer.name),
            ("verifier", self.verifier.name),
        )
        return Answer(question, text, answer_status(claims, context), context, tuple(claims), tuple(warnings), retrieval, models)

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
