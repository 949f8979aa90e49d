"""Claims of one answer that disagree: different values for the same thing.

Each claim can be supported by its own span while the answer as a whole says two things: "Snapshot
exports stay available for 30 days after cancellation" from the policy and "Exports stay available
for 14 days after cancellation" from an old FAQ. By rule, two claims conflict when they

* **share their subject**: every content word of the shorter claim (at least two) occurs in the
  longer one, so the longer only adds detail. Content words leave out function words and the values
  themselves (numbers, units, date words, negations). "Snapshots are kept for 90 days on active
  workspaces" and "Snapshot exports stay available for 30 days" share only "snapshot": different
  things, no conflict;
* and state **different values**: the same unit with disjoint numbers ("30 days" / "14 days"), dates
  of the same kind that differ ("March 3" / "March 5", "Monday" / "Sunday", 2023 / 2024), or opposite
  polarity (one negated, the other not).

With a judge model, pairs that are merely *related* (at least two shared content words, making at
least half of the shorter claim's) and not already in conflict by rule are put to the judge's
contradiction prompt in one batch, so "Exports are removed at cancellation." against the 30-day
policy is caught when a model is there. Cost is bounded: the first :data:`MAX_COMPARED_CLAIMS`
claims are compared, at most :data:`MAX_JUDGED_PAIRS` pairs are judged, and a cut is reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from citegraph.verify.base import Verifier
from citegraph.verify.guards import _DAYS, _MONTHS, _NEGATIONS, _NUMBER_WORDS, _QUANTIFIERS, _UNITS, _negated, _numbers, _singular, _tokens

__all__ = ["MAX_COMPARED_CLAIMS", "MAX_JUDGED_PAIRS", "Conflict", "ConflictCheck", "content_words", "find_conflicts", "rule_conflict"]

MAX_COMPARED_CLAIMS = 200  #: pairwise comparison of 200 claims is ~20,000 set operations: milliseconds
MAX_JUDGED_PAIRS = 32  #: one model call each; an answer rarely has more related pairs than this

_FUNCTION_WORDS = frozenset(
    """a an the of to in on at for by with and or is are was were be been being it its this that these those as from
    has have had do does did done can could will would shall should may might must i you he she we they them their our your
    my me us his her there here also so than then which who whom whose what when where how if but into onto per each any some
    such other same own very just about over under out up down off via""".split()
)
_VALUE_WORDS = frozenset(_NEGATIONS) | frozenset(_NUMBER_WORDS) | frozenset(_UNITS) | frozenset(_MONTHS) | frozenset(_DAYS)
_QUANTIFIER_WORDS = frozenset(w for q in _QUANTIFIERS for w in q.split())

_MONTH_NAMES = "January February March April May June July August September October November December".split()
_MONTH_RE = "|".join(_MONTH_NAMES)  # capitalised only: "may" the modal is not a month
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b")
_MONTH_ALONE = re.compile(rf"\b({_MONTH_RE})\b")
_YEAR = re.compile(r"\b(1[89]\d\d|2[01]\d\d)\b")
_WEEKDAY = re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b")


@dataclass(frozen=True)
class Conflict:
    first: int  #: position of the first claim in the sequence checked
    second: int
    kind: str  #: ``number`` | ``date`` | ``polarity`` | ``judge``
    detail: str  #: e.g. ``30 day vs 14 day``


@dataclass(frozen=True)
class ConflictCheck:
    conflicts: tuple[Conflict, ...] = ()
    incomplete: tuple[str, ...] = field(default=())  #: checks that were cut or failed, said in words


def content_words(text: str) -> frozenset[str]:
    """What a claim is about: its words minus function words and the values it states."""
    out = set()
    for token in _tokens(text):
        if token[0].isdigit() or token in _FUNCTION_WORDS or token in _VALUE_WORDS or token in _QUANTIFIER_WORDS:
            continue
        word = _singular(token)
        if word not in _VALUE_WORDS and len(word) > 1:
            out.add(word)
    return frozenset(out)


def _same_subject(a: frozenset[str], b: frozenset[str]) -> bool:
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return len(shorter) >= 2 and shorter <= longer


def _related(a: frozenset[str], b: frozenset[str]) -> bool:
    shared = len(a & b)
    return shared >= 2 and 2 * shared >= min(len(a), len(b))


def _quantities(text: str) -> dict[str, set[float]]:
    out: dict[str, set[float]] = {}
    for value, unit in _numbers(_tokens(text)):
        if unit:
            out.setdefault(unit, set()).add(value)
    return out


def _dates(text: str) -> dict[str, set[str]]:
    """Date values by kind: ``day`` (``March 3``), ``month``, ``year``, ``weekday``."""
    out: dict[str, set[str]] = {}
    months_with_day: set[int] = set()
    for year, month, day in _ISO.findall(text):
        out.setdefault("day", set()).add(f"{_MONTH_NAMES[int(month) - 1]} {int(day)}" if 1 <= int(month) <= 12 else f"{month}-{day}")
        out.setdefault("year", set()).add(year)
    for match in _MONTH_DAY.finditer(text):
        out.setdefault("day", set()).add(f"{match.group(1)} {int(match.group(2))}")
        months_with_day.add(match.start(1))
    for match in _DAY_MONTH.finditer(text):
        out.setdefault("day", set()).add(f"{match.group(2)} {int(match.group(1))}")
        months_with_day.add(match.start(2))
    for match in _MONTH_ALONE.finditer(text):
        if match.start(1) not in months_with_day:
            out.setdefault("month", set()).add(match.group(1))
    without_iso = _ISO.sub(" ", text)
    for year in _YEAR.findall(without_iso):
        out.setdefault("year", set()).add(year)
    for weekday in _WEEKDAY.findall(text):
        out.setdefault("weekday", set()).add(weekday)
    return out


def _show(values: set[float], unit: str) -> str:
    return " or ".join(f"{v:g} {unit}" for v in sorted(values))


def rule_conflict(a: str, b: str) -> tuple[str, str] | None:
    """``(kind, detail)`` when claims ``a`` and ``b`` share their subject and state different values."""
    if not _same_subject(content_words(a), content_words(b)):
        return None
    qa, qb = _quantities(a), _quantities(b)
    for unit in sorted(qa.keys() & qb.keys()):
        if not qa[unit] & qb[unit]:
            return "number", f"{_show(qa[unit], unit)} vs {_show(qb[unit], unit)}"
    da, db = _dates(a), _dates(b)
    for kind in ("day", "month", "year", "weekday"):
        if kind in da and kind in db and not da[kind] & db[kind]:
            return "date", f"{' or '.join(sorted(da[kind]))} vs {' or '.join(sorted(db[kind]))}"
    na, nb = _negated(_tokens(a)), _negated(_tokens(b))
    if na != nb:
        return "polarity", "negated in one, not in the other"
    return None


def find_conflicts(claims: Sequence[str], verifier: Verifier, *, judge: Sequence[bool] | None = None) -> ConflictCheck:
    """Pairs of ``claims`` that conflict, by rule, then by the verifier's judge for related pairs.

    ``judge[i]`` says whether claim ``i`` may be put to the judge (the caller passes the claims the
    answer stands on); by default every claim may.
    """
    incomplete: list[str] = []
    compared = list(claims[:MAX_COMPARED_CLAIMS])
    if len(claims) > MAX_COMPARED_CLAIMS:
        incomplete.append(f"only the first {MAX_COMPARED_CLAIMS} of {len(claims)} claims were compared with each other")
    words = [content_words(c) for c in compared]
    conflicts: list[Conflict] = []
    to_judge: list[tuple[int, int]] = []
    for i in range(len(compared)):
        for j in range(i + 1, len(compared)):
            if len(words[i] & words[j]) < 2:
                continue
            found = rule_conflict(compared[i], compared[j])
            if found:
                conflicts.append(Conflict(i, j, *found))
            elif _related(words[i], words[j]) and (judge is None or (judge[i] and judge[j])):
                to_judge.append((i, j))
    if len(to_judge) > MAX_JUDGED_PAIRS:
        incomplete.append(f"only {MAX_JUDGED_PAIRS} of {len(to_judge)} related claim pairs were put to the judge")
        to_judge = to_judge[:MAX_JUDGED_PAIRS]
    if to_judge:
        checks = verifier.contradictions([(compared[i], compared[j]) for i, j in to_judge])
        if len(checks) != len(to_judge):
            raise RuntimeError(f"{verifier.name}: contradictions returned {len(checks)} answers for {len(to_judge)} pairs")
        for (i, j), check in zip(to_judge, checks, strict=True):
            if check.note:
                incomplete.append(f"claims {i + 1} and {j + 1}: {check.note}")
            elif check.contradiction is not None and check.contradiction >= 0.5:
                conflicts.append(Conflict(i, j, "judge", f"the judge finds them contradictory (p={check.contradiction:.2f})"))
    conflicts.sort(key=lambda c: (c.first, c.second))
    return ConflictCheck(tuple(conflicts), tuple(incomplete))
