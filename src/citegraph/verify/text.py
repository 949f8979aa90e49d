"""The text helpers of the checks: words, numbers with their units, dates, negation, what a text is
about. Pure functions of a string (regular expressions, no parse), shared by the guards
(:mod:`citegraph.verify.guards`), the conflict check between claims, the assertion frames and the
screen's features.

Why this file is long (about 650 lines): it is the one vocabulary of values the checks share (numbers
and their units, sums of money, dates, negators, quantifiers, opposites); each check reading them its
own way is how a claim and its source came to be compared by different rules."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise
from typing import Any

__all__ = [
    "CHANGE",
    "CHANGED_WHAT",
    "CHANGE_VERB",
    "DATE_KINDS",
    "DAYS",
    "FUNCTION_WORDS",
    "MONTHS",
    "NEGATIONS",
    "NUMBER_WORDS",
    "OPPOSITES",
    "QUANTIFIERS",
    "QUANTIFIER_WORDS",
    "TOKEN",
    "UNITS",
    "VALUE_WORDS",
    "YEAR",
    "clock_spans",
    "clock_times",
    "content_words",
    "counts",
    "date_matches",
    "dates_by_kind",
    "has_negation",
    "has_phrase",
    "in_premise_units",
    "in_same_figures",
    "measured",
    "money_kept",
    "numbers_in",
    "premise_sentences",
    "quantities",
    "related",
    "said_numbers",
    "said_values",
    "same_value",
    "segmenter",
    "shared_values",
    "singular",
    "spelled_number",
    "tokenize",
    "written_sentences",
]

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000, "dozen": 12, "single": 1, "once": 1, "twice": 2,
}  # fmt: skip
_TENS = frozenset({"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"})
_ONES = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight", "nine"})
#: the words that spell a count by themselves (zero to ninety); "dozen", "once", "hundred" and the like do not
_COUNT_WORDS = frozenset(w for w, v in NUMBER_WORDS.items() if v < 100 and w not in {"dozen", "single", "once", "twice"})
UNITS = {
    "second", "minute", "hour", "day", "week", "month", "year", "decade", "century", "percent", "%", "gb", "mb", "tb", "kb",
    "user", "seat", "dollar", "euro", "pound", "time", "km", "mile", "kg", "meter", "metre", "fortnight",
    "character", "digit",  # a length a rule states ("at least 14 characters")
}  # fmt: skip
#: Units that convert: the dimension a value is compared in and the unit's size in that dimension's
#: base (days, percent, bytes, metres, kilograms). A month is 30.4375 days and a year 365.25, so that
#: "12 months" is "a year" and "a month" is "30 days" within :data:`TOLERANCE`; "4 weeks" is not.
DIMENSIONS: dict[str, tuple[str, float]] = {
    "second": ("duration", 1 / 86400), "minute": ("duration", 1 / 1440), "hour": ("duration", 1 / 24), "day": ("duration", 1.0),
    "week": ("duration", 7.0), "fortnight": ("duration", 14.0), "month": ("duration", 30.4375), "year": ("duration", 365.25),
    "decade": ("duration", 3652.5), "century": ("duration", 36525.0),
    "percent": ("percent", 1.0), "%": ("percent", 1.0),
    "kb": ("data size", 1e3), "mb": ("data size", 1e6), "gb": ("data size", 1e9), "tb": ("data size", 1e12),
    "meter": ("length", 1.0), "metre": ("length", 1.0), "km": ("length", 1000.0), "mile": ("length", 1609.344),
    "kg": ("mass", 1.0), "dollar": ("usd", 1.0), "euro": ("eur", 1.0),
}  # fmt: skip
TOLERANCE = 0.03  #: two values of one dimension are the same when they differ by at most 3% of the larger
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000, "k": 1000, "m": 1_000_000, "bn": 1_000_000_000}
_SCALE_WORDS = frozenset({"hundred", "thousand", "million", "billion"})
_MONEY = re.compile(r"([$€£])\s?(\d[\d,]*(?:\.\d+)?)(?:\s*(thousand|million|billion|bn|k|m)\b)?", re.IGNORECASE)
_CURRENCY = {"$": "usd", "€": "eur", "£": "gbp"}
#: a price in pence ("10p", "99p"): one or two digits, so a video's "720p" is no price
_PENCE = re.compile(r"(?<![\w.£$€])(\d{1,2})p\b")
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
    """(value, unit) for every number, in digits or words; unit is the next word when it is one. A
    number followed by a scale word is one value ("5 million" is 5,000,000, "two hundred" 200)."""
    return [(value, unit) for value, unit, _i, _j in _numbers_at(tokens)]


def spelled_number(tokens: list[str], i: int) -> tuple[float, int] | None:
    """The count ``tokens[i]`` spells ("seven", "thirty", "twenty five", as "twenty-five" tokenizes),
    and the index after it; None where it spells none (a digit, "dozen", "once", "hundred": not a count word alone)."""
    tok = tokens[i]
    if tok not in _COUNT_WORDS:
        return None
    value = float(NUMBER_WORDS[tok])
    if tok in _TENS and i + 1 < len(tokens) and tokens[i + 1] in _ONES:
        return value + NUMBER_WORDS[tokens[i + 1]], i + 2
    return value, i + 1


def _numbers_at(tokens: list[str]) -> list[tuple[float, str | None, int, int]]:
    """(value, unit, first token, token after the unit) for every number of ``tokens``."""
    out: list[tuple[float, str | None, int, int]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        value: float | None = None
        if tok[0].isdigit():
            try:
                value = float(tok.replace(",", ""))
            except ValueError:
                value = None
        elif tok in NUMBER_WORDS and not (tok == "one" and i + 1 < len(tokens) and tokens[i + 1] in {"of", "another"}):
            value = float(NUMBER_WORDS[tok])
        if value is None:
            i += 1
            continue
        j = i + 1
        if tok in _TENS:  # "twenty-five", "twenty five": one number
            value, j = spelled_number(tokens, i) or (value, j)
        while j < len(tokens) and tokens[j] in _SCALE_WORDS:  # "5 m" is five metres: k/m/bn only after a currency sign
            value *= _SCALES[tokens[j]]
            j += 1
        unit = singular(tokens[j]) if j < len(tokens) and singular(tokens[j]) in UNITS else None
        out.append((value, unit, i, j + (unit is not None)))
        i = j
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

#: Words whose swap for one another turns a sentence into its opposite ("smallest" / "largest",
#: "before" / "after", "open" / "closed"), each form written out. Written here because no antonym
#: resource can be installed on these machines (WordNet's data comes from a download, not a package);
#: kept to words with no common sense in which the swap keeps the meaning (no "left", "on", "fall");
#: "must" against "may", "can", "might", "could": an obligation is not a possibility.
OPPOSITE_PAIRS = """
before after, earlier later, earliest latest, early late, first last, beginning end, start end, starts ends,
started ended, begin end, begins ends, minimum maximum, min max, least most, less more, fewer more, lower higher,
lowest highest, low high, smaller larger, smallest largest, smaller bigger, smallest biggest, small large, small big,
shorter longer, shortest longest, short long, younger older, youngest oldest, slower faster, slowest fastest,
worse better, worst best, below above, under over, lower upper, bottom top, outside inside, external internal,
south north, west east, southern northern, western eastern, closed open, closes opens, closing opening,
decrease increase, decreases increases, decreased increased, decreasing increasing, reduce increase, reduces increases,
reduced increased, fall rise, falls rises, fell rose, exclude include, excludes includes, excluded included,
excluding including, optional required, optional mandatory, optional compulsory, forbidden allowed, prohibited allowed,
prohibited permitted, forbidden permitted, banned allowed, forbid allow, forbids allows, rejected accepted,
rejected approved, reject accept, rejects accepts, refused accepted, declined accepted, private public, never always,
depart arrive, departs arrives, departed arrived, departure arrival, departures arrivals, leave arrive, leaves arrives,
sell buy, sells buys, sold bought, seller buyer, lost won, lose win, loses wins, loser winner, defeat victory,
empty full, paid free, disabled enabled, disable enable, false true, incorrect correct, invalid valid, illegal legal,
impossible possible, unavailable available, ineligible eligible, unable able, unlikely likely, unknown known,
negative positive, export import, exports imports, exported imported, output input, exit entrance, exit entry,
female male, women men, woman man, wife husband, mother father, daughter son, sister brother, girl boy, queen king,
princess prince, aunt uncle, niece nephew, grandmother grandfather, evening morning, winter summer, weekend weekday,
weekends weekdays, remove add, removes adds, removed added, junior senior, minor major, cold hot, cold warm, dry wet,
weak strong, poor rich, narrow wide, thin thick, shallow deep, difficult easy, hard easy, harder easier,
failure success, failed succeeded, fail pass, failed passed, disagree agree, dislike like, old new, older newer,
different same, outbound inbound, outgoing incoming, downstairs upstairs, dearer cheaper, lowered raised,
may must, might must, can must, could must, yesterday tomorrow, previous next, last next, past future
"""
OPPOSITES: dict[str, frozenset[str]] = {}  #: each word -> its opposites
for _pair in OPPOSITE_PAIRS.replace("\n", " ").split(","):
    _a, _b = _pair.split()
    OPPOSITES[_a] = OPPOSITES.get(_a, frozenset()) | {_b}
    OPPOSITES[_b] = OPPOSITES.get(_b, frozenset()) | {_a}
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


# A sentence ends at . ! ? (and any closing quotes or brackets: "…problem?’ Miss Hopkins…") followed by
# space and a capital, or glued to a capital ("…century.First for
# Women"), after a symbol such as an emoji followed by space and a capital (chat: "…with. 🎵✨ Yuriko:
# That…"), at a question mark followed by a sentence in lower case (chat: "who is sorting out the
# flights? they'll need to fly on the 16th"), before a chat mention ("…one month myself. @Nadia Petrova?"),
# or at a line break. Cheap and good enough to find the
# sentence that states a value.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])\s?[\"'”’»)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9@])|(?<=[a-z0-9)][.!?])(?=[A-Z])"
    r"|(?<=[^\w\s.,;:!?\"'“”‘’()\[\]{}\-–—/&%$€£@#*+=<>|~`^\\])\s+(?=[A-Z])|\s*\n\s*"
    r"|(?<=[a-z]\?)\s+(?=[a-z])"
)


# A period after a title or an initial does not end a sentence ("…on the Dr. Demento show", "George W.
# Bush"), unless a line break follows it. "I" is a pronoun or a numeral ("World War I."), not an initial.
_TITLE_END = re.compile(
    r"(?:\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|Mt|Jr|Sr|Rev|Gen|Col|Capt|Lt|Sgt|Gov|Sen|Rep|Hon|Fr|No|vs|approx|Inc|Ltd|Co|Corp)"
    r"|(?<![\w.])[A-HJ-Z])\.$"
)


def premise_sentences(premise: str) -> list[str]:
    out: list[str] = []
    start = 0
    for end in [*_SENTENCE_END.finditer(premise), None]:
        piece = premise[start : end.start() if end else len(premise)].strip()
        if piece and not (end and _TITLE_END.search(piece) and "\n" not in end.group()):
            out.append(piece)
            start = end.end() if end else len(premise)
    return out


@lru_cache(maxsize=1)
def segmenter() -> Any:
    """pysbd's English sentence segmenter (character spans kept, text not cleaned), made once."""
    import pysbd

    return pysbd.Segmenter(language="en", clean=False, char_span=True)


