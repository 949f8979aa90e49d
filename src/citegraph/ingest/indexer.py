"""Documents -> sentences -> extraction -> embeddings -> one :class:`DocumentStream` per document.

The indexing rules live here, with no store code, so any process that holds the parts can run them
(the parts come as arguments; a store, if any, only answers which entity keys it lacks):

* **Relation endpoints belong to the relation's sentence.** An endpoint the extractor did not also
  mention in that sentence is *dangling*. If its name is written in the sentence, ``infer`` adds an
  inferred mention there (``reject`` rejects the relation as ``missing_endpoint``); if the sentence
  does not name it at all, the relation claims a sentence that does not support it and is rejected
  as ``endpoint_not_in_sentence``. So every stored relation passes ``citegraph check``.
* **Status.** A document with rejected records is ``partial``; one where nothing was extracted is
  ``empty`` (a result, not an error); otherwise ``ok``. A document that could not be indexed is
  ``failed``, with its reason, and nothing of it is written. Each outcome's line of the ingest
  report is made here (:meth:`IndexedDocument.report`, :func:`failed_report`).
* **Bounded memory.** Small documents are indexed together (one spaCy stream, one embedding call).
  A document longer than ``chunk_chars`` is indexed a run of blocks at a time, each run's rows
  spooled to an anonymous temporary file, and only then written by the store in one short
  transaction: the parses, vectors and rows held at once are bounded by the chunk, not by the
  document, and no model work happens while the store's write lock is held. (A document with imported extractions is indexed whole: the import
  locates its sentences anywhere in the text.)
"""

from __future__ import annotations

import hashlib
import pickle
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from citegraph.embed.base import Embedder
from citegraph.errors import BackendUnavailable, CitegraphError, UserError
from citegraph.extract.base import Extractor, occurs_in, sentence_lemmas
from citegraph.ingest.structure import frame_at, structural_frames
from citegraph.models import Document, DocumentReport, DocumentStatus, Extraction, Rejection, Span
from citegraph.sentences import Sentence, SentenceSplitter, section_texts, split_blocks
from citegraph.settings import DEFAULTS
from citegraph.store.base import DocumentStream, GraphReader, MentionRow, WritePart, WriteResult

__all__ = ["CHUNK_CHARS", "DANGLING", "IndexFailure", "IndexedDocument", "Indexer", "TextInput", "content_version", "failed_report"]

# Text parsed, extracted and embedded at once. At ~2 KB of parse per token and ~5 characters a
# token this holds a few tens of MB of spaCy state, whatever the size of the document.
CHUNK_CHARS = 100_000
DANGLING = ("infer", "reject")  #: what becomes of a relation whose endpoint its sentence names but no entity covers


def failed_report(doc_id: str, version: str | None, source: str, reason: str, *, extractor: str = "") -> DocumentReport:
    """The report of a document that was not stored, and why (nothing of it was written)."""
    return DocumentReport(doc_id, version, DocumentStatus.FAILED, source, reason=reason, extractor=extractor)


