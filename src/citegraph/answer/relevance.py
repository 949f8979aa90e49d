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
import threading
from collections.abc import Sequence
from typing import Any

from citegraph.errors import CitegraphError
from citegraph.models import Relevance

__all__ = ["SATISFIES", "check_relevance", "expected_type", "named", "parse", "question_terms", "said_words"]

# Expected answer types and the spaCy entity labels that satisfy them.
DATE, NUMBER, AGENT, PLACE = "date", "number", "agent", "place"
SATISFIES: dict[str, frozenset[str]] = {
    DATE: frozenset({"DATE", "TIME"}),
    NUMBER: frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE", "TIME", "ORDINAL"}),
    AGENT: frozenset({"PERSON", "ORG", "NORP"}),
    PLACE: frozenset({"GPE", "LOC", "FAC"}),
}
_HOW = {"many": NUMBER, "much": NUMBER, "long": NUMBER, "old": NUMBER, "far": NUMBER, "often": NUMBER, "tall": NUMBER, "big": NUMBER, "large": NUMBER, "high": NUMBER}  # fmt: skip
_WHAT_NOUN = {
    "year": DATE, "date": DATE, "day": DATE, "month": DATE, "century": DATE, "decade": DATE, "time": DATE,
    "number": NUMBER, "percentage": NUMBER, "percent": NUMBER, "amount": NUMBER, "population": NUMBER, "age": NUMBER,
    "city": PLACE, "country": PLACE, "state": PLACE, "place": PLACE, "town": PLACE, "location": PLACE,
}  # fmt: skip
_LIGHT = frozenset({"be", "do", "have", "get", "make", "take", "give", "go", "become", "include", "call", "know", "name"})
_ADDRESSED_COVERAGE = 0.6
_ENTITY_WEIGHT = 2.0
_NAME_GLUE = frozenset({"the", "of", "and", "a", "an"})

_lock = threading.Lock()


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


def named(name: str, said: set[str], text: str) -> bool:
    """A named entity is mentioned when each of its words is among ``said`` (the words and lemmas of
    ``text``): "Eric Ambler" in "Eric Clifford Ambler was …"; a name of glue words only, when ``text`` holds it."""
    parts = [p for p in re.findall(r"\w+", name) if p not in _NAME_GLUE]
    return all(p in said for p in parts) if parts else name in text


def parse(texts: Sequence[str]) -> list[Any] | None:
    """``texts`` parsed by the shared spaCy pipeline (one at a time across threads), or None when
    there is no spaCy model: the question checks of an answer (relevance, answerability) read these."""
    from citegraph.sentences import load_spacy

    try:
        nlp = load_spacy()
    except CitegraphError:
        return None
    with _lock:
        return list(nlp.pipe(texts))


def expected_type(question: Any) -> str | None:
    """The answer type a parsed question asks for (:data:`DATE`, :data:`NUMBER`, :data:`AGENT`,
    :data:`PLACE`), or None."""
    tokens = [t for t in question if not t.is_punct]
    for i, t in enumerate(tokens):
        low = t.lower_
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if low == "when":
            return DATE
        if low in {"who", "whom", "whose"}:
            return AGENT
        if low == "where":
            return PLACE
        if low == "how" and nxt is not None and nxt.lower_ in _HOW:
            return _HOW[nxt.lower_]
        if low in {"what", "which"} and nxt is not None:
            # "what year", "which city", "in what year"; the noun may carry a modifier ("what exact date")
            for follower in tokens[i + 1 : i + 3]:
                if follower.pos_ in {"NOUN", "PROPN"}:
                    return _WHAT_NOUN.get(follower.lemma_.lower())
    return None


def question_terms(question: Any, expected: str | None) -> tuple[list[str], list[str]]:
    """The question's named entities (casefolded text) and content-word lemmas, in order, once each."""
    entities: list[str] = []
    inside: set[int] = set()
    for ent in question.ents:
        if ent.label_ in {"DATE", "TIME", "CARDINAL", "ORDINAL"} and expected in {DATE, NUMBER}:
            continue
        entities.append(ent.text.casefold().removesuffix("'s").strip())
        inside.update(range(ent.start, ent.end))
    type_words = {w for w, kind in _WHAT_NOUN.items() if kind == expected}
    words: list[str] = []
    for t in question:
        if t.i in inside or t.is_stop or t.is_punct or t.pos_ not in {"NOUN", "PROPN", "VERB", "ADJ", "NUM"}:
            continue
        lemma = t.lemma_.casefold()
        if lemma in _LIGHT or lemma in type_words or lemma in _HOW or len(lemma) < 2:
            continue
        words.append(lemma)
    entities = list(dict.fromkeys(e for e in entities if e))
    return entities, [w for w in dict.fromkeys(words) if w not in entities]


def check_relevance(question: str, claims: Sequence[str]) -> Relevance:
    """Whether ``claims`` (the answer's claim texts, markers removed) address ``question``."""
    if not any(c.strip() for c in claims):
        return Relevance("unchecked", None, None, None, note="the answer has no claim")
    parsed = parse([question, " ".join(c.strip() for c in claims)])
    if parsed is None:
        return Relevance("unchecked", None, None, None, note="no spaCy model: relevance was not checked")
    q, answer = parsed
    expected = expected_type(q)
    entities, words = question_terms(q, expected)
    said = said_words(answer)

    def mentioned(term: str, entity: bool) -> bool:
        return named(term, said, answer.text.casefold()) if entity else term in said

    terms = (*entities, *words)
    missing = tuple(t for t in entities if not mentioned(t, True)) + tuple(t for t in words if not mentioned(t, False))
    weight = _ENTITY_WEIGHT * len(entities) + len(words)
    lost = _ENTITY_WEIGHT * sum(1 for t in entities if t in missing) + sum(1 for t in words if t in missing)
    coverage = (weight - lost) / weight if weight else None
    found: bool | None = None
    if expected is not None:
        labels = SATISFIES[expected]
        found = any(e.label_ in labels for e in answer.ents) or (expected == NUMBER and any(t.like_num for t in answer))
        if expected == AGENT and not found:
            found = any(t.pos_ == "PROPN" for t in answer)  # a name spaCy did not type
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