@lru_cache(maxsize=4096)
def written_sentences(text: str) -> tuple[str, ...]:
    """The sentences pysbd's rules read in ``text`` (whitespace folded): how an answer's claims are cut
    (:func:`citegraph.answer.citations.claim_sentences`), so a claim quoting one sentence of a cited
    unit is found among them. Unlike :func:`premise_sentences`, a sentence may open in lower case,
    as a chat message's do ("4.12.0 on all nodes. p95 sync latency back to 0.5s.": two)."""
    return tuple(piece for seg in segmenter().segment(" ".join(text.split())) if (piece := seg.sent.strip()))


def sentences_quoting(claim: str, sentences: list[str]) -> list[str]:
    """The ``sentences`` that hold part of the claim's first word-for-word occurrence in their text
    (case and punctuation aside), whole or in part: "Old FAQ (obsolete): LiHua: Will do!" for "LiHua:
    Will do! I'm in." quoted from it and the next sentence. Empty when the claim is not in them."""
    words = tokenize(claim)
    owner: list[int] = []
    flat: list[str] = []
    for i, sentence in enumerate(sentences):
        piece = tokenize(sentence)
        flat += piece
        owner += [i] * len(piece)
    n = len(words)
    for start in range(len(flat) - n + 1 if n else 0):
        if flat[start : start + n] == words:
            return sentences[owner[start] : owner[start + n - 1] + 1]
    return []


