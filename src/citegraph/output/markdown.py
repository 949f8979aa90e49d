"""An answer as Markdown: the reply a chat front end renders (the chat endpoint, MCP).

The reply numbers its sources 1..n in the order the answer first cites them (the answer's JSON keeps
the context's numbers: ``marker``), so that a reader sees [1], [2]… in reading order, each matching one
item of the numbered source list under the answer. Source text is shown on one line, with the
characters Markdown would read as formatting escaped: a quoted PDF line break, a ``#`` or a ``|`` in
a sentence never breaks the list. The status is one short sentence in words; its code in brackets."""

from __future__ import annotations

import re

from citegraph.answer.citations import MARKER
from citegraph.models import ANSWER_TERMS, Answer, AnswerStatus, ClaimStatus, Span
from citegraph.output.records import VERDICT_WORDS

__all__ = ["answer_markdown", "defuse", "escape"]

# Markdown's formatting characters, and "$" (chat front ends read "$…$" as math). Not "[" and "]":
# Open WebUI reads an escaped "\[…\]" as display math; a "[text](url)" in a quote is broken with an entity instead.
_SPECIAL = re.compile(r"([\\`*_{}<>|#+!~$])")
_LINK = re.compile(r"\[(?=[^\]]*\]\s*[(\[])")
NEAREST = 3  #: context sentences a not-found reply lists as the nearest evidence


def escape(text: str) -> str:
    """``text`` on one line, each character Markdown could read as formatting escaped."""
    return _LINK.sub("&#91;", _SPECIAL.sub(r"\\\1", " ".join(text.split()))).replace("(", "&#40;")  # "[a [b] c](url)" too


def defuse(text: str) -> str:
    """``text`` (a model's, or a document's) with no link, image or HTML a chat front end would follow or
    fetch: every "(" and "<" written as its entity, so "[x](url)" and "![x](url)" stay text however their
    brackets nest, and a piece of a stream is safe alone; a reference definition "[x]: url" is broken too."""
    text = text.replace("(", "&#40;").replace("<", "&lt;")
    return re.sub(r"(?m)^(\s*)\[(?=[^\]\n]*\]:)", r"\1&#91;", text)


def answer_markdown(answer: Answer) -> str:
    """The answer as a chat reply: the reader's answer in bold when there is one, the text with its
    [N] markers, the status in a sentence, the warnings, and the numbered sources (document, version,
    characters, the sentence, its verdict and the stage that decided it). A ``not_found`` answer says
    so and lists the nearest evidence as context only."""
    term = ANSWER_TERMS[answer.status]
    status = f"_{term.label}: {_first_sentence(term.means)}_ (`{answer.status.value}`)"
    if answer.status is AnswerStatus.NOT_FOUND:
        warnings = [f"- {escape(w.message)} (`{w.code}`)" for w in answer.warnings]
        parts = [status, *(["**Warnings**\n\n" + "\n".join(warnings)] if warnings else [])]
        nearest = [f"{n}. {_source(item.span)}" for n, item in enumerate(answer.context[:NEAREST], 1)]
        if nearest:
            parts.append("**Nearest evidence** (context only, not an answer)\n\n" + "\n".join(nearest))
        return "\n\n".join(parts)
    order: dict[int, int] = {}  # context marker -> its number in the reply, in the order first cited
    for claim in answer.claims:
        for citation in claim.citations:
            order.setdefault(citation.marker, len(order) + 1)
    if answer.lead is not None:
        order.setdefault(answer.lead.marker, len(order) + 1)

    def renumber(text: str, other: str = "{}?") -> str:
        """``[N]`` as the reply numbers it; a number it does not cite as ``other`` (an invalid marker
        in the answer's text: "3?"; a context item a warning names: "context 3")."""

        def one(m: re.Match[str]) -> str:
            numbers = [int(n) for n in m.group(1).split(",")]
            return "[" + ", ".join(str(order[n]) if n in order else other.format(n) for n in numbers) + "]"

        return MARKER.sub(one, text)

    # the server's messages name context items by their numbers: renumbered as the reply numbers them
    warnings = [
        f"- {escape(renumber(w.message, 'context {}').replace('context item [context ', '[context '))} (`{w.code}`)"
        for w in answer.warnings
    ]

    parts = []
    if answer.lead is not None:
        parts.append(f"**{escape(answer.lead.text)}** [{order[answer.lead.marker]}]")
    if answer.text.strip():  # the model's own text: no link or image of its writing is followed
        parts.append(defuse(renumber(_struck(answer))))
    parts.append(status)
    if warnings:
        parts.append("**Warnings**\n\n" + "\n".join(warnings))
    cited = {citation.marker: citation for claim in answer.claims for citation in claim.citations}
    lines = []
    for marker, n in order.items():
        c = cited.get(marker)
        if c is None:  # the lead is inside a cited sentence: never here
            continue
        score = "" if c.support.score is None else f", {c.support.score:.2f}"
        verdict = VERDICT_WORDS.get(str(c.support.label), str(c.support.label))
        lines.append(f"{n}. {_source(c.span)}: {verdict} ({c.support.stage}{score})")
    if lines:
        parts.append("**Sources**\n\n" + "\n".join(lines))
    return "\n\n".join(parts)


#: a claim its check found contradicted or unsupported: struck through where the answer says it
STRUCK = frozenset({ClaimStatus.CONTRADICTED, ClaimStatus.UNSUPPORTED})


def _struck(answer: Answer) -> str:
    """The answer's text with each claim its check did not support struck through (``~~claim [N]~~``), in place."""
    text = answer.text.strip()
    for claim in answer.claims:
        raw = claim.raw.strip()
        if claim.status in STRUCK and raw and raw in text:
            text = text.replace(raw, f"~~{raw}~~", 1)
    return text


def _source(span: Span) -> str:
    return f"{escape(span.document)}, version {span.version[:8]}, characters {span.start}-{span.end}: “{escape(span.text)}”"


def _first_sentence(text: str) -> str:
    head = re.split(r"(?<=[.:!?])\s", text, maxsplit=1)[0]
    return head if head.endswith(".") else head.rstrip(":") + "."
