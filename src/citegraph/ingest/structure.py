"""What a document's structure says is not asserted: code, struck-through text, a section headed as
myths or deprecated, text a preceding sentence frames ("The following rumour is false.").

A sentence read alone cannot show any of these: "The store opens on Sundays." is the same words in a
policy, in a code sample, between ``~~`` marks and under "# Debunked claims". The structure is read
once, at ingest, from the whole text (Markdown as written; HTML as its loader writes it: ``<del>``,
``<s>`` and ``<strike>`` as ``~~…~~``, ``<pre>`` as a fenced block; those tags written in Markdown
count too), and each sentence's
:attr:`~citegraph.models.Span.frame` keeps the reason with the span in the store. The checks read
it there (:mod:`citegraph.verify.cascade`): a framed span supports no claim.

By rule, and conservative: a heading or a framing sentence must say what it frames (a word such as
debunked, myth, rumour, false, deprecated, obsolete, hypothetical), so ordinary headings and
sentences that end with a colon frame nothing unless they report speech ("A reseller wrote:").
"""

from __future__ import annotations

import re
from bisect import bisect_right

from citegraph.ingest.office import DOCX_MEDIA_TYPE, PPTX_MEDIA_TYPE

__all__ = ["FRAMING_WORDS", "frame_at", "structural_frames"]

#: words that, in a heading, say the section under it is not asserted ("# Debunked claims",
#: "Deprecated options"); narrow on purpose: "Handling false positives" heads ordinary facts
FRAMING_WORDS = frozenset(
    "debunked myth myths misconception misconceptions rumour rumours rumor rumors deprecated obsolete outdated "
    "superseded retracted withdrawn hypothetical fiction fictional unconfirmed disputed".split()
)
#: and in a sentence that announces what follows ("The following rumour is false."), these too
_ANNOUNCED = FRAMING_WORDS | {"false", "untrue", "wrong", "incorrect", "inaccurate", "fake"}
_ANNOUNCING = frozenset({"following", "below"})
_REPORTING = re.compile(
    r"\b(?:wrote|writes|said|says|claimed|claims|alleged|posted|asked|reported|suggested|told us)\s*:\s*$", re.IGNORECASE
)
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_HEADING = re.compile(r"^[ \t]*(#{1,6})[ \t]+(.*\S)?[ \t]*$")
_STRUCK = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~|<(del|s|strike)\b[^>]*>(.*?)</\2\s*>", re.DOTALL | re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+")
_ENDS_SENTENCE = re.compile(r"[.!?:;,][\"'”’)\]]*(?:\s|$)")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _frames(text: str) -> bool:
    return bool(_words(text) & FRAMING_WORDS)


def _lines(text: str) -> list[tuple[int, int, str]]:
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        out.append((pos, pos + len(line.rstrip("\r\n")), line.rstrip("\r\n")))
        pos += len(line)
    return out


def _paragraph_end(lines: list[tuple[int, int, str]], i: int, text: str) -> int:
    """The end of the paragraph line ``i`` belongs to (the next blank line, or the text's end)."""
    for start, _end, line in lines[i + 1 :]:
        if not line.strip():
            return start
    return len(text)


def structural_frames(text: str, media_type: str = "text/markdown") -> list[tuple[int, int, str]]:
    """``(start, end, reason)`` of every region of ``text`` its structure marks as not asserted,
    sorted by start: fenced code, ``~~struck~~`` text, the section under a heading that frames it,
    and what a framing sentence announces (the rest of its paragraph; after "… wrote:", the next one)."""
    regions: list[tuple[int, int, str]] = []
    lines = _lines(text)
    markdown = media_type in {
        "text/markdown",
        "text/plain",
        "text/html",
        DOCX_MEDIA_TYPE,
        PPTX_MEDIA_TYPE,
    }  # what their loaders write as Markdown does
    fence: tuple[int, str] | None = None
    section: tuple[int, int, str] | None = None  # (start, heading level, reason)
    for i, (start, end, line) in enumerate(lines):
        opened = _FENCE.match(line) if markdown else None
        if fence is not None:
            if opened and opened.group(1) == fence[1]:
                regions.append((fence[0], end, "a code block"))
                fence = None
            continue
        if opened:
            fence = (start, opened.group(1))
            continue
        heading = _HEADING.match(line) if markdown else None
        standalone = (  # a heading without Markdown: a short line alone in its paragraph, no sentence in it
            heading is None
            and line.strip()
            and len(line.split()) <= 10
            and not _ENDS_SENTENCE.search(line)
            and (i == 0 or not lines[i - 1][2].strip())
            and (i + 1 == len(lines) or not lines[i + 1][2].strip())
        )
        if heading or standalone:
            level = len(heading.group(1)) if heading else 7
            title = (heading.group(2) or "") if heading else line.strip()
            if section is not None and level <= section[1]:
                regions.append((section[0], start, section[2]))
                section = None
            if section is None and _frames(title):
                section = (end, level, f"under the heading '{title.strip()}'")
            continue
        # a sentence announcing that what follows is not asserted, or reporting someone's words
        for found in _SENTENCE.finditer(line):
            sentence = found.group().strip()
            words = _words(sentence)
            after = start + found.end()
            if _REPORTING.search(sentence):
                block_end = _paragraph_end(lines, i, text)
                nxt = next((j for j in range(i + 1, len(lines)) if lines[j][0] >= block_end and lines[j][2].strip()), None)
                stop = _paragraph_end(lines, nxt, text) if nxt is not None else block_end
                regions.append((after, stop, f"reported by '{sentence}'"))
            elif words & _ANNOUNCING and words & _ANNOUNCED and after < _paragraph_end(lines, i, text):
                regions.append((after, _paragraph_end(lines, i, text), f"framed by '{sentence}'"))
    if fence is not None:
        regions.append((fence[0], len(text), "a code block"))
    if section is not None:
        regions.append((section[0], len(text), section[2]))
    regions += [(m.start(), m.end(), "struck through") for m in _STRUCK.finditer(text)]
    return sorted(r for r in regions if r[0] < r[1])


def frame_at(regions: list[tuple[int, int, str]], start: int, end: int) -> str:
    """The reason of the region that holds most of ``[start, end)`` (at least half of it), or ``""``."""
    if not regions or end <= start:
        return ""
    best, reason = 0, ""
    for r_start, r_end, why in regions[: bisect_right([r[0] for r in regions], end)]:
        overlap = min(end, r_end) - max(start, r_start)
        if overlap > best:
            best, reason = overlap, why
    return reason if 2 * best >= end - start else ""