def quoted_sentences(claim: str, sentences: list[str]) -> list[str]:
    """The run of consecutive ``sentences`` the claim is, word for word (case and punctuation aside):
    one sentence, or several in their order (a chat message of three sentences of a cited exchange).
    Empty when the claim is no such run."""
    found = run_of([tokenize(s) for s in sentences], tokenize(claim))
    return sentences[found[0] : found[1]] if found else []


def run_of(pieces: list[list[str]], words: list[str]) -> tuple[int, int] | None:
    """``(i, j)`` where ``pieces[i:j]``, their words joined, are ``words`` (the first such run); None
    when no run of consecutive pieces is (or ``words`` is empty)."""
    if not words:
        return None
    for i in range(len(pieces)):
        run: list[str] = []
        for j in range(i, len(pieces)):
            run += pieces[j]
            if run == words:
                return i, j + 1
            if len(run) >= len(words) or run != words[: len(run)]:
                break
    return None


# -- dates ------------------------------------------------------------------------------------------
_MONTH_NAMES = "January February March April May June July August September October November December".split()
_MONTH_RE = "|".join(_MONTH_NAMES)  # capitalised only: "may" the modal is not a month
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b")
_MONTH_ALONE = re.compile(rf"\b({_MONTH_RE})\b")
YEAR = re.compile(r"\b(1[89]\d\d|2[01]\d\d)\b")
#: a verb of change, and what is changed between it and "from" (shared with the conflict rules)
CHANGE_VERB = (
    r"(?:(?:rais|increas|reduc|chang|mov)(?:e|es|ed|ing)|(?:extend|lengthen|lower|shorten|shift|switch)(?:s|es|ed|ing)?"
    r"|drop(?:s|ped|ping)?|cuts?|cutting|rises?|rising|rose|falls?|falling|fell|goe?s|going|went|grows?|growing|grew)"
)
#: what is changed, said between the verb and "from" ("raising the personal learning budget from £750 to
#: £1,000"): a few words, none of them a value's or a clause's end
CHANGED_WHAT = r"(?:\s+(?!from\b|to\b)[A-Za-z][\w'’-]*){0,5}"
#: a change said as "<verb> from X to Y" ("the drill moves from Monday to Tuesday"): X held, Y holds now
CHANGE = re.compile(rf"\b{CHANGE_VERB}{CHANGED_WHAT}\s+from\s+([^,.;:()]+?)\s+to\s+([^,.;:()]+)", re.IGNORECASE)
_WEEKDAY = re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b")
#: a run of days, every day of it said: "Monday to Friday", "Tuesday–Saturday", "Monday through Thursday"
_DAY_RANGE = re.compile(
    r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?[ \t]*(?:to|through|thru|until|till|-|–|—)[ \t]*"
    r"(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b"
)
#: the days a word for several says: "weekdays" Monday to Friday, "weekends" Saturday and Sunday
_DAY_SET = re.compile(r"\b(week ?days?|week-?ends?)\b", re.IGNORECASE)
DATE_KINDS = ("day", "month", "year", "weekday")


