"""Is a text English? The trained checker and the quote rules know English only, so a claim or a
cited text in another language is never settled by them (the judge decides, or it stays unverified).

A vote of function words, the commonest words of each language: a sentence of German, French,
Spanish, Italian, Dutch or Portuguese uses far more of its own than of English's. Written here
rather than taken from a language-identification package because the question is only "English or
not" on sentences, a few dozen words settle it, and it must cost microseconds per claim.
"""

from __future__ import annotations

import re

__all__ = ["is_english", "language_of"]

_WORDS = re.compile(r"[^\W\d_]+", re.UNICODE)
_FUNCTION_WORDS = {
    "en": (
        "the of and to a in is that it for was on are as with by at be this from or an not have has which were but they their "
        "its been would there will can all i you we he she do does did could should may must our your my me us if so than "
        "then what when who how one two first"
    ).split(),
    "de": "der die das und ist nicht ein eine einen dem den des zu mit von auf für sich im es dass auch als wird werden sind wie bei oder aus nach".split(),
    "fr": "le la les et est des un une du que qui dans pour pas sur au aux ne il elle sont avec ce cette par plus ou mais été être faux".split(),
    "es": "el la los las y es de que en un una del por con para no se su al lo como más pero son fue está".split(),
    "it": "il lo la gli le e è di che un una del della per non con si sono come più ma anche nel alla".split(),
    "nl": "de het een en is van dat niet op te zijn met voor als aan er bij ook maar om worden wordt door".split(),
    "pt": "o a os as e é de que em um uma do da não por com para se são mais mas como foi está".split(),
}
_SETS = {lang: frozenset(words) for lang, words in _FUNCTION_WORDS.items()}
MIN_WORDS = 4  #: shorter texts are taken as English: too few words to tell
#: another language is named only on this many of its own function words, each counted once: one
#: word shared with English text ("per" in "Hotel per night: £180; Meals per day: £55", Italian's
#: "per") is no evidence, however often it recurs
MIN_DISTINCT = 2
#: and only when it has this many more of its function words than English has: "Drivers do two rounds
#: as a passenger first." holds Portuguese's "do", "as" and "a", and as many of English's
MARGIN = 2


def language_of(text: str) -> str | None:
    """``en``, ``de``, ``fr``, ``es``, ``it``, ``nl`` or ``pt`` by the most function words; None
    when the text is too short or has none of them (a name, a number, a code word), or too few
    distinct ones of another language to tell (:data:`MIN_DISTINCT`), or too few more than English's
    (:data:`MARGIN`)."""
    words = [w.lower() for w in _WORDS.findall(text)]
    if len(words) < MIN_WORDS:
        return None
    counts = {lang: sum(w in vocab for w in words) for lang, vocab in _SETS.items()}
    best = max(counts.values())
    if best == 0:
        return None
    lang = max(counts, key=lambda lang: counts[lang])
    if lang == "en" or counts[lang] < counts["en"] + MARGIN or len(set(words) & _SETS[lang]) < MIN_DISTINCT:
        # English, or another language's words no more than English's (a name's "de", a loan word): English
        return "en" if counts["en"] else None
    return lang


def is_english(text: str) -> bool:
    """True unless the text is clearly in one of the other languages :func:`language_of` knows."""
    return language_of(text) in (None, "en")
