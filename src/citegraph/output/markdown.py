"""An answer as Markdown: the reply a chat front end renders (the chat endpoint, MCP)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from citegraph.models import (
    Answer,
    AnswerStatus,
    Span,
)

if TYPE_CHECKING:
    pass
from citegraph.output.records import STATUS_WORDS, VERDICT_WORDS


def answer_markdown(answer: Answer) -> str:
    """The answer as a chat reply: its text with ``[N]`` markers, the status in words, the warnings, and
    a sources block naming each cited span (document, version, offsets, sentence) with its verdict and
    the stage that decided it. A ``not_found`` answer says so and lists the nearest evidence as context
    only. Markdown, the way chat front ends render replies."""

    def source(marker: int, span: Span, verdict: str = "") -> str:
        return f'[{marker}] {span.document} (version {span.version[:12]}, characters {span.start}-{span.end}): "{span.text}"{verdict}'

    status = answer.status.value
    parts = []
    if answer.status is AnswerStatus.NOT_FOUND:
        parts.append(STATUS_WORDS[status])
    elif answer.text.strip():
        if answer.lead is not None:
            parts.append(f"**{answer.lead.text}** [{answer.lead.marker}]")
        parts.append(answer.text.strip())
    parts.append(f"_Status: {status}. {STATUS_WORDS.get(status, '')}_")
    parts.extend(f"Warning ({w.code}): {w.message}" for w in answer.warnings)
    lines: list[str] = []
    if answer.status is AnswerStatus.NOT_FOUND:
        lines = [source(item.marker, item.span) for item in answer.context[:3]]
        if lines:
            parts.append("Nearest evidence (context only, not an answer):\n" + "\n".join(f"- {x}" for x in lines))
        return "\n\n".join(parts)
    seen: set[int] = set()
    for claim in answer.claims:
        for c in claim.citations:
            if c.marker in seen:
                continue
            seen.add(c.marker)
            score = "" if c.support.score is None else f", {c.support.score:.2f}"
            verdict = f" - {VERDICT_WORDS.get(str(c.support.label), str(c.support.label))} ({c.support.stage}{score})"
            lines.append(source(c.marker, c.span, verdict))
    if lines:
        parts.append("Sources:\n" + "\n".join(f"- {x}" for x in lines))
    return "\n\n".join(parts)
