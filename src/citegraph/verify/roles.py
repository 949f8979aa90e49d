"""Who did what to whom: the two proofs a parse gives and the word-level guards cannot.

A cross-encoder reads "Tomas Berg designed the Quillon engine" against "Marta Ilves designed the
Quillon engine" as nearly the same sentence (every word but the name is shared), and "The Quillon
engine designed Marta Ilves" as the same words. Both are proven wrong by a parse (spaCy's, as the
extractor's), and, like the guards' conflicts (:mod:`citegraph.verify.guards`), a proof overrules any
score:

* **name**: the claim names a person, organisation or group that the cited text never mentions (not
  even one word of it: "Ilves" stands for "Marta Ilves"), while a cited sentence about the same thing
  (sharing at least two of the claim's content words, and half of them) names another one the
  claim does not *in the same place*: the same relation to the same word (the subject of
  "designed", the object of "by"). A claim that names someone the text calls "she" is no conflict: the text names
  no one else.
  A sentence quoted with one name put in another's place ("a bizarre Jarrod Scott spat" for "a
  bizarre Twitter spat") is caught without the parse too (:func:`substituted_name`).
* **roles**: the claim and a cited sentence put the same two participants around the same verb the
  other way round (agent and patient swapped, passive voice read as active: "the engine was
  designed by Marta" is Marta designing the engine), and the cited text nowhere says it the claim's way.

Both need the claim and the cited text in English (the cascade does not ask otherwise). About 5 ms
a pair for the two parses (cached by text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

from citegraph.verify.assertion import parse
from citegraph.verify.text import DAYS, FUNCTION_WORDS, content_words, dates_by_kind, premise_sentences, related, singular

__all__ = ["Proof", "name_conflict", "role_swap", "states", "substituted_name"]

#: entity kinds that name who did something. One class: the small parser calls an unknown person an
#: organisation as often as not ("Marta Ilves" ORG, "Tomas Berg" PERSON). Places are left out: a claim
#: may name the country of the city the text names, and that is no conflict.
_NAMED = frozenset({"PERSON", "ORG", "NORP"})
_AGENTS = frozenset({"nsubj", "csubj"})
_PATIENTS = frozenset({"dobj", "nsubjpass"})  # not a copula's attribute: "X is Y" is "Y is X"


class Proof(str):
    """A proven conflict, as the verdict's notes say it."""


@lru_cache(maxsize=4096)
def _parse(text: str) -> Any:
    return parse(text)  # the assertion rules' parse: the shared pipeline's one lock, and its kept parses


_WORD = re.compile(r"[\w'’-]+")
#: the most words a name put in or taken out may have ("Aaron Dupree Tippin", "the California Almond Board")
_NAME_WORDS = 5


def _capitalised(words: Sequence[str]) -> bool:
    return any(w[:1].isupper() and w.lower() not in FUNCTION_WORDS for w in words)


