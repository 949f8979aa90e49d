"""Claims of one answer that disagree: different values for the same thing.

Each claim can be supported by its own span while the answer as a whole says two things: "Snapshot
exports stay available for 30 days after cancellation" from the policy and "Exports stay available
for 14 days after cancellation" from an old FAQ. By rule, two claims conflict when they

* **share their subject**: every content word of the shorter claim (at least two) occurs in the
  longer one, so the longer only adds detail. Content words leave out function words and the values
  themselves (numbers, units, date words, negations). "Snapshots are kept for 90 days on active
  workspaces" and "Snapshot exports stay available for 30 days" share only "snapshot": different
  things, no conflict;
* and state **different values**: the same dimension with values none of which agree ("30 days" /
  "14 days"; "a month" and "30 days" agree, :func:`citegraph.verify.text.quantities`), counts of
  one thing none of which agree ("15 items" / "20 items", :func:`citegraph.verify.text.counts`), dates
  of the same kind that differ ("March 3" / "March 5", "Monday" / "Sunday", 2023 / 2024), or opposite
  polarity (one negated, the other not);
* or one announces a change ("the drill moves from Monday to Tuesday", "changes from 30 days to
  14 days") and the other, sharing two content words, gives the old value and not the new one;
* or are **related** (below) and time their subject differently against the same event ("removed at
  cancellation" / "available for 30 days after cancellation": ``timing``);
* or share three content words, name no different things, and, related, state different values of
  the same dimension, or state opposite obligations ("optional" / "mandatory": ``modality``). Real documents rarely repeat a
  sentence with one word changed: "We keep customer data for 90 days after the customer cancels"
  (a 2023 FAQ) and "Customer workspace data ... deleted 30 days after cancellation" (the 2025 policy)
  share their subject without one containing the other's words. Two sentences that each name
  something the other does not (a city, a role, a product: capitalised words past the first) are
  about different things: "UK staff receive 25 days" and "Toronto staff receive 20 days" are no
  conflict, nor are the salary bands of two roles; so are two whose main clauses' subjects each have a
  word the other's lacks ("items on adult cards … 10p per day" / "Library of Things items and Wi-Fi
  hotspots … £1.00 per day"), while a subject that only adds detail ("Overdue items on adult cards")
  is the same thing.

With a judge model, pairs that are merely *related* (at least two shared content words, making at
least half of the shorter claim's) and not already in conflict by rule are put to the judge's
contradiction prompt in one batch, so "Exports are removed at cancellation." against the 30-day
policy is caught when a model is there. Without a judge the trained checker answers instead, and
its P(contradicted) counts only where the two sentences differ in something that can disagree (a
value, a number each gives that the other does not, a negation: :func:`can_disagree`): it read a
sentence that only adds a detail ("… in 2024/25"), and even a chat line beside the same line, as
contradicted. Cost is bounded: the first :data:`MAX_COMPARED_CLAIMS`
claims are compared, at most :data:`MAX_JUDGED_PAIRS` pairs are judged, and a cut is reported.

A sentence that opens with a pronoun ("It is open Monday to Friday…") is compared with the subject
of the sentence before it in its pronoun's place (:func:`with_subject`; the caller reads that
sentence from the document): alone it says nothing of what is open. Between two such readings, one
that says its subject is closed on a day and one that says the same subject is open on it, or hours
on the same days that share no time, disagree (``opposite``, ``time``).

Why this file is long (about 610 lines): every rule two sources are compared by, and what keeps each
from firing on two different things, read together; split by rule, each file would need the others'
notion of "the same subject" and "different things".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from citegraph.sentences import message_stamp
from citegraph.verify.assertion import parse
from citegraph.verify.base import Verifier
from citegraph.verify.guards import moment_conflict
from citegraph.verify.moments import moments, show_moment
from citegraph.verify.text import (
    CHANGE,
    CHANGE_VERB,
    CHANGED_WHAT,
    DAYS,
    MONTHS,
    NEGATIONS,
    OPPOSITES,
    clock_times,
    content_words,
    counts,
    dates_by_kind,
    has_negation,
    measured,
    quantities,
    said_values,
    shared_values,
    singular,
    tokenize,
)

__all__ = [
    "MAX_COMPARED_CLAIMS",
    "MAX_JUDGED_PAIRS",
    "SOURCE_CONFLICT_THRESHOLD",
    "Conflict",
    "ConflictCheck",
    "can_disagree",
    "content_words",
    "find_conflicts",
    "rule_conflict",
    "with_subject",
]

MAX_COMPARED_CLAIMS = 200  #: pairwise comparison of 200 claims is ~20,000 set operations: milliseconds
MAX_JUDGED_PAIRS = 32  #: one model call each; an answer rarely has more related pairs than this
#: P(contradicted) from the checker at which two context sentences of different documents are a
#: conflict; chosen on the dev half of the built source pairs (``citegraph eval conflicts``)
SOURCE_CONFLICT_THRESHOLD = 0.9


@dataclass(frozen=True)
class Conflict:
    first: int  #: position of the first claim in the sequence checked
    second: int
    kind: str  #: ``number`` | ``date`` | ``timing`` | ``polarity`` | ``modality`` | ``opposite`` | ``judge`` | ``checker``
    detail: str  #: e.g. ``30 days vs 14 days``
    score: float | None = None  #: the model's P(contradiction), when a model found it


@dataclass(frozen=True)
class ConflictCheck:
    conflicts: tuple[Conflict, ...] = ()
    incomplete: tuple[str, ...] = field(default=())  #: checks that were cut or failed, said in words


#: words that say whether something must be done, in two camps; related sentences about the same
#: thing using one camp each disagree ("optional but recommended" / "mandatory")
_MAY = frozenset({"optional", "voluntary", "recommended", "encouraged", "discretionary"})
_MUST = frozenset({"mandatory", "compulsory", "obligatory", "required", "enforced"})
#: content words two related sentences share before their values are compared: two let "Snapshots
#: are kept for 90 days on active workspaces" clash with "After those 30 days, the retention service
#: deletes the workspace snapshots" (different moments of one thing)
_SHARED_FOR_VALUES = 3
_NAME = re.compile(r"[A-Za-z][\w'’-]*")
_WEEKDAYS = frozenset(DAYS)


def _names(text: str) -> set[str]:
    """The capitalised words of a sentence past its first word, case folded: what it names. A day of
    the week is a value, not a thing ("on Mondays" and "from Monday to Wednesday" name nothing apart);
    a month stays a name, as it often dates a moment ("51% in 1998" / "33.88% as of December 31, 2013")."""
    words = _NAME.findall(text)
    return {w.casefold() for w in words[1:] if w[:1].isupper() and w.casefold().removesuffix("s") not in _WEEKDAYS}


def _different_things(a: str, b: str) -> bool:
    """Each sentence names something the other does not ("Leeds" / "Lisbon", "Support Engineer" /
    "Senior Software Engineer"), or each one's subject has a word the other's lacks ("items on adult
    cards" / "Library of Things items and Wi-Fi hotspots"): they are about different things, whatever
    values they give. A subject that only adds detail to the other's ("Overdue items on adult cards" /
    "items on adult cards") is the same thing."""
    na, nb = _names(a), _names(b)
    if na - nb and nb - na:
        return True
    sa, sb = _subject_words(a), _subject_words(b)
    return bool(sa - sb) and bool(sb - sa)


@lru_cache(maxsize=4096)
def _subject_words(text: str) -> frozenset[str]:
    """The nouns, names and adjectives (lower case, a plural "s" dropped) of the subject of each of
    ``text``'s main clauses, with what they carry ("items on adult cards"); empty when it has none, or
    only a pronoun ("We keep customer data…"). A subordinate clause's subject is not the sentence's
    ("…because the Monday freight sailing now leaves at 07:15")."""
    doc = parse(text)
    words = {
        t.lower_.removesuffix("s")
        for sent in doc.sents
        for token in sent.root.children
        if token.dep_ in ("nsubj", "nsubjpass")
        for t in token.subtree
        if t.pos_ in ("NOUN", "PROPN", "ADJ") and t.is_alpha
    }
    return frozenset(words)


def _said_apart(a: str, b: str) -> bool:
    """Both are entries of a log stamped with different times: what was said or done at two moments
    ("still 1.9s" at 17:05, "back to 0.5s" the next morning), not two sources that disagree. An entry
    is a chat message with its stamp, or a line that opens with its moment, as a timeline or a log
    writes it ("4 March, 09:03: P1 declared; …", "2025-03-04 10:58 Tom Ashby: 4.12.0 on all nodes.")."""
    ta, tb = _entry_moment(a), _entry_moment(b)
    if ta is None or tb is None:
        return False
    # apart when a part both give differs: the day, the year or the time ("4 March, 09:03" and
    # "2025-03-04 09:03" are one moment, one of them without its year)
    kinds = [{_moment_kind(v): v for v in t} for t in (ta, tb)]
    return any(kinds[0][k] != kinds[1][k] for k in kinds[0].keys() & kinds[1].keys())


def _moment_kind(value: str) -> str:
    return "day" if "/" in value else "time" if ":" in value else "year"


#: a line that opens with its moment: a day (ISO, or a day and a month), a time of day or both, then a
#: colon or a dash ("4 March, 09:03: …", "2025-03-04 — …", "09:03 - …")
_ENTRY_MOMENT = re.compile(
    rf"^\W{{0,3}}(?P<moment>(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{'|'.join(MONTHS)})|(?:{'|'.join(MONTHS)})\s+\d{{1,2}})"
    r"(?:,?\s*(?:\d{4})?,?\s*\d{1,2}:\d{2})?|\d{1,2}:\d{2})\s*[:–—-]\s",
    re.IGNORECASE,
)


def _entry_moment(text: str) -> Counter[str] | None:
    """The moment an entry of a log opens with (:func:`_said_apart`), read as :func:`_numbers` reads
    days and times; None for a text that opens with none."""
    stamp = message_stamp(text)
    if stamp is None:
        found = _ENTRY_MOMENT.match(text)
        stamp = found["moment"] if found else None
    return None if stamp is None else _numbers(stamp)


#: the pronouns a sentence opens with that stand for the subject of the sentence before it
_SUBJECT_PRONOUN = re.compile(r"[\"'“‘(]*(?:it|they|he|she)\b", re.IGNORECASE)
#: what a subject's noun carries that is no part of its name ("Central Library, 2 Market Street, …"):
#: an apposition, a clause, punctuation
_NOT_OF_THE_NAME = frozenset({"appos", "relcl", "acl", "punct", "cc", "conj", "advcl"})


def with_subject(text: str, previous: str) -> str:
    """``text`` with the pronoun it opens with ("It is open Monday to Friday…") replaced by the subject
    of ``previous``, the sentence before it in its document ("Central Library, 2 Market Street, is the
    largest branch." -> "Central Library is open Monday to Friday…"): compared with another source
    alone, "It" says nothing of what is open, so two such sentences about two buildings looked alike
    and one about the library looked unlike the library's. ``text`` as it is when it does not open
    with one, or when ``previous`` has no subject of its own that is a noun (a pronoun again, none)."""
    found = _SUBJECT_PRONOUN.match(text)  # each of these pronouns is one a sentence leans on (sentences.leans_on_previous)
    if not previous or found is None:
        return text
    subject = _subject_phrase(previous)
    return text if subject is None else f"{subject}{text[found.end() :]}"


@lru_cache(maxsize=4096)
def _subject_phrase(sentence: str) -> str | None:
    """The subject of ``sentence``'s main clause as its words name it, without what an apposition or a
    clause adds ("Central Library" of "Central Library, 2 Market Street, is …"); None for a pronoun."""
    doc = parse(sentence)
    for sent in doc.sents:
        head = next((t for t in sent.root.children if t.dep_ in ("nsubj", "nsubjpass")), None)
        if head is None or head.pos_ not in ("NOUN", "PROPN"):
            return None
        left = [t for t in head.subtree if not any(a.dep_ in _NOT_OF_THE_NAME for a in _up_to(t, head))]
        return " ".join(t.text for t in left) if left else None
    return None


def _up_to(token: Any, head: Any) -> list[Any]:
    """``token`` and its heads up to (not including) ``head``, which is above it."""
    out = []
    while token.i != head.i:
        out.append(token)
        token = token.head
    return out


def _obligation(words: set[str]) -> str | None:
    may, must = bool(words & _MAY), bool(words & _MUST)
    return "optional" if may and not must else "mandatory" if must and not may else None


def _same_subject(a: frozenset[str], b: frozenset[str]) -> bool:
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return len(shorter) >= 2 and shorter <= longer


def _related(a: frozenset[str], b: frozenset[str]) -> bool:
    shared = len(a & b)
    return shared >= 2 and 2 * shared >= min(len(a), len(b))


def _timing(a: str, b: str, wa: frozenset[str], wb: frozenset[str]) -> tuple[str, str] | None:
    """Related texts that put their subject at different moments from the same event, sharing a
    content word besides the event ("Exports are removed at cancellation." / "Snapshot exports stay
    available for 30 days after cancellation.")."""
    if not _related(wa, wb):
        return None
    found = moment_conflict(moments(a), moments(b))
    if found is None or not (wa & wb) - {found[0]}:
        return None
    anchor, one, other = found
    return "timing", f"{show_moment(one, anchor)} vs {show_moment(other, anchor)}"


#: a value a sentence gives as the one it replaces, not as what holds: "14 days instead of 30 days",
#: "up from £250", "raised from 10 to 14 characters" (the old value is read out before values are compared)
_REPLACED = re.compile(
    r"\b(?:instead of|rather than|up from|down from|as opposed to|compared (?:with|to)|previously|formerly)\s+[^,.;:()]+"
    rf"|\b({CHANGE_VERB}{CHANGED_WHAT})"
    r"\s+from\s+[^,.;:()]+?(?=\s+to\b)",
    re.IGNORECASE,
)


def _current(text: str) -> str:
    """``text`` without the values it says were replaced."""
    return _REPLACED.sub(lambda m: f" {m.group(1) or ''} ", text)


def _stated_the_replaced(a: str, b: str) -> tuple[str, str] | None:
    """``a`` gives the very value ``b`` says it replaced ("30 days" / "14 days instead of 30 days"),
    and no other of that dimension: ``a`` says what no longer holds. Two shared content words and no
    different things named are enough, the replacement being said in words."""
    replaced = " ".join(m.group(0) for m in _REPLACED.finditer(b))
    if not replaced:
        return None
    current = _current(b)
    old, now, stated = quantities(replaced), quantities(current), quantities(_current(a))
    for unit in sorted(old.keys() & now.keys() & stated.keys()):
        if shared_values(stated[unit], old[unit]) and not shared_values(stated[unit], now[unit]):
            return "number", f"{said_values(a, unit)} vs {said_values(current, unit)} (which replaced {said_values(replaced, unit)})"
    return None


def _stated_the_changed_day(a: str, b: str) -> tuple[str, str] | None:
    """``b`` says a day, weekday, month or year changed ("moves from Monday to Tuesday") and ``a``
    gives the old one, not the new: ``a`` says what no longer holds."""
    stated = dates_by_kind(_current(a))
    for change in CHANGE.finditer(b):
        old, new = dates_by_kind(change.group(1)), dates_by_kind(change.group(2))
        for kind in ("day", "month", "year", "weekday"):
            if kind in old and kind in new and kind in stated and stated[kind] & old[kind] and not stated[kind] & new[kind]:
                was, now = " or ".join(sorted(stated[kind])), " or ".join(sorted(new[kind]))
                return "date", f"{was} vs {now} (which replaced {' or '.join(sorted(old[kind]))})"
    return None


_MONTH_NAMES = "|".join(MONTHS)
#: a day written with its month ("4 March", "March 4th") or as an ISO day ("2025-03-04"), and a time of day
_DAY_MONTH = re.compile(
    rf"\b(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<m1>{_MONTH_NAMES})\b|\b(?P<m2>{_MONTH_NAMES})\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)
_ISO_DAY = re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")
_CLOCK = re.compile(r"\b(?P<h>\d{1,2}):(?P<m>\d{2})\b")
#: a number as written, or an ordinal ("5th"), with or without a unit after it ("1.9s"), not part of a
#: code or a name ("P1", "MS-3", "Q2"); one joined to another by a hyphen counts apart ("3-1", "1599-1602", "16-game")
_NUMBER = re.compile(r"(?<![A-Za-z])(?<![A-Za-z]-)(?<![\d.,])\d(?:[\d,.]*\d)?(?:st|nd|rd|th)?")


def _numbers(text: str) -> Counter[str]:
    """The numbers ``text`` writes, each as often as written, a day and a month in one form ("4 March",
    "March 4" and "2025-03-04" all ``3/4``, the ISO day's year apart) and a time of day as ``9:03``."""
    found: Counter[str] = Counter()

    def day_month(m: re.Match[str]) -> str:
        month = MONTHS.index((m["m1"] or m["m2"]).lower()) + 1
        found[f"{month}/{int(m['d1'] or m['d2'])}"] += 1
        return " "

    def iso(m: re.Match[str]) -> str:
        found[f"{int(m['m'])}/{int(m['d'])}"] += 1
        found[m["y"]] += 1
        return " "

    def clock(m: re.Match[str]) -> str:
        found[f"{int(m['h'])}:{m['m']}"] += 1
        return " "

    rest = _CLOCK.sub(clock, _DAY_MONTH.sub(day_month, _ISO_DAY.sub(iso, text)))
    found.update(n.replace(",", "") for n in _NUMBER.findall(rest))
    return found


def can_disagree(a: str, b: str) -> bool:
    """Whether two sentences differ in something that can make them disagree: values of one kind
    that share nothing (durations, counts of one thing, days, years, times of day), a number each
    gives that the other does not (counted as often as written), or a different number of negations.
    A model's contradiction between two sentences that differ in none of these ("146 volunteers gave 9,870 hours in 2024/25." /
    "146 volunteers gave 9,870 hours of their time.": one adds a year; two attendance lists, one a
    name longer) is its reading of the detail one adds, not a disagreement: the trained checker gave
    those P(contradicted) 0.88 and 0.72 while two real disagreements ("optional" / "mandatory",
    "removed at cancellation" / "available for 30 days after") got 0.03 and 0.04, which the rules
    catch."""
    negations = [sum(t in NEGATIONS for t in tokenize(text)) for text in (a, b)]
    if negations[0] != negations[1]:  # "released without…" / "not released without…"
        return True
    qa, qb = quantities(a), quantities(b)
    if any(not shared_values(qa[u], qb[u]) for u in qa.keys() & qb.keys()):
        return True
    ca, cb = counts(a), counts(b)
    if any(not shared_values(set(ca[n]), set(cb[n])) for n in ca.keys() & cb.keys()):
        return True
    da, db = dates_by_kind(a), dates_by_kind(b)
    if any(not da[k] & db[k] for k in da.keys() & db.keys()):
        return True
    ta, tb = {t for t, _, _ in clock_times(a)}, {t for t, _, _ in clock_times(b)}
    if ta and tb and not ta & tb:
        return True
    # as many times as written: "The 1820 election took place on April 3, 1820." / "The 1827 election took place on April 3, 1820."
    na, nb = _numbers(a), _numbers(b)
    return bool(na - nb) and bool(nb - na)


def rule_conflict(a: str, b: str) -> tuple[str, str] | None:
    """``(kind, detail)`` when claims ``a`` and ``b`` share their subject and state different values,
    or are related and time the same thing differently against one event. A value a sentence says it
    replaced ("instead of 30 days") is not one of its values."""
    if len(content_words(a) & content_words(b)) >= 2 and not _different_things(a, b):
        replaced = (
            _stated_the_replaced(a, b) or _stated_the_replaced(b, a) or _stated_the_changed_day(a, b) or _stated_the_changed_day(b, a)
        )
        if replaced:
            return replaced
    a, b = _current(a), _current(b)
    wa, wb = content_words(a), content_words(b)
    timing = _timing(a, b, wa, wb)
    if not _same_subject(wa, wb):
        return (
            timing
            or _related_values(a, b, wa, wb)
            or _free_against_price(a, b, wa, wb)
            or _framed_values(a, b, wa, wb)
            or _opposite_words(a, b, wa, wb)
            or _open_against_closed(a, b)
        )
    if _names(a) - _names(b) and _names(b) - _names(a):
        return None  # each names something the other does not ("Quarter: Q2 2025; …" / "Quarter: Q1 2025; …")
    qa, qb = quantities(a), quantities(b)
    for unit in sorted(qa.keys() & qb.keys()):
        if not shared_values(qa[unit], qb[unit]):
            return "number", f"{said_values(a, unit)} vs {said_values(b, unit)}"
    ca, cb = counts(a), counts(b)
    for noun in sorted(ca.keys() & cb.keys()):  # "up to 15 items on your card" / "up to 20 items on an adult card"
        if not shared_values(set(ca[noun]), set(cb[noun])):
            return "number", f"{' or '.join(ca[noun].values())} vs {' or '.join(cb[noun].values())}"
    if timing:
        return timing
    da, db = dates_by_kind(a), dates_by_kind(b)
    # times of day, for the same days or where neither names a day ("open from 8:00 to 18:00 on
    # weekdays" / "…from 9:00 to 17:00 on weekdays"); hours for other days are no disagreement
    days_a, days_b = da.get("weekday", set()), db.get("weekday", set())
    times_a, times_b = {t for t, _, _ in clock_times(a)}, {t for t, _, _ in clock_times(b)}
    if times_a and times_b and not times_a & times_b and (days_a & days_b or not (days_a or days_b)):
        return "time", f"{_clock_said(a)} vs {_clock_said(b)}"
    hours = bool(times_a and times_b) and _opening(a) and _opening(b)
    for kind in ("day", "month", "year", "weekday"):
        if kind == "weekday" and hours:
            continue  # opening hours for other days ("9:00–17:00 on weekdays" / "10:00–14:00 on Saturdays")
        if kind in da and kind in db and not da[kind] & db[kind]:
            return "date", f"{' or '.join(sorted(da[kind]))} vs {' or '.join(sorted(db[kind]))}"
    na, nb = has_negation(tokenize(a)), has_negation(tokenize(b))
    if na != nb:
        return "polarity", "negated in one, not in the other"
    return _free_against_price(a, b, wa, wb) or _opposite_words(a, b, wa, wb) or _open_against_closed(a, b)


#: words that make times of day a place's opening hours
_OPENING = frozenset({"open", "opens", "opening", "closes", "closing"})


def _opening(text: str) -> bool:
    """``text`` says a word of opening: with a time of day, it gives opening hours ("open 9:00–17:00 on
    weekdays", "opens at 9:00 on Mondays"), and hours for one day say nothing of another's."""
    return bool(_OPENING & set(tokenize(text)))


def _clock_said(text: str) -> str:
    """The times of day ``text`` gives, as it writes them."""
    return " and ".join(text[start:end] for _, start, end in clock_times(text))


def _open_against_closed(a: str, b: str) -> tuple[str, str] | None:
    """One says its subject is closed on a day, the other that the same subject is open on it, among
    the days it gives hours for ("Central Library is closed on Sundays." / "Central Library is open
    Monday to Friday 9:00–20:00 and Sunday 12:00–16:00."): the two words are opposites, but the
    rest of the two sentences differs, so the one-word rule does not see it. The same subject: the
    same subject words (:func:`_subject_words`) and the same names (a day is none); and neither says
    both words ("closed on Mondays, even when the rest of the building is open")."""
    for x, y in ((a, b), (b, a)):
        tx, ty = set(tokenize(x)), set(tokenize(y))
        if not ("closed" in tx and "open" not in tx and "open" in ty and "closed" not in ty):
            continue
        if has_negation(list(tx)) or has_negation(list(ty)):
            return None
        sx, sy = _subject_words(x), _subject_words(y)
        if not sx or sx != sy or _names(x) != _names(y):
            return None
        days = dates_by_kind(x).get("weekday", set()) & dates_by_kind(y).get("weekday", set())
        if days:
            return "opposite", f"closed vs open on {' and '.join(sorted(days))}"
    return None


def _opposite_words(a: str, b: str, wa: frozenset[str], wb: frozenset[str]) -> tuple[str, str] | None:
    """The same statement but for one word and its opposite ("The library is open on Sundays" / "…is
    closed on Sundays", "paid at the higher rate" / "…the lower rate"): each says one of the two and
    not the other, and, the two words set aside, both have the same content words (two at least) and
    name no different things (:data:`~citegraph.verify.text.OPPOSITES`)."""
    ta, tb = set(tokenize(a)), set(tokenize(b))
    # the days they name count with their words: "open on Sundays" / "closed on Sundays"
    said_a = wa | {singular(t) for t in ta if singular(t) in _WEEKDAYS}
    said_b = wb | {singular(t) for t in tb if singular(t) in _WEEKDAYS}
    for x in sorted(ta - tb):
        for y in sorted(OPPOSITES.get(x, frozenset()) & (tb - ta)):
            rest = said_a - {x, y}
            if len(rest) >= 2 and rest == said_b - {x, y} and not _different_things(a, b):
                return "opposite", f"{x} vs {y}"
    return None


@lru_cache(maxsize=4096)
def _lemmas(text: str) -> dict[str, str]:
    """Each word of ``text`` (case folded) -> its lemma, from spaCy's parse ("deleted" -> "delete")."""
    return {t.lower_: t.lemma_.casefold() for t in parse(text) if t.is_alpha}


def _lemmatised(text: str, words: frozenset[str]) -> frozenset[str]:
    table = _lemmas(text)
    return frozenset(table.get(w, w) for w in words)


def _related_values(a: str, b: str, wa: frozenset[str], wb: frozenset[str]) -> tuple[str, str] | None:
    """Sentences sharing :data:`_SHARED_FOR_VALUES` content words (not one inside the other; each
    word by its lemma, so "delete" is "Deleted") that name no different things and, related, give
    values of one dimension none of which agree, or give opposite obligations (a strong enough sign
    on its own: "optional" / "mandatory")."""
    wa, wb = _lemmatised(a, wa), _lemmatised(b, wb)
    if len(wa & wb) < _SHARED_FOR_VALUES or _different_things(a, b):
        return None
    qa, qb = quantities(a), quantities(b)
    for unit in sorted(qa.keys() & qb.keys()) if _related(wa, wb) else ():
        if not shared_values(qa[unit], qb[unit]):
            return "number", f"{said_values(a, unit)} vs {said_values(b, unit)}"
    oa = _obligation({t.casefold() for t in tokenize(a)})
    ob = _obligation({t.casefold() for t in tokenize(b)})
    if oa and ob and oa != ob:
        return "modality", f"{oa} vs {ob}"
    return None


def _one_thing_two_words(a: str, b: str, wa: frozenset[str], wb: frozenset[str]) -> bool:
    """``a`` and ``b`` share two content words (each by its lemma: "Bikes" is "Bike") and name no
    different things: the condition under which a value said alike (:func:`_framed_values`) or a
    thing said free against its price (:func:`_free_against_price`) is a disagreement."""
    return len(_lemmatised(a, wa) & _lemmatised(b, wb)) >= 2 and not _different_things(a, b)


def _value_frames(text: str) -> dict[tuple[str, str], set[float]]:
    """``text``'s values by dimension and the two words said after them ("two days a week" ->
    ``("duration", "a week")``: 2 days): what a value measures, where the sentence says it."""
    tokens = tokenize(text)
    out: dict[tuple[str, str], set[float]] = {}
    for dimension, base, _value, _unit, _i, j in measured(text):
        after = tokens[j : j + 2] if j >= 0 else []
        if len(after) == 2 and all(w.isalpha() for w in after):
            out.setdefault((dimension, " ".join(after)), set()).add(base)
    return out


def _framed_values(a: str, b: str, wa: frozenset[str], wb: frozenset[str]) -> tuple[str, str] | None:
    """Sentences sharing two content words (each by its lemma) that name no different things and give
    values of one dimension in the same words ("…work from home up to two days a week" / "…you may
    work from home for up to three days a week"), none of which agree."""
    if not _one_thing_two_words(a, b, wa, wb):
        return None
    fa, fb = _value_frames(a), _value_frames(b)
    for key in sorted(fa.keys() & fb.keys()):
        if not shared_values(fa[key], fb[key]):
            return "number", f"{said_values(a, key[0])} vs {said_values(b, key[0])}"
    return None


#: a thing said to cost nothing: "Bikes travel free", "free of charge", "at no extra cost", "for free"
#: (not a "free trial", "free time", "free to choose")
_COSTLESS = re.compile(
    r"\b(?:free of charge|at no (?:extra |additional )?(?:cost|charge)|no charge|without charge|for free|costs? nothing"
    r"|(?:is|are|was|were|be|go|goes|travel|travels|ride|rides|come|comes|stays?|remains?)\s+free\b(?!\s+(?:trials?|time|to|of)\b))",
    re.IGNORECASE,
)
_MONEY = frozenset({"usd", "eur", "gbp"})


def _free_against_price(a: str, b: str, wa: frozenset[str], wb: frozenset[str]) -> tuple[str, str] | None:
    """One sentence says a thing costs nothing and gives no price ("Bikes travel free on all routes"),
    the other gives it a price ("Route: Kelso Quay – Marr Island; … Bike: £1.50"): two content words
    shared (each by its lemma: "Bikes" is "Bike") and no different things named."""
    if not _one_thing_two_words(a, b, wa, wb):
        return None
    for free, priced in ((a, b), (b, a)):
        money = sorted(quantities(priced).keys() & _MONEY)
        if money and _COSTLESS.search(free) and not quantities(free).keys() & _MONEY:
            return "number", f"free vs {said_values(priced, money[0])}"
    return None


def find_conflicts(
    claims: Sequence[str],
    verifier: Verifier,
    *,
    judge: Sequence[bool] | None = None,
    sources: Sequence[str] | None = None,
    among: Sequence[bool] | None = None,
    threshold: float = 0.5,
) -> ConflictCheck:
    """Pairs of ``claims`` that conflict, by rule, then by the verifier's judge for related pairs
    that do not each name something the other does not (two rows of a table, two offices: different
    things, whatever the model makes of their values). Two messages of a log stamped with different
    times are never compared: each says what held when it was written.

    ``judge[i]`` says whether claim ``i`` may be put to the judge (the caller passes the claims the
    answer stands on); by default every claim may. With ``sources`` (each text's document), only
    texts of different documents are compared, and a model is asked only in its fast form
    (:meth:`Verifier.contradictions` ``fast``): a whole context has many pairs. A model's
    P(contradiction) at or above ``threshold`` is a conflict. With ``among``, a pair is compared only
    when one of its two texts is marked.
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
            if len(words[i] & words[j]) < 2 or (sources is not None and sources[i] == sources[j]):
                continue
            if among is not None and not (among[i] or among[j]):
                continue
            if _said_apart(compared[i], compared[j]):
                continue
            found = rule_conflict(compared[i], compared[j])
            if found:
                conflicts.append(Conflict(i, j, *found))
            elif (
                _related(words[i], words[j])
                and not _different_things(compared[i], compared[j])
                and (judge is None or (judge[i] and judge[j]))
            ):
                to_judge.append((i, j))
    if len(to_judge) > MAX_JUDGED_PAIRS:
        incomplete.append(f"only {MAX_JUDGED_PAIRS} of {len(to_judge)} related claim pairs were put to the judge")
        to_judge = to_judge[:MAX_JUDGED_PAIRS]
    if to_judge:
        checks = verifier.contradictions([(compared[i], compared[j]) for i, j in to_judge], fast=sources is not None)
        if len(checks) != len(to_judge):
            raise RuntimeError(f"{verifier.name}: contradictions returned {len(checks)} answers for {len(to_judge)} pairs")
        for (i, j), check in zip(to_judge, checks, strict=True):
            if check.note:
                incomplete.append(f"claims {i + 1} and {j + 1}: {check.note}")
            elif (
                check.contradiction is not None
                and check.contradiction >= threshold
                and (check.by != "checker" or can_disagree(compared[i], compared[j]))
            ):
                conflicts.append(
                    Conflict(i, j, check.by, f"the {check.by} finds them contradictory (p={check.contradiction:.2f})", check.contradiction)
                )
    conflicts.sort(key=lambda c: (c.first, c.second))
    return ConflictCheck(tuple(conflicts), tuple(incomplete))
