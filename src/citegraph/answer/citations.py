"""From answer text to checked claims: split, parse markers, resolve, verify.

* Claims are the sentences of the answer (pysbd, which knows abbreviations), one per list item.
  Markers written after a claim's full stop ("... cancellation. [1]") belong to that claim.
* Markers: ``[N]``, ``[N, M]`` and ``[N][M]``. Each resolves to the context item numbered N, i.e.
  the exact span of the sentence shown to the answerer. A marker with no such item is reported
  with a warning ``invalid_marker`` and marks its claim; it is never dropped silently.
* A claim's ``text`` is the claim itself with its markers removed, never a label.
* Claims are then checked against each other (:mod:`citegraph.verify.conflicts`): two that state
  different values for the same thing give a warning ``conflict`` naming both, and the answer is
  ``conflicting`` instead of ``verified`` (or ``cited``).
* The context itself is checked the same way (:func:`source_conflict_warnings`): sentences of two
  documents that disagree are a ``conflict`` naming both spans even when the answer cites only one of
  them (or neither), so an answer that drops a disagreeing source is not ``verified``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from citegraph.models import AnswerStatus, AnswerWarning, Citation, Claim, ClaimStatus, ContextItem, Span, Stage, Support, Verdict
from citegraph.sentences import ends_asking
from citegraph.verify.base import Verifier
from citegraph.verify.conflicts import SOURCE_CONFLICT_THRESHOLD, find_conflicts
from citegraph.verify.text import content_words, has_phrase, segmenter, written_sentences

SOURCE_CONFLICT_TOP = 3  #: the best-scored context sentences whose disagreements bear on any answer

__all__ = [
    "MARKER",
    "answer_status",
    "asked",
    "cited_markers",
    "claim_sentences",
    "parse_markers",
    "resolve_claims",
    "source_conflict_warnings",
    "split_claims",
]

MARKER = re.compile(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]")
_LEADING_MARKERS = re.compile(r"^(?:\s*\[\s*\d+(?:\s*,\s*\d+)*\s*\])+[\s.,;:!?]*")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")

_SUPPORT_TO_STATUS = {
    "supported": ClaimStatus.SUPPORTED,
    "not_supported": ClaimStatus.UNSUPPORTED,
    "contradicted": ClaimStatus.CONTRADICTED,
    "unverified": ClaimStatus.UNVERIFIED,
}


def claim_sentences(text: str) -> list[str]:
    """The pieces :func:`split_claims` reads ``text`` (one line, no markers) as: a writer that cites
    each of them reads back as it wrote (a chat message of two sentences is two claims, each with its
    marker, not an uncited first sentence and a cited second)."""
    return list(written_sentences(text))


def split_claims(text: str) -> list[str]:
    """The answer's claims, markers still attached, in order."""
    claims: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line:
            continue
        for seg in segmenter().segment(line):
            piece = seg.sent.strip()
            lead = _LEADING_MARKERS.match(piece)
            if lead and claims:
                claims[-1] = claims[-1] + " " + lead.group().strip()
                piece = piece[lead.end() :].strip()
            if piece:
                claims.append(piece)
    return claims


def parse_markers(claim: str) -> tuple[str, list[int]]:
    """``(claim without markers, markers in order of appearance)``."""
    markers = [int(n) for m in MARKER.finditer(claim) for n in m.group(1).split(",")]
    clean = MARKER.sub("", claim)
    clean = re.sub(r"\s+([.,;:!?])", r"\1", clean)
    return " ".join(clean.split()), markers


