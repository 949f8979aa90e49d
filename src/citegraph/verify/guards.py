"""Deterministic guards that run on every claim, model or not.

A small model judging entailment is easily fooled by a premise that shares every word but one:
"exports stay available for 30 days" against "... for 14 days". The guards look at exactly that
class of error, in two strengths:

* **conflicts** (``Guard.overrules``), which overrule any model: the cited text states a *different*
  value for the same thing. A number with the same unit and another value ("30 days" / "14 days"), a
  date of the same kind that differs ("Monday" / "Sunday", 1998 / 2004), or the same predicate with
  the opposite polarity ("are not issued" / "are issued"). "The same thing" is checked on the cited
  sentence that states the other value: it must share at least two content words with the claim,
  and at least half of them. A date must also share a content word within two words of it ("born in
  1950" / "born in 1952", not "the 1965 film" / "the 1963 novel"), and a year inside a range that
  sentence gives ("from 1968 to 1982") is no conflict. A negated predicate is the first content word
  after "not", "n't", "never" or "cannot" (past auxiliaries); "not only" and "no" prove nothing. A
  conflict makes the citation ``not_supported`` whatever a model says, and no model is asked.
* **unrelated**, which overrules too: the claim states a number, and the cited text states none and
  shares not one content word with the claim ("Exports stay available for 30 days after
  cancellation" citing "Cancelling ends billing at the end of the period."). That is no value
  conflict, but it is as sure: a text about something else cannot give the claim's number. It fired
  on none of the 10,699 supported pairs of the shared data (and on 1 of the unsupported).
* **signals**, which only report: a number, date word, negation or strong quantifier ("only",
  "every") of the claim that the cited text does not repeat. Real answers state numbers, dates and
  quantifiers in their own words ("one year" for "12 months", "never" for "not ... at any time"), so
  a signal is no proof: it is listed in the verdict's notes and weighed by the screen
  (:mod:`citegraph.verify.screen`), never a verdict by itself. Measured on the shared data sets, the
  old rule (every signal overrules) fired on 14% of the supported HaluEval QA pairs, 15% of HotpotQA's
  and 36% of AttributionBench's; the conflicts fire on 0.1%, 0% and 0.2% of them
  (``bench/guard_rates.py``, docs/results/2026-11-30/guards.md).

Both are pure functions of the two texts (regular expressions, no parse): about 0.3 ms per pair.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "Guard",
    "check_guards",
    "conflicts",
    "content_words",
    "is_near_quote",
    "overruling",
    "premise_sentences",
    "related",
    "signals",
    "unrelated",
]

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
    code: str  #: ``number`` | ``date`` | ``negation`` | ``quantifier`` | ``unrelated``
    detail: str
    overrules: bool = False  #: proven (a conflict, or an unrelated text): ``not_supported`` whatever a model says

    def __str__(self) -> str:
        if self.overrules and self.code != "unrelated":
            return f"{self.code} conflict: {self.detail}"
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


# -- what a text is about ---------------------------------------------------------------------------
_FUNCTION_WORDS = frozenset(
    """a an the of to in on at for by with and or is are was were be been being it its this that these those as from
    has have had do does did done can could will would shall should may might must i you he she we they them their our your
    my me us his her there here also so than then which who whom whose what when where how if but into onto per each any some
    such other same own very just about over under out up down off via""".split()
)
_VALUE_WORDS = frozenset(_NEGATIONS) | frozenset(_NUMBER_WORDS) | frozenset(_UNITS) | frozenset(_MONTHS) | frozenset(_DAYS)
_QUANTIFIER_WORDS = frozenset(w for q in _QUANTIFIERS for w in q.split())


def content_words(text: str) -> frozenset[str]:
    """What a text is about: its words minus function words and the values it states."""
    out = set()
    for token in _tokens(text):
        if token[0].isdigit() or token in _FUNCTION_WORDS or token in _VALUE_WORDS or token in _QUANTIFIER_WORDS:
            continue
        word = _singular(token)
        if word not in _VALUE_WORDS and len(word) > 1:
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
_YEAR = re.compile(r"\b(1[89]\d\d|2[01]\d\d)\b")
_WEEKDAY = re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b")
_DATE_KINDS = ("day", "month", "year", "weekday")


def _quantities(text: str) -> dict[str, set[float]]:
    out: dict[str, set[float]] = {}
    for value, unit in _numbers(_tokens(text)):
        if unit:
            out.setdefault(unit, set()).add(value)
    return out


def _date_matches(text: str) -> list[tuple[str, str, int, int]]:
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
    for m in _YEAR.finditer(without_iso):
        out.append(("year", m.group(1), m.start(), m.end()))
    for m in _WEEKDAY.finditer(text):
        out.append(("weekday", m.group(1), m.start(), m.end()))
    return out


def _dates(text: str) -> dict[str, set[str]]:
    """Date values by kind: ``day`` (``March 3``), ``month``, ``year``, ``weekday``."""
    out: dict[str, set[str]] = {}
    for kind, value, _start, _end in _date_matches(text):
        out.setdefault(kind, set()).add(value)
    return out


_NEAR = 2  #: tokens either side of a date that say what it is the date of


def _date_contexts(text: str) -> dict[tuple[str, str], set[str]]:
    """For each ``(kind, value)`` date of ``text``, the content words within :data:`_NEAR` tokens of it:
    what the date is the date of ("born in 1950", "the 1963 novel")."""
    tokens = [(m.start(), m.end(), m.group().lower()) for m in _TOKEN.finditer(text.replace("’", "'"))]
    out: dict[tuple[str, str], set[str]] = {}
    for kind, value, start, end in _date_matches(text):
        inside = [i for i, (s, e, _) in enumerate(tokens) if s < end and e > start]
        if not inside:
            continue
        near = tokens[max(inside[0] - _NEAR, 0) : inside[-1] + _NEAR + 1]
        out.setdefault((kind, value), set()).update(content_words(" ".join(t for _, _, t in near)))
    return out


def _show(values: set[float], unit: str) -> str:
    return " or ".join(f"{v:g} {unit}" for v in sorted(values))


# -- polarity of one predicate ------------------------------------------------------------------------
# Negators that scope over the next predicate. "no", "without", "none", "nothing" and "nor" are left to
# the signal: "no" scopes over a noun phrase ("which has no cash value"), too loosely to prove anything.
_SCOPING_NEGATORS = frozenset({"not", "n't", "never", "cannot"})
# What may stand between a negator and its predicate: "does not *stay*", "are no longer *issued*".
_SKIPPED = frozenset("be been being is are was were do does did have has had a an the any longer yet ever always also get got".split())
# "not only X but Y" and "not just X" assert X.
_NOT_NEGATING = frozenset({"only", "just", "merely", "simply", "necessarily"})
_SCOPE = 3  #: the predicate is at most this many tokens after its negator


def _stem(word: str) -> str:
    """A crude stem, enough to match "issued" with "issue" and "stays" with "stay"."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _content(token: str) -> bool:
    return not (
        token in _FUNCTION_WORDS
        or token in _VALUE_WORDS
        or token in _QUANTIFIER_WORDS
        or token in _SKIPPED
        or token[0].isdigit()
        or len(token) < 3
    )


