"""Records -> JSON-ready dicts: the documented ``--json`` shapes (docs/json.md), which the CLI, the
HTTP API, MCP and the evaluation all print; and the status vocabulary in words. No terminal code here:
the server imports this without ``rich``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from citegraph.models import (
    ANSWER_TERMS,
    CLAIM_TERMS,
    Answer,
    Answerability,
    Claim,
    CommunityReport,
    ContextItem,
    Document,
    Entity,
    Hop,
    IngestReport,
    Lead,
    ReachedNode,
    Rejection,
    Relation,
    Relevance,
    Span,
)
from citegraph.retrieve.names import title_key
from citegraph.store.base import DeleteResult, Problem, RelabelResult, StoredDocument

if TYPE_CHECKING:
    from citegraph.components import ModelsReport


def span_json(span: Span) -> dict[str, Any]:
    return {"document": span.document, "version": span.version, "start": span.start, "end": span.end, "sentence": span.text}


def route_json(route: Sequence[Hop]) -> list[dict[str, Any]]:
    return [{"from": h.source, "relation": h.relation, "direction": h.direction, "to": h.target, "span": span_json(h.span)} for h in route]


def nodes_json(nodes: Sequence[ReachedNode]) -> list[dict[str, Any]]:
    return [{"entity": n.entity, "name": n.name, "depth": n.depth, "seed": n.seed, "route": route_json(n.route)} for n in nodes]


def relevance_json(r: Relevance) -> dict[str, Any]:
    return {
        "label": r.label,
        "expected": r.expected,
        "found_type": r.found_type,
        "coverage": None if r.coverage is None else round(r.coverage, 3),
        "terms": list(r.terms),
        "missing": list(r.missing),
        "method": r.method,
        "note": r.note,
    }


ANSWER_NODES = 200  #: reached entities an answer's JSON lists (`citegraph traverse` lists them all)


def answerability_json(a: Answerability | None) -> dict[str, Any] | None:
    if a is None:
        return None
    return {
        "answerable": a.answerable,
        "probability": None if a.probability is None else round(a.probability, 4),
        "features": dict(a.features),
        "missing": list(a.missing),
        "note": a.note,
        "reader": None
        if a.reading is None
        else {"answer": a.reading.answer, "marker": a.reading.marker, "probability": round(a.reading.probability, 4)},
    }


def retrieval_json(answer: Answer) -> dict[str, Any]:
    """Seeds, hops and the reached entities, nearest first: on a large graph two hops reach tens of
    thousands, so an answer lists the first :data:`ANSWER_NODES` and says how many there were."""
    nodes = answer.retrieval.nodes
    out: dict[str, Any] = {
        "seeds": list(answer.retrieval.seeds),
        "hops": answer.retrieval.hops,
        "reached": len(nodes),
        "nodes": nodes_json(nodes[:ANSWER_NODES]),
        "summary": answer.retrieval.summary,  # the document or section a question about a whole text named
        "read_as": answer.retrieval.read_as,  # the question with the abbreviations it uses spelled out (None: as asked)
        "spelled_out": [{"short": short, "long": long} for short, long in answer.retrieval.spelled_out],
        # a question about the whole corpus: the communities it drew on, one context sentence each
        "communities": [{"id": id_, "title": title} for id_, title in answer.retrieval.communities],
    }
    if len(nodes) > ANSWER_NODES:
        out["nodes_note"] = f"the first {ANSWER_NODES} of {len(nodes)} by depth, then key; `citegraph traverse` lists all"
    return out


def rejection_json(r: Rejection) -> dict[str, Any]:
    return {"kind": r.kind, "reason": r.reason, "detail": r.detail, "record": r.record}


def context_json(items: Sequence[ContextItem], stale: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """An answer's numbered context; ``stale``: marker -> why that item's source is stale."""
    stale = stale or {}
    return [
        {
            "marker": c.marker,
            **span_json(c.span),
            "score": round(c.evidence.score, 6),
            "found_by": c.evidence.found_by,
            "community": c.evidence.community,
            "stale": stale.get(c.marker),
            "framed": c.span.frame or None,
        }
        for c in items
    ]


def claim_json(claim: Claim, stale: dict[int, str] | None = None) -> dict[str, Any]:
    """One claim: its text, status, markers, and each citation's span, support verdict and route."""
    stale = stale or {}
    return {
        "text": claim.text,
        "raw": claim.raw,
        "status": claim.status.value,
        "markers": list(claim.markers),
        "invalid_markers": list(claim.invalid_markers),
        "citations": [
            {
                "marker": c.marker,
                **span_json(c.span),
                "support": {
                    "label": c.support.label,
                    "score": c.support.score,
                    "verifier": c.support.verifier,
                    "guards": list(c.support.guards),
                    "stage": str(c.support.stage),
                    "calibrated": c.support.calibrated,
                },
                "found_by": c.found_by,
                "stale": stale.get(c.marker),
                "entity": c.entity,
                "community": c.community,
                "route": route_json(c.route),
            }
            for c in claim.citations
        ],
    }