def resolve_claims(
    answer: str, context: Sequence[ContextItem], verifier: Verifier, *, on_claim: Callable[[int, Claim], None] | None = None
) -> tuple[list[Claim], list[AnswerWarning]]:
    """The answer's claims, each marker resolved to its context item and every citation checked.
    Without ``on_claim`` every check is made in one batch (concurrently where the backend allows);
    with it, claim by claim, and ``on_claim(i, claim)`` is called as each is checked (a stream)."""
    by_marker = {item.marker: item for item in context}
    warnings: list[AnswerWarning] = []
    parsed: list[tuple[int, str, str, list[int], list[int], list[ContextItem]]] = []
    for index, raw in enumerate(split_claims(answer)):
        text, markers = parse_markers(raw)
        if not text:
            continue
        unique = list(dict.fromkeys(markers))
        invalid = [m for m in unique if m not in by_marker]
        valid = [by_marker[m] for m in unique if m in by_marker]
        for marker in invalid:
            warnings.append(
                AnswerWarning(
                    "invalid_marker",
                    f"claim {index + 1} cites [{marker}], but the context has {len(context)} item(s)",
                    (("marker", marker), ("claim", index), ("context_size", len(context))),
                )
            )
        parsed.append((index, raw, text, markers, invalid, valid))

    # Every check a claim needs: each citation alone, and the cited spans together (up to 3) for
    # claims with several citations.
    # A question quoted word for word states nothing: it is not checked (see :func:`asked`).
    questions = [not invalid and asked(text, [item.span.text for item in valid]) for _i, _r, text, _m, invalid, valid in parsed]
    jobs: list[list[tuple[str, Sequence[Span]]]] = []
    for (_index, _raw, text, markers, invalid, valid), question in zip(parsed, questions, strict=True):
        jobs.append([] if question else [(text, [item.span]) for item in valid])
        if markers and not invalid and len(valid) > 1 and not question:
            jobs[-1].append((text, [item.span for item in valid[:3]]))

    def checked(batch: list[tuple[str, Sequence[Span]]]) -> list[Support]:
        results = verifier.verify_many(batch) if batch else []
        if len(results) != len(batch):
            raise RuntimeError(f"{verifier.name}: verify_many returned {len(results)} verdicts for {len(batch)} checks")
        return results

    if on_claim is None:  # one batch for the whole answer
        every = iter(checked([job for claim_jobs in jobs for job in claim_jobs]))
        per_claim = [[next(every) for _ in claim_jobs] for claim_jobs in jobs]

    claims: list[Claim] = []
    for k, (index, raw, text, markers, invalid, valid) in enumerate(parsed):
        verdicts = iter([_ASKED] * len(valid) if questions[k] else per_claim[k] if on_claim is None else checked(jobs[k]))
        citations = tuple(
            Citation(
                item.marker,
                item.span,
                next(verdicts),
                item.evidence.route,
                item.evidence.found_by,
                item.evidence.entity,
                item.evidence.community,
            )
            for item in valid
        )
        if not markers:
            status = ClaimStatus.UNCITED
            warnings.append(AnswerWarning("uncited", f"claim {index + 1} has no citation", (("claim", index),)))
        elif invalid:
            status = ClaimStatus.INVALID_MARKER
        elif questions[k]:
            status = ClaimStatus.ASKED
        else:
            # One citation: the joint check is that citation's own check, already made.
            joint = citations[0].support if len(citations) == 1 else next(verdicts)
            status = _SUPPORT_TO_STATUS[joint.label]
        claims.append(Claim(text, raw, status, citations, tuple(markers), tuple(invalid)))
        if on_claim is not None:
            on_claim(len(claims) - 1, claims[-1])
    warnings.extend(_conflict_warnings(claims, [p[0] for p in parsed], verifier))
    return claims, warnings


#: what a citation of a question quoted as asked says: nothing was checked, and why
_ASKED = Support(
    Verdict.UNVERIFIED,
    None,
    "quote",
    ("asked: a question quoted word for word from the cited text; it states nothing, so there is nothing to check",),
    Stage.QUOTE,
)