def _predicates(tokens: list[str]) -> tuple[set[str], set[str]]:
    """(stems this text negates, stems it states without a negation before them). A negator's
    predicate is the first word after it, past auxiliaries and articles, if that is a content word."""
    negated: set[str] = set()
    claimed: set[int] = set()
    for i, tok in enumerate(tokens):
        if tok not in _SCOPING_NEGATORS:
            continue
        for j in range(i + 1, min(i + 1 + _SCOPE, len(tokens))):
            if tokens[j] in _SKIPPED:
                continue
            if tokens[j] not in _NOT_NEGATING and _content(tokens[j]):
                negated.add(_stem(tokens[j]))
                claimed.add(j)
            break
    plain = {_stem(t) for i, t in enumerate(tokens) if i not in claimed and _content(t) and t not in _SCOPING_NEGATORS}
    return negated, plain


# A negation does not reach past a clause's edge: "it's now or never, Patti" negates nothing of Patti.
_CLAUSE_EDGE = re.compile(r"[,;:()\[\]\"“”«»—–]|\s-\s|[.!?](?:\s|$)")


def _clause_predicates(text: str) -> tuple[set[str], set[str]]:
    """:func:`_predicates` clause by clause, so a negator's scope stops at a comma, colon, bracket,
    quotation mark, dash or sentence end."""
    negated: set[str] = set()
    plain: set[str] = set()
    for clause in _CLAUSE_EDGE.split(text):
        n, pl = _predicates(_tokens(clause))
        negated |= n
        plain |= pl
    return negated, plain


def _year_in_range(year: str, sentence: str) -> bool:
    """A sentence that gives two years or more ("from 1968 to 1982") covers the years between them."""
    years = [int(y) for y in _YEAR.findall(sentence)]
    return len(years) >= 2 and min(years) <= int(year) <= max(years)


