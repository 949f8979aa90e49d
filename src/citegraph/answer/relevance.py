"""Does the answer address the question? A check separate from support.

Support asks whether a cited sentence entails a claim. It says nothing about the question: asked
"When did Lothair II's mother die?", an answer that quotes three true sentences about Lothair II is
fully supported and answers nothing. This module looks at the question and the answer's claims
together, by rule, with spaCy's parse and entities:

- **What the question asks for** (its expected answer type, from the question word): ``when`` and
  "what year/date/century" want a date; "how many/much/long/old/far", "what percentage/number" want a
  number or quantity; ``who``/``whom``/``whose`` a person, organisation or group; ``where`` a place.
  ``what``/``which``, yes/no questions and the rest expect no particular type.
- **What the question is about** (its terms): the named entities it mentions and the lemmas of its
  content words (nouns, proper nouns, verbs, adjectives, numbers) other than the question word's
  own ("year" in "what year"), auxiliaries and light verbs.

``coverage`` is the weighted share of the question's terms the claims mention: a named entity
counts twice (it anchors the question; a content word is often paraphrased) and is mentioned when
each of its words is ("Eric Ambler" in "Eric Clifford Ambler was …"); a word is mentioned by its
lemma. ``found_type`` says whether a claim holds an answer of the expected type. The label:

======================  ==================================================================
``addressed``           the expected type is found (or none is expected) and coverage ≥ 0.6
``partly_addressed``    one of the two holds
``not_addressed``       neither: the answer is about something else
``unchecked``           no claim, no question term, or no spaCy model
======================  ==================================================================

It is a rule, not a model: a paraphrase ("passed away" for "die") lowers coverage, and an answer
can name every term and hold a date of the wrong event. The entity weight and the 0.6 were chosen on
the dev half of HotpotQA-100 (``bench/relevance.py``, which also reports the test half); its figures
are in the README. It never changes a claim's support.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from citegraph.models import Relevance
from citegraph.question import AGENT, NUMBER, SATISFIES, Question, parse
from citegraph.verify.text import MONTHS

__all__ = ["check_relevance", "named", "said_words"]

_ADDRESSED_COVERAGE = 0.6
_ENTITY_WEIGHT = 2.0
_NAME_GLUE = frozenset({"the", "of", "and", "a", "an"})

_CAMEL_PART = re.compile(r"[A-Z][a-z]+|[a-z]+|[A-Z]+(?![a-z])")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")


def said_words(doc: Any) -> set[str]:
    """The words and lemmas of a parsed text, casefolded, with a name written as one word split into its
    parts and a name of two written as one: a chat handle "AdamSmith" (or "LiHua") says "adam" and
    "smith", and "Adam Smith" says "adamsmith", so either way of writing it names the other."""
    said = {t.lower_ for t in doc} | {t.lemma_.casefold() for t in doc}
    for t in doc:
        if _INNER_CAPITAL.search(t.text):
            said.update(part.casefold() for part in _CAMEL_PART.findall(t.text))
        if t.pos_ == "PROPN" and t.i + 1 < len(doc) and doc[t.i + 1].pos_ == "PROPN":
            said.add(t.lower_ + doc[t.i + 1].lower_)
    return said


#: a day written in numbers, year first: "2025-03-04" (a chat's stamp), "20260506" (LiHua's "Time: 20260506_12:00")
_NUMERIC_DAY = re.compile(r"(?<!\d)((?:19|20)\d\d)(?:-(\d\d)-(\d\d)|(\d\d)(\d\d)(?=\D|$))")


def _day(found: re.Match[str]) -> tuple[str, int, int]:
    return found.group(1), int(found.group(2) or found.group(4)), int(found.group(3) or found.group(5))


def named(name: str, said: set[str], text: str) -> bool:
    """A named entity is mentioned when each of its words is among ``said`` (the words and lemmas of
    ``text``): "Eric Ambler" in "Eric Clifford Ambler was …"; a name of glue words only, when ``text``
    holds it; a month (and year, and days), when a day of it is written in numbers ("in March", "on
    4 March" or "the weekend of 8-9 March" by a chat line stamped "2025-03-04" or "2025-03-09"); a
    name the text writes as one token, as written ("4.12.1", "C++": its pieces apart, "4", "12", "1",
    are no words of it); a day written in numbers ("on 20260918"), when the text has that day in
    numbers ("Time: 20260918_18:00", "2026-09-18 10:02")."""
    if name.casefold() in said:
        return True
    asked_day = _NUMERIC_DAY.fullmatch(name.strip())
    if asked_day is not None:  # "20260918" or "2026-09-18": that day in numbers in the text, in either form
        return _day(asked_day) in {_day(found) for found in _NUMERIC_DAY.finditer(text)}
    parts = [p for p in re.findall(r"\w+", name) if p not in _NAME_GLUE]
    if not parts:
        return name in text
    if all(p in said for p in parts):
        return True
    months = [MONTHS.index(p) + 1 for p in parts if p in MONTHS]
    years = [p for p in parts if re.fullmatch(r"(?:19|20)\d\d", p)]
    days = [int(p) for p in parts if re.fullmatch(r"\d{1,2}", p) and 1 <= int(p) <= 31]
    if len(months) != 1 or len(months) + len(years) + len(days) != len(parts):
        return False
    for found in _NUMERIC_DAY.finditer(text):
        year, month, day = _day(found)
        if month == months[0] and all(y == year for y in years) and (not days or day in days):
            return True
    return False


def check_relevance(question: str | Question, claims: Sequence[str]) -> Relevance:
    """Whether ``claims`` (the answer's claim texts, markers removed) address ``question`` (read once:
    :class:`~citegraph.question.Question`; only the claims are parsed here)."""
    if not any(c.strip() for c in claims):
        return Relevance("unchecked", None, None, None, note="the answer has no claim")
    asked = Question.of(question)
    # each claim parsed alone: an extractive answer's claims are its quoted sentences, parsed already by the checks before
    parsed = None if asked.doc is None else parse([c.strip() for c in claims if c.strip()])
    if parsed is None:
        return Relevance("unchecked", None, None, None, note="no spaCy model: relevance was not checked")
    expected = asked.expected
    entities, words = asked.terms
    said = set().union(*(said_words(doc) for doc in parsed))
    text = " ".join(doc.text for doc in parsed).casefold()
    tokens = [t for doc in parsed for t in doc]

    def mentioned(term: str, entity: bool) -> bool:
        return named(term, said, text) if entity else term in said

    terms = (*entities, *words)
    missing = tuple(t for t in entities if not mentioned(t, True)) + tuple(t for t in words if not mentioned(t, False))
    weight = _ENTITY_WEIGHT * len(entities) + len(words)
    lost = _ENTITY_WEIGHT * sum(1 for t in entities if t in missing) + sum(1 for t in words if t in missing)
    coverage = (weight - lost) / weight if weight else None
    found: bool | None = None
    if expected is not None:
        labels = SATISFIES[expected]
        found = any(e.label_ in labels for doc in parsed for e in doc.ents) or (expected == NUMBER and any(t.like_num for t in tokens))
        if expected == AGENT and not found:
            found = any(t.pos_ == "PROPN" for t in tokens)  # a name spaCy did not type
    if coverage is None and found is None:
        return Relevance("unchecked", None, None, None, note="the question names nothing to look for")
    covered = coverage is None or coverage >= _ADDRESSED_COVERAGE
    typed = found is None or found
    label = "addressed" if covered and typed else ("partly_addressed" if covered or typed else "not_addressed")
    notes = []
    if found is False:
        notes.append(f"the question asks for a {expected}; no claim states one")
    if missing:
        notes.append("no claim mentions " + ", ".join(repr(m) for m in missing))
    return Relevance(label, expected, found, coverage, tuple(terms), missing, note="; ".join(notes))
