"""Contradictions made from a true sentence by rule, with spaCy: the changed copies the conflict and
support measurements are built from (``citegraph eval conflicts``, ``bench/contradictions.py``,
``bench/build_support_data.py``). Each maker takes a parsed sentence and returns the changed text, or
None when it does not apply.

- ``number``: a number that is not part of a date, doubled (or +3 when it is 0 or 1);
- ``date``: a year inside a date moved by 7;
- ``negation``: ``not`` put after the main verb's auxiliary (or after a copula at the root);
- ``swap``: two named entities of the same type (person, organisation, place, group) swapped.

And two rewrites of plain text: :func:`word_number` (the same value: "3 days" -> "three days") and
:func:`moved_moment` (another moment: "for 30 days after cancellation" -> "until cancellation").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["MAKERS", "date", "moved_moment", "negation", "number", "swap", "word_number"]

_AUX = {"is", "was", "are", "were", "has", "have", "had", "can", "will", "would", "could", "did", "does", "do"}
_SWAPPABLE = {"PERSON", "ORG", "GPE", "NORP", "LOC"}
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def number(doc: Any) -> str | None:
    in_date = {t.i for e in doc.ents if e.label_ in {"DATE", "TIME"} for t in e}
    for t in doc:
        if t.i in in_date or not re.fullmatch(r"\d{1,3}(,\d{3})*|\d+", t.text):
            continue
        value = int(t.text.replace(",", ""))
        new = value * 2 if value > 1 else value + 3
        return _replace(doc.text, t.idx, t.idx + len(t.text), f"{new:,}" if "," in t.text else str(new))
    return None


def date(doc: Any) -> str | None:
    for e in doc.ents:
        if e.label_ != "DATE":
            continue
        m = _YEAR.search(e.text)
        if m:
            year = int(m.group(1))
            start = e.start_char + m.start(1)
            return _replace(doc.text, start, start + 4, str(year - 7 if year > 2015 else year + 7))
    return None


def negation(doc: Any) -> str | None:
    if any(t.dep_ == "neg" for t in doc):
        return None
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return None
    if root.lower_ in _AUX:  # a copula at the root: "X was a singer"
        at = root
    else:
        at = next((c for c in root.children if c.dep_ in {"aux", "auxpass"} and c.lower_ in _AUX), None)  # type: ignore[assignment]
        if at is None:
            return None
    end = at.idx + len(at.text)
    return doc.text[:end] + " not" + doc.text[end:]


def swap(doc: Any) -> str | None:
    ents = [e for e in doc.ents if e.label_ in _SWAPPABLE]
    for i, a in enumerate(ents):
        for b in ents[i + 1 :]:
            if a.label_ == b.label_ and a.text.casefold() != b.text.casefold() and a.text not in b.text and b.text not in a.text:
                text = doc.text
                return text[: a.start_char] + b.text + text[a.end_char : b.start_char] + a.text + text[b.end_char :]
    return None


MAKERS = {"number": number, "date": date, "negation": negation, "swap": swap}


_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_DIGIT = re.compile(r"(?<![\w.,$£€])(\d{1,2})(?= (?:[a-z]+))(?![\w.,])")
_TIMING = re.compile(
    r"\b(for |within |up to )?(\d+|one|two|three|four|five|six|seven|ten|thirty|a|an) (days?|weeks?|months?|hours?|years?) "
    r"(after|before|of|following) (?:the |their |its |his |her )?(\w+)"
)


def word_number(sentence: str) -> str | None:
    """The first small number (0-12) before a word, said in words: the same value, said another way."""
    found = _DIGIT.search(sentence)
    if found and int(found.group(1)) < len(_SMALL):
        return sentence[: found.start()] + _SMALL[int(found.group(1))] + sentence[found.end() :]
    return None


def moved_moment(sentence: str, events: Sequence[str], later: str) -> str | None:
    """A moment moved: "for 30 days after cancellation" -> "until cancellation", "within 2 weeks of
    delivery" -> "at delivery"; else "at/upon/on EVENT" (one of ``events``) -> "LATER after EVENT"."""
    found = _TIMING.search(sentence)
    if found:
        moment = "until" if found.group(1) == "for " else "at"
        return sentence[: found.start()] + f"{moment} {found.group(5)}" + sentence[found.end() :]
    found = re.search(rf"\b(at|upon|on) (?:the )?({'|'.join(map(re.escape, events))})\b", sentence)
    if found:
        return sentence[: found.start()] + f"{later} after {found.group(2)}" + sentence[found.end() :]
    return None
