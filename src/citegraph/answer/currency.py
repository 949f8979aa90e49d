"""Which source is current: context items from a stale source, said as warnings.

A sentence is from a stale source when its document

* is **superseded** by another document (``citegraph supersede OLD --by NEW``, or ``supersedes:`` in
  the new one's front matter), or is an **old version** of one: such evidence is only in the
  context when the caller asked for it (``--include-superseded``);
* or **disagrees** with a sentence of another document (a ``conflict`` warning, between claims or
  between sources) and is the **older** of the two by the dates the documents give themselves
  (front matter ``date:``/``updated:``, an HTML meta date, a PDF's date, a line of the opening that
  states it, "Last updated: 2 September 2025", ``ingest --date``). Two
  undated documents, or two of the same date, are a disagreement only: nothing says which is current.

Each stale item gets one ``stale`` warning naming it, why, and the claims that rely on it; the
answer's status is not changed here (a disagreement already makes it ``conflicting``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from citegraph.models import AnswerWarning, Claim, ContextItem, Document, Span

__all__ = ["quoted_stale", "stale_warnings", "unquoted_current"]


def _pairs(warning: AnswerWarning) -> list[tuple[int, int]]:
    """The context markers a ``conflict`` warning sets against each other."""
    data: dict[str, Any] = dict(warning.data)
    if "markers" in data:
        return [(int(data["markers"][0]), int(data["markers"][1]))]
    if "cited" in data:
        return [(int(a), int(b)) for a in data["cited"][0] for b in data["cited"][1]]
    return []


def stale_warnings(
    context: Sequence[ContextItem],
    claims: Sequence[Claim],
    warnings: Sequence[AnswerWarning],
    document: Callable[[Span], Document | None],
    *,
    as_of: str | None = None,
) -> list[AnswerWarning]:
    """A ``stale`` warning for each context item whose source is superseded, an old version, or the
    older side of a disagreement (see the module docstring). With ``as_of``, the context holds the
    versions current on that day: being superseded or replaced *since* makes none of them stale."""
    docs = {item.marker: document(item.span) for item in context}
    reasons: dict[int, str] = {}
    current: dict[int, int] = {}  # the stale side of a disagreement -> the newer side's marker
    for item in context:
        doc = docs[item.marker]
        if doc is None or as_of is not None:
            continue
        if doc.superseded_by:
            reasons[item.marker] = f"{doc.id} is superseded by {doc.superseded_by}"
        elif not doc.current:
            reasons[item.marker] = f"an older version of {doc.id} ({doc.version[:8]}), not the current one"
    for warning in warnings:
        if warning.code != "conflict":
            continue
        for a, b in _pairs(warning):
            da, db = docs.get(a), docs.get(b)
            if da is None or db is None or da.id == db.id or not da.dated or not db.dated or da.dated == db.dated:
                continue
            (old, old_doc), (new, new_doc) = sorted(((a, da), (b, db)), key=lambda pair: pair[1].dated or "")
            if old not in reasons:
                reasons[old] = f"{old_doc.id} is dated {old_doc.dated}; [{new}] {new_doc.id}, dated {new_doc.dated}, disagrees with it"
                current[old] = new
    out = []
    for marker in sorted(reasons):
        relying = tuple(i for i, claim in enumerate(claims) if any(c.marker == marker for c in claim.citations))
        said = (
            f"; claim{'s' if len(relying) > 1 else ''} {', '.join(str(i + 1) for i in relying)} rel{'y' if len(relying) > 1 else 'ies'} on it"
            if relying
            else ""
        )
        doc = docs[marker]
        out.append(
            AnswerWarning(
                "stale",
                f"context item [{marker}] is from a stale source: {reasons[marker]}{said}",
                (("marker", marker), ("document", doc.id if doc else ""), ("reason", reasons[marker]), ("claims", relying))
                + ((("current", current[marker]),) if marker in current else ()),
            )
        )
    return out


def _quoted_disagreements(claims: Sequence[Claim], warnings: Sequence[AnswerWarning]) -> list[tuple[int, int, bool]]:
    """Per stale warning whose stale side a claim cites and that names the newer side:
    ``(stale marker, current marker, whether a claim cites the current one too)``."""
    cited = {c.marker for claim in claims for c in claim.citations}
    out = []
    for warning in warnings:
        data: dict[str, Any] = dict(warning.data)
        if warning.code == "stale" and data.get("claims") and "current" in data:
            out.append((int(data["marker"]), int(data["current"]), data["current"] in cited))
    return out


def unquoted_current(claims: Sequence[Claim], warnings: Sequence[AnswerWarning]) -> list[int]:
    """The markers of the newer side of each disagreement whose older, stale side a claim cites and
    whose newer side none does: what an answer quoting the stale FAQ leaves out ("A replacement card
    costs £1.50." cited, the 2025 policy's "£2.50" only in the context)."""
    return list(dict.fromkeys(current for _stale, current, both in _quoted_disagreements(claims, warnings) if not both))


def quoted_stale(claims: Sequence[Claim], warnings: Sequence[AnswerWarning]) -> set[int]:
    """The markers of the older, stale side of each disagreement that a claim cites while another
    claim cites its newer side: an answer quoting both, whose current source should be read first
    ("We keep customer data for 90 days" (2023 FAQ) after "Deleted 30 days after cancellation" (2025))."""
    return {stale for stale, _current, both in _quoted_disagreements(claims, warnings) if both}
