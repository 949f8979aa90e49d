"""The parts of the facade around the pipeline: :class:`Reads`, what a caller may see of the graph
(traversal, entities, relations, documents and their versions, the integrity check, the export),
each filtered by the caller's labels in the store and in its view as retrieval is, and every span
it returns checked again against the live store before it leaves (as ``ask`` checks its context:
a view read from a saved graph is never the last word on who may read a sentence); and
:class:`Lifecycle`, the explicit changes to what is stored (relabel, delete).
:class:`~citegraph.pipeline.CiteGraph` is both, plus the pipeline itself: ingest and ask."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from citegraph.answer.answerable import lead_before
from citegraph.answer.compose import with_lead_in
from citegraph.errors import AccessDenied, NotFound, UserError
from citegraph.ingest.ingester import access_labels
from citegraph.models import CommunityReport, Entity, ReachedNode, Relation, Span
from citegraph.retrieve.retriever import Retriever
from citegraph.settings import check_setting
from citegraph.store.base import DeleteResult, Problem, RelabelResult, Store, StoredDocument, as_seen_in

__all__ = ["PARSE_AHEAD_SENTENCES", "Lifecycle", "Reads"]

#: a store of at most this many sentences has them parsed ahead by a server (:meth:`Reads.texts_to_parse`)
PARSE_AHEAD_SENTENCES = 5_000


class Reads:
    """The read views over ``store`` through ``retriever`` (both set by the class that uses it)."""

    store: Store
    retriever: Retriever

    def _readable(self, labels: Collection[str] | None, include_superseded: bool, spans: Iterable[Span]) -> Callable[[Span], bool]:
        """Whether the live store lets the caller read each of ``spans``' versions: the check every
        span a read returns passes last, asked once for the few versions they come from."""
        allowed = self.store.visible_among(labels, include_superseded, {(s.document, s.version) for s in spans})
        return lambda span: (span.document, span.version) in allowed

    def _routes_readable(self, nodes: Sequence[ReachedNode], labels: Collection[str] | None) -> list[ReachedNode]:
        readable = self._readable(labels, False, (h.span for n in nodes for h in n.route))
        return [n for n in nodes if all(readable(h.span) for h in n.route)]

    def traverse(self, names: Sequence[str], *, labels: Collection[str] | None = ("public",), hops: int | None = None) -> list[ReachedNode]:
        if hops is not None:
            check_setting("hops", hops)
        view = self.retriever.view(labels)
        seeds = self.retriever.resolve(names, view)
        return self._routes_readable(self.retriever.traverse(view, seeds, self.retriever.hops if hops is None else hops), labels)

    def reach(self, question: str, *, labels: Collection[str] | None = ("public",), hops: int | None = None) -> list[ReachedNode]:
        """The entities a question's retrieval reaches from its seeds, nearest first, each with the
        relation that reached it: the graph the page draws."""
        return self._routes_readable(list(self.retriever.retrieve(question, labels, hops=hops).nodes), labels)

    def entity(self, name: str, *, labels: Collection[str] | None = ("public",)) -> Entity:
        """Every visible mention of one entity, current and superseded (flagged), each with its span."""
        view = self.retriever.view(labels, include_superseded=True)
        entity = view.entity(self.retriever.resolve([name], view)[0])
        readable = self._readable(labels, True, (m.span for m in entity.mentions))
        mentions = tuple(m for m in entity.mentions if readable(m.span))
        if not mentions:  # nothing of it the caller may read: it does not exist for them
            raise NotFound.among("entity", name, ())
        return entity if len(mentions) == len(entity.mentions) else replace(entity, mentions=mentions)

    def relations(
        self, *, labels: Collection[str] | None = ("public",), between: tuple[str, str] | None = None, include_superseded: bool = False
    ) -> list[Relation]:
        view = self.retriever.view(labels, include_superseded)
        found = view.relations(self.retriever.resolve(list(between), view) if between else None)
        readable = self._readable(labels, include_superseded, (r.span for r in found))
        return [r for r in found if readable(r.span)]

    def communities(self, *, labels: Collection[str] | None = ("public",), level: int = 0) -> list[CommunityReport]:
        """The communities of the caller's graph at ``level`` (0: the coarsest), largest first, each
        with its summary sentences (see :mod:`citegraph.retrieve.communities`)."""
        from citegraph.retrieve.communities import LEVELS, communities

        if not 0 <= level < LEVELS:
            raise UserError(f"--level must be from 0 to {LEVELS - 1}, not {level}")
        view = self.retriever.view(labels)
        found = communities(view).level(level)
        readable = self._readable(labels, False, (view.span(s) for c in found for s in c.summary))
        known = {doc_id for doc_id, _version in self.store.visible(labels)}  # the live store's word, as for every read
        reports = []
        for c in found:
            summary = tuple(span for span in (view.span(s) for s in c.summary) if readable(span))
            documents = tuple((d, n) for d, n in c.documents if d in known)
            reports.append(CommunityReport(c.id, c.level, len(c.entities), tuple(c.names(view, 8)), documents, summary, c.parent))
        return reports

    def texts_to_parse(self, *, at_most: int = PARSE_AHEAD_SENTENCES) -> tuple[list[str], list[str]]:
        """What an answer from this store parses of its context, for a server to parse ahead
        (:func:`~citegraph.sentences.parse_ahead`): every current sentence, and the text before each
        that the answerability check reads with it (:func:`~citegraph.answer.compose.with_lead_in`).
        (What the checks of a quote of a sentence parse besides it is read off the sentences,
        :func:`~citegraph.answer.extractive.claim_forms`, by the caller, outside its lock.)
        Nothing when the store holds more than ``at_most`` sentences: a large store's are parsed as
        they are asked for."""
        # counted from the document list, and read from the store, not through a caller's graph: no graph
        # is made, kept or saved for it
        if sum(d.sentences for d in self.store.documents(None, include_superseded=False)) > at_most:
            return [], []
        columns = self.store.graph_columns(None)
        document = as_seen_in(self.store, None)
        sentences, leads = [], []
        for i in range(len(columns.span_text)):
            span = columns.span(i)
            sentences.append(span.text)
            lead = lead_before(with_lead_in(document, span), span.text)
            if lead:
                leads.append(lead)
        return sentences, leads

    def documents(self, *, labels: Collection[str] | None = ("public",)) -> list[StoredDocument]:
        return self.store.documents(labels, include_superseded=True)

    def history(self, doc_id: str, *, labels: Collection[str] | None = ("public",)) -> list[StoredDocument]:
        """Every version of one document the caller may read, the current one first, then newest first."""
        versions = self.store.documents(labels, include_superseded=True, doc_id=doc_id)
        if not versions:
            raise NotFound.among("document", doc_id, (d for d, _v in self.store.visible(labels, include_superseded=True)))
        return versions

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
            readable = {(d.document.id, d.document.version) for d in documents}  # the live store's word, in the same state
        return export_graph(view, documents, fmt, readable=lambda span: (span.document, span.version) in readable)


class Lifecycle:
    """Relabel and delete documents in ``store``; ``retriever``'s cached views are dropped after each."""

    store: Store
    retriever: Retriever

    def relabel(self, doc_id: str, access: Iterable[str]) -> RelabelResult:
        """Give a document (every stored version) new access labels: the one way labels change.

        An ingest never relabels; this is the explicit act, and its result says which labels gained
        and which lost the right to read the document.
        """
        result = self.store.relabel(doc_id, access_labels(access))
        self.retriever.clear_cache()
        return result

    def supersede(self, old_id: str, *, by: str | None) -> str | None:
        """Mark document ``old_id`` (every version) superseded by document ``by``: left out of retrieval
        like an old version unless superseded documents are asked for, and ``stale`` wherever it is
        shown. ``by=None`` takes the mark away. Returns the document that superseded it before."""
        result = self.store.supersede(old_id, by, datetime.now(UTC).isoformat(timespec="seconds"))
        self.retriever.clear_cache()
        return result

    def unseen_supersession(self, old_id: str, new_id: str) -> tuple[str, ...]:
        """The labels that read ``old_id`` but not ``new_id``: a caller holding none of ``new_id``'s
        labels does not see that one supersedes the other (the old document stays current for it and
        the new one is not named: :func:`~citegraph.store.base.sees_replacement`)."""
        replacing = set(self.store.document_access(new_id) or ())
        return tuple(label for label in self.store.document_access(old_id) or () if label not in replacing)

    def saved_callers(self) -> list[tuple[tuple[str, ...] | None, bool]]:
        """The callers whose graph the store keeps saved (:meth:`ViewCache.callers
        <citegraph.store.snapshots.ViewCache.callers>`; none for a store that saves no graph): read
        before a write, for :meth:`prepare_views` after it."""
        cache = self.store.view_cache()
        return [] if cache is None else cache.callers()

    def prepare_views(self, callers: Sequence[tuple[Collection[str] | None, bool]]) -> int:
        """After a write: the graph of each of ``callers`` (those :meth:`saved_callers` named before it)
        read from the store as it now is and saved with its indexes and communities, so that the first
        ``ask`` after the write maps them (at a million sentences, seconds instead of the 40 it takes
        to read and index the store). Each graph holds what the store gives that caller, as when an
        ``ask`` saves it. Returns how many were prepared."""
        self.retriever.clear_cache()
        return self.retriever.prepare(callers) if self.store.view_cache() is not None else 0

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
