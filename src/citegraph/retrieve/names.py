"""Names as the graph reads them: a document id read as a title (:func:`title_key`), a name with
case, accents and punctuation ignored (:func:`loose_key`), the names a question gives as written
(:func:`named_ngrams`), a question typed in lower case read with its names' capitals (:func:`cased`),
the stems a relation type is matched by (:func:`relation_stems`) and the entities that name the same
one ("Hannah", "Hannah Lindqvist", "@Hannah Lindqvist": :func:`same_names`).
Text in, text out: no view, no store."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from citegraph.sentences import file_stem

__all__ = ["capitalised", "cased", "loose_key", "name_run", "named_ngrams", "relation_stems", "same_names", "title_key"]

_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)$")


def loose_key(name: str) -> str:
    """A name with case, accents and punctuation ignored: "Beyoncé" -> "beyonce", "Guns N' Roses"
    -> "guns n roses", "St. Louis" -> "st louis". How a question's name is matched to a title written
    a little differently."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return " ".join("".join(ch if ch.isalnum() else " " for ch in decomposed if not unicodedata.combining(ch)).split())


def title_key(document: str) -> str:
    """A document id read as a name: its file name without folders or extension, "-" and "_" as
    spaces, without a trailing "(album)" or "(2)", a leading "the", case folded ("Patti LaBelle
    (album)" -> "patti labelle"; "policies/retention-policy.md" -> "retention policy")."""
    name = _DISAMBIGUATION.sub("", file_stem(document).replace("_", " ").replace("-", " "))
    words = " ".join(name.casefold().split())
    return words[4:] if words.startswith("the ") else words


_NAME_WORD = re.compile(r"[^\W_](?:[\w&.'’-]*[\w&])?")
_POSSESSIVE = re.compile(r"['’]s$")


def named_ngrams(text: str, known: Callable[[str], bool], longest: int = 8) -> list[str]:
    """The names a question gives that ``known`` accepts, read as written: runs of up to ``longest``
    words that start and end with a capital letter or a digit ("The Woman in the Window", "Patti
    LaBelle's" -> "patti labelle"), case folded as :func:`title_key` folds a title, the longest run
    first and no word in two names. A lower-case word never starts or ends one, so "time" in "what
    time" is not the magazine."""
    words = _NAME_WORD.findall(text)
    found: list[str] = []
    i = 0
    while i < len(words):
        for n in range(min(longest, len(words) - i), 0, -1):
            run = words[i : i + n]
            if not all(w[:1].isupper() or w[:1].isdigit() for w in (run[0], run[-1])):
                continue
            written = " ".join(run).casefold()
            names = [written, _POSSESSIVE.sub("", written)] if _POSSESSIVE.search(written) else [written]
            name = next((m for m in (k[4:] if k.startswith("the ") else k for k in names) if m and known(m)), None)
            if name is not None:
                found.append(name)
                i += n
                break
        else:
            i += 1
    return list(dict.fromkeys(found))


#: Words that say nothing about which relation a question asks for, or that every relation type has.
_NOT_RELATIONS = frozenset(
    "about also been being between call called does from have include including into know known like "
    "many much name named same such than that their them then there these they this those what when "
    "where which while whom whose with would year years".split()
)
_RELATION_WORD = re.compile(r"[a-z]+")


def relation_stems(text: str) -> frozenset[str]:
    """The first four letters of each content word of ``text`` (four letters or more, not a question
    or function word): "the director of" and "directed by" share "dire", "located in" and "location"
    "loca". What the bridge walk matches a relation type against the question with."""
    return frozenset(w[:4] for w in _RELATION_WORD.findall(text.casefold()) if len(w) >= 4 and w not in _NOT_RELATIONS)


_WORD = re.compile(r"[^\W_][\w'’&-]*")
_ADDRESS = re.compile(r"\S*(?:@|://|\w\.[a-z]{2,}\b)\S*")