def asked(claim: str, cited: Sequence[str]) -> bool:
    """``claim`` is a question quoted word for word (case and punctuation aside) from every text it
    cites: a chat line's "How about some solar-powered lanterns?" quoted for "What did Malfurion
    suggest?". It states nothing: no check can support it, and none should count against the answer
    (:attr:`ClaimStatus.ASKED`). A question the answer words itself is not one: it stays a claim to check."""
    if not cited or not ends_asking(claim):
        return False
    words = _words(claim)
    return bool(words) and all(has_phrase(_words(text), " ".join(words)) for text in cited)


def _words(text: str) -> list[str]:
    """Words in any script, case folded (a chat in another language quotes as well)."""
    return re.findall(r"[^\W_]+", text.casefold())


# Claims the answer stands on: only pairs of these are put to a judge (rules check every pair).
_STANDING = frozenset({ClaimStatus.SUPPORTED, ClaimStatus.UNVERIFIED})


def _one_source(claim: Claim) -> tuple[str, str] | None:
    """The one document version every citation of ``claim`` is in, when it is one."""
    versions = {(c.span.document, c.span.version) for c in claim.citations}
    return next(iter(versions)) if len(versions) == 1 else None


def _conflict_warnings(claims: Sequence[Claim], indices: Sequence[int], verifier: Verifier) -> list[AnswerWarning]:
    # a question quoted as asked states no value: "How about 3 pm?" against the "4 pm" agreed after it is no conflict
    stating = [k for k, c in enumerate(claims) if c.status != ClaimStatus.ASKED]
    found = find_conflicts([claims[k].text for k in stating], verifier, judge=[claims[k].status in _STANDING for k in stating])
    check = replace(found, conflicts=tuple(replace(c, first=stating[c.first], second=stating[c.second]) for c in found.conflicts))
    warnings = []
    for conflict in check.conflicts:
        # two quotes of one version of one document are its own cases ("Analysts earn £38,000 to £46,000." /
        # "Senior analysts earn £50,000 to £62,000."), not sources that disagree
        one = _one_source(claims[conflict.first])
        if (
            one is not None
            and one == _one_source(claims[conflict.second])
            and all(c.support.stage == Stage.QUOTE for k in (conflict.first, conflict.second) for c in claims[k].citations)
        ):
            continue
        first, second = indices[conflict.first], indices[conflict.second]
        warnings.append(
            AnswerWarning(
                "conflict",
                f"claims {first + 1} and {second + 1} state different things ({conflict.detail}): "
                f'"{claims[conflict.first].text}" / "{claims[conflict.second].text}"',
                (
                    ("claims", (first, second)),
                    ("kind", conflict.kind),
                    ("detail", conflict.detail),
                    ("cited", (claims[conflict.first].markers, claims[conflict.second].markers)),
                    ("sources", tuple(", ".join(c.span.where for c in claims[k].citations) for k in (conflict.first, conflict.second))),
                ),
            )
        )
    warnings.extend(AnswerWarning("conflict_check_incomplete", note) for note in check.incomplete)
    return warnings


def cited_markers(claims: Sequence[Claim]) -> set[int]:
    """The context markers the claims cite."""
    return {c.marker for claim in claims for c in claim.citations}