def substituted_name(claim: str, premise: str) -> Proof | None:
    """The claim is a cited sentence with one stretch of words replaced, where both the words taken out
    and the words put in are a name (a capitalised word that is not a function word) and the name put
    in is nowhere in the cited text: "a bizarre Jarrod Scott spat" for "a bizarre Twitter spat". No
    parse needed, so a name the parser misses is caught too; a pronoun or "the company" replaced by a
    name is not (that is how a claim resolves "she")."""
    mine = _WORD.findall(claim)
    sentences = premise_sentences(premise)
    for sentence in [*sentences, *([premise] if len(sentences) > 1 else [])]:  # a claim of several sentences: the whole text
        theirs = _WORD.findall(sentence)
        changes = [
            op
            for op in SequenceMatcher(None, [w.lower() for w in theirs], [w.lower() for w in mine], autojunk=False).get_opcodes()
            if op[0] != "equal"
        ]
        if len(changes) != 1 or changes[0][0] != "replace":
            continue
        _op, a, b, c, d = changes[0]
        taken, put = theirs[a:b], mine[c:d]
        kept = len(theirs) - len(taken)
        if max(len(taken), len(put)) > _NAME_WORDS or kept < max(2, len(put)):
            continue  # not one name put in another's place: another sentence ("You're welcome." for "J.K.")
        initials = "".join(w[0] for w in taken if w.lower() not in FUNCTION_WORDS).upper()
        if " ".join(put) in (initials, "".join(w[0] for w in taken).upper()):
            continue  # an acronym of the name it replaces ("IBM" for "International Business Machines")
        if len(taken) == len(put) and all(
            p.lower().startswith(t.lower()) or t.lower().startswith(p.lower()) for t, p in zip(taken, put, strict=True)
        ):
            continue  # a word cut short ("Jan" for "January", "Prof" for "Professor"): the same name
        if not (_capitalised(taken) and _capitalised(put)) or _mentions(" ".join(put), premise):
            continue
        if all(singular(w.lower()) in DAYS for w in [*taken, *put] if w[:1].isupper()) and {
            singular(w.lower()) for w in put if w[:1].isupper()
        } <= {d.lower() for d in dates_by_kind(premise).get("weekday", ())}:
            continue  # a day the cited text says in a run or a set ("on Fridays" of "from Monday through Friday")
        if a > 0 or c > 0 or _opens_with_name(sentence, theirs, b):
            return Proof(f"name conflict: the claim names {' '.join(put)}, the cited text {' '.join(taken)}")
    return None


def _opens_with_name(sentence: str, words: Sequence[str], end: int) -> bool:
    """The first ``end`` words of ``sentence``, capitalised where any sentence opens, are a name: a
    speaker ("LiHua: ..."), a possessive ("CNN's reporter"), a name in its form ("LiHua", "CNN", two
    capitalised words: "Aaron Tippin") or the first part of a longer one ("Rufus Sisson").
    "Employees get..." against "Staff get..." is none of these: a common word, capitalised by its
    place (the parser tags such a word a proper noun too often to be asked: "Snapshot exports...")."""
    taken = words[:end]
    rest = sentence[sentence.find(taken[-1]) + len(taken[-1]) :] if taken else ""
    if rest.lstrip().startswith(":") or taken[-1].endswith(("'s", "’s")):
        return True
    if any(re.search(r"[a-z][A-Z]|^[A-Z]{2,}$", w) for w in taken) or sum(1 for w in taken if w[:1].isupper()) >= 2:
        return True
    return end < len(words) and words[end][:1].isupper() and words[end].lower() not in FUNCTION_WORDS


def _role(token: Any) -> tuple[str, str]:
    """Where a name stands: its relation and the lemma of the word it hangs on ("nsubj", "design")."""
    return token.dep_, token.head.lemma_.lower()


def _names(doc: Any) -> list[tuple[str, tuple[str, str]]]:
    """``(name, role)`` of the participants ``doc`` names: its person, organisation and group entities,
    and a proper noun the parser did not tag as one where it is the subject or the object
    ("Larkspur keeps…"), with the words compounded to it ("Quillon Labs"); never a date or a place."""
    found = [(e.text, _role(e.root)) for e in doc.ents if e.label_ in _NAMED]
    for t in doc:
        if t.pos_ == "PROPN" and t.dep_ in {"nsubj", "nsubjpass", "dobj"} and not t.ent_type_:
            parts = sorted([t, *(c for c in t.children if c.dep_ == "compound" and c.pos_ == "PROPN")], key=lambda x: x.i)
            name = doc[parts[0].i : t.i + 1].text
            if not any(name in n or n in name for n, _role_ in found):
                found.append((name, _role(t)))
    return found


def _mentions(name: str, text: str) -> bool:
    """Whether ``text`` mentions ``name`` or a word of it of three letters or more (a surname alone)."""
    folded = text.casefold()
    if name.casefold() in folded:
        return True
    words = set(w.strip(".,;:!?\"'()").casefold() for w in text.split())
    return any(len(part) >= 3 and part.casefold() in words for part in name.split() if part[:1].isupper())


