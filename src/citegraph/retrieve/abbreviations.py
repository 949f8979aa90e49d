"""Abbreviations the documents define, spelled out in the question.

Guidelines, policies and papers define a short form once ("basal cell carcinoma (BCC)") and use it
after; people ask with it ("What is recommended as aftercare for BCC?"). The embedder
has never seen "BCC", and no sentence that says "basal cell skin cancer" names it, so the question
finds unrelated sentences and reads as unanswerable. Here the definitions are read off the visible
sentences themselves with Schwartz and Hearst's algorithm ("A simple algorithm for identifying
abbreviation definitions in biomedical text", PSB 2003): a short form in parentheses, and the
shortest run of the words before it whose letters hold the short form's letters in order, its first
letter starting a word. A short form defined with more than one long form takes the one written most
often. The question is then read with each short form it uses followed by its long form
("... after BCC (basal cell carcinoma) treatment?"), for ranking and for every check that reads it;
the person's question is shown as asked.

Written here rather than taken from a library: scispaCy's detector is the same algorithm but needs
its own spaCy pipeline and models; this is forty lines over text the view already holds. Only
sentences the caller may read are scanned, so a definition in a restricted document never shapes
another caller's question.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

__all__ = ["definitions", "long_form", "spell_out"]

#: "words (SF)": a short form of 2 to 10 characters, starting with a letter, with at least two capitals
_DEFINED = re.compile(r"(?P<before>[^()]{2,200}?)\s*\((?P<short>[A-Za-z][A-Za-z0-9&/\-]{1,9})(?:s)?\)")
_CAPITALS = re.compile(r"[A-Z].*[A-Z]")
_WORD = re.compile(r"[\w'’\-]+")


def long_form(short: str, before: str) -> str | None:
    """The long form ``short`` abbreviates at the end of ``before``, or None (Schwartz and Hearst:
    the short form's letters, last to first, found right to left in the words before it, the first
    one at the start of a word; at most min(|SF| + 5, 2 |SF|) words)."""
    words = _WORD.findall(before)
    letters = [c.casefold() for c in short if c.isalnum()]
    window = words[-min(len(letters) + 5, 2 * len(letters)) :]
    text = " ".join(window)
    s, i = len(letters) - 1, len(text) - 1
    while s >= 0:
        c = letters[s]
        while i >= 0 and (text[i].casefold() != c or (s == 0 and i > 0 and text[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    start = text.rfind(" ", 0, i + 1) + 1
    found = text[start:]
    if len(found) <= len(short) or short.casefold() in found.casefold().split():
        return None
    return found


def definitions(texts: Iterable[str]) -> dict[str, str]:
    """Each short form the ``texts`` define (with two or more capitals, as written) and its long form
    (the one written most often; the first met among equals)."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    written: dict[str, str] = {}  # each long form as first written
    for text in texts:
        if "(" not in text:
            continue
        for m in _DEFINED.finditer(text):
            short = m.group("short")
            if not _CAPITALS.search(short):
                continue
            found = long_form(short, m.group("before"))
            if found is not None:
                seen[short][found.casefold()] += 1
                written.setdefault(found.casefold(), found)
    return {short: written[forms.most_common(1)[0][0]] for short, forms in seen.items()}


def spell_out(question: str, defined: Mapping[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``question`` with each defined short form it uses followed by its long form in parentheses
    (once each; not where the question already says the long form or writes it in parentheses), and
    the pairs spelled out."""
    if not defined:
        return question, ()
    said = question.casefold()
    done: list[tuple[str, str]] = []
    out: list[str] = []
    at = 0
    for m in re.finditer(r"\b([A-Za-z][A-Za-z0-9&/\-]*[A-Za-z0-9])(s?)\b", question):
        short = m.group(1)
        form = defined.get(short)
        if form is None or (short, form) in done or form.casefold() in said or question[m.end() : m.end() + 2].startswith(" ("):
            continue
        out.append(question[at : m.end()] + f" ({form})")
        at = m.end()
        done.append((short, form))
    return "".join(out) + question[at:], tuple(done)