# -- quantities with their units, normalised -------------------------------------------------------
# "a month", "an hour", "half a year": a duration said with an article is one (or half) of the unit,
# unless it is a rate ("$10 a month", "once a year", "3 times a week", "two days a week").
_RATE_BEFORE = frozenset({"once", "twice", "time", "times", "per", "every", "each"})


def _article_durations(tokens: list[str]) -> list[tuple[float, str, int, int]]:
    out = []
    for i, tok in enumerate(tokens[:-1]):
        unit = singular(tokens[i + 1])
        if tok not in {"a", "an"} or DIMENSIONS.get(unit, ("",))[0] != "duration":
            continue
        before = tokens[i - 1] if i else ""
        if singular(before) in UNITS:  # "two days a week", "an hour a day": a rate's second unit, not a duration
            continue
        if before == "half":
            out.append((0.5, unit, i - 1, i + 2))
        elif before == "of" and i >= 2 and tokens[i - 2] in {"quarter", "quarters"}:  # "a quarter of an hour", "three quarters of an hour"
            share = 0.75 if i >= 3 and tokens[i - 3] == "three" else 0.25
            out.append((share, unit, max(i - 3, 0), i + 2))
        elif not (before in _RATE_BEFORE or before[:1].isdigit() or before in NUMBER_WORDS):
            out.append((1.0, unit, i, i + 2))
    return out