def name_conflict(claim: str, premise: str) -> Proof | None:
    """The claim's name that the cited text replaces with another, if any (module docstring): the other
    name stands in the same place (the same relation to the same word: the subject of "designed",
    after "by"), so a text that names someone else elsewhere proves nothing."""
    claim_words = content_words(claim)
    claimed = {role: n for n, role in _names(_parse(claim)) if not _mentions(n, premise)}
    if not claimed:
        return None
    for sentence in premise_sentences(premise):
        if not related(claim_words, content_words(sentence)):
            continue
        for name, role in _names(_parse(sentence)):
            if role in claimed and not _mentions(name, claim):
                return Proof(f"name conflict: the claim names {claimed[role]}, the cited text {name}")
    return None


def _head(token: Any) -> str:
    """A participant by its head word (a compound name whole: "Marta Ilves", "Quillon engine")."""
    words = [c for c in token.children if c.dep_ in {"compound", "flat"}]
    return " ".join(t.lemma_.lower() for t in sorted([*words, token], key=lambda t: t.i))


def _triples(doc: Any) -> set[tuple[str, str, str]]:
    """(agent, verb lemma, patient) of every verb with both, passive read as active."""
    out = set()
    for verb in doc:
        if verb.pos_ not in {"VERB", "AUX"}:
            continue
        agents = [c for c in verb.children if c.dep_ in _AGENTS]
        patients = [c for c in verb.children if c.dep_ in _PATIENTS]
        for by in (c for c in verb.children if c.dep_ == "agent"):  # "designed by Marta"
            agents += [g for g in by.children if g.dep_ == "pobj"]
        for a in agents:
            for p in patients:
                if a.pos_ != "PRON" and p.pos_ != "PRON":
                    out.add((_head(a), verb.lemma_.lower(), _head(p)))
    return out


def _active(doc: Any) -> list[tuple[Any, Any, Any]]:
    """(subject, verb, object) tokens of every active verb with both (no pronoun among them)."""
    out = []
    for verb in doc:
        if verb.pos_ != "VERB":
            continue
        subj = next((c for c in verb.children if c.dep_ == "nsubj" and c.pos_ != "PRON"), None)
        obj = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ != "PRON"), None)
        if subj is not None and obj is not None:
            out.append((subj, verb, obj))
    return out


def _at(word: str, words: list[str]) -> int:
    return words.index(word) if word in words else -1


def role_swap(claim: str, premise: str) -> Proof | None:
    """The claim's agent and patient of a verb, the other way round in the cited text (module docstring).

    Read two ways, as the claim may be too odd for the parser ("The bridge painted engineers" parses
    badly): the two parses' (agent, verb, patient), passive read as active; and the cited sentence's
    subject and object found in the claim's words the other way round about the same verb form, with
    no "by" after the verb (a passive says it the claim's way)."""
    about = content_words(claim)
    sentences = [s for s in premise_sentences(premise) if related(about, content_words(s))]  # parsed: only those about the claim
    if not sentences:
        return None
    mine = _triples(_parse(claim))
    theirs: set[tuple[str, str, str]] = set()
    for sentence in sentences:
        theirs |= _triples(_parse(sentence))
    for agent, verb, patient in sorted(mine):
        if agent != patient and (patient, verb, agent) in theirs and (agent, verb, patient) not in theirs:
            return Proof(f"roles swapped: the claim has {agent} {verb} {patient}, the cited text {patient} {verb} {agent}")
    words = [w.strip(".,;:!?\"'()").lower() for w in claim.split()]
    for sentence in sentences:
        for subj, verb, obj in _active(_parse(sentence)):
            s, v, o = _at(subj.lower_, words), _at(verb.lower_, words), _at(obj.lower_, words)
            if min(s, v, o) >= 0 and o < v < s and "by" not in words[v + 1 : s]:
                return Proof(
                    f"roles swapped: the claim puts {obj.text} before {verb.text} and {subj.text} after it, the cited text the other way"
                )
    return None


def states(text: str) -> bool:
    """Whether ``text`` is a statement of its own: a verb (or a copula) with a subject."""
    return any(t.dep_ in {"nsubj", "nsubjpass", "csubj", "expl"} and t.head.pos_ in {"VERB", "AUX"} for t in _parse(text))