def content_version(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class TextInput:
    """A document given as text rather than as a file."""

    id: str
    text: str
    media_type: str = "text/plain"
    source: str = ""
    dated: str | None = None  #: the date the document gives itself (ISO 8601 day)
    supersedes: tuple[str, ...] = ()  #: ids of the documents it replaces


@dataclass
class _Rules:
    """The dangling and status rules for one document, applied part by part, with its counts."""

    document: Document
    dangling: str
    nlp: Any | None
    rejected: list[Rejection] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)  #: keys with a stored mention (extracted or inferred)
    extracted: set[str] = field(default_factory=set)
    inferred: set[str] = field(default_factory=set)
    sentences: int = 0
    cut: int = 0
    records: int = 0
    regions: list[tuple[int, int, str]] | None = None  #: :func:`~citegraph.ingest.structure.structural_frames` of the document

    def _framed(self, span: Span) -> Span:
        frame = frame_at(self.regions or [], span.start, span.end)
        return replace(span, frame=frame) if frame else span

    def part(
        self,
        sentences: Sequence[Sentence],
        extraction: Extraction,
        vectors: np.ndarray,
        keys: dict[str, np.ndarray],
        passage_vector: np.ndarray | None = None,
    ) -> WritePart:
        if self.regions is None:  # what the document's structure does not assert, read once from its whole text
            self.regions = structural_frames(self.document.text, self.document.media_type)
        spans = [(self._framed(s.span), "sentence") for s in sentences] + [(self._framed(s), "imported") for s in extraction.extra_spans]
        self.sentences += len(sentences)
        self.cut += sum(s.cut for s in sentences)
        self.rejected.extend(extraction.rejected)
        mentions = [MentionRow(e.key, e.sentence, e.name, e.type, e.start, e.end, e.description) for e in extraction.entities]
        in_sentence: dict[Span, set[str]] = {}
        for m in mentions:
            in_sentence.setdefault(m.span, set()).add(m.key)
            self.extracted.add(m.key)
        relations = []
        lemmas: dict[Span, set[str]] = {}
        for r in extraction.relations:
            sentence, here = r.sentence, in_sentence.setdefault(r.sentence, set())
            missing = [(k, n or k) for k, n in ((r.source_key, r.source_name), (r.target_key, r.target_name)) if k not in here]
            if missing and sentence not in lemmas:
                lemmas[sentence] = sentence_lemmas(sentence.text, self.nlp)
            unnamed = [n for _k, n in missing if not occurs_in(n, sentence.text, lemmas[sentence], self.nlp)]
            shown = f"{r.source_name or r.source_key} -[{r.type}]-> {r.target_name or r.target_key}"
            where = f"{self.document.id}:{sentence.start}-{sentence.end}"
            if unnamed:
                self.rejected.append(
                    Rejection(
                        "relation",
                        "endpoint_not_in_sentence",
                        f"{', '.join(map(repr, unnamed))} is not written in the relation's sentence ({where})",
                        shown,
                    )
                )
                continue
            if missing and self.dangling == "reject":
                self.rejected.append(
                    Rejection(
                        "relation",
                        "missing_endpoint",
                        f"{', '.join(repr(n) for _k, n in missing)} was not extracted as an entity of its sentence ({where})",
                        shown,
                    )
                )
                continue
            for key, name in missing:
                mentions.append(MentionRow(key, sentence, name, "INFERRED", inferred=True))
                here.add(key)
                self.inferred.add(key)
            relations.append(r)
        self.keys.update(m.key for m in mentions)
        self.records += len(mentions) + len(relations)
        return WritePart(tuple(spans), vectors, tuple(mentions), tuple(relations), keys, passage_vector)

    @property
    def status(self) -> DocumentStatus:
        if self.rejected:
            return DocumentStatus.PARTIAL
        return DocumentStatus.OK if self.records else DocumentStatus.EMPTY


