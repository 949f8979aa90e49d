"""Does the visible evidence answer the question at all? Decided before an answer is written.

Retrieval always finds *something*: asked "What was the annual revenue in 2023?" of a product
handbook, it returns the three sentences nearest in meaning, and quoting them as ``supported`` claims
answers nothing. This module looks at the question and the numbered context together and gives
P(answerable), a logistic model of five measured features:

The word features read each context sentence with the text before it (:data:`LEAD_IN` characters,
from its document), so a sentence that says "she" counts the name given before it. The reader reads
each sentence alone, so that what it points at is in that sentence and not a neighbour (a window of
400 characters either side let a neighbour's words stand for the sentence: on the development
corpora's dev halves the reader's best sentence held the gold answer for 28 of 78 questions read that
way, 50 read alone; docs/results/2026-12-04/reader-reading/). Until 2026-12-06 it read each sentence
a second time with the text before it, the larger P counting; without that second reading a warm
answer takes 0.58-0.64 of the time, and with the weights fitted again the development sets answer as
before (two brightwave dev questions fewer) and abstain more where the documents do not answer
(docs/results/2026-12-06/reader-alone/).

- ``entities``: the share of the question's named entities whose every word occurs in the context
  (1 when it names none, with ``named`` = 0). A question about "Arthur's Magazine" is not answered by
  a context that never names it;
- ``words``: the share of the question's content lemmas the context mentions;
- ``sentence``: the best single sentence's share of them (entities weighing double), so the words
  are said together somewhere, not scattered over unrelated sentences;
- ``typed``: the question asks for a date, number, person or place (:func:`expected_type`) and the
  context holds one that the question does not already name (1 when no type is asked);
- ``similarity``: the best cosine similarity of a context sentence to the question;
- ``reader``: the highest P(answers) the reader (:mod:`citegraph.answer.reader`, an extractive
  question-answering model trained for it) gives a context sentence, read alone: the one feature
  that looks for the asked fact rather than the question's words; a sentence about another place
  than the one the question names counts 0 (:func:`about_another_place`). Where it found the
  answer is kept (:attr:`Answerability.reading <citegraph.models.Answerability.reading>`), and the
  extractive answerer quotes that sentence.

The weights were fitted by ``bench/abstention.py`` on the dev halves of five sets, each weighing the
same: two built unanswerable sets (HotpotQA-100, and 300 questions of the HaluEval-QA multi-hop set of
``bench/build_halueval_multihop.py``: each question asked with its gold passages hidden from the
caller by access labels, against the same question with them visible), two development corpora
(``corpora/brightwave``, ``corpora/riverside-libraries``: their unanswerable questions against the
answerable ones whose answer is in the context) and LiHua-World's dev questions (Null against the
others, likewise); the threshold is the highest at which every set's dev still answers 90% of its
answerable questions with the answer in the context. Figures on the test halves:
``docs/results/2026-12-06/reader-alone/``. Without the reader it was a small model of rule features,
and a context that named every term of the question and held a date of another event looked answerable.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from citegraph.answer.reader import Reading
from citegraph.answer.relevance import named, said_words
from citegraph.errors import ModelUnavailable
from citegraph.models import Answerability, ContextItem, Located, Span
from citegraph.question import AGENT, DATE, NUMBER, PLACE, SATISFIES, Question, own_asking_sentence, parse
from citegraph.sentences import message_speaker
from citegraph.verify.text import DAYS, MONTHS

Read = Callable[[str, Sequence[str]], Sequence[Reading]]  #: (question, passages) -> a reading of each

__all__ = [
    "ABSTAIN_BELOW",
    "FEATURES",
    "LEAD_IN",
    "WEIGHTS",
    "about_another_place",
    "assess",
    "features",
    "lead_before",
    "located",
    "of_type",
    "probability",
]

FEATURES = ("entities", "named", "words", "sentence", "typed", "similarity", "reader")
#: Logistic weights (intercept first, then :data:`FEATURES`), fitted by ``bench/abstention.py`` on five dev sets.
WEIGHTS = (-3.916, 2.947, -0.902, 1.685, 0.546, -1.226, 4.333, 1.733)
#: P(answerable) under which the answer says the documents do not answer (chosen on dev).
ABSTAIN_BELOW = 0.4295
#: characters of its document before a context sentence that the word features read with it (the name
#: "She joined in 2015." leans on); nothing after it
LEAD_IN = 120


def features(
    question: Question,
    sentences: Sequence[Any],
    similarities: Sequence[float],
    read: Sequence[float] = (),
    when: str = "",
    spelled: Sequence[tuple[str, str]] = (),
) -> tuple[dict[str, float], tuple[str, ...]]:
    """The features of a ``question`` (its answer type and terms, read from its one parse) against
    parsed context ``sentences`` (their similarities to it, and the reader's P(answers) of each), and
    the question's entities no sentence names. A sentence may be given as a tuple of parses (the text
    before it, then itself), read as one. ``when``: the times the sentences were said that they do not
    carry themselves (a chat conversation's "Time: 20260918_18:00", a message's Date line), where a
    day the question names ("on 20260918") is named too. ``spelled``: the abbreviations the question
    uses with their long forms (retrieval spelled them out): an abbreviation is named where the context
    names it, its long form, or most of the long form's words (:func:`_long_form_named`: a guide that
    writes "basal cell skin cancer" is about "BCC", "basal cell carcinoma")."""
    expected = question.expected
    entities, words = question.terms
    parts = [tuple(s) if isinstance(s, tuple) else (s,) for s in sentences]  # each sentence: its parses (the text before it, itself)
    per_sentence = [set().union(*(said_words(d) for d in docs)) for docs in parts]
    said = set().union(*per_sentence) if per_sentence else set()
    bodies = [" ".join(d.text for d in docs).casefold() for docs in parts]
    text = " ".join(bodies)
    dated = f"{text} {when.casefold()}" if when else text
    long_forms = {short.casefold(): long for short, long in spelled}

    def says(entity: str, bag: set[str], body: str) -> bool:
        """``entity`` is named in ``body`` (its words ``bag``), or, an abbreviation, by its long form."""
        return named(entity, bag, body) or (entity in long_forms and _long_form_named(long_forms[entity], bag, body))

    missing = tuple(e for e in entities if not says(e, said, dated))
    weight = 2.0 * len(entities) + len(words)

    def share(bag: set[str], body: str) -> float:
        if not weight:
            return 1.0
        got = 2.0 * sum(1 for e in entities if says(e, bag, body)) + sum(1 for w in words if w in bag)
        return got / weight

    asked = {e.casefold() for e in entities}
    typed = 1.0
    if expected is not None:
        labels = SATISFIES[expected]
        typed = float(
            any(ent.label_ in labels and ent.text.casefold() not in asked for docs in parts for d in docs for ent in d.ents)
            or (expected == "number" and any(t.like_num for docs in parts for d in docs for t in d))
        )
    found = {
        "entities": (len(entities) - len(missing)) / len(entities) if entities else 1.0,
        "named": 1.0 if entities else 0.0,
        "words": sum(1 for w in words if w in said) / len(words) if words else 1.0,
        "sentence": max((share(bag, body) for bag, body in zip(per_sentence, bodies, strict=True)), default=0.0),
        "typed": typed,
        "similarity": max(similarities, default=0.0),
        "reader": max(read, default=0.0),
    }
    return found, missing


def _long_form_named(long: str, said: set[str], text: str) -> bool:
    """An abbreviation's long form ("basal cell carcinoma") is named in a text that names it, or two
    thirds or more of its words ("basal cell skin cancer": "basal", "cell"), at least two of them."""
    if named(long.casefold(), said, text):
        return True
    parts = [w for w in re.findall(r"\w+", long.casefold()) if len(w) > 2]
    got = sum(1 for w in parts if w in said)
    return got >= 2 and 3 * got >= 2 * len(parts)


def probability(values: dict[str, float], weights: Sequence[float] = WEIGHTS) -> float:
    z = weights[0] + sum(w * values[name] for w, name in zip(weights[1:], FEATURES, strict=True))
    return 1.0 / (1.0 + math.exp(-z))


def assess(
    question: str | Question,
    context: Sequence[ContextItem],
    *,
    surroundings: Callable[[Span], str] | None = None,
    threshold: float = ABSTAIN_BELOW,
    read: Read | None = None,
    subjects: Sequence[str] = (),
    said_when: Callable[[Span], str] | None = None,
    spelled: Sequence[tuple[str, str]] = (),
) -> Answerability:
    """Whether ``context`` answers ``question``: P(answerable) at or above ``threshold``.
    ``surroundings(span)`` gives a context sentence with the text before it (:data:`LEAD_IN`
    characters): a sentence that says "She is married to him" is about the person named before it.
    The word features read the sentence with that text; the reader reads the sentence alone, so
    where it finds the answer is inside the sentence itself.
    ``read`` is the reader (default: the shipped one, :func:`citegraph.answer.reader.default_reader`).
    ``subjects``: what the question is about, written out (an abbreviation and its long form): a
    reading that names one is the question's own subject read back, not its answer.
    ``said_when(span)``: when a context sentence was said, where the sentence does not carry it (its
    chat conversation's time line): a question about what was said "on 20260918" names that day.
    ``spelled``: the question's abbreviations with their long forms (:func:`features`).
    A question typed after something else is read whole and by its asking sentence alone
    (:func:`~citegraph.question.own_asking_sentence`), the larger P counting."""
    if not context:
        return Answerability(False, 0.0, note="nothing visible to this caller matches the question")
    alone = [item.span.text for item in context]
    texts = [surroundings(item.span) if surroundings else item.span.text for item in context]
    asked = Question.of(question)  # read once by the caller; only the context is parsed here
    # Each sentence is parsed alone (kept: the answer's later checks read the same parses) and the text
    # before it apart, without the dependency parser (the features read words, lemmas, tags and
    # entities): parsing the two together gave the same features, at the cost of a second parse of every sentence.
    before = [lead_before(t, a) for a, t in zip(alone, texts, strict=True)]
    own = None if asked.doc is None else parse(alone)
    leads = None if own is None else parse([b for b in before if b], dependencies=False)
    if own is None or leads is None:
        return Answerability(True, None, note="no spaCy model: answerability was not assessed")
    try:
        if read is None:
            from citegraph.answer.reader import default_reader

            read = default_reader().read
        distinct = list(dict.fromkeys(alone))  # a sentence the context holds twice is read once
        got = dict(zip(distinct, read(asked.text, distinct), strict=True))
    except ModelUnavailable as exc:
        return Answerability(True, None, note=f"the reader is unavailable ({exc}): answerability was not assessed")
    readings = [got[text] for text in alone]
    lead_of = iter(leads)
    sentences = [(next(lead_of), doc) if b else doc for b, doc in zip(before, own, strict=True)]
    # a sentence about another place than the question's: what the reader finds there answers for that place
    readings = [
        Reading(0.0, "", r.passage) if about_another_place(asked, s if isinstance(s, tuple) else (s,)) else r
        for r, s in zip(readings, sentences, strict=True)
    ]
    read_p = [reading.probability for reading in readings]
    when = " ".join(dict.fromkeys(said_when(item.span) for item in context)) if said_when else ""
    similarities = [item.evidence.similarity for item in context]
    values, missing = features(asked, sentences, similarities, read_p, when, spelled)
    p = probability(values)
    # a question typed after something that asks nothing ("Quick question from a new starter. How many
    # days of holiday do I get?") is answerable when its asking sentence is: the preamble's words are
    # no terms the documents must hold. Read whole as well, for what it says before ("I need a London
    # hotel during Tech Week in June. What's the cap?"): the larger P counts.
    asking = own_asking_sentence(asked.text)
    if asking is not None:
        alone_values, alone_missing = features(Question.read(asking), sentences, similarities, read_p, when, spelled)
        alone_p = probability(alone_values)
        if alone_p > p:
            values, missing, p = alone_values, alone_missing, alone_p
    answerable = p >= threshold
    note = ""
    if not answerable:
        reasons = []
        # in words a reader of the page follows; the model's numbers last, in brackets
        if missing:
            reasons.append("no sentence you may read names " + ", ".join(repr(m) for m in missing))
        if values["typed"] == 0.0:
            reasons.append(f"the question asks for a {asked.expected} and the evidence gives none")
        if values["reader"] < 0.5:
            reasons.append(f"no sentence reads as its answer (best {values['reader']:.2f})")
        if values["words"] < 1.0:
            reasons.append(f"the evidence has {values['words']:.0%} of the question's words")
        note = "; ".join([*reasons, f"answerable at {p:.2f}, under the {threshold:.2f} needed"])
    return Answerability(
        answerable,
        p,
        tuple((k, round(v, 4)) for k, v in values.items()),
        missing,
        note,
        located(context, readings, subjects, expected=asked.expected),
    )


#: the entity labels of a place: a sentence about another place than the question's answers for that place
_PLACE = frozenset({"GPE", "LOC", "FAC"})


def about_another_place(question: Question, parses: Sequence[Any]) -> bool:
    """A sentence (its parses: the text before it, then itself) that names a place, where the question
    names another one and the sentence does not: "In Leeds the fire alarm is tested every Wednesday"
    for "On which day is the fire alarm tested in the Toronto office?" answers it for Leeds. Not for
    a question that asks for a place (its answer names one). People and organisations are not read
    so: the answer to a two-hop question is about the person or team in between ("… managed by Sofia
    Almeida, who works from Lisbon"), not the one the question names."""
    if question.doc is None or question.expected == PLACE:
        return False
    places = [e.text.casefold().removesuffix("'s").strip() for e in question.doc.ents if e.label_ in _PLACE]
    if not places:
        return False
    body = " ".join(d.text for d in parses).casefold()
    if any(p and re.search(rf"(?<!\w){re.escape(p)}(?!\w)", body) for p in places):
        return False
    return any(ent.label_ in _PLACE for d in parses for ent in d.ents)


def lead_before(around: str, sentence: str) -> str:
    """The text before ``sentence`` in ``around`` (a sentence with its lead-in, :data:`LEAD_IN`), read
    apart from it; "" when there is none."""
    return around[: len(around) - len(sentence)].strip() if around.endswith(sentence) else ""


def located(
    context: Sequence[ContextItem], readings: Sequence[Reading], subjects: Sequence[str] = (), *, expected: str | None = None
) -> Located | None:
    """The most probable reading whose answer is inside a context sentence itself (the reader reads a
    sentence with its surroundings, so the words it points at may be a neighbour's), with the marker
    of that sentence: the read item's own first, else the first context sentence that holds them.
    Passed over: a reading that names one of ``subjects`` (the question's own subject), and one that
    is not of the ``expected`` type (:func:`of_type`: "Toronto" for "Who is the fire warden…"), and a
    chat line's speaker label for anything but "who" ("Kieran" for "How does Kieran describe…")."""
    echoes = [re.compile(rf"(?<!\w){re.escape(s.casefold())}(?!\w)") for s in subjects]
    for item, reading in sorted(zip(context, readings, strict=True), key=lambda pair: -pair[1].probability):
        words = " ".join(reading.answer.split()).casefold()
        if len(words) < 2 or any(e.search(words) for e in echoes):
            continue
        holders = [item] + [c for c in context if c is not item]
        for holder in holders:
            sentence = " ".join(holder.span.text.split())
            at = sentence.casefold().find(words)
            if at < 0:
                continue
            if expected is not None and not of_type(expected, sentence, at, at + len(words)):
                break  # not the type asked for, wherever it is found: the next reading
            if expected != AGENT and _speaker(sentence, at, at + len(words)):
                break  # a chat line's speaker answers "who", not "what does Kieran think…"
            return Located(reading.answer, holder.marker, reading.probability)
    return None


def _speaker(sentence: str, start: int, end: int) -> bool:
    """``sentence[start:end]`` is (part of) the speaker label a chat line opens with, in any of the
    shapes :func:`~citegraph.sentences.message_speaker` reads ("Kieran: For sure!", "2025-03-06 08:20
    Jamal Reid: Cleared.", Zoom's "10:12:05 From Anna Berg to Everyone: …", IRC's "[10:12] <rhea> …")."""
    speaker = message_speaker(sentence)
    at = sentence.find(speaker) if speaker else -1
    return 0 <= at <= start and end <= at + len(speaker or "")


_DIGIT = re.compile(r"\d")
#: words that say when without a digit: a month (or its abbreviation), a day, a relative day or time
_WHEN_WORDS = re.compile(
    r"\b(?:"
    + "|".join([*MONTHS, *(m[:3] for m in MONTHS), "sept", *DAYS])
    + r"|today|tomorrow|yesterday|tonight|morning|afternoon|evening|noon|midnight|week|month|year|spring|summer|autumn|fall|winter)\b",
    re.IGNORECASE,
)


def of_type(expected: str, sentence: str, start: int, end: int) -> bool:
    """Whether ``sentence[start:end]`` (a reader's answer) can be the ``expected`` type of answer
    (:func:`~citegraph.question.expected_type`). Named-entity labels decide where they speak
    against it: the span overlaps entities and none is of the type ("Toronto", a place, for "who").
    A date or a number must also show one: a digit, a number word, a month, a day, a time of day.
    Where spaCy is missing or tags nothing, a name is given the benefit of the doubt."""
    text = sentence[start:end]
    parsed = parse([sentence])  # once: its tokens and its entities
    if expected in (DATE, NUMBER) and not _DIGIT.search(text) and not (expected == DATE and _WHEN_WORDS.search(text)):
        inside = [] if parsed is None else [t for t in parsed[0] if t.idx < end and t.idx + len(t) > start]
        if not any(t.like_num for t in inside):
            return False
    if parsed is None:
        return True
    overlapping = [e for e in parsed[0].ents if e.start_char < end and e.end_char > start]
    if expected == DATE and _WHEN_WORDS.search(text) and any(e.label_ == "ORDINAL" for e in overlapping):
        return True  # "the 10th of the following month": spaCy tags the day as an ordinal, the words say when
    return not overlapping or any(e.label_ in SATISFIES[expected] for e in overlapping)