def conflicts(claim: str, premise: str) -> list[Guard]:
    """What ``premise`` states differently about the subject of ``claim``: the guards that overrule."""
    claim_words = content_words(claim)
    if len(claim_words) < 2:
        return []
    sentences = [s for s in premise_sentences(premise) if related(claim_words, content_words(s))]
    if not sentences:
        return []
    found: list[Guard] = []
    premise_tokens = _tokens(premise)
    stated = {tok for tok in premise_tokens if tok[0].isdigit()} | {f"{v:g}" for v, _ in _numbers(premise_tokens)}
    premise_quantities = _quantities(premise)
    for unit, values in sorted(_quantities(claim).items()):
        if values & premise_quantities.get(unit, set()) or any(f"{v:g}" in stated for v in values):
            continue
        other = {v for s in sentences for v in _quantities(s).get(unit, set())}
        if other:
            found.append(Guard("number", f"the claim says {_show(values, unit)}, the cited text {_show(other, unit)}", overrules=True))
    premise_dates = _dates(premise)
    claim_dates = _date_contexts(claim)
    for kind in _DATE_KINDS:
        dates = {v for k, v in claim_dates if k == kind}
        if not dates or dates & premise_dates.get(kind, set()) or (kind == "year" and any(d in premise for d in dates)):
            continue
        # Another date of the same kind, for the same thing: a content word next to the claim's date is next to it.
        near = set().union(*(claim_dates[kind, d] for d in dates))
        others = {
            v
            for s in sentences
            if not (kind == "year" and any(_year_in_range(d, s) for d in dates))
            for (k, v), words in _date_contexts(s).items()
            if k == kind and words & near
        }
        if others:
            found.append(
                Guard("date", f"the claim says {' or '.join(sorted(dates))}, the cited text {' or '.join(sorted(others))}", overrules=True)
            )
    claim_tokens = _tokens(claim)
    claim_negated, claim_plain = _clause_predicates(claim)
    premise_negated = _clause_predicates(premise)[0]
    by_sentence = [(_clause_predicates(s), _negated(_tokens(s))) for s in sentences]
    # The claim negates a predicate that a related sentence states plainly (and the premise nowhere negates).
    plain_there = [stem for stem in sorted(claim_negated - premise_negated) if any(stem in pl and not neg for (_, pl), neg in by_sentence)]
    # The claim states plainly what a related sentence negates.
    negated_there = (
        [] if _negated(claim_tokens) else [stem for stem in sorted(claim_plain) if any(stem in ng for (ng, _), _ in by_sentence)]
    )
    if plain_there:
        found.append(Guard("negation", f"the claim negates '{plain_there[0]}…', the cited text states it", overrules=True))
    elif negated_there:
        found.append(Guard("negation", f"the cited text negates '{negated_there[0]}…', the claim does not", overrules=True))
    return found


def signals(claim: str, premise: str) -> list[Guard]:
    """Every number (with its unit), date word, negation and strong quantifier of ``claim`` that
    ``premise`` does not repeat: reported, weighed by the screen, never a verdict by itself."""
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


def unrelated(claim: str, premise: str) -> list[Guard]:
    """The claim states a number; the cited text states none and shares not one content word with the
    claim. It is about something else and cannot give the claim's value ("Exports stay available for 30
    days" citing "Cancelling ends billing at the end of the period."): proven, it overrules."""
    claim_numbers = _numbers(_tokens(claim))
    if not claim_numbers or _numbers(_tokens(premise)) or content_words(claim) & content_words(premise):
        return []
    shown = ", ".join(dict.fromkeys(f"{v:g}" + (f" {u}" if u else "") for v, u in claim_numbers))
    return [Guard("unrelated", f"the claim states {shown}; the cited text states no number and shares no word with it", overrules=True)]


def overruling(claim: str, premise: str) -> list[Guard]:
    """The guards that overrule: value conflicts, and a text unrelated to a claim that states a number."""
    return [*conflicts(claim, premise), *unrelated(claim, premise)]


def check_guards(claim: str, premise: str) -> list[Guard]:
    """The guards that fire for ``claim`` against ``premise``, the overruling ones first; a signal of a
    kind a conflict already proves is left out (empty: nothing inconsistent found)."""
    proven = overruling(claim, premise)
    codes = {g.code for g in proven}
    return [*proven, *(g for g in signals(claim, premise) if g.code not in codes)]


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