class IndexedDocument(DocumentStream):
    """A document ready to be written: its parts and, once they are read, its counts for the ingest
    report. A long document's parts are ``lazy`` (made as they are read); :meth:`spooled` or
    :meth:`whole` makes them all before any write, so no model runs inside a store transaction."""

    def __init__(self, document: Document, extractor: str, rules: _Rules, parts: Iterator[WritePart], *, lazy: bool = False) -> None:
        self.document = document
        self.extractor = extractor
        self.rules = rules
        self._parts = parts
        self.lazy = lazy  #: the parts are made while they are read (parse, extract, embed)

    def parts(self) -> Iterator[WritePart]:
        return self._parts

    def outcome(self) -> tuple[str, tuple[Rejection, ...]]:
        return self.rules.status.value, tuple(self.rules.rejected)

    def whole(self) -> IndexedDocument | IndexFailure:
        """This document with every part made now, in memory, and no parser attached, so it can be
        sent to another process (``ingest --workers``); a part that fails makes it an
        :class:`IndexFailure`, and nothing of it is written."""
        made = self._make(list)
        if isinstance(made, IndexedDocument):
            self.rules.nlp = None
        return made

    def spooled(self) -> IndexedDocument | IndexFailure:
        """This document with every part made now, before the store's transaction begins: the write
        then holds the store's lock for the rows alone, not for the parsing, extraction and embedding
        of a long document (minutes), so other writers interleave instead of waiting. The parts wait
        in an anonymous temporary file (unlinked at creation, gone when read or when the process
        ends), so memory stays bounded by one part while nothing of the text is left on disk."""
        return self._make(_Spool)

    def _make(self, keep: Callable[[Iterator[WritePart]], Iterable[WritePart]]) -> IndexedDocument | IndexFailure:
        try:
            kept = keep(self._parts)
        except BackendUnavailable as exc:
            return IndexFailure(self.document, str(exc), True)
        except CitegraphError as exc:
            return IndexFailure(self.document, f"extraction failed: {exc}")
        self._parts = iter(kept)
        self.lazy = False
        return self

    @property
    def notes(self) -> tuple[str, ...]:
        if not self.rules.cut:
            return ()
        return (
            f"{self.rules.cut} sentence piece(s) come from sentences longer than the parser limit, cut at whitespace "
            "(a text with no full stops?)",
        )

    def report(self, result: WriteResult) -> DocumentReport:
        """The ingest report's line for this document, once the store wrote it (``result``)."""
        doc = self.document
        if result.unchanged:
            return DocumentReport(
                doc.id, doc.version, DocumentStatus.UNCHANGED, doc.source, reason="another ingest stored this version meanwhile"
            )
        rules = self.rules
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
            extractor=self.extractor,
            notes=self.notes,
        )


@dataclass(frozen=True)
class IndexFailure:
    """A document that could not be indexed, and why; nothing of it is written."""

    document: Document
    reason: str
    unavailable: bool = False  #: a model backend is down: the rest of the run fails fast