def stale_markers(answer: Answer) -> dict[int, str]:
    """Marker -> why that context item's source is stale, from the answer's ``stale`` warnings."""
    return {int(str(dict(w.data)["marker"])): str(dict(w.data)["reason"]) for w in answer.warnings if w.code == "stale"}


def answer_json(answer: Answer) -> dict[str, Any]:
    stale = stale_markers(answer)
    return {
        "question": answer.question,
        "answer": answer.text,
        "status": answer.status.value,
        "lead": lead_json(answer.lead),
        "context": context_json(answer.context, stale),
        "claims": [claim_json(claim, stale) for claim in answer.claims],
        "warnings": [{"code": w.code, "message": w.message, **dict(w.data)} for w in answer.warnings],
        "relevance": relevance_json(answer.relevance),
        "answerability": answerability_json(answer.answerability),
        "retrieval": retrieval_json(answer),
        "models": dict(answer.models),
    }


def lead_json(lead: Lead | None) -> dict[str, Any] | None:
    """The answer's own words (where the reader found them in a cited sentence), or None."""
    if lead is None:
        return None
    s = lead.span
    return {
        "text": lead.text,
        "marker": lead.marker,
        "probability": round(lead.probability, 4),
        "document": s.document,
        "version": s.version,
        "start": s.start,
        "end": s.end,
    }


#: an answer's status in plain words, for people and chat front ends (the code stays in the JSON)
STATUS_WORDS = {status.value: term.means for status, term in ANSWER_TERMS.items()}


#: a citation's verdict in plain words
VERDICT_WORDS = {code: term.label for code, term in CLAIM_TERMS.items()}


def vocabulary_json() -> dict[str, Any]:
    """Every answer status and claim verdict with its label, tone and meaning (``GET /vocabulary``):
    the page reads its words from here rather than keeping a copy."""
    return {
        "answer": {status.value: {"label": t.label, "tone": t.tone, "means": t.means} for status, t in ANSWER_TERMS.items()},
        "claim": {code: {"label": t.label, "tone": t.tone, "means": t.means} for code, t in CLAIM_TERMS.items()},
    }


def ingest_json(report: IngestReport) -> dict[str, Any]:
    docs: list[dict[str, Any]] = [
        {
            "id": d.id,
            "version": d.version,
            "status": d.status.value,
            "source": d.source,
            "sentences": d.sentences,
            "entities": d.entities,
            "relations": d.relations,
            "inferred_entities": d.inferred_entities,
            "rejected": [rejection_json(r) for r in d.rejected],
            "reason": d.reason,
            "superseded": d.superseded,
            "extractor": d.extractor,
            "notes": list(d.notes),
        }
        for d in report.documents
    ]
    totals: dict[str, Any] = {"documents": len(docs)}
    for status in ("ok", "empty", "failed", "partial", "unchanged", "skipped"):
        totals[status] = sum(1 for d in docs if d["status"] == status)
    for field in ("sentences", "entities", "relations", "inferred_entities"):
        totals[field] = sum(d[field] for d in docs)
    totals["rejected"] = sum(len(d["rejected"]) for d in docs) + len(report.rejected)
    return {"documents": docs, "rejected": [rejection_json(r) for r in report.rejected], "totals": totals}