def measured(text: str) -> list[tuple[str, float, float, str, int, int]]:
    """``(dimension or unit, value in the dimension's base, value as said, unit as said, first token,
    token after)`` for every number with a unit in ``text``, money after a currency sign included."""
    tokens = tokenize(text)
    found = [(v, u, i, j) for v, u, i, j in _numbers_at(tokens) if u] + [(v, u, i, j) for v, u, i, j in _article_durations(tokens)]
    out = []
    for value, unit, i, j in found:
        assert unit is not None
        dimension, size = DIMENSIONS.get(unit, (unit, 1.0))
        out.append((dimension, value * size, value, unit, i, j))
    for m in _MONEY.finditer(text):
        amount = float(m.group(2).replace(",", "")) * _SCALES.get((m.group(3) or "").lower(), 1)
        out.append((_CURRENCY[m.group(1)], amount, amount, m.group(1), -1, -1))
    for m in _PENCE.finditer(text):  # "10p per page": pence, in pounds
        out.append(("gbp", int(m.group(1)) / 100, float(m.group(1)), "p", -1, -1))
    return out


def quantities(text: str) -> dict[str, set[float]]:
    """The values ``text`` states with a unit, by dimension, in the dimension's base unit: durations
    in days ("a month" 30.4375, "30 days" 30), percentages, data sizes in bytes, lengths in metres,
    money by currency ("$5 million" 5,000,000 under ``usd``); other units (users, seats) by unit."""
    out: dict[str, set[float]] = {}
    for dimension, base, _value, _unit, _i, _j in measured(text):
        out.setdefault(dimension, set()).add(base)
    return out


#: a count of things: a number, in figures or a count word, before a plural noun in lower case ("15
#: items", "four branches", "1,200 visitors"); a four-figure number is a year's ("2019 films"), not a count
_COUNTED = re.compile(
    r"(?<![\w.,£$€/:-])(\d{1,3}(?:,\d{3})+|\d{1,3}|"
    + "|".join(sorted(_COUNT_WORDS, key=len, reverse=True))
    + r")\s+([a-z][a-z-]*[a-rt-z]s)\b"
)


def counts(text: str) -> dict[str, dict[float, str]]:
    """The things ``text`` counts, by the noun in the singular: "up to 15 items on your card" ->
    ``{"item": {15.0: "15 items"}}``. A noun that is a unit (days, users, times) is a quantity
    (:func:`quantities`), not counted here."""
    out: dict[str, dict[float, str]] = {}
    for m in _COUNTED.finditer(text):
        number, noun = m.group(1), singular(m.group(2))
        if noun in UNITS:
            continue
        value = float(number.replace(",", "")) if number[0].isdigit() else float(NUMBER_WORDS[number])
        out.setdefault(noun, {}).setdefault(value, m.group(0))
    return out


def said_numbers(text: str, dimension: str) -> set[float]:
    """The numbers ``text`` states in ``dimension``, as said (2 for "2 years")."""
    return {value for dim, _base, value, _unit, _i, _j in measured(text) if dim == dimension}


def same_value(a: float, b: float) -> bool:
    """Two values of one dimension are the same within :data:`TOLERANCE` ("a month" and "30 days")."""
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b)) or a == b


def shared_values(a: set[float], b: set[float]) -> bool:
    return any(same_value(x, y) for x in a for y in b)