class Indexer:
    """Turns documents into :class:`IndexedDocument` streams. Holds the parts and reads the store's
    graph (:class:`~citegraph.store.base.GraphReader`), never writes it.

    ``graph`` says which entity keys have no vector yet (so only those are embedded) and gives the
    stored vectors of texts that are already sentences of a document (any version), so a new
    version embeds only what changed; without one, everything is new;
    ``extractor_for`` picks the extractor of one document (an import file names some of them);
    ``dangling`` is one of :data:`DANGLING`.
    """

    def __init__(
        self,
        splitter: SentenceSplitter,
        extractor: Extractor,
        embedder: Embedder,
        *,
        dangling: str = DEFAULTS.dangling,
        graph: GraphReader | None = None,
        nlp: Any | None = None,
        nlp_of: SentenceSplitter | None = None,
        chunk_chars: int = CHUNK_CHARS,
    ) -> None:
        """``nlp``: the parser for the lemma checks, or ``nlp_of``: a splitter whose parser is read when
        first needed (so that opening a graph loads no model); neither: the checks do without."""
        if dangling not in DANGLING:
            raise UserError(f"dangling must be 'infer' or 'reject', not {dangling!r}")
        self.splitter = splitter
        self.extractor = extractor
        self.embedder = embedder
        self.dangling = dangling
        self.graph = graph
        self._nlp, self._nlp_of = nlp, nlp_of
        self.chunk_chars = chunk_chars

    @property
    def nlp(self) -> Any | None:
        if self._nlp is None and self._nlp_of is not None:
            self._nlp, self._nlp_of = self._nlp_of.nlp_or_none(), None
        return self._nlp

    @nlp.setter
    def nlp(self, value: Any | None) -> None:
        self._nlp, self._nlp_of = value, None

    def _missing_keys(self, keys: Collection[str]) -> set[str]:
        return set(keys) if self.graph is None else self.graph.missing_keys(keys)

    def _stored_vectors(self, documents: Collection[str], texts: Collection[str]) -> Mapping[str, np.ndarray]:
        return {} if self.graph is None else self.graph.stored_vectors(documents, texts)

    def index(
        self, documents: Sequence[Document], extractor_for: Callable[[Document], Extractor | None] = lambda d: None
    ) -> Iterator[IndexedDocument | IndexFailure]:
        """One result per document, in order. Documents longer than ``chunk_chars`` (without an
        import) become lazy streams; the others are indexed together now."""
        small: list[tuple[Document, Extractor, bool]] = []
        large: dict[int, tuple[Document, Extractor]] = {}
        for i, doc in enumerate(documents):
            chosen = extractor_for(doc)
            if chosen is None and len(doc.text) > self.chunk_chars:
                large[i] = (doc, self.extractor)
            else:
                small.append((doc, chosen or self.extractor, chosen is not None))
        done = iter(self._index_together(small))
        for i in range(len(documents)):
            if i in large:
                doc, extractor = large[i]
                rules = _Rules(doc, self.dangling, self.nlp)
                yield IndexedDocument(doc, extractor.name, rules, self._chunks(doc, extractor, rules), lazy=True)
            else:
                result = next(done)
                yield result
                if isinstance(result, IndexFailure) and result.unavailable:
                    yield from (IndexFailure(d, result.reason, True) for d in documents[i + 1 :])
                    return

    def _index_together(self, items: list[tuple[Document, Extractor, bool]]) -> list[IndexedDocument | IndexFailure]:
        if not items:
            return []
        sentences = self.splitter.split_many([(d.id, d.version, d.text, d.media_type) for d, _e, _i in items])
        out: list[IndexedDocument | IndexFailure | None] = [None] * len(items)
        extracted: list[tuple[int, list[Sentence], Extraction]] = []
        for n, ((doc, extractor, _imported), sents) in enumerate(zip(items, sentences, strict=True)):
            try:
                extracted.append((n, sents, extractor.extract(doc, sents)))
            except BackendUnavailable as exc:
                # The model is down: this and every following document fail fast, none is written.
                reason = f"extraction model unavailable: {exc}"
                out[n:] = [IndexFailure(d, reason, True) for d, _e, _i in items[n:]]
                break
            except CitegraphError as exc:
                out[n] = IndexFailure(doc, f"extraction failed: {exc}")
        # One embedding call for the whole batch: sentences, imported spans, each document's passages
        # (for the passage-level modes), and keys new to the store.
        texts = [t for _n, sents, ex in extracted for t in _span_texts(sents, ex)]
        cuts = [_passages(_spans(sents, ex), items[n][0].id) for n, sents, ex in extracted]  # no sentence: no passage
        passages = [t for cut in cuts for t in cut]
        new_keys = sorted(self._missing_keys({k for _n, _s, ex in extracted for k in _keys(ex)}))
        try:
            known = self._stored_vectors([items[n][0].id for n, _s, _e in extracted], texts) if texts else {}
            vectors = self._vectors(texts + passages + new_keys, known)
        except BackendUnavailable as exc:
            for n, _sents, _extraction in extracted:
                out[n] = IndexFailure(items[n][0], f"embedding model unavailable: {exc}", True)
            return [o for o in out if o is not None]
        key_vectors = dict(zip(new_keys, vectors[len(texts) + len(passages) :], strict=True))
        at, passage = 0, len(texts)
        for (n, sents, extraction), cut in zip(extracted, cuts, strict=True):
            doc, extractor, _imported = items[n]
            count = len(sents) + len(extraction.extra_spans)
            rules = _Rules(doc, self.dangling, self.nlp)
            part = rules.part(
                sents,
                extraction,
                vectors[at : at + count],
                {k: key_vectors[k] for k in _keys(extraction) if k in key_vectors},
                vectors[passage : passage + len(cut)] if cut else None,
            )
            at += count
            passage += len(cut)
            out[n] = IndexedDocument(doc, extraction.extractor, rules, iter([part]))
        return [o for o in out if o is not None]

    def _vectors(self, texts: list[str], known: Mapping[str, np.ndarray]) -> np.ndarray:
        """One vector per text: a sentence this document already has in the store keeps its stored
        vector (a new version re-embeds only what changed), and a text given twice (a repeated line,
        a one-sentence document's whole text) is embedded once; the rest in one embedding call."""
        todo = list(dict.fromkeys(t for t in texts if t not in known))
        if not todo and not known:
            return np.zeros((0, 0), np.float32)
        made = dict(zip(todo, self.embedder.embed(todo), strict=True)) if todo else {}
        return np.stack([made[t] if t in made else known[t] for t in texts]).astype(np.float32, copy=False)

    def _chunks(self, doc: Document, extractor: Extractor, rules: _Rules) -> Iterator[WritePart]:
        """The parts of a long document, a run of blocks of about ``chunk_chars`` at a time."""
        run: list[tuple[int, int]] = []
        size = 0
        every: list[Span] = []  # the version's spans so far, for its passages' texts
        made: dict[str, np.ndarray] = {}  # key vectors embedded for an earlier part: not embedded again
        for block in [*split_blocks(doc.text, doc.media_type), None]:
            if block is not None and (not run or size + block[1] - block[0] <= self.chunk_chars):
                run.append(block)
                size += block[1] - block[0]
                continue
            (sentences,) = self.splitter.split_ranges([(doc.id, doc.version, doc.text, run)], markdown=[doc.media_type == "text/markdown"])
            try:
                extraction = extractor.extract(doc, sentences)
            except BackendUnavailable as exc:
                raise BackendUnavailable(f"extraction model unavailable: {exc}") from exc
            texts = _span_texts(sentences, extraction)
            every.extend(_spans(sentences, extraction))
            # The last part carries the vectors of the version's passages, embedded with its sentences.
            passage = _passages(every, doc.id) if block is None else []
            keys = _keys(extraction)
            new_keys = sorted(self._missing_keys(keys - made.keys()))
            try:
                vectors = self._vectors(texts + passage + new_keys, self._stored_vectors([doc.id], texts) if texts else {})
            except BackendUnavailable as exc:
                raise BackendUnavailable(f"embedding model unavailable: {exc}") from exc
            made.update(zip(new_keys, vectors[len(texts) + len(passage) :], strict=True))
            yield rules.part(
                sentences,
                extraction,
                vectors[: len(texts)],
                {k: made[k] for k in keys if k in made},
                vectors[len(texts) : len(texts) + len(passage)] if passage else None,
            )
            if block is None:
                return
            run, size = [block], block[1] - block[0]


