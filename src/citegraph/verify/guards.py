"""Deterministic guards that run on every claim, model or not.

A small model judging entailment is easily fooled by a premise that shares every word but one:
"exports stay available for 30 days" against "... for 14 days". These checks catch exactly that
class of error: every number (with its unit), date word, negation and strong quantifier in the
claim must appear, consistently, in the cited text. A guard that fires makes the citation
``not_supported`` whatever a model says. They are deliberately conservative: a claim that states
"one year" against a span that says "12 months" fails them (a false negative, reported by name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Guard", "check_guards", "is_near_quote"]

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000, "dozen": 12, "single": 1, "once": 1, "twice": 2,
}  # fmt: skip
_UNITS = {
    "second", "minute", "hour", "day", "week", "month", "year", "decade", "century", "percent", "%", "gb", "mb", "tb", "kb",
    "user", "seat", "dollar", "euro", "pound", "time", "km", "mile", "kg", "meter", "metre",
}  # fmt: skip
_MONTHS = "january february march april may june july august september october november december".split()
_DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_NEGATIONS = {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot", "n't"}
_QUANTIFIERS = (
    "at least",
    "at most",
    "more than",
    "less than",
    "fewer than",
    "up to",
    "exactly",
    "only",
    "all",
    "every",
    "always",
    "none",
    "never",
)

# "aren't" is "are" + "n't" (as spaCy splits it), so a contracted negation counts as one.
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[a-z]+(?=n't)|n't|[a-z%]+", re.IGNORECASE)


@dataclass(frozen=True)
class Guard:
    code: str  #: ``number`` | ``date`` | ``negation`` | ``quantifier``
    detail: str

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"


def _tokens(text: str) -> list[str]:
    text = text.replace("’", "'")
    return [t.lower() for t in _TOKEN.findall(text)]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _numbers(tokens: list[str]) -> list[tuple[float, str | None]]:
    """(value, unit) for every number, in digits or words; unit is the next word when it is one."""
    out = []
    for i, tok in enumerate(tokens):
        value: float | None = None
        if tok[0].isdigit():
            try:
                value = float(tok.replace(",", ""))
            except ValueError:
                continue
        elif tok in _NUMBER_WORDS and not (tok == "one" and i + 1 < len(tokens) and tokens[i + 1] in {"of", "another"}):
            value = float(_NUMBER_WORDS[tok])
        if value is None:
            continue
        unit = _singular(tokens[i + 1]) if i + 1 < len(tokens) and _singular(tokens[i + 1]) in _UNITS else None
        out.append((value, unit))
    return out


def _negated(tokens: list[str]) -> bool:
    return any(t in _NEGATIONS for t in tokens)


def _has_phrase(tokens: list[str], phrase: str) -> bool:
    words = phrase.split()
    return any(tokens[i : i + len(words)] == words for i in range(len(tokens) - len(words) + 1))


def check_guards(claim: str, premise: str) -> list[Guard]:
    """The guards that fire for ``claim`` against ``premise`` (empty: nothing inconsistent found)."""
    c, p = _tokens(claim), _tokens(premise)
    fired: list[Guard] = []
    premise_numbers = _numbers(p)
    for value, unit in _numbers(c):
        same_value = [u for v, u in premise_numbers if v == value]
        shown = f"{value:g}" + (f" {unit}" if unit else "")
        if not same_value:
            fired.append(Guard("number", f"{shown} is not in the cited text"))
        elif unit and unit not in same_value and any(u for u in same_value):
            fired.append(Guard("number", f"{shown} appears with another unit ({', '.join(sorted({u for u in same_value if u}))})"))
    for word in [*_MONTHS, *_DAYS]:
        if word in c and word not in p:
            fired.append(Guard("date", f"{word} is not in the cited text"))
    if _negated(c) != _negated(p):
        fired.append(
            Guard(
                "negation",
                "the claim is negated and the cited text is not" if _negated(c) else "the cited text is negated and the claim is not",
            )
        )
    for quantifier in _QUANTIFIERS:
        if _has_phrase(c, quantifier) and not _has_phrase(p, quantifier):
            fired.append(Guard("quantifier", f"'{quantifier}' is not in the cited text"))
    return fired


_STOP = frozenset("a an the of to in on at for by with and or is are was were be been it its this that these those as from".split())


def is_near_quote(claim: str, premise: str) -> bool:
    """Every content word of the claim occurs in the premise, in the same order (a quote, trimmed)."""
    words = [_singular(t) for t in _tokens(claim) if t not in _STOP]
    if not words:
        return False
    premise_words = [_singular(t) for t in _tokens(premise)]
    at = 0
    for word in words:
        try:
            at = premise_words.index(word, at) + 1
        except ValueError:
            return False
    return True