_AMOUNT = re.compile(
    r"(?P<sym>[£€$])\s?(?P<n1>\d[\d,]*(?:\.\d+)?)"
    r"|\b(?P<code>GBP|EUR|USD)\s?(?P<n2>\d[\d,]*(?:\.\d+)?)"
    r"|(?P<n3>\d[\d,]*(?:\.\d+)?)\s?(?P<word>pounds?|euros?|dollars?|GBP|EUR|USD)\b",
    re.IGNORECASE,
)
_MONEY_MARKS = {
    "£": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
    "€": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "$": "USD",
    "dollar": "USD",
    "dollars": "USD",
}
_FIGURE_SHAPE = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"  #: "1,000", "1000", "2.5"
_FIGURE = re.compile(rf"(?<![\d.,])(?:{_FIGURE_SHAPE})(?![\d,])")


def _figure(text: str) -> float | None:
    """The value of a figure written with or without thousands separators ("1,000", "1000")."""
    return float(text.replace(",", "")) if re.fullmatch(_FIGURE_SHAPE, text) else None


def _amounts(text: str) -> list[tuple[str, float, str]]:
    """``(currency, value, as written)`` of every sum of money ``text`` gives: "£5", "5 pounds", "EUR 160", "€160"."""
    out = []
    for m in _AMOUNT.finditer(text):
        mark = (m["sym"] or m["code"] or m["word"] or "").lower()
        value = _figure(m["n1"] or m["n2"] or m["n3"] or "")
        if value is not None:
            out.append((_MONEY_MARKS.get(mark, mark.upper()), value, m.group()))
    return out


def money_kept(claim: str, premise: str) -> bool:
    """Every sum of money ``claim`` gives is one ``premise`` gives, in the same currency: words compare
    "costs $5" and "costs £5" alike (a symbol is no word), so a quote must also keep its currencies."""
    theirs = {(c, v) for c, v, _w in _amounts(premise)}
    return all((c, v) in theirs for c, v, _w in _amounts(claim))


def in_same_figures(claim: str, premise: str) -> str:
    """``claim`` with each sum of money and each figure that equals one of ``premise``'s but is written
    another way written as the premise writes it ("5 pounds" for "£5", "€160" for "EUR 160", "1000" for
    "1,000"): the same value, which a trained checker read as a contradiction (all three such probes)."""
    out = claim
    theirs = _amounts(premise)
    for currency, value, written in _amounts(claim):
        match = next((w for c, v, w in theirs if c == currency and v == value and w != written), None)
        if match is not None:
            out = out.replace(written, match, 1)
    figures = {_figure(f): f for f in _FIGURE.findall(premise)}
    for written in _FIGURE.findall(out):
        same = figures.get(_figure(written))
        if same is not None and same != written and "," in same + written:  # only the separators differ
            out = re.sub(rf"(?<![\d.,]){re.escape(written)}(?![\d,])", same, out, count=1)
    return out


def in_premise_units(claim: str, premise: str) -> str:
    """``claim`` with each quantity that equals one of ``premise``'s in value but is said another way
    written as the premise says it ("downloaded for a month" against "available for 30 days" becomes
    "downloaded for 30 days"): the normaliser has proven the two one value, so a model that reads the
    pair is not left to know that a month is 30 days. Different values are left as they are (the
    guards prove those a conflict); money, which has no words to align, too."""
    premise_tokens = tokenize(premise)
    said = [(dim, base, " ".join(premise_tokens[i:j])) for dim, base, _v, _u, i, j in measured(premise) if i >= 0]
    if not said:
        return claim
    claim_tokens = tokenize(claim)
    out = claim
    for dim, base, _value, _unit, i, j in measured(claim):
        surface = claim_tokens[i:j] if i >= 0 else []
        match = next((text for d, b, text in said if d == dim and same_value(b, base)), None)
        if not surface or match is None or match == " ".join(surface):
            continue
        pattern = re.compile(r"\b" + r"\W+".join(map(re.escape, surface)) + r"\b", re.IGNORECASE)
        replacement = match.replace("\\", "\\\\")  # the premise's words, taken literally
        out = pattern.sub(replacement, out, count=1)
    return out


