"""What the two retrievers return, made once: the numbered evidence of a question, as the graph's
``ask`` ranks it for one caller, each sentence with its span, its document's labels and its route;
and the check of an answer written elsewhere (its ``[N]`` markers read against that evidence)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from citegraph.output import records
from citegraph.output.markdown import answer_markdown
from citegraph.pipeline import CiteGraph

__all__ = ["Passage", "check_answer", "passages"]


@dataclass(frozen=True)
class Passage:
    """One evidence sentence: its text and what an application keeps with it."""

    text: str
    score: float
    metadata: dict[str, Any]


def passages(
    graph: CiteGraph,
    question: str,
    *,
    labels: Collection[str] = ("public",),
    top_k: int | None = None,
    as_of: str | None = None,
    include_superseded: bool = False,
) -> list[Passage]:
    """The evidence ``graph`` numbers into an answer's context for ``question``, best first, read as
    ``labels`` (an access label the caller holds): the same sentences ``citegraph ask`` would cite,
    no answer written and nothing checked. Each carries ``document``, ``version``, ``start``, ``end``
    (character offsets in that version), ``where`` (``document@version:start-end``), ``marker`` (its
    number, for an answer's ``[N]``), ``labels`` (its document's access labels), ``found_by``,
    ``route`` (the graph hops that reached it, each with the sentence that asserts the hop), ``stale``
    (why a newer source disagrees, or None) and ``framed`` (why its document does not assert it)."""
    answer = graph.ask(question, labels=labels, top_k=top_k, answer_text="", as_of=as_of, include_superseded=include_superseded)
    stale = records.stale_markers(answer)
    access: dict[str, list[str]] = {}
    out = []
    for item in answer.context:
        span = item.span
        if span.document not in access:
            access[span.document] = sorted(graph.store.document_access(span.document) or ())
        out.append(
            Passage(
                span.text,
                float(item.evidence.score),
                {
                    "source": span.document,
                    **records.span_json(span),
                    "where": span.where,
                    "marker": item.marker,
                    "labels": access[span.document],
                    "found_by": item.evidence.found_by,
                    "route": records.route_json(item.evidence.route),
                    "stale": stale.get(item.marker),
                    "framed": span.frame or None,
                },
            )
        )
    return out


def check_answer(
    graph: CiteGraph,
    question: str,
    answer: str,
    *,
    labels: Collection[str] = ("public",),
    top_k: int | None = None,
    as_of: str | None = None,
    include_superseded: bool = False,
) -> dict[str, Any]:
    """Check ``answer`` (written by any model) whose ``[N]`` markers number the evidence
    :func:`passages` gives for ``question`` with the same options: each claim resolved to its span and
    checked for support; a marker that resolves to nothing is reported, never dropped. The answer JSON
    of ``citegraph ask --json`` with a ``reply`` in Markdown."""
    checked = graph.ask(question, labels=labels, answer_text=answer, top_k=top_k, as_of=as_of, include_superseded=include_superseded)
    return {"reply": answer_markdown(checked), **records.answer_json(checked)}