class _Spool:
    """Parts pickled one by one into an anonymous temporary file as they are made, read back once."""

    def __init__(self, parts: Iterator[WritePart]) -> None:
        self.file = tempfile.TemporaryFile()  # noqa: SIM115 -- closed when read back (or with the process)
        self.count = 0
        try:
            for part in parts:
                pickle.dump(part, self.file, protocol=pickle.HIGHEST_PROTOCOL)
                self.count += 1
        except BaseException:
            self.file.close()
            raise

    def __iter__(self) -> Iterator[WritePart]:
        try:
            self.file.seek(0)
            for _ in range(self.count):
                yield pickle.load(self.file)
        finally:
            self.file.close()


def _span_texts(sentences: Sequence[Sentence], extraction: Extraction) -> list[str]:
    return [s.text for s in _spans(sentences, extraction)]


def _spans(sentences: Sequence[Sentence], extraction: Extraction) -> list[Span]:
    return [s.span for s in sentences] + list(extraction.extra_spans)


def _passages(spans: Iterable[Span], document: str) -> list[str]:
    """The texts of a version's passages (:func:`~citegraph.sentences.section_texts`), cut from its
    spans in the order a view reads them."""
    return section_texts([(s.start, s.end, s.text) for s in sorted(spans, key=lambda s: (s.start, s.end))], document)


def _keys(extraction: Extraction) -> set[str]:
    return {e.key for e in extraction.entities} | {k for r in extraction.relations for k in (r.source_key, r.target_key)}