#: a time of day: "17:30", "9:30", "5.30pm", "9am", "9 a.m.", "noon", "midnight" (a dotted one only with am/pm:
#: "4.12" is a version, "2.50" a price)
_CLOCK = re.compile(
    r"(?<![\d.:£$€])(?:([01]?\d|2[0-3]):([0-5]\d)(?![\d:])(?:\s*([ap])\.?m\b\.?)?"
    r"|([01]?\d)\.([0-5]\d)\s*([ap])\.?m\b\.?"
    r"|(1[0-2]|0?[1-9])\s*([ap])\.?m\b\.?)"
    r"|\b(noon|midday|midnight)\b",
    re.IGNORECASE,
)
#: what joins the two ends of a span of time: "9:30–17:30", "from 9am to 5pm", "between 9:00 and 17:00"
_CLOCK_SPAN = re.compile(r"\s*(?:-|–|—|to|until|till|and|through)\s*", re.IGNORECASE)


def clock_times(text: str) -> list[tuple[int, int, int]]:
    """``(minutes after midnight, start, end)`` for every time of day ``text`` says ("9:15pm" is 1275)."""
    out = []
    for m in _CLOCK.finditer(text):
        if m.group(9):
            minutes = 0 if m.group(9).lower() == "midnight" else 12 * 60
        else:
            hour = int(m.group(1) or m.group(4) or m.group(7))
            minute = int(m.group(2) or m.group(5) or 0)
            half = (m.group(3) or m.group(6) or m.group(8) or "").lower()
            if half and hour > 12:
                continue  # "17:30pm": not a time read one way
            hour = hour % 12 + (12 if half == "p" else 0) if half else hour
            minutes = 60 * hour + minute
        out.append((minutes, m.start(), m.end()))
    return out


def clock_spans(text: str) -> list[tuple[int, int]]:
    """The spans of time ``text`` gives as two times joined ("9:30–17:30", "from 9am to 5pm"), as
    ``(from, to)`` minutes after midnight (one that runs past midnight, "22:00–02:00", ends the next day)."""
    times = clock_times(text)
    out = []
    for (a, _, a_end), (b, b_start, _) in pairwise(times):
        if _CLOCK_SPAN.fullmatch(text[a_end:b_start]):
            out.append((a, b if b >= a else b + 24 * 60))
    return out


def date_matches(text: str) -> list[tuple[str, str, int, int]]:
    """``(kind, value, start, end)`` for every date in ``text``: ``day`` (``March 3``), ``month``, ``year``, ``weekday``
    (each day of a run, "Monday to Friday", and of "weekdays" and "weekends": a day inside the run is
    one the text says)."""
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
    ranged: set[int] = set()
    changes = [(m.start(1), m.end(2)) for m in CHANGE.finditer(text)]  # "moves from Monday to Wednesday": two days, no run
    for m in _DAY_RANGE.finditer(text):  # each day of the run, not only its two ends
        if any(start <= m.start() and m.end() <= end for start, end in changes):
            continue
        first, last = DAYS.index(m.group(1).lower()), DAYS.index(m.group(2).lower())
        out.extend(("weekday", DAYS[(first + k) % 7].capitalize(), m.start(), m.end()) for k in range((last - first) % 7 + 1))
        ranged.update((m.start(1), m.start(2)))
    for m in _WEEKDAY.finditer(text):
        if m.start(1) not in ranged:
            out.append(("weekday", m.group(1), m.start(), m.end()))
    for m in _DAY_SET.finditer(text):
        days = DAYS[:5] if "day" in m.group(1).lower() else DAYS[5:]
        out.extend(("weekday", day.capitalize(), m.start(), m.end()) for day in days)
    return out


def dates_by_kind(text: str) -> dict[str, set[str]]:
    """Date values by kind: ``day`` (``March 3``), ``month``, ``year``, ``weekday``."""
    out: dict[str, set[str]] = {}
    for kind, value, _start, _end in date_matches(text):
        out.setdefault(kind, set()).add(value)
    return out


def said_values(text: str, dimension: str) -> str:
    """The values of ``dimension`` as ``text`` says them ("12 months or $10"), for messages."""
    shown = []
    for dim, base, value, unit, _i, _j in measured(text):
        if dim != dimension:
            continue
        if unit in _CURRENCY:
            shown.append(f"{unit}{base:,.2f}".removesuffix(".00"))
        else:
            shown.append(f"{value:g} {unit}" + ("s" if value != 1 and unit in DIMENSIONS and unit.isalpha() and unit != "century" else ""))
    return " or ".join(dict.fromkeys(shown)) or dimension
