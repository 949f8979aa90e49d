"""One ingest run against a store: files or texts -> documents -> :class:`Indexer` -> one write per
document -> the :class:`IngestReport`. It uses only the store's :class:`~citegraph.store.base.Documents` interface, so any backend
plugs in; the indexing itself (sentences, extraction, embeddings, the dangling and status rules)
is the indexer's, which only reads the stored graph (the keys and vectors it already holds).

The rules of a run:

* **An ingest never relabels.** A document stored with other labels is refused (``failed``, the
  reason naming ``citegraph relabel``): checked before any work, and again inside the write's
  transaction, so a concurrent ingest cannot race past it.
* **Identical content is a no-op** (``unchanged``), except that an old version is made current
  again; a version whose last ingest was ``partial`` is extracted again.
* **One bad document never loses the others.** A file that cannot be read, a duplicate id, a
  document the extractor fails on: each is reported ``failed`` (or ``skipped``) and the run goes on.
* **A model backend that goes down fails the rest of the run fast**: every later document is
  ``failed`` and none is written, and the report says why (``unavailable``).
* **The store's own failure stops the run** (locked, read-only, damaged, full): what was written
  before stays.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citegraph.components import GraphSpec
from citegraph.errors import AccessConflict, InputFileError, StaleWrite, UserError
from citegraph.extract.base import Extractor
from citegraph.extract.imported import ImportedExtractions, load_extractions
from citegraph.ingest.base import FoundFile, IngestOptions, UnsupportedFile, discover, load_file
from citegraph.ingest.indexer import CHUNK_CHARS, IndexedDocument, Indexer, IndexFailure, TextInput, content_version, failed_report
from citegraph.ingest.workers import Indexing, check_executor, start_indexing, whole
from citegraph.models import Document, DocumentReport, DocumentStatus, IngestReport
from citegraph.settings import DEFAULTS, MINUTES_PER_MB, check_setting
from citegraph.store.base import Documents

__all__ = ["Ingester", "Progress", "access_labels"]

Progress = Callable[[int, int, str], None]  # (done, total, current document id)
RETRIED = "indexed again by the ingesting process: the worker process indexing it stopped (killed or out of memory)"


def access_labels(access: Iterable[str]) -> tuple[str, ...]:
    """Sorted, distinct labels; ``"a,b"`` is two labels, as on the command line."""
    labels = tuple(sorted({a.strip() for item in access for a in item.split(",") if a.strip()}))
    if not labels:
        raise UserError("a document needs at least one access label (default: public)")
    dashed = [label for label in labels if label.startswith("-")]
    if dashed:
        raise UserError(f"{dashed[0]!r} is not an access label: a label cannot start with '-' (it reads as a command-line option)")
    return labels


@dataclass
class _Run:
    unavailable: str | None = None  #: set once a model backend is down: the rest of the run fails fast


@dataclass
class _Batch:
    """Documents checked and read together: the reports known before indexing, and those to index."""

    items: list[TextInput]
    reports: dict[str, DocumentReport] = field(default_factory=dict)
    documents: list[Document] = field(default_factory=list)


class Ingester:
    """Ingests into ``store`` with ``indexer``; files larger than ``max_file_mb`` are refused unread."""

    def __init__(
        self, store: Documents, indexer: Indexer, *, max_file_mb: float = DEFAULTS.max_file_mb, max_text_mb: float = DEFAULTS.max_text_mb
    ) -> None:
        self.store = store
        self.indexer = indexer
        self.max_file_mb = max_file_mb
        self.max_text_mb = max_text_mb

    def ingest_paths(
        self, paths: Sequence[str | Path], options: IngestOptions, *, spec: GraphSpec | None = None, progress: Progress | None = None
    ) -> IngestReport:
        """Ingest the files and folders ``paths`` (see :meth:`ingest_files`) as ``options`` say; with
        ``workers`` > 1 or ``executor="ray"``, indexed by that many workers built from ``spec`` (the
        graph's own), each loading its models once, while this process writes. Hidden files and
        folders are reported as skipped unless ``include_hidden``; ``sources`` names what to record as
        a file's source instead of its path (an upload's name, not the server's temporary path)."""
        check_setting("workers", options.workers)
        check_executor(options.executor)
        imported = load_extractions(Path(options.extractions)) if options.extractions else None
        found = list(discover([Path(p) for p in paths], include_hidden=options.include_hidden))
        if options.sources:
            shown = options.sources
            found = [replace(f, shown=shown.get(f.path, f.shown)) for f in found]
        indexing: Indexing | None = None
        if options.workers > 1 or options.executor == "ray":
            if spec is None:
                raise UserError("ingest with workers needs a graph made by CiteGraph.open (its components named by spec strings)")

            def here(docs: list[Document]) -> list[IndexedDocument | IndexFailure]:
                return whole(self.indexer.index(docs))

            indexing = start_indexing(spec, options.workers, options.executor, here, options.ray_address)
            # every worker gets work
            options = replace(options, batch_size=max(1, min(options.batch_size, -(-len(found) // (2 * options.workers)))))
        try:
            return self.ingest_files(found, options, imported=imported, progress=progress, indexing=indexing)
        finally:
            if indexing is not None:
                indexing.close()

    def ingest_files(
        self,
        found: Sequence[FoundFile],
        options: IngestOptions,
        *,
        imported: ImportedExtractions | None = None,
        progress: Progress | None = None,
        indexing: Indexing | None = None,
    ) -> IngestReport:
        """Ingest discovered files (see :func:`~citegraph.ingest.base.discover`) with the labels
        ``options.access`` (see :func:`access_labels`). ``doc_id`` names the one file; ``prefix`` goes
        before every document id. With ``indexing`` (worker processes), batches are indexed there, up
        to two per worker ahead of the writes, and written here in order; documents an import file
        (``imported``) covers are indexed here."""
        access, doc_id, prefix, version_label = options.access, options.doc_id, options.prefix, options.version_label
        dated, batch_size = options.dated, options.batch_size
        self.store.refuse_if_damaged()
        found = list(found)
        if doc_id is not None:
            if len(found) != 1:
                raise UserError(f"--id names one document, but {len(found)} files were found")
            found = [replace(found[0], doc_id=doc_id)]
        if prefix:
            found = [replace(f, doc_id=prefix + f.doc_id) for f in found]
        reports: list[DocumentReport] = []
        seen: set[str] = set()
        pending: list[TextInput] = []
        done = 0
        run = _Run()

        inflight: deque[tuple[_Batch, Any]] = deque()  # each batch, and its pending result (None: nothing to index)

        def drain(keep: int) -> None:
            nonlocal done
            while indexing is not None and len(inflight) > keep:
                batch, future = inflight.popleft()
                results = indexing.result(future, batch.documents) if future is not None else []
                retried = set(indexing.retried)
                reports.extend(replace(r, notes=(*r.notes, RETRIED)) if r.id in retried else r for r in self._finish(batch, results, run))
                done += len(batch.items)
                if progress:
                    progress(done, len(found), batch.items[-1].id)

        def flush() -> None:
            nonlocal done
            if not pending:
                return
            if indexing is None or imported is not None:
                reports.extend(self._ingest_batch(pending, access, imported, version_label, run))
                done += len(pending)
                if progress:
                    progress(done, len(found), pending[-1].id)
            else:
                batch = self._prepare(list(pending), access, version_label, run)
                inflight.append((batch, indexing.submit(batch.documents) if batch.documents else None))
                drain(keep=2 * indexing.workers)
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
            if too_long := self._too_long(loaded.text):
                report(f, DocumentStatus.FAILED, too_long)
                continue
            pending.append(TextInput(f.doc_id, loaded.text, loaded.media_type, f.source, dated or loaded.dated, loaded.supersedes))
            # A batch is parsed and embedded at once: bounded in documents and in text.
            if len(pending) >= batch_size or sum(len(p.text) for p in pending) >= CHUNK_CHARS:
                flush()
        flush()
        drain(keep=0)
        unmatched = tuple(imported.unmatched(seen)) if imported else ()
        return IngestReport(tuple(reports), unmatched, run.unavailable)

    def ingest_texts(
        self,
        items: Sequence[TextInput],
        access: tuple[str, ...],
        *,
        imported: ImportedExtractions | None = None,
        version_label: str | None = None,
        dated: str | None = None,
    ) -> IngestReport:
        self.store.refuse_if_damaged()
        run = _Run()
        if dated is not None:
            items = [replace(item, dated=dated) for item in items]
        refused = {i: reason for i, item in enumerate(items) if (reason := self._too_long(item.text))}
        reports = iter(self._ingest_batch([item for i, item in enumerate(items) if i not in refused], access, imported, version_label, run))
        ordered = [
            DocumentReport(item.id, None, DocumentStatus.FAILED, item.source, reason=refused[i]) if i in refused else next(reports)
            for i, item in enumerate(items)
        ]
        return IngestReport(tuple(ordered), (), run.unavailable)

    def _too_long(self, text: str) -> str:
        """Why a document's text is refused (over ``max_text_mb``), or ``""``."""
        if len(text) <= self.max_text_mb * 250_000:  # at most 4 bytes a character: surely under the limit
            return ""
        size = len(text.encode("utf-8", "surrogatepass"))
        if size <= self.max_text_mb * 1_000_000:
            return ""
        return (
            f"its text is {size / 1_000_000:.1f} MB, over the {self.max_text_mb:g} MB text limit (ingest parses, embeds and links "
            f"every sentence: about {MINUTES_PER_MB:g} minutes per MB of text on two cores at worst); split the document, or "
            "raise --max-text-mb"
        )

    def _ingest_batch(
        self,
        items: list[TextInput],
        access: tuple[str, ...],
        imported: ImportedExtractions | None,
        version_label: str | None,
        run: _Run,
    ) -> list[DocumentReport]:
        batch = self._prepare(items, access, version_label, run)

        def extractor_for(doc: Document) -> Extractor | None:
            return imported.extractor_for(doc.id, self.indexer.nlp) if imported else None

        return self._finish(batch, self.indexer.index(batch.documents, extractor_for), run, extractor_for)

    def _prepare(self, items: list[TextInput], access: tuple[str, ...], version_label: str | None, run: _Run) -> _Batch:
        """The checks before any work: the labels, identical content; the documents left to index."""
        batch = _Batch(items)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        for item in items:
            version = content_version(item.text)
            stored_access = self.store.document_access(item.id)
            if run.unavailable:
                batch.reports[item.id] = failed_report(item.id, version, item.source, run.unavailable)
            elif stored_access is not None and stored_access != access:
                batch.reports[item.id] = failed_report(item.id, version, item.source, str(AccessConflict(item.id, stored_access, access)))
            elif (existing := self.store.get_document(item.id, version)) is not None and self.store.document_status(
                item.id, version
            ) != DocumentStatus.PARTIAL.value:
                # Identical content is a no-op, unless its last ingest was partial: then it is extracted again.
                batch.reports[item.id] = self._restate(existing)
            else:
                batch.documents.append(
                    Document(
                        item.id,
                        version,
                        item.text,
                        item.source or item.id,
                        access,
                        version_label,
                        now,
                        True,
                        item.media_type,
                        item.dated,
                        tuple(old for old in item.supersedes if old != item.id),
                    )
                )
        return batch

    def _finish(
        self,
        batch: _Batch,
        results: Iterable[IndexedDocument | IndexFailure],
        run: _Run,
        extractor_for: Callable[[Document], Extractor | None] | None = None,
    ) -> list[DocumentReport]:
        """Write each indexed document (or report its failure), in order. A document whose write
        found an entity it relied on removed meanwhile (:class:`StaleWrite`) is indexed once more,
        with the same extractor (``extractor_for``), and written again."""
        for result in results:
            if isinstance(result, IndexedDocument) and result.lazy and not run.unavailable:
                result = result.spooled()  # the model work of a long document, before its write's transaction
            if isinstance(result, IndexedDocument) and not run.unavailable:
                try:
                    batch.reports[result.document.id] = self._write(result)
                    continue
                except StaleWrite:
                    (result,) = self.indexer.index([result.document], extractor_for or (lambda _doc: None))
                    if isinstance(result, IndexedDocument) and result.lazy:
                        result = result.spooled()
            doc = result.document
            if isinstance(result, IndexFailure) or run.unavailable:
                reason = run.unavailable or (result.reason if isinstance(result, IndexFailure) else "")
                if isinstance(result, IndexFailure) and result.unavailable:
                    run.unavailable = run.unavailable or result.reason
                batch.reports[doc.id] = failed_report(doc.id, doc.version, doc.source, reason)
                continue
            batch.reports[doc.id] = self._write(result)
        return [batch.reports[item.id] for item in batch.items]

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

    def _write(self, indexed: IndexedDocument) -> DocumentReport:
        doc = indexed.document

        def failed(reason: str) -> DocumentReport:
            return failed_report(doc.id, doc.version, doc.source, reason, extractor=indexed.extractor)

        try:
            result = self.store.write_document(indexed)
        except AccessConflict as exc:  # another ingest stored this id with other labels meanwhile
            return failed(str(exc))
        # Any other error is the store's own (locked, read-only, damaged, full): the run stops, and
        # what was written stays. (Model work is over before the write: see IndexedDocument.spooled.)
        if self.store.embedder_name() is None:
            self.store.set_embedder_name(self.indexer.embedder.name)
        return indexed.report(result)