def capitalised(word: str, texts: Iterable[str]) -> str | None:
    """How ``texts`` write ``word`` when they write it with a capital after another word ("moving to
    Brightwave", "the Lisbon office", "our SSO rollout") and never in lower case: the name a question
    typed in lower case means; None when they write it in lower case, or capitalised only where a
    sentence or a label opens ("Address: 3 Ferry Lane"). An address ("security@brightwave.io") is no
    word of the text."""
    low = word.casefold()
    forms: Counter[str] = Counter()
    pattern = re.compile(rf"(?<![\w'’&-]){re.escape(low)}(?![\w'’&-])", re.IGNORECASE)
    for text in texts:
        for found in pattern.finditer(_ADDRESS.sub(" ", text)):
            form, at = found.group(), found.start()
            if form[:1].islower():
                return None
            after_word = at >= 2 and found.string[at - 1] == " " and found.string[at - 2].isalnum()
            if after_word and not found.string[found.end() :].startswith(":"):  # not a label: "Address: …"
                forms[form] += 1
    return forms.most_common(1)[0][0] if forms and len(low) > 1 else None


#: letters a question typed all in capitals has at least, to be read as typed in lower case ("SSO?" is a name)
_SHOUTED_LETTERS = 12


def cased(question: str, proper: Callable[[str], str | None]) -> str:
    """A question typed all in lower case ("what year was brightwave founded?") with the capitals
    the documents give its names ("what year was Brightwave founded?"): the parse that finds a
    question's names, and so every check that reads them, reads capitals. ``proper(word)`` is the
    word as the documents write it as a name (:func:`capitalised`), or None; asked only when the
    question has no capital of its own: a question that has one is unchanged. A question typed all in
    capitals is read the same way, as if typed in lower case."""
    letters = [ch for ch in question if ch.isalpha()]
    if letters and not any(ch.islower() for ch in letters) and len(letters) >= _SHOUTED_LETTERS:
        question = question.lower()  # typed in capitals ("WHO IS THE FIRE WARDEN IN LISBON?"): read as typed in lower case
    if any(ch.isupper() for ch in question):
        return question
    return _WORD.sub(lambda m: proper(m.group()) or m.group(), question)


#: the most words a full name has for a one-word name to stand for it ("Hannah" for "Hannah Lindqvist",
#: "Central" for "Central Library", not for "Central Library Manager Recruitment Panel")
_FULL_NAME_WORDS = 3


def name_run(name: str) -> str:
    """``name`` without a chat's "@" ("@Hannah Lindqvist" -> "Hannah Lindqvist") when every word of
    it is capitalised; "" otherwise: "Vaishnava temple" or spaCy's "Hannah thanks" (a chat line's
    name read with the word after it) is no name another can be short for."""
    words = name.lstrip("@").split()
    return " ".join(words) if words and all(w[:1].isupper() for w in words) else ""


def same_names(names: Sequence[str]) -> dict[int, tuple[int, ...]]:
    """Per entity that has them, the other entities that name the same one, by their surfaces
    ``names``: the same capitalised words (:func:`name_run`: "@Hannah Lindqvist" and "Hannah
    Lindqvist"), and a one-word name that is the first or the last word of exactly one full name of
    two or three words ("Hannah" in a chat line, "Hannah Lindqvist" in the handbook; "Eastbank" and
    "Eastbank Branch"). A one-word name that two full names share ("Sofia Almeida", "Sofia Costa")
    stands for neither. Symmetric; entities are indices into ``names``. A view passes only the names
    its caller may read, so a full name in a document the caller cannot read changes nothing."""
    by_run: dict[str, list[int]] = {}
    for e, name in enumerate(names):
        if run := name_run(name).casefold():
            by_run.setdefault(run, []).append(e)
    ends: dict[str, set[str]] = {}
    for run in by_run:
        words = run.split()
        if 2 <= len(words) <= _FULL_NAME_WORDS:
            for word in {words[0], words[-1]}:
                ends.setdefault(word, set()).add(run)
    kin: dict[int, set[int]] = {}
    for run, group in by_run.items():
        full = ends.get(run, set()) if " " not in run else set()
        joined = group + by_run[next(iter(full))] if len(full) == 1 else group
        for e in joined:
            kin.setdefault(e, set()).update(o for o in joined if o != e)
    return {e: tuple(sorted(others)) for e, others in kin.items() if others}
