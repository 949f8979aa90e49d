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
  sentence gives ("from 1968 to 1982") is no conflict. Values are compared in their dimension
  (:func:`citegraph.verify.text.quantities`): "a month" is "30 days", "12 months" is "a year". The
  same thing put at another moment relative to the same event is a ``timing`` conflict ("removed at
  cancellation" / "available for 30 days after cancellation"), unless the cited text also states the
  claim's moment. A negated predicate is the first content word
  after "not", "n't", "never", "cannot" or "no longer" (past auxiliaries); "not only" and "no" prove nothing.
  The claim that is a cited sentence (or a run of its words) word for word but for one word put for its
  opposite ("our largest branch" of "our smallest branch", "before" of "after") or one number for
  another ("12 yards by 6 yards" of "6 yards by 6 yards", where the unit's other value hides the change)
  is an ``opposite`` or ``number`` conflict: the trained checker read 53 of 60 such swaps in the
  development corpora as supported, and the rule fired on none of 61,388 pairs of HaluEval, HotpotQA
  and AttributionBench. A
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

* **one word apart**, which overrules as well: the claim that is a cited sentence but for one name put
  for another the text names elsewhere (``other_name``, "Colin Hart chairs the Board" of "Helen Okafor
  chairs the Board; Colin Hart is its treasurer"), and an attribution to a person the text never names
  (``attribution``, "According to Sarah Whitfield, …"), are ``not_supported``, not ``contradicted``: the
  text does not say it, and need not deny it. "Not possible / allowed / able to VERB" negates the verb.

All are pure functions of the two texts (regular expressions; a parse only for a claim that attributes
itself to someone): about 0.3 ms per pair.

Why this file is long (about 500 lines): every proof the guards give (values, dates, timing,
negation, a word put for its opposite) and the quote tests the cascade asks before any model
(whole, clause, near-quote, a moved attribution) read the same tokens the same way; split apart,
they would each need the others' helpers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from citegraph.verify.moments import moments, show_moment
from citegraph.verify.text import (
    DATE_KINDS,
    DAYS,
    DIMENSIONS,
    FUNCTION_WORDS,
    MONTHS,
    OPPOSITES,
    QUANTIFIER_WORDS,
    QUANTIFIERS,
    TOKEN,
    VALUE_WORDS,
    YEAR,
    clock_spans,
    clock_times,
    content_words,
    date_matches,
    dates_by_kind,
    has_negation,
    has_phrase,
    numbers_in,
    premise_sentences,
    quantities,
    quoted_sentences,
    related,
    run_of,
    said_numbers,
    said_values,
    same_value,
    shared_values,
    singular,
    spelled_number,
    tokenize,
    written_sentences,
)

__all__ = [
    "NOT_PROVEN_FALSE",
    "Guard",
    "check_guards",
    "conflicts",
    "is_attributed_quote",
    "is_clause_quote",
    "is_near_quote",
    "is_whole_quote",
    "moment_conflict",
    "overruling",
    "signals",
    "unnamed_attribution",
    "unrelated",
]


@dataclass(frozen=True)
class Guard:
    code: str  #: ``number`` | ``date`` | ``timing`` | ``negation`` | ``opposite`` | ``quantifier`` | ``unrelated`` | ``attribution`` | ``other_name``
    detail: str
    overrules: bool = False  #: proven (a conflict, or an unrelated text): ``not_supported`` whatever a model says

    def __str__(self) -> str:
        if self.overrules and self.code not in NOT_PROVEN_FALSE:
            return f"{self.code} conflict: {self.detail}"
        return f"{self.code}: {self.detail}"


#: proofs that the cited text does not support a claim, without stating anything against it: ``not_supported``, not ``contradicted``
NOT_PROVEN_FALSE = frozenset({"unrelated", "attribution", "other_name"})

_NEAR = 2  #: tokens either side of a date that say what it is the date of


def _date_contexts(text: str) -> dict[tuple[str, str], set[str]]:
    """For each ``(kind, value)`` date of ``text``, the content words within :data:`_NEAR` tokens of it:
    what the date is the date of ("born in 1950", "the 1963 novel")."""
    tokens = [(m.start(), m.end(), m.group().lower()) for m in TOKEN.finditer(text.replace("’", "'"))]
    out: dict[tuple[str, str], set[str]] = {}
    for kind, value, start, end in date_matches(text):
        inside = [i for i, (s, e, _) in enumerate(tokens) if s < end and e > start]
        if not inside:
            continue
        near = tokens[max(inside[0] - _NEAR, 0) : inside[-1] + _NEAR + 1]
        out.setdefault((kind, value), set()).update(content_words(" ".join(t for _, _, t in near)))
    return out


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
        token in FUNCTION_WORDS
        or token in VALUE_WORDS
        or token in QUANTIFIER_WORDS
        or token in _SKIPPED
        or token[0].isdigit()
        or len(token) < 3
    )


#: words that say whether something can be done: negated, they negate the verb after "to"
_MODAL_ADJECTIVES = frozenset({"possible", "allowed", "permitted", "able"})


def _predicates(tokens: list[str]) -> tuple[set[str], set[str]]:
    """(stems this text negates, stems it states without a negation before them). A negator's
    predicate is the first word after it, past auxiliaries and articles, if that is a content word."""
    negated: set[str] = set()
    claimed: set[int] = set()
    for i, tok in enumerate(tokens):
        # "no longer" scopes over its predicate as "not" does ("no longer opens"); "no" alone does not
        if tok not in _SCOPING_NEGATORS and not (tok == "no" and i + 1 < len(tokens) and tokens[i + 1] == "longer"):
            continue
        for j in range(i + 1, min(i + 1 + _SCOPE, len(tokens))):
            if tokens[j] in _SKIPPED:
                continue
            if tokens[j] not in _NOT_NEGATING and _content(tokens[j]):
                negated.add(_stem(tokens[j]))
                claimed.add(j)
                # "not possible to renew", "not allowed to park": the verb after is what is negated too
                k = j + 2
                if tokens[j] in _MODAL_ADJECTIVES and k < len(tokens) and tokens[j + 1] == "to" and _content(tokens[k]):
                    negated.add(_stem(tokens[k]))
                    claimed.add(k)
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
        n, pl = _predicates(tokenize(clause))
        negated |= n
        plain |= pl
    return negated, plain


def _year_in_range(year: str, sentence: str) -> bool:
    """A sentence that gives two years or more ("from 1968 to 1982") covers the years between them."""
    years = [int(y) for y in YEAR.findall(sentence)]
    return len(years) >= 2 and min(years) <= int(year) <= max(years)


def moment_conflict(a: dict[str, set[float]], b: dict[str, set[float]]) -> tuple[str, float, float] | None:
    """An event both texts time things by, at offsets of which none agree: ``(event, offset in a,
    offset in b)`` ("at cancellation" against "30 days after cancellation")."""
    for anchor in sorted(a.keys() & b.keys()):
        if not any(same_value(x, y) or x == y for x in a[anchor] for y in b[anchor]):
            return anchor, min(a[anchor]), min(b[anchor])
    return None


def _timing(claim: str, sentences: list[str], premise: str) -> list[Guard]:
    """The claim puts its subject at another moment relative to an event than a related sentence of
    the cited text does ("removed at cancellation" / "available for 30 days after cancellation")."""
    mine = moments(claim)
    if not mine or any(not moment_conflict(mine, {k: v}) for k, v in moments(premise).items() if k in mine):
        return []
    for sentence in sentences:
        found = moment_conflict(mine, moments(sentence))
        if found:
            anchor, said, other = found
            detail = f"the claim says {show_moment(said, anchor)}, the cited text {show_moment(other, anchor)}"
            return [Guard("timing", detail, overrules=True)]
    return []


def conflicts(claim: str, premise: str) -> list[Guard]:
    """What ``premise`` states differently about the subject of ``claim``: the guards that overrule."""
    claim_words = content_words(claim)
    if len(claim_words) < 2:
        return []
    every = premise_sentences(premise)
    sentences = [s for s in every if related(claim_words, content_words(s))]
    if not sentences:
        # a claim of several sentences (a chat message) is related to no one of them: it can still be
        # the cited text with one word put for its opposite
        opposite = _one_apart(claim, [*every, premise])
        return [opposite] if opposite else []
    found: list[Guard] = []
    bare = {v for v, u in numbers_in(tokenize(premise)) if u is None}  # numbers the cited text gives without a unit
    premise_quantities = quantities(premise)
    for unit, values in sorted(quantities(claim).items()):
        # the same value in any unit of the dimension ("a month" for "30 days"), or the number said bare
        if shared_values(values, premise_quantities.get(unit, set())) or said_numbers(claim, unit) & bare:
            continue
        stating = [s for s in sentences if unit in quantities(s)]
        if stating:
            other = " or ".join(dict.fromkeys(said_values(s, unit) for s in stating))
            found.append(Guard("number", f"the claim says {said_values(claim, unit)}, the cited text {other}", overrules=True))
    if not found:
        found.extend(_timing(claim, sentences, premise))
    premise_dates = dates_by_kind(premise)
    claim_dates = _date_contexts(claim)
    for kind in DATE_KINDS:
        dates = {v for k, v in claim_dates if k == kind}
        stated = premise_dates.get(kind, set())
        # a day of the week must be one the cited text says (a claim's "Wednesday" is inside its "Monday
        # to Friday"; its "Wednesdays and Thursdays" not inside "Tuesdays and Thursdays")
        said = dates <= stated if kind == "weekday" else bool(dates & stated)
        if not dates or said or (kind == "year" and any(d in premise for d in dates)):
            continue
        if kind == "weekday":
            dates -= stated
        # Another date of the same kind, for the same thing: a content word next to the claim's date is next
        # to it; a day with no content word beside it ("every Saturday at 10:30") is that of a related sentence.
        near = set().union(*(claim_dates[kind, d] for d in dates))
        others = {
            v
            for s in sentences
            if not (kind == "year" and any(_year_in_range(d, s) for d in dates))
            for (k, v), words in _date_contexts(s).items()
            if k == kind and (words & near or (kind == "weekday" and not near))
        }
        if others:
            found.append(
                Guard("date", f"the claim says {' or '.join(sorted(dates))}, the cited text {' or '.join(sorted(others))}", overrules=True)
            )
    found.extend(_other_time(claim, sentences, premise))
    found.extend(_other_version(claim, sentences, premise))
    claim_tokens = tokenize(claim)
    claim_negated, claim_plain = _clause_predicates(claim)
    premise_negated = _clause_predicates(premise)[0]
    by_sentence = [(_clause_predicates(s), has_negation(tokenize(s))) for s in sentences]
    # The claim negates a predicate that a related sentence states plainly (and the premise nowhere negates).
    plain_there = [stem for stem in sorted(claim_negated - premise_negated) if any(stem in pl and not neg for (_, pl), neg in by_sentence)]
    # The claim states plainly what a related sentence negates.
    negated_there = (
        [] if has_negation(claim_tokens) else [stem for stem in sorted(claim_plain) if any(stem in ng for (ng, _), _ in by_sentence)]
    )
    if plain_there:
        found.append(Guard("negation", f"the claim negates '{plain_there[0]}…', the cited text states it", overrules=True))
    elif negated_there:
        found.append(Guard("negation", f"the cited text negates '{negated_there[0]}…', the claim does not", overrules=True))
    else:
        flipped = next((f for f in (_one_negator_apart(claim_tokens, tokenize(s)) for s in sentences) if f), None)
        if flipped:
            found.append(Guard("negation", flipped, overrules=True))
    opposite = _one_apart(claim, [*sentences, premise])
    if opposite and not any(g.code == opposite.code for g in found):
        found.append(opposite)
    return found


_NEGATORS = frozenset({"not", "n't", "never"})


def _one_apart(claim: str, texts: list[str]) -> Guard | None:
    """The conflict of the first of ``texts`` the claim is one opposite word (``opposite``), one number
    (``number``) or one name (``other_name``: not supported, not contradicted, as "Hardwicke directed
    Twilight" is by "Hardwicke directed Red Riding Hood") apart from (:func:`_one_opposite_apart`)."""
    mine = tokenize(claim)
    premise = texts[-1] if texts else ""

    def names() -> set[str]:
        # a name the cited text never mentions is the parse's proof (roles.substituted_name); here, one
        # it mentions in another place ("Colin Hart is its treasurer"). Read only when a name is swapped.
        return (_names_in(claim) | _names_in(premise)) & set(tokenize(premise))

    for text in texts:
        found = _one_opposite_apart(mine, tokenize(text), names)
        if found is not None:
            return Guard(*found, overrules=True)
    return None


#: release numbers, dotted twice or more, in running text or as one token ("4.12.1", "v2.0.3"; not "4.12",
#: a number, nor the "4.12" of "4.12.1"): no number to the number reader
_VERSIONS = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){2,}(?!\.?\d|\w)")
#: words that say "all of them" in place of the "only …" they replace
_EVERYONE = frozenset("all every everyone everybody anyone anybody any everything".split())
#: what may stand before a name and is none itself ("Ms Okafor" is "Helen Okafor")
_TITLES = frozenset("mr mrs ms miss dr prof sir dame lord lady cllr rev st".split())


def _names_in(text: str) -> set[str]:
    """The words (case folded) that ``text`` writes as a name: a run of capitalised words of which one
    stands past a sentence's first word ("Helen Okafor", "Colin Hart" after a semicolon; not "Managers"
    opening a sentence)."""
    names: set[str] = set()
    for m in re.finditer(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*", text):
        words = m.group().split()
        opening = m.start() == 0 or re.search(r"[.!?:;]\s*$", text[: m.start()]) is not None
        if len(words) > 1 or not opening:
            names |= {singular(w.lower()) for w in words}
    return names


def _one_opposite_apart(claim: list[str], sentence: list[str], names: Callable[[], set[str]] = set) -> tuple[str, str] | None:
    """The claim is the sentence, or its words in order with some left out (none of them a negator),
    word for word but for one word swapped for its opposite ("Millbrook is our largest branch" of
    "Millbrook, on The Green, is our smallest branch", "Before five years of service…" of "After five
    years…"), one number for another, or one name for another that shares no word with it ("Colin Hart
    chairs the Board" of "Helen Okafor chairs the Board; Colin Hart is its treasurer": ``names()`` gives
    the words written as names), or "only …" for "anyone", "all …" ("Anyone can book the room" of "Only
    members can book the room"), or one release number for another ("4.12.2" of "4.12.1"): ``(code,
    what it says)`` (``opposite``, ``number``, ``other_name``, ``widened``), else None. A trained checker reads such a pair as the
    near-identity it almost is (it called 53 of 60 opposite-word swaps in the development corpora supported)."""
    if len(claim) < 4:
        return None
    swapped: tuple[list[str], list[str]] | None = None
    same = 0
    for op, i1, i2, j1, j2 in SequenceMatcher(None, sentence, claim, autojunk=False).get_opcodes():
        if op == "equal":
            same += i2 - i1
            continue
        if op == "delete" and not _NEGATORS & set(sentence[i1:i2]):
            continue
        if op != "replace" or swapped is not None:
            return None
        swapped = (sentence[i1:i2], claim[j1:j2])
    if swapped is None or 2 * same < len(claim):  # the same sentence: most of the claim's words are its words
        return None
    theirs, mine = swapped
    spelled_alike = any(SequenceMatcher(None, a, b).ratio() >= 0.75 for a in theirs for b in mine)  # "Seasmus" for "Seamus"
    if not {*theirs} & {*mine} and not spelled_alike and all(w not in _TITLES for w in [*theirs, *mine]):
        written = names()
        if all(singular(w) in written for w in [*theirs, *mine]):
            # a name for a name, sharing no word: "Colin Hart" is not "Helen Okafor" (but "Ms Okafor" may be)
            return (
                "other_name",
                f"the claim says {' '.join(mine)} where the cited text says {' '.join(theirs)}: the same sentence, another name",
            )
    if "only" in theirs and "only" not in claim and _EVERYONE & {*mine}:
        # "Anyone can book the room" of "Only members can book the room": said of all, where the text says only some
        return (
            "widened",
            f"the claim says '{' '.join(mine)}' where the cited text says '{' '.join(theirs)}': said of all, where the text says only",
        )
    if len(theirs) != 1 or len(mine) != 1:
        return None
    (theirs_word,), (mine_word,) = theirs, mine
    if mine_word in OPPOSITES.get(theirs_word, frozenset()):
        return "opposite", f"the claim says '{mine_word}' where the cited text says '{theirs_word}': the same sentence, the opposite word"
    said, stated = numbers_in([mine_word]), numbers_in([theirs_word])
    short, long = sorted((mine_word, theirs_word), key=len)
    doubled = len(long) % len(short) == 0 and short * (len(long) // len(short)) == long  # "20082008": a glitch, not a value
    if said and stated and said[0][0] != stated[0][0] and not doubled:
        # "usually 12 yards by 6 yards" of "usually 6 yards by 6 yards": the unit's other value is still there
        return "number", f"the claim says {mine_word} where the cited text says {theirs_word}: the same sentence, another number"
    if _VERSIONS.fullmatch(mine_word) and _VERSIONS.fullmatch(theirs_word):  # "4.12.2" of "4.12.1": no number, another release
        return "number", f"the claim says {mine_word} where the cited text says {theirs_word}: the same sentence, another version"
    return None


def _one_negator_apart(claim: list[str], sentence: list[str]) -> str | None:
    """The claim is the sentence word for word but for one "not", "n't" or "never" put in or taken out
    ("It is just the cost…" of "It is not just the cost…", which the predicate rule reads as asserting
    "just the cost"): what it says, else None."""
    if abs(len(claim) - len(sentence)) != 1:
        return None
    longer, shorter = (claim, sentence) if len(claim) > len(sentence) else (sentence, claim)
    i = next((k for k, (a, b) in enumerate(zip(longer, shorter, strict=False)) if a != b), len(shorter))
    if longer[i] not in _NEGATORS or longer[:i] + longer[i + 1 :] != shorter:
        return None
    whose, other = ("claim", "cited text") if longer is claim else ("cited text", "claim")
    return f"the {whose} says '{longer[i]}': the {other} is the same sentence without it"


def _other_time(claim: str, sentences: Sequence[str], premise: str) -> list[Guard]:
    """The claim gives a time of day ("closes at 18:00") that a related sentence gives another of, and
    the cited text nowhere says, nor holds in a span of time ("Monday to Saturday 9:30–17:30"): the
    trained checker read such a pair as the near-identity it almost is. A time inside a span ("open at
    12:00") is said by it."""
    times = [t for t, _, _ in clock_times(claim)]
    stating = {t for s in sentences for t, _, _ in clock_times(s)}  # what the related sentences say instead
    if not times or not stating:
        return []
    said = {t for t, _, _ in clock_times(premise)}
    spans = clock_spans(premise)
    other = [t for t in times if t not in said and not any(a <= t <= b or a <= t + 24 * 60 <= b for a, b in spans)]
    if not other:
        return []

    def shown(minutes: Collection[int]) -> str:
        return " or ".join(f"{m // 60 % 24:02d}:{m % 60:02d}" for m in sorted(set(minutes)))

    return [Guard("time", f"the claim says {shown(other)}, the cited text {shown(stating)}", overrules=True)]


def _other_version(claim: str, sentences: Sequence[str], premise: str) -> list[Guard]:
    """The claim names a release ("fixed in 4.12.2") that the cited text nowhere names, where a related
    sentence names another ("…was fixed in 4.12.0"): a release number is no number to the number
    guard, and the checker reads the near-identity."""
    other = {v.lstrip("v") for v in _VERSIONS.findall(claim.lower())} - {v.lstrip("v") for v in _VERSIONS.findall(premise.lower())}
    stating = {v.lstrip("v") for s in sentences for v in _VERSIONS.findall(s.lower())}
    if not other or not stating:
        return []
    return [Guard("number", f"the claim says {' or '.join(sorted(other))}, the cited text {' or '.join(sorted(stating))}", overrules=True)]


def signals(claim: str, premise: str) -> list[Guard]:
    """Every number (with its unit), date word, negation and strong quantifier of ``claim`` that
    ``premise`` does not repeat: reported, weighed by the screen, never a verdict by itself."""
    c, p = tokenize(claim), tokenize(premise)
    fired: list[Guard] = []
    premise_numbers = numbers_in(p)
    premise_quantities = quantities(premise)
    for value, unit in numbers_in(c):
        if unit and unit in DIMENSIONS:  # said in another unit of its dimension ("12 months" for "a year")
            dimension, size = DIMENSIONS[unit]
            if shared_values({value * size}, premise_quantities.get(dimension, set())):
                continue
        same = [u for v, u in premise_numbers if v == value]
        shown = f"{value:g}" + (f" {unit}" if unit else "")
        if not same:
            fired.append(Guard("number", f"{shown} is not in the cited text"))
        elif unit and unit not in same and any(u for u in same):
            fired.append(Guard("number", f"{shown} appears with another unit ({', '.join(sorted({u for u in same if u}))})"))
    days_said = {d.lower() for d in dates_by_kind(premise).get("weekday", ())}  # each day of "Monday to Friday", "weekdays"
    for word in [*MONTHS, *DAYS]:
        if word in c and word not in p and word not in days_said:
            fired.append(Guard("date", f"{word} is not in the cited text"))
    if has_negation(c) != has_negation(p):
        fired.append(
            Guard(
                "negation",
                "the claim is negated and the cited text is not" if has_negation(c) else "the cited text is negated and the claim is not",
            )
        )
    for quantifier in QUANTIFIERS:
        if has_phrase(c, quantifier) and not has_phrase(p, quantifier):
            fired.append(Guard("quantifier", f"'{quantifier}' is not in the cited text"))
    return fired


def unrelated(claim: str, premise: str) -> list[Guard]:
    """The claim states a number; the cited text states none and shares not one content word with the
    claim. It is about something else and cannot give the claim's value ("Exports stay available for 30
    days" citing "Cancelling ends billing at the end of the period."): proven, it overrules."""
    claim_numbers = numbers_in(tokenize(claim))
    if not claim_numbers or numbers_in(tokenize(premise)) or content_words(claim) & content_words(premise):
        return []
    shown = ", ".join(dict.fromkeys(f"{v:g}" + (f" {u}" if u else "") for v, u in claim_numbers))
    return [Guard("unrelated", f"the claim states {shown}; the cited text states no number and shares no word with it", overrules=True)]


def unnamed_attribution(claim: str, premise: str) -> list[Guard]:
    """The claim puts an attribution to a person around what it says ("According to Sarah Whitfield,
    …", "…, Sarah Whitfield said.") and the cited text never names that person: whatever the rest, the
    text does not say that she said it. Overrules, as ``not_supported``. (An attribution that names no
    one the text leaves out, "According to the travel guide, …", is the claim's way of citing: see
    :func:`is_attributed_quote`.) Claims that add other names, numbers or clauses to a whole cited
    sentence were tried as a proof too and not kept: on the shared data's human-labelled answers most
    of them were labelled supported (docs/results/2026-12-07/opposite-words/)."""
    text = claim.strip()
    found = _HEAD_ATTRIBUTION.match(text) or _TAIL_ATTRIBUTION.match(text)
    if found is None or len(written_sentences(text)) > 1:  # a summary's "…, say CNN's Carol Costello" ends its last sentence only
        return []
    frame = text[: found.start("body")] + text[found.end("body") :]
    theirs = set(tokenize(premise))
    if not set(tokenize(frame)) - theirs:
        return []
    from citegraph.verify.assertion import parse  # a parse only for a claim that attributes itself

    people = [t.text for t in parse(frame) if t.ent_type_ == "PERSON" and t.lower_ not in theirs]
    if not people:
        return []
    return [Guard("attribution", f"the claim attributes itself to {' '.join(people)}, whom the cited text never names", overrules=True)]


def overruling(claim: str, premise: str) -> list[Guard]:
    """The guards that overrule: value conflicts, a text unrelated to a claim that states a number, and
    an attribution to a person the text never names."""
    found = [*conflicts(claim, premise), *unrelated(claim, premise)]
    return found or unnamed_attribution(claim, premise)


def check_guards(claim: str, premise: str) -> list[Guard]:
    """The guards that fire for ``claim`` against ``premise``, the overruling ones first; a signal of a
    kind a conflict already proves is left out (empty: nothing inconsistent found)."""
    proven = overruling(claim, premise)
    codes = {g.code for g in proven}
    return [*proven, *(g for g in signals(claim, premise) if g.code not in codes)]


_STOP = frozenset("a an the of to in on at for by with and or is are was were be been it its this that these those as from".split())


def is_near_quote(claim: str, premise: str) -> bool:
    """Every content word of the claim occurs in the premise, in the same order (a quote, trimmed)."""
    words = [singular(t) for t in tokenize(claim) if t not in _STOP]
    if not words:
        return False
    premise_words = [singular(t) for t in tokenize(premise)]
    at = 0
    for word in words:
        try:
            at = premise_words.index(word, at) + 1
        except ValueError:
            return False
    return True


# Where a sentence's clauses meet: a semicolon or colon, a comma (with a conjunction after it or not),
# or "but", "whereas", "while" between two clauses.
_CLAUSE_JOIN = re.compile(r"\s*[;:]\s*|\s*,\s*(?:(?:and|but|or|so|yet|while|whereas)\s+)?|\s+(?:but|whereas)\s+", re.IGNORECASE)


def _words(text: str) -> list[str]:
    """The words a quote is compared by: a number written in words as its digits ("thirty-two" is "32"),
    so that a sentence quoted with its figures spelled out (or the other way round) is still the sentence."""
    tokens = tokenize(text)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        spelled = spelled_number(tokens, i)
        if spelled is not None:
            out.append(f"{spelled[0]:g}")
            i = spelled[1]
        else:
            out.append(tokens[i])
            i += 1
    return out


def is_whole_quote(claim: str, premise: str) -> bool:
    """The claim is one whole cited sentence, a run of whole consecutive ones, or the whole cited text,
    word for word (case and punctuation aside): what its document states as it stands, however the
    parser reads it."""
    words = _words(claim)
    return bool(words) and (
        _words(premise) == words
        or bool(quoted_sentences(claim, premise_sentences(premise)))
        or bool(quoted_sentences(claim, list(written_sentences(premise))))  # a sentence opening in lower case, a chat's
    )


#: the verbs of an attribution ("the report said", "police reported")
_SPEECH = frozenset(
    "said says reported reports stated states added adds wrote writes claimed claims announced announces noted notes".split()
)
# An attribution at a sentence's end: "…, the report said." / "…, according to police." / "…, she told reporters."
_TAIL_ATTRIBUTION = re.compile(
    rf"^(?P<body>.+?),\s+(?P<frame>according to [^,]{{1,60}}|[^,]{{1,60}}?\s+(?:{'|'.join(sorted(_SPEECH))}|told [^,\s]+))[.!]?$",
    re.IGNORECASE | re.DOTALL,
)


def _head_first(text: str) -> list[str]:
    """The words of ``text`` with an attribution at its end moved to its head ("X, the report said." ->
    "the report said X"), its own words when it has none."""
    found = _TAIL_ATTRIBUTION.match(text.strip())
    if found:
        return _words(found["frame"]) + _words(found["body"])
    return _words(text)


def is_moved_attribution(claim: str, premise: str) -> bool:
    """The claim is a cited sentence with its attribution moved, kept whole: "X, the report said." of
    "The report said that X." (or the other way round), word for word but for that "that"."""
    mine = _without_that(_head_first(claim))
    as_written = _without_that(_words(claim))
    for sentence in premise_sentences(premise):
        theirs = _head_first(sentence)
        moved = mine != as_written or theirs != _words(sentence)  # one of them ends in it
        if moved and mine == _without_that(theirs):
            return True
    return False


#: an attribution at a claim's head: "According to the travel guide, …", "As the handbook says, …"
_HEAD_ATTRIBUTION = re.compile(
    rf"^\s*(?:according to [^,]{{1,60}}|as [^,]{{1,60}}?\s+(?:{'|'.join(sorted(_SPEECH))}|puts it|explains)),\s*(?P<body>.+)$",
    re.IGNORECASE | re.DOTALL,
)


def is_attributed_quote(claim: str, premise: str) -> bool:
    """The claim is a whole cited sentence with an attribution put around it, the claim's own way of
    citing: "According to the travel guide, full-time employees get 25 days…" of "Full-time employees get
    25 days…", or "…, the handbook says." A person named in the attribution that the cited text does not
    name is proven unsupported before this is asked (:func:`unnamed_attribution`)."""
    found = _HEAD_ATTRIBUTION.match(claim) or _TAIL_ATTRIBUTION.match(claim.strip())
    return found is not None and is_whole_quote(found["body"], premise)


def _without_that(words: list[str]) -> list[str]:
    """The words with the first "that" after a speech verb dropped ("said that X" -> "said X")."""
    for i, w in enumerate(words[:-1]):
        if w == "that" and i and words[i - 1] in _SPEECH:
            return words[:i] + words[i + 1 :]
    return words


def is_clause_quote(claim: str, premise: str) -> bool:
    """The claim is one of the cited sentences, or a run of whole clauses of one (cut where its clauses
    meet: "Marta Ilves designed the engine in 2019" of "Marta Ilves designed the engine in 2019, and
    it entered service in 2021."), word for word (case and punctuation aside)."""
    words = _words(claim)
    if not words:
        return False
    if _words(premise) == words:  # the whole cited text, however a sentence cutter would cut it ("S.H. 91")
        return True
    for sentence in premise_sentences(premise):
        if _words(sentence) == words:
            return True
        if run_of([_words(c) for c in _CLAUSE_JOIN.split(sentence)], words) is not None:
            return True
    return False
