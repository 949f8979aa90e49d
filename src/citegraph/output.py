"""Records -> JSON-ready dicts (the documented ``--json`` shapes) and rich terminal views."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from citegraph.models import Answer, Citation, Entity, Hop, IngestReport, ReachedNode, Rejection, Relation, Span
from citegraph.store.base import StoredDocument

__all__ = [
    "answer_json",
    "documents_json",
    "entity_json",
    "ingest_json",
    "nodes_json",
    "relations_json",
    "render_answer",
    "render_ingest",
]


def span_json(span: Span) -> dict[str, Any]:
    return {"document": span.document, "version": span.version, "start": span.start, "end": span.end, "sentence": span.text}


def route_json(route: Sequence[Hop]) -> list[dict[str, Any]]:
    return [{"from": h.source, "relation": h.relation, "direction": h.direction, "to": h.target, "span": span_json(h.span)} for h in route]


def nodes_json(nodes: Sequence[ReachedNode]) -> list[dict[str, Any]]:
    return [{"entity": n.entity, "name": n.name, "depth": n.depth, "seed": n.seed, "route": route_json(n.route)} for n in nodes]


def rejection_json(r: Rejection) -> dict[str, Any]:
    return {"kind": r.kind, "reason": r.reason, "detail": r.detail, "record": r.record}


def answer_json(answer: Answer) -> dict[str, Any]:
    return {
        "question": answer.question,
        "answer": answer.text,
        "status": answer.status.value,
        "context": [
            {"marker": c.marker, **span_json(c.span), "score": round(c.evidence.score, 6), "found_by": c.evidence.found_by}
            for c in answer.context
        ],
        "claims": [
            {
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
                        },
                        "found_by": c.found_by,
                        "entity": c.entity,
                        "route": route_json(c.route),
                    }
                    for c in claim.citations
                ],
            }
            for claim in answer.claims
        ],
        "warnings": [{"code": w.code, "message": w.message, **dict(w.data)} for w in answer.warnings],
        "retrieval": {"seeds": list(answer.retrieval.seeds), "hops": answer.retrieval.hops, "nodes": nodes_json(answer.retrieval.nodes)},
        "models": dict(answer.models),
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


def documents_json(docs: Sequence[StoredDocument]) -> list[dict[str, Any]]:
    return [
        {
            "id": d.document.id,
            "version": d.document.version,
            "label": d.document.label,
            "current": d.document.current,
            "status": d.status,
            "source": d.document.source,
            "access": list(d.document.access),
            "ingested_at": d.document.ingested_at,
            "extractor": d.extractor,
            "sentences": d.sentences,
            "entities": d.entities,
            "relations": d.relations,
            "rejected": d.rejections,
        }
        for d in docs
    ]


# -- rich views ------------------------------------------------------------------------------------
_STATUS_STYLE = {
    "verified": "bold green",
    "supported": "green",
    "cited": "yellow",
    "unverified": "yellow",
    "partially_supported": "dark_orange",
    "unsupported": "red",
    "contradicted": "bold red",
    "uncited": "red",
    "invalid_marker": "red",
    "no_evidence": "dim",
}


def _route_text(route: Sequence[Hop]) -> str:
    if not route:
        return ""
    parts = [route[0].source]
    for h in route:
        arrow = f"-[{h.relation}]->" if h.direction == "out" else f"<-[{h.relation}]-"
        parts.append(f"{arrow} {h.target}")
    return " ".join(parts)


def _found_text(c: Citation) -> str:
    if c.route:
        return f"route: {_route_text(c.route)}"
    if c.entity:
        return f"found as a {'relation' if c.found_by == 'relation' else 'mention'} of seed entity '{c.entity}'"
    return "found by sentence similarity to the question"


def render_answer(console: Console, answer: Answer, *, routes: int = 0) -> None:
    """The answer, each claim with its cited spans; with ``routes``, that many traversal routes too."""
    status = answer.status.value
    console.print(Text(f"Q: {answer.question}", style="bold"))
    console.print(Text.assemble(("status: ", "dim"), (status, _STATUS_STYLE.get(status, ""))))
    console.print()
    for i, claim in enumerate(answer.claims, 1):
        style = _STATUS_STYLE.get(claim.status.value, "")
        console.print(Text.assemble((f"{i}. ", "bold"), (claim.text, style), (f"  [{claim.status.value}]", "dim")))
        for c in claim.citations:
            score = "" if c.support.score is None else f" {c.support.score:.2f}"
            console.print(
                Text.assemble(
                    (f"   [{c.marker}] ", "cyan"),
                    (f"{c.span.document}@{c.span.version[:8]}:{c.span.start}-{c.span.end} ", "dim"),
                    (f"“{c.span.text}”", ""),
                    (f"  support: {c.support.label}{score} ({c.support.verifier})", "dim"),
                )
            )
            for guard in c.support.guards:
                console.print(Text(f"       guard: {guard}", style="red" if c.support.label != "supported" else "dim"))
            console.print(Text(f"       {_found_text(c)}", style="dim"))
    for w in answer.warnings:
        console.print(Text(f"warning [{w.code}]: {w.message}", style="yellow"))
    console.print(
        Text(
            f"seeds: {', '.join(answer.retrieval.seeds) or '-'}; reached {len(answer.retrieval.nodes)} entities within {answer.retrieval.hops} hops",
            style="dim",
        )
    )
    if routes:
        console.print(Text("routes (how retrieval reached entities; a route finds evidence, only a span supports a claim):", style="dim"))
        for node in [n for n in answer.retrieval.nodes if n.route][:routes]:
            last = node.route[-1].span
            console.print(Text(f"   {_route_text(node.route)}   ({last.document}:{last.start}-{last.end})", style="dim"))


def render_ingest(console: Console, report: IngestReport) -> None:
    data = ingest_json(report)
    table = Table("document", "status", "sentences", "entities", "relations", "rejected")
    notes: list[Text] = []
    for d in data["documents"]:
        style = {"failed": "red", "partial": "dark_orange", "skipped": "yellow", "empty": "dim"}.get(d["status"], "")
        table.add_row(
            d["id"],
            Text(d["status"], style=style),
            str(d["sentences"]),
            str(d["entities"]),
            str(d["relations"]),
            str(len(d["rejected"])),
        )
        if d["reason"]:  # full width below the table: a squeezed column would cut the fix off
            notes.append(Text.assemble((f"{d['id']} ", "bold"), (d["status"], style), f": {d['reason']}"))
    console.print(table)
    for note in notes:
        console.print(note)
    for r in data["rejected"]:
        console.print(Text(f"rejected {r['kind']} ({r['reason']}): {r['detail']}", style="yellow"))
    t = data["totals"]
    console.print(
        f"{t['documents']} documents: {t['ok']} ok, {t['empty']} empty, {t['partial']} partial, {t['failed']} failed, "
        f"{t['unchanged']} unchanged, {t['skipped']} skipped; {t['sentences']} sentences, {t['entities']} entity mentions, "
        f"{t['relations']} relations, {t['rejected']} rejected"
    )