def entity_json(entity: Entity) -> dict[str, Any]:
    return {
        "key": entity.key,
        "name": entity.name,
        "inferred": entity.inferred,
        "mentions": [{**span_json(m.span), "surface": m.surface, "current": m.current, "inferred": m.inferred} for m in entity.mentions],
    }


def relations_json(relations: Sequence[Relation]) -> list[dict[str, Any]]:
    return [{"source": r.source, "type": r.type, "target": r.target, "current": r.current, "span": span_json(r.span)} for r in relations]


def communities_json(reports: Sequence[CommunityReport]) -> list[dict[str, Any]]:
    return [
        {
            "id": c.id,
            "level": c.level,
            "parent": c.parent,
            "size": c.size,
            "title": ", ".join(c.names[:3]),
            "entities": list(c.names),
            "documents": [{"document": d, "sentences": n} for d, n in c.documents],
            "summary": [span_json(s) for s in c.summary],
        }
        for c in reports
    ]


def document_title(doc: Document) -> str | None:
    """What a person would call the document: among its first short lines (a heading, a PDF's or an
    HTML page's title line), the one sharing most words with its file name ("Information Security
    Policy" for ``information-security-policy.html``, not the breadcrumb above it), else its first
    Markdown heading; None when neither is there (the id names it)."""
    named = {w for w in title_key(doc.id).split() if not w.isdigit()}
    best: tuple[int, str] | None = None
    heading = None
    for line in [x.strip() for x in doc.text[:2000].splitlines() if x.strip() and x.strip() != "---"][:TITLE_LINES]:
        if (front := _FRONT_MATTER.match(line)) is not None:  # a front matter's "title:" names it; its other keys do not
            if front.group(1).casefold() == "title" and front.group(2).strip():
                return front.group(2).strip().strip("\"'")
            continue
        text = line.lstrip("#").strip()
        if not text or len(text) > 100 or text[0].isdigit() or text[0] == "[":  # not a chat line's time
            continue
        if heading is None and line.startswith("# "):
            heading = text
        shared = len(named & set(title_key(text).split()))
        if shared and (best is None or shared > best[0]):
            best = (shared, text)
    return best[1] if best else heading


TITLE_LINES = 6  #: the first lines of a document its title is looked for in
_FRONT_MATTER = re.compile(r"^([a-z_][\w-]*):\s*(.*)$")  # "title: Brightwave Employee Handbook", "date: 2025-03-06"


def documents_json(docs: Sequence[StoredDocument]) -> list[dict[str, Any]]:
    return [
        {
            "id": d.document.id,
            "title": document_title(d.document),
            "version": d.document.version,
            "label": d.document.label,
            "current": d.document.current,
            "status": d.status,
            "source": d.document.source,
            "access": list(d.document.access),
            "ingested_at": d.document.ingested_at,
            "dated": d.document.dated,
            "superseded_by": d.document.superseded_by,
            "extractor": d.extractor,
            "sentences": d.sentences,
            "entities": d.entities,
            "relations": d.relations,
            "rejected": d.rejections,
        }
        for d in docs
    ]


def traverse_json(nodes: Sequence[ReachedNode], hops: int) -> dict[str, Any]:
    return {"seeds": sorted({n.seed for n in nodes if n.depth == 0}), "hops": hops, "nodes": nodes_json(nodes)}


def removed_json(results: Sequence[DeleteResult]) -> list[dict[str, Any]]:
    return [vars(r) for r in results]


def relabel_json(result: RelabelResult) -> dict[str, Any]:
    return {
        "id": result.doc_id,
        "versions": result.versions,
        "before": list(result.before),
        "after": list(result.after),
        "gained": list(result.gained),
        "lost": list(result.lost),
    }


def check_json(problems: Sequence[Problem]) -> dict[str, Any]:
    return {"ok": not problems, "problems": [vars(p) for p in problems]}


def models_json(report: ModelsReport) -> dict[str, Any]:
    return {"configured": [vars(c) for c in report.configured], "known": [vars(k) for k in report.known], "cache": report.cache}


def demo_json(report: IngestReport, answer: Answer, note: str) -> dict[str, Any]:
    return {"ingest": ingest_json(report), "answer": answer_json(answer), "note": note}
