"""Behaviour tests for the support check, CheckList-style: families of ``(premise, claim, expected)``
made by rule from plain text of several kinds, each family one behaviour a checker must have.

Accuracy on a benchmark hides the simplest failures (a verbatim quote called ``contradicted``, a
swapped name passed); a family isolates one of them. Each family takes a sentence (or a passage) of
the source text and makes a claim the check must find ``supported`` or must not:

==========================  =========  ========================================================
family                      expected   claim
==========================  =========  ========================================================
``identity``                supported  the cited sentence itself
``clause``                  supported  the first clause of a sentence of several (with its subject and verb)
``in_passage``              supported  one sentence of a cited passage of three
``reported``                supported  the sentence with its reported frame kept ("…, the report said")
``pronoun``                 supported  a sentence opening with a pronoun, the name from the sentence before it in its place
``passive``                 supported  "A verbed B" said "B was verbed by A"
``equivalent_quantity``     supported  a quantity said another way ("7 days" -> "a week", "3" -> "three")
``number``                  not        a number changed
``date``                    not        a year moved
``duration``                not        a duration's unit changed ("30 days" -> "30 weeks")
``negation``                not        "not" put in, or "not"/"never"/"no longer" taken out
``name_swap``               not        a person or organisation replaced by another of the text's
``role_swap``               not        subject and object swapped
``opposite``                not        one word swapped for its opposite ("smallest" -> "largest", "before" -> "after")
``framing_*``               not        the sentence framed, the claim the bare sentence: in a code block,
                                       struck through (``~~``, ``<del>``), marked deprecated, obsolete,
                                       debunked, rumoured or hypothetical, under a heading, after a
                                       sentence that frames it, or quoted after "A reseller wrote:"
==========================  =========  ========================================================

Only statements are made into cases (a question, an instruction or a sentence over two lines
claims nothing). A maker returns None where it does not apply to a sentence. The cases are JSON lines
(``{family, kind, premise, claim, label}``) that ``citegraph eval support`` reads and reports per
family. ``bench/build_behaviour.py`` writes them from any text; the test suite makes them from the
texts in ``tests/data/behaviour_texts.json``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from citegraph.eval.makers import date, negation, number, word_number
from citegraph.verify.assertion import FrameKind, directs, instruction_frame, unkept_frames
from citegraph.verify.roles import states

__all__ = ["FAMILIES", "Case", "make_cases"]


@dataclass(frozen=True)
class Case:
    family: str
    kind: str  #: the kind of text it was made from (handbook, encyclopedia, news, dialogue, chat...)
    premise: str
    claim: str
    supported: bool  #: what the check must say

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["label"] = "supported" if row.pop("supported") else "not_supported"
        return row


_UNITS = {
    "day": "week",
    "days": "weeks",
    "week": "month",
    "weeks": "months",
    "month": "year",
    "months": "years",
    "hour": "day",
    "hours": "days",
}
_DURATION = re.compile(r"\b(\d+|a|an|one|two|three|four|five|six|seven|ten|twelve|thirty) (days?|weeks?|months?|hours?)\b")
_SAME = {
    "7 days": "a week",
    "seven days": "a week",
    "14 days": "two weeks",
    "30 days": "a month",
    "12 months": "a year",
    "twelve months": "a year",
    "24 hours": "a day",
    "60 minutes": "an hour",
    "52 weeks": "a year",
}
_TAKE_OUT = re.compile(r"\b(?:not |never |no longer )")
_CLAUSE_END = re.compile(r",\s+(?:and|but|while|whereas)\s+")
_PRONOUNS = {"he", "she", "they", "it"}
_FRAMES: dict[str, Callable[[str], str]] = {
    "framing_code_block": lambda s: f"Example configuration:\n\n```\n{s}\n```\n",
    "framing_strikethrough": lambda s: f"~~{s}~~",
    "framing_del": lambda s: f"<del>{s}</del>",
    "framing_deprecated": lambda s: f"Deprecated: {s}",
    "framing_obsolete": lambda s: f"Old FAQ (obsolete): {s}",
    "framing_debunked_heading": lambda s: f"# Debunked claims\n\n{s}\n",
    "framing_rumour": lambda s: f"The following rumour is false. {s}",
    "framing_hypothetical": lambda s: f"Hypothetically, {s}",
    "framing_reported_block": lambda s: f"A reseller wrote:\n\n> {s}\n",
}


def _doc(nlp: Any, text: str) -> Any:
    return nlp(text)


def _clause(doc: Any) -> str | None:
    """The sentence's first clause, when it states something of its own (a subject and its verb: not
    "Dick Van Dyke, David Tomlinson") and the sentence does not attribute it to a source ("…, police
    said": dropping that is hearsay, which the product does not quote as fact; ``reported`` keeps it)."""
    found = _CLAUSE_END.search(doc.text)
    if not found:
        return None
    first = doc.text[: found.start()].strip()
    if len(first.split()) < 4 or first.endswith(".") or not states(first + "."):
        return None
    if any(f.kind is FrameKind.REPORTED for f in unkept_frames(first + ".", [doc.text])):
        return None
    return first + "."


def _lower_first(doc: Any) -> str:
    """The sentence to follow "that": its first letter lower-cased unless it starts a name."""
    text = doc.text
    return text if doc[0].tag_ in {"NNP", "NNPS"} or doc[0].ent_type_ else text[0].lower() + text[1:]


def _reported(sentence: str) -> str:
    body = sentence.rstrip(".!? ")
    return f"{body}, the report said."


def _passive(doc: Any) -> str | None:
    """ "A verbed B …" -> "B was verbed by A …" for a regular past-tense verb with a subject and an object."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.tag_ != "VBD" or not root.text.endswith("ed"):
        return None
    subj = next((c for c in root.children if c.dep_ == "nsubj"), None)
    obj = next((c for c in root.children if c.dep_ == "dobj"), None)
    if subj is None or obj is None or subj.pos_ == "PRON" or obj.pos_ == "PRON":
        return None
    s_start, s_end = subj.left_edge.idx, subj.right_edge.idx + len(subj.right_edge.text)
    o_start, o_end = obj.left_edge.idx, obj.right_edge.idx + len(obj.right_edge.text)
    if not s_end <= root.idx < o_start or s_start != 0:
        return None
    text = doc.text
    patient = text[o_start:o_end]
    plural = obj.tag_ in {"NNS", "NNPS"}
    rest = text[o_end:]
    return f"{patient[0].upper() + patient[1:]} {'were' if plural else 'was'} {root.text} by {text[s_start:s_end]}{rest}"


def _quantity(sentence: str) -> str | None:
    for said, same in _SAME.items():
        if re.search(rf"\b{re.escape(said)}\b", sentence):
            return re.sub(rf"\b{re.escape(said)}\b", same, sentence, count=1)
    return word_number(sentence)


def _duration(sentence: str) -> str | None:
    found = _DURATION.search(sentence)
    if not found:
        return None
    return sentence[: found.start(2)] + _UNITS[found.group(2)] + sentence[found.end(2) :]


def _negation(doc: Any) -> str | None:
    if _TAKE_OUT.search(doc.text):
        return _TAKE_OUT.sub("", doc.text, count=1)
    return negation(doc)


def _names(doc: Any) -> list[Any]:
    """The sentence's people and organisations, as the parser finds them: a name opens with a capital
    letter (the small parser also tags an emoji or "ASAP" now and then; neither is a name to swap)."""
    return [e for e in doc.ents if e.label_ in {"PERSON", "ORG"} and e.text[:1].isupper() and not e.text.isupper()]


def _name_swap(doc: Any, others: Sequence[str], rng: random.Random) -> str | None:
    names = _names(doc)
    if not names:
        return None
    target = names[0]
    choices = [o for o in others if o.casefold() not in doc.text.casefold() and not set(o.split()) & set(target.text.split())]
    if not choices:
        return None
    return doc.text[: target.start_char] + rng.choice(sorted(choices)) + doc.text[target.end_char :]


def _role_swap(doc: Any) -> str | None:
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ != "VERB":
        return None
    subj = next((c for c in root.children if c.dep_ == "nsubj"), None)
    obj = next((c for c in root.children if c.dep_ == "dobj"), None)
    if subj is None or obj is None or subj.pos_ == "PRON" or obj.pos_ == "PRON":
        return None
    a = (subj.left_edge.idx, subj.right_edge.idx + len(subj.right_edge.text))
    b = (obj.left_edge.idx, obj.right_edge.idx + len(obj.right_edge.text))
    if not a[1] <= b[0]:
        return None
    text = doc.text
    first, second = text[a[0] : a[1]], text[b[0] : b[1]]
    if a[0] == 0:
        second = second[0].upper() + second[1:]
        first = first[0].lower() + first[1:] if not (subj.ent_type_ or subj.tag_ in {"NNP", "NNPS"}) else first
    return text[: a[0]] + second + text[a[1] : b[0]] + first + text[b[1] :]


def _pronoun(previous: Any, doc: Any) -> str | None:
    """The sentence opens with a pronoun whose antecedent is the name the sentence before opens with."""
    first = doc[0] if len(doc) else None
    if first is None or first.lower_ not in _PRONOUNS or first.dep_ not in {"nsubj", "nsubjpass"}:
        return None
    names = [e for e in previous.ents if e.label_ in {"PERSON", "ORG"} and e.start == 0]
    if not names:
        return None
    return names[0].text + doc.text[len(first.text) :]


#: the opposite family's swaps: written for the family, apart from the guard's own list
#: (``citegraph.verify.guards``), so that the family measures how much of such swaps the check catches
_OPPOSITE_WORDS = (
    "before after, minimum maximum, increase decrease, increased decreased, open closed, more less, higher lower, "
    "earliest latest, first last, start end, includes excludes, required optional, mandatory optional, public private, "
    "inside outside, above below, early late, always never, all no, allowed forbidden, permitted prohibited, "
    "larger smaller, largest smallest, won lost, older younger, oldest youngest, north south, east west, arrive leave, "
    "buy sell, bought sold, accepted rejected, accept refuse, approved rejected, full empty, free paid, longer shorter, "
    "up down, under over, faster slower"
)
_OPPOSITE: dict[str, str] = {}
for _pair in _OPPOSITE_WORDS.split(", "):
    _a, _b = _pair.split()
    _OPPOSITE.setdefault(_a, _b)
    _OPPOSITE.setdefault(_b, _a)


def _opposite(sentence: str, rng: random.Random) -> str | None:
    """One word of ``sentence`` (a whole word, not part of a hyphenated one) swapped for its opposite."""
    found = [m for m in re.finditer(r"(?<![\w-])[A-Za-z]+(?![\w-])", sentence) if m.group().lower() in _OPPOSITE]
    if not found:
        return None
    m = rng.choice(found)
    other = _OPPOSITE[m.group().lower()]
    return sentence[: m.start()] + (other.capitalize() if m.group()[0].isupper() else other) + sentence[m.end() :]


def make_cases(kind: str, passages: Iterable[Sequence[str]], nlp: Any, *, seed: int = 7) -> list[Case]:
    """Every family's cases from ``passages`` (each a list of consecutive sentences) of one kind of text."""
    rng = random.Random(seed)
    passages = [list(p) for p in passages if p]
    docs = [[_doc(nlp, s) for s in p] for p in passages]
    names = sorted({e.text for p in docs for d in p for e in _names(d)})
    cases: list[Case] = []

    def add(family: str, premise: str, claim: str | None, supported: bool) -> None:
        if claim and claim.strip() and (claim != premise or family == "identity"):
            cases.append(Case(family, kind, premise, " ".join(claim.split()), supported))

    def statement(sentence: str) -> bool:
        # a question, an instruction or two lines claim nothing; a directive ("Order the laptop…") is
        # quoted by answers, but the makers' swaps and frames are written for statements
        return instruction_frame(sentence) is None and not directs(sentence) and "\n" not in sentence.strip()

    for passage, parsed in zip(passages, docs, strict=True):
        for i, (sentence, doc) in enumerate(zip(passage, parsed, strict=True)):
            if not statement(sentence):
                continue
            add("identity", sentence, sentence, True)
            add("clause", sentence, _clause(doc), True)
            add("reported", f"The report said that {_lower_first(doc)}", _reported(sentence), True)
            add("passive", sentence, _passive(doc), True)
            add("equivalent_quantity", sentence, _quantity(sentence), True)
            add("number", sentence, number(doc), False)
            add("date", sentence, date(doc), False)
            add("duration", sentence, _duration(sentence), False)
            add("negation", sentence, _negation(doc), False)
            add("name_swap", sentence, _name_swap(doc, names, rng), False)
            add("role_swap", sentence, _role_swap(doc), False)
            add("opposite", sentence, _opposite(sentence, rng), False)
            if i > 0:
                resolved = _pronoun(parsed[i - 1], doc)
                add("pronoun", f"{passage[i - 1]} {sentence}", resolved, True)
            for family, frame in _FRAMES.items():
                add(family, frame(sentence), sentence, False)
        if len(passage) >= 3 and statement(passage[1]):
            add("in_passage", " ".join(passage[:3]), passage[1], True)
    return cases


#: every family, with what the check must say
FAMILIES: dict[str, bool] = {
    "identity": True,
    "clause": True,
    "in_passage": True,
    "reported": True,
    "pronoun": True,
    "passive": True,
    "equivalent_quantity": True,
    "number": False,
    "date": False,
    "duration": False,
    "negation": False,
    "name_swap": False,
    "role_swap": False,
    "opposite": False,
    **dict.fromkeys(_FRAMES, False),
}