def source_conflict_warnings(
    context: Sequence[ContextItem],
    verifier: Verifier,
    *,
    question: str = "",
    claims: Sequence[Claim] = (),
    reported: Sequence[AnswerWarning] = (),
    threshold: float = SOURCE_CONFLICT_THRESHOLD,
    top: int = SOURCE_CONFLICT_TOP,
    texts: Sequence[str] | None = None,
) -> list[AnswerWarning]:
    """The context's sentences from different documents that disagree (by rule, else by the fast
    checker at ``threshold``) where the disagreement bears on the answer: one of the two is cited by
    one of ``claims``, or one is among the ``top`` best-scored sentences and what they share is what
    ``question`` asks about (a content word of it). A disagreement the answer left out is still a
    disagreement in what it was given; one about something else, or at the far end of a large
    context, is not the answer's. A pair already ``reported`` as two conflicting claims is not
    reported again. ``texts``: each context sentence as it is compared, where it differs from its span's
    text (one that opens with "It", read with the subject it stands for: :func:`citegraph.verify.conflicts.with_subject`)."""
    cited = cited_markers(claims)
    best = {item.marker for item in sorted(context, key=lambda c: (-c.evidence.score, c.marker))[:top]}
    check = find_conflicts(
        list(texts) if texts is not None else [item.span.text for item in context],
        verifier,
        sources=[item.span.document for item in context],
        threshold=threshold,
        among=[item.marker in cited | best for item in context],
    )
    said: set[frozenset[int]] = set()
    for w in reported:
        cited_pair: Any = dict(w.data).get("cited") if w.code == "conflict" else None
        if cited_pair:
            said.update(frozenset((a, b)) for a in cited_pair[0] for b in cited_pair[1])
    asked = content_words(question)
    warnings = []
    for conflict in check.conflicts:
        first, second = context[conflict.first], context[conflict.second]
        if frozenset((first.marker, second.marker)) in said:
            continue
        if not ({first.marker, second.marker} & cited or content_words(first.span.text) & content_words(second.span.text) & asked):
            continue  # neither cited, and about something the question does not ask
        warnings.append(
            AnswerWarning(
                "conflict",
                f'sources disagree ({conflict.detail}): [{first.marker}] {first.span.where} "{first.span.text}" / '
                f'[{second.marker}] {second.span.where} "{second.span.text}"',
                (
                    ("markers", (first.marker, second.marker)),
                    ("kind", conflict.kind),
                    ("detail", conflict.detail),
                    ("sources", (first.span.where, second.span.where)),
                ),
            )
        )
    warnings.extend(AnswerWarning("conflict_check_incomplete", f"sources: {note}") for note in check.incomplete)
    return warnings


def _quoted(claim: Claim) -> bool:
    """The claim is supported and quotes a sentence it cites (the ``quote`` stage decided, or the
    checker found the near-quote supported)."""
    return any(
        c.support.label == "supported"
        and (c.support.stage == "quote" or (c.support.stage == "checker" and "near_quote" in c.support.guards))
        for c in claim.citations
    )


def answer_status(claims: Sequence[Claim], context: Sequence[ContextItem], warnings: Sequence[AnswerWarning] = ()) -> AnswerStatus:
    """``verified`` only if every claim is supported and no two claims conflict, and ``quoted``
    instead when every claim is a quote of a sentence it cites (the sources' own words: chosen, not
    written and checked); ``cited`` if every claim resolved but none was checked; ``conflicting``
    instead of any of these when ``warnings`` hold a ``conflict``; ``unsupported`` if no claim has
    support or a resolved citation; otherwise ``partially_supported``. A question quoted as asked
    (:attr:`ClaimStatus.ASKED`) states nothing and counts for none of these: an answer of such
    questions alone is ``related``, evidence and not an answer."""
    if not context or not claims:
        return AnswerStatus.NO_EVIDENCE
    stating = [c for c in claims if c.status != ClaimStatus.ASKED]  # a question quoted as asked states nothing to check
    if not stating:
        return AnswerStatus.RELATED
    claims = stating
    statuses = {c.status for c in claims}
    if statuses in ({ClaimStatus.SUPPORTED}, {ClaimStatus.UNVERIFIED}) and any(w.code == "conflict" for w in warnings):
        return AnswerStatus.CONFLICTING
    if statuses == {ClaimStatus.SUPPORTED}:
        return AnswerStatus.QUOTED if all(_quoted(c) for c in claims) else AnswerStatus.VERIFIED
    if statuses == {ClaimStatus.UNVERIFIED}:
        return AnswerStatus.CITED
    if not statuses & {ClaimStatus.SUPPORTED, ClaimStatus.UNVERIFIED}:
        return AnswerStatus.UNSUPPORTED
    return AnswerStatus.PARTIALLY_SUPPORTED
