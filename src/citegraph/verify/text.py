"""The text helpers of the checks: words, numbers with their units, dates, negation, what a text is
about. Pure functions of a string (regular expressions, no parse), shared by the guards
(:mod:`citegraph.verify.guards`), the conflict check between claims, the assertion frames and the
screen's features."""

from __future__ import annotations

import re

__all__ = [
    "DATE_KINDS",
    "DAYS",
    "FUNCTION_WORDS",
    "MONTHS",
    "NEGATIONS",
    "NUMBER_WORDS",
    "QUANTIFIERS",
    "QUANTIFIER_WORDS",
    "TOKEN",
    "UNITS",
    "VALUE_WORDS",
    "YEAR",
    "content_words",
    "date_matches",
    "dates_by_kind",
    "has_negation",
    "has_phrase",
    "numbers_in",
    "premise_sentences",
    "quantities",
    "related",
    "show_values",
    "singular",
    "tokenize",
]

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000, "dozen": 12, "single": 1, "once": 1, "twice": 2,
}  # fmt: skip
UNITS = {
    "second", "minute", "hour", "day", "week", "month", "year", "decade", "century", "percent", "%", "gb", "mb", "tb", "kb",
    "user", "seat", "dollar", "euro", "pound", "time", "km", "mile", "kg", "meter", "metre",
}  # fmt: skip
MONTHS = "january february march april may june july august september october november december".split()
DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
NEGATIONS = {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot", "n't"}
QUANTIFIERS = (
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
TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[a-z]+(?=n't)|n't|[a-z%]+", re.IGNORECASE)


def tokenize(text: str) -> list[str]:
    text = text.replace("’", "'")
    return [t.lower() for t in TOKEN.findall(text)]


def singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def numbers_in(tokens: list[str]) -> list[tuple[float, str | None]]:
    """(value, unit) for every number, in digits or words; unit is the next word when it is one."""
    out = []
    for i, tok in enumerate(tokens):
        value: float | None = None
        if tok[0].isdigit():
            try:
                value = float(tok.replace(",", ""))
            except ValueError:
                continue
        elif tok in NUMBER_WORDS and not (tok == "one" and i + 1 < len(tokens) and tokens[i + 1] in {"of", "another"}):
            value = float(NUMBER_WORDS[tok])
        if value is None:
            continue
        unit = singular(tokens[i + 1]) if i + 1 < len(tokens) and singular(tokens[i + 1]) in UNITS else None
        out.append((value, unit))
    return out


def has_negation(tokens: list[str]) -> bool:
    return any(t in NEGATIONS for t in tokens)


def has_phrase(tokens: list[str], phrase: str) -> bool:
    words = phrase.split()
    return any(tokens[i : i + len(words)] == words for i in range(len(tokens) - len(words) + 1))


# -- what a text is about ---------------------------------------------------------------------------
FUNCTION_WORDS = frozenset(
    """a an the of to in on at for by with and or is are was were be been being it its this that these those as from
    has have had do does did done can could will would shall should may might must i you he she we they them their our your
    my me us his her there here also so than then which who whom whose what when where how if but into onto per each any some
    such other same own very just about over under out up down off via""".split()
)
VALUE_WORDS = frozenset(NEGATIONS) | frozenset(NUMBER_WORDS) | frozenset(UNITS) | frozenset(MONTHS) | frozenset(DAYS)
QUANTIFIER_WORDS = frozenset(w for q in QUANTIFIERS for w in q.split())


def content_words(text: str) -> frozenset[str]:
    """What a text is about: its words minus function words and the values it states."""
    out = set()
    for token in tokenize(text):
        if token[0].isdigit() or token in FUNCTION_WORDS or token in VALUE_WORDS or token in QUANTIFIER_WORDS:
            continue
        word = singular(token)
        if word not in VALUE_WORDS and len(word) > 1:
            out.add(word)
    return frozenset(out)


def related(claim_words: frozenset[str], sentence_words: frozenset[str]) -> bool:
    """The sentence is about what the claim is about: it shares at least two of the claim's content
    words, and at least half of them."""
    shared = len(claim_words & sentence_words)
    return shared >= 2 and 2 * shared >= len(claim_words)


# A sentence ends at . ! ? followed by space and a capital, or glued to a capital ("…century.First for
# Women"), or at a line break. Cheap and good enough to find the sentence that states a value.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|(?<=[a-z0-9)][.!?])(?=[A-Z])|\s*\n\s*")


def premise_sentences(premise: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(premise) if s and s.strip()]


# -- dates ------------------------------------------------------------------------------------------
_MONTH_NAMES = "January February March April May June July August September October November December".split()
_MONTH_RE = "|".join(_MONTH_NAMES)  # capitalised only: "may" the modal is not a month
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b")
_MONTH_ALONE = re.compile(rf"\b({_MONTH_RE})\b")
YEAR = re.compile(r"\b(1[89]\d\d|2[01]\d\d)\b")
_WEEKDAY = re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b")
DATE_KINDS = ("day", "month", "year", "weekday")


def quantities(text: str) -> dict[str, set[float]]:
    out: dict[str, set[float]] = {}
    for value, unit in numbers_in(tokenize(text)):
        if unit:
            out.setdefault(unit, set()).add(value)
    return out


def date_matches(text: str) -> list[tuple[str, str, int, int]]:
    """``(kind, value, start, end)`` for every date in ``text``: ``day`` (``March 3``), ``month``, ``year``, ``weekday``."""
    out: list[tuple[str, str, int, int]] = []
    months_with_day: set[int] = set()
    for m in _ISO.finditer(text):
        year, month, day = m.groups()
        out.append(("day", f"{_MONTH_NAMES[int(month) - 1]} {int(day)}" if 1 <= int(month) <= 12 else f"{month}-{day}", m.start(), m.end()))
        out.append(("year", year, m.start(), m.end()))
    for m in _MONTH_DAY.finditer(text):
        out.append(("day", f"{m.group(1)} {int(m.group(2))}", m.start(), m.end()))
        months_with_day.add(m.start(1))
    for m in _DAY_MONTH.finditer(text):
        out.append(("day", f"{m.group(2)} {int(m.group(1))}", m.start(), m.end()))
        months_with_day.add(m.start(2))
    for m in _MONTH_ALONE.finditer(text):
        if m.start(1) not in months_with_day:
            out.append(("month", m.group(1), m.start(), m.end()))
    without_iso = _ISO.sub(lambda m: " " * len(m.group()), text)
    for m in YEAR.finditer(without_iso):
        out.append(("year", m.group(1), m.start(), m.end()))
    for m in _WEEKDAY.finditer(text):
        out.append(("weekday", m.group(1), m.start(), m.end()))
    return out


def dates_by_kind(text: str) -> dict[str, set[str]]:
    """Date values by kind: ``day`` (``March 3``), ``month``, ``year``, ``weekday``."""
    out: dict[str, set[str]] = {}
    for kind, value, _start, _end in date_matches(text):
        out.setdefault(kind, set()).add(value)
    return out


def show_values(values: set[float], unit: str) -> str:
    return " or ".join(f"{v:g} {unit}" for v in sorted(values))
