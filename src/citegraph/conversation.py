"""Follow-up questions: a question read in the light of the conversation before it.

"Who leads the SSO project?" then "Which office is she in?": asked alone, the second question names
nobody, and retrieval and every check would look for "she". :func:`resolve` writes the follow-up out
from the earlier turns by rules (no language model) and says what it did, so that retrieval, the
checks and the person all read the same question:

- "he", "she", "his", "her"… stand for the last person the conversation named: the one the previous
  answer gave (the reader's answer to a "who" question, :meth:`Turn.of`, even where the tagger
  takes it for an organisation; a full name before a one-word one; a chat line's speaker), else the
  previous question's: "Reading 'she' as 'Priya Nair'.";
- "they", "their" stand for the people or the organisation the previous question named ("What did
  Marrow & Finch ask for?" … "What did they get?"), else what it counted ("How many volunteers…"
  … "How many hours did they put in?"), else the last person;
- "it", "its" stand for what the previous question was about (its phrase that is not the one
  asked for: "the SAML certificate rotation bug" of "Which version fixed the SAML certificate
  rotation bug?"); when it asked for a thing and named no other, only people ("What service does
  Ruth Adeyemi run?"), for that thing as the question describes it ("the service that Ruth Adeyemi
  runs"), not as the answer named it: an answer can be wrong, and the follow-up would inherit it;
- none of them when the follow-up itself brings in, before the pronoun, someone or something new
  ("a shift … to work it", "My mum can't leave the house. How many things can it bring her?");
- "there", "that branch", "that room" stand for the place the previous answer gave when the previous
  question asked where or which (a room, a branch): its name ending in the noun ("Willow Room")
  first, and with no name at all the place the question describes ("the room where the Riverside
  Writers meet"); else the place the previous question named;
- an elided follow-up with no verb ("And in Toronto?", "What about the Lisbon team?", "And for a
  team manager?") is the previous question with the new words put in place of those of the same
  kind (a place for a place, a name for a name, a phrase with the same preposition for its like,
  a phrase with the same noun after the question words: "And sick days?" after "How many vacation
  days …"), or added at its end;
- a thanks or an acknowledgement before the follow-up ("Thanks! And in Toronto?", "Great, thanks.
  Who approves them?") is no part of it: dropped where the rest is written out;
- after a question asking what something is ("What is the hotel cap in London?"), an elided noun
  phrase with nothing of its kind to replace takes the place of what it asked about ("And the meal
  allowance abroad?" -> "What is the meal allowance abroad?"), where neither holds a verb.

A word the rules see pointing back but cannot read ("it" with nothing before it to stand for, "that"
alone, "that day", an elided follow-up with no words of its kind to replace) is left as written, or,
when a language model is configured (the generator's, :attr:`CiteGraph.rewriter
<citegraph.pipeline.CiteGraph.rewriter>`), the model writes the question out (:func:`rewrite`) and its
rewrite is used only if it keeps every content word of the follow-up, reads every such word and
names nothing the conversation does not: the answer shows the rewrite and which model wrote it.

Why this file is long: it is one stage, reading a follow-up, and its two halves share their readers:
the check of a model's rewrite (:func:`_unfaithful`) uses the rules' own finders of names, pointing
words and days (:func:`_capitalised`, :data:`_PRONOUNS`, :data:`_CALENDAR`), so that a rewrite is held
to what the rules would see.

An earlier answer is read only for the names it gives: only documents' spans are ever evidence. A
question that needs none of this, or the first of a conversation, is returned as it is. Without a
spaCy model, an elided follow-up is added to the end of the previous question and pronouns are left
as written. The rules were written with the conversations of ``corpora/*/conversations.json`` in view
(those marked "after the rules" were written later and never tuned on).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citegraph.errors import BackendUnavailable, ModelOutputError
from citegraph.llm.base import ChatModel, Message
from citegraph.models import Answer, AnswerWarning
from citegraph.prompts import load_prompt, render
from citegraph.question import parse
from citegraph.verify.text import DAYS, MONTHS

__all__ = ["Resolved", "Turn", "resolve", "rewrite"]


@dataclass(frozen=True)
class Turn:
    """One earlier turn: the question as it was understood, and the answer's text (its claims)."""

    question: str
    answer: str = ""

    @classmethod
    def of(cls, answer: Answer) -> Turn:
        """A turn from an answer: its question as it was read, and the reader's answer (the person a
        "who" question found, the place a "where" one did) ahead of the claims, so that "she" in
        the next turn is the person this one answered with, not the first one its quotes name."""
        reading = answer.answerability.reading if answer.answerability is not None else None
        # an answer that says the documents do not answer gives no one to the next turn
        found = f"{reading.answer}. " if reading is not None and reading.answer and answer.claims else ""
        return cls(answer.question, found + " ".join(claim.text for claim in answer.claims))


@dataclass(frozen=True)
class Resolved:
    """A follow-up written out: the question retrieval and the checks read, and what was put in."""

    question: str  #: the question as read
    asked: str  #: the follow-up as the person wrote it
    readings: tuple[tuple[str, str], ...] = ()  #: (the words written, what they were read as)
    #: the words that point back which the rules could not read ("it", "that", an elided follow-up added at the end)
    unread: tuple[str, ...] = ()
    by: str = "rules"  #: who wrote it out: "rules", or the model that rewrote it
    refused: str = ""  #: a model's rewrite that was not used, and why ("" when none was tried or it was used)

    @property
    def changed(self) -> bool:
        return self.question != self.asked

    @property
    def told(self) -> bool:
        """Whether the answer says how its question was read: it was written out, or a word that points
        back was left unread (and why no model's rewrite was used, if one was tried)."""
        return self.changed or bool(self.unread or self.refused)

    def note(self) -> str:
        """What was understood, in words: "Reading 'she' as 'Priya Nair'."; "" when nothing was."""
        said = " ".join(f"Reading {w!r} as {r!r}." for w, r in self.readings) if self.changed else ""
        if self.by != "rules":
            said += f" Written out by the language model {self.by} (the rules could not read {', '.join(map(repr, self.unread))})."
        if self.refused:
            said += f" {self.refused}"
        return said.strip()

    def warning(self) -> AnswerWarning:
        """The answer's note that its question was read as a follow-up, and as what; or that it was
        asked as written because what it points back to could not be read (and why no model's rewrite was used)."""
        if self.changed:
            said = f"read as a follow-up of the conversation: {self.asked!r} as {self.question!r}. {self.note()}"
        else:
            said = f"asked as written: the conversation does not say what {', '.join(map(repr, self.unread))} stands for. {self.refused}"
        return AnswerWarning("follow_up", said.strip(), (("asked", self.asked), ("read_as", self.question), ("by", self.by)))


_PERSON_WORDS = {"he": "", "she": "", "him": "", "her": "", "his": "'s", "hers": "'s"}
_GROUP_WORDS = {"they": "", "them": "", "their": "'s", "theirs": "'s"}
_THING_WORDS = {"it": "", "its": "'s"}
_PRONOUNS = {**_PERSON_WORDS, **_GROUP_WORDS, **_THING_WORDS}
_PLACE_NOUNS = "room|branch|office|city|place|building|site|venue|library|shop|store|country|team"
_DEMONSTRATIVE = re.compile(rf"\b(?:that|this|the same) ({_PLACE_NOUNS})\b", re.IGNORECASE)
_THERE = re.compile(r"\bthere\b", re.IGNORECASE)
_ELIDED = re.compile(r"^(?:(?:and|but|so|ok|okay)[,]?\s+)?(?:(?:what|how) about\s+)?(?P<rest>.+?)\s*[?.!]*$", re.IGNORECASE)
_OPENS = re.compile(r"^(?:and|but|so|ok|okay|what about|how about)\b", re.IGNORECASE)
_PREPOSITIONS = frozenset("in at for on from to as by with during under over".split())
_WH = frozenset("who whom whose what which where when why how".split())
PEOPLE = frozenset({"PERSON"})
GROUPS = frozenset({"PERSON", "ORG", "NORP"})
PLACES = frozenset({"GPE", "LOC", "FAC"})
NOT_THINGS = frozenset({"PERSON", "DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "MONEY", "QUANTITY"})


def resolve(question: str, history: Sequence[Turn], *, model: ChatModel | None = None) -> Resolved:
    """``question`` written out from ``history`` (oldest first); unchanged when it needs nothing. With
    ``model``, a follow-up the rules leave a word of unread is rewritten by the model (:func:`rewrite`)."""
    asked = " ".join(question.split())
    if not history or not asked:
        return Resolved(asked, asked)
    understood = _understood(history[-MAX_TURNS:])
    ruled = _resolve(asked, understood)
    if model is None or not ruled.unread:
        return ruled
    written, why = rewrite(asked, understood, model, ruled.unread)
    if written is None:
        return dataclasses.replace(ruled, refused=f"The language model's rewrite was not used: {why}.")
    return Resolved(written, asked, ((asked, written),), ruled.unread, by=model.name)


def _resolve(asked: str, history: Sequence[Turn]) -> Resolved:
    """``asked`` written out from ``history``, whose questions are already as understood; a thanks or
    an "OK." before it ("Thanks! And in Toronto?") is no part of what it asks, and is dropped where
    the rest is written out."""
    bare = _ACKNOWLEDGED.sub("", asked, count=1)
    if bare and bare != asked:
        ruled = _written_out(bare, history)
        if ruled.changed:
            return dataclasses.replace(ruled, asked=asked)
    return _written_out(asked, history)


#: a thanks or an acknowledgement that opens a follow-up, with its punctuation ("Thanks!", "Great, thanks.", "OK.")
_ACKNOWLEDGED = re.compile(
    r"^(?:(?:thanks(?: a lot| so much)?|thank you(?: so much)?|thx|cheers|great|cool|nice|perfect|awesome|brilliant|lovely"
    r"|ok(?:ay)?|got it|understood|i see)\s*[,.!;:]+\s*)+",
    re.IGNORECASE,
)


def _written_out(asked: str, history: Sequence[Turn]) -> Resolved:
    """``asked``, as it is, written out from ``history`` (see :func:`_resolve`)."""
    previous = history[-1]
    parsed = parse([asked])
    doc = None if parsed is None else parsed[0]
    if _OPENS.match(asked) and (doc is None or not any(t.pos_ in ("VERB", "AUX") for t in doc)):
        rest = (m.group("rest") if (m := _ELIDED.match(asked)) else "").strip()
        if rest:
            substituted = _substitute(previous.question, rest)
            if substituted is not None:
                written, put_in = substituted
                # added at the end, with nothing of its kind to replace: the rules' guess, read as unread
                return Resolved(written, asked, ((asked, written),), () if put_in else (asked,))
    if doc is None:
        return Resolved(asked, asked)
    out = asked
    readings: list[tuple[str, str]] = []
    unread: list[str] = []
    seen: set[str] = set()
    for token in doc:
        word = token.lower_
        if word in seen or word not in _PRONOUNS:
            continue
        if _named_before(doc, token.i, people=word not in _THING_WORDS):  # "a shift … to work it", "My mum … bring her"
            continue
        by = ""
        if word in _PERSON_WORDS:
            by, tail = _last(history, PEOPLE, answer_first=True), _PERSON_WORDS[word]
        elif word in _GROUP_WORDS:
            by, tail = _group(history), _GROUP_WORDS[word]
        elif word in _THING_WORDS:
            by, tail = _asked_thing(previous) or _about(previous), _THING_WORDS[word]
        if by:
            seen.add(word)
            tail = "'s" if token.tag_ == "PRP$" or tail else ""  # "her role": a possessive, as the tagger reads it
            out = re.sub(rf"(?<![\w'’]){re.escape(token.text)}(?![\w'’])", by + tail, out, count=1)
            readings.append((token.text, by))
        else:
            unread.append(token.text)
    unread += _pointing(doc)  # "Which branch is that in?", "that day": no rule reads them
    demonstrative = _DEMONSTRATIVE.search(out)
    there = _THERE.search(out)
    if there is not None and re.search(r"\b(?:is|are|was|were) there\b|\bthere(?:'s| is| are| was| were| be)\b", out, re.IGNORECASE):
        there = None  # "Is there parking?": no place is meant
    place = _place(previous, history, demonstrative.group(1) if demonstrative else "") if demonstrative or there else ""
    if not place and (m := demonstrative or there) is not None:
        unread.append(m.group(0))
    if place:
        if (m := demonstrative) is not None:
            noun = m.group(1)
            by = place if noun.casefold() in place.casefold() or place.startswith("the ") else f"the {place} {noun}"
            out = out[: m.start()] + by + out[m.end() :]
            readings.append((m.group(0), by))
        elif (m := there) is not None:
            spoken = out[max(0, m.start() - 4) : m.start()].strip().casefold()
            by = place if spoken in ("in", "at", "to", "from") else f"at {place}"
            out = out[: m.start()] + by + out[m.end() :]
            readings.append((m.group(0), place))
    return Resolved(out, asked, tuple(readings), tuple(dict.fromkeys(unread)))


def _pointing(doc: Any) -> list[str]:
    """Words that point back which no rule reads: "that" standing alone ("Which branch is that in?")
    and "that" before a noun that is no place ("that day", "that project")."""
    out = []
    for t in doc:
        if t.lower_ != "that" or t.tag_ == "WDT":  # not "the team that handles …"
            continue
        if t.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj", "attr"):  # not "true that …" (a mark)
            out.append(t.text)
        elif t.dep_ == "det" and t.head.pos_ == "NOUN" and not re.fullmatch(_PLACE_NOUNS, t.head.lower_):
            out.append(f"{t.text} {t.head.text}")
    return out


MAX_TURNS = 4  #: the turns a follow-up is read from (the last ones)
ANSWER_CHARS = 300  #: of each earlier answer, what the model is shown (the reader's answer comes first)
_BLOCK = re.compile(r"</?\s*conversation\s*>", re.IGNORECASE)
_LEAD = re.compile(r"^\W*(?:rewritten(?: question)?|question|standalone(?: question)?)\s*:\s*", re.IGNORECASE)
_SKIP_WORDS = frozenset("and but so ok okay what about how be do have get".split())
#: worked examples the model sees before the follow-up (made up; no corpus of this project's): a person
#: from the answer, a date from the question, a place for "that", an elided question
_EXAMPLES = (
    (
        "Q: Who leads the data migration?\nA: Lena Ortiz. Lena Ortiz leads the data migration.",
        "Which team is she on?",
        "Which team is Lena Ortiz on?",
    ),
    (
        "Q: Who opened the warehouse on 3 May?\nA: Omar Said. Omar Said opened the warehouse on 3 May.",
        "When did it close that day?",
        "When did the warehouse close on 3 May?",
    ),
    (
        "Q: Where is the chess club held?\nA: Hillside. The chess club meets at Hillside hall.",
        "Which town is that in?",
        "Which town is Hillside hall in?",
    ),
    (
        "Q: How many days of leave do staff in Oslo get?\nA: 25 days.",
        "And the contractors?",
        "How many days of leave do contractors in Oslo get?",
    ),
)


def rewrite(asked: str, history: Sequence[Turn], model: ChatModel, unread: Sequence[str] = ()) -> tuple[str | None, str]:
    """``asked`` written out by ``model`` from ``history`` (the turns as understood, oldest first):
    ``(rewrite, "")``, or ``(None, why)`` when the model fails or its rewrite is not faithful: it must
    keep every content word of ``asked``, leave none of its pronouns that point back (``unread``), and
    name nothing that neither the follow-up nor the conversation names (a model that answers, or
    guesses a name, is caught here). The conversation goes to the model inside a block its text
    cannot close, as evidence does."""
    turns = "\n".join(
        f"Q: {_BLOCK.sub('(conversation)', ' '.join(t.question.split()))}\n"
        f"A: {_BLOCK.sub('(conversation)', ' '.join(t.answer.split())[:ANSWER_CHARS]) or '(no answer)'}"
        for t in history
    )
    messages = [Message("system", load_prompt("follow_up_system").strip())]
    for conversation, follow_up, written in _EXAMPLES:  # shown as earlier exchanges: a small model copies the form
        messages += [
            Message("user", render("follow_up_user", conversation=conversation, question=follow_up).strip()),
            Message("assistant", written),
        ]
    messages.append(Message("user", render("follow_up_user", conversation=turns, question=asked).strip()))
    try:
        text = model.chat(messages, max_tokens=80).text
    except (BackendUnavailable, ModelOutputError) as error:
        return None, f"the model failed ({error})"
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    written = " ".join(_LEAD.sub("", lines[0]).strip().strip("\"'“”‘’`").split()) if lines else ""
    why = _unfaithful(written, asked, history, unread)
    return (None, why) if why else (written, "")


def _unfaithful(written: str, asked: str, history: Sequence[Turn], unread: Sequence[str]) -> str:
    """Why ``written`` is no faithful rewrite of ``asked``; "" when it is. Without a spaCy model nothing
    but its shape could be checked: no rewrite is used then."""
    if not written:
        return "it wrote nothing"
    if written.casefold() == asked.casefold():
        return "it left the follow-up as it was"
    if len(written) > max(3 * len(asked), len(asked) + 150) or re.search(r"[.!?]\s+\S", written):
        return "it wrote more than a question"
    if not written.endswith("?"):
        return "it wrote no question (an answer, perhaps)"
    doc, kept = _doc(asked), _doc(written)
    if doc is None or kept is None:
        return "no spaCy model to check it with"
    words = {w.casefold() for w in re.findall(r"[\w'’]+", written)}
    # a word that points back, left in: the follow-up's pronouns (the rules' readings too), "that", "there"
    pointing = [t.text for t in doc if t.lower_ in _PRONOUNS] + [w for w in unread if w != asked]
    left = [w for w in pointing if re.search(rf"(?<![\w'’]){re.escape(w)}(?![\w'’])", written, re.IGNORECASE)]
    if left:
        return f"it left {left[0]!r} unread"
    known = " ".join([asked, *(f"{t.question} {t.answer}" for t in history)])

    def said(name: str) -> bool:  # on word boundaries: "Lee" is not in "Leeds"
        return re.search(rf"(?<![\w'’]){re.escape(name)}(?![\w'’])", known, re.IGNORECASE) is not None

    new = [name for name in _capitalised(written) if not said(name)]
    new += [t.text for t in kept if (t.like_num or t.lower_ in _CALENDAR) and not said(t.text)]  # a day or a number made up
    if new:
        return f"it named {new[0]!r}, which neither the follow-up nor the conversation names"
    have = {t.lemma_.casefold() for t in kept} | words
    replaced = {w.casefold() for phrase in unread if phrase != asked for w in phrase.split()}  # "that service" may become its name
    for t in doc:
        content = t.pos_ in ("NOUN", "PROPN", "VERB", "ADJ", "NUM") and not t.is_stop and t.lower_ not in _SKIP_WORDS | replaced
        if content and t.lemma_.casefold() not in have and t.lower_ not in have:
            return f"it dropped {t.text!r} from the follow-up"
    return ""


def _understood(history: Sequence[Turn]) -> list[Turn]:
    """The turns with each question read from the ones before it ("And in Toronto?" as the question it
    stands for): a chat front end sends them as written."""
    out: list[Turn] = []
    for turn in history:
        asked = " ".join(turn.question.split())
        out.append(Turn(_resolve(asked, out).question if out and asked else asked, turn.answer))
    return out


def _doc(text: str) -> Any:
    parsed = parse([text]) if text else None
    return None if parsed is None else parsed[0]


#: days (and their plurals), months and relative days: capitalised, and no names
_CALENDAR = frozenset([*DAYS, *(d + "s" for d in DAYS), *MONTHS, "today", "tomorrow", "yesterday"])
#: a chat line's speaker after its time ("2025-03-04 10:31 Sofia Almeida: …", "[12/03/2025, 19:40] Joana Ferreira: …")
_SPEAKER = re.compile(r"(?:^|\n)\s*[\[\]\d/.,:\- ]*\s*([A-Z][\w'’-]+(?: [A-Z][\w'’-]+){0,3}):\s")


def _entities(text: str, labels: frozenset[str]) -> list[str]:
    """The names ``text`` gives of those kinds, each cut to its leading capitalised words (a small
    model's span "Gareth Lloyd manages Millbrook" is "Gareth Lloyd")."""
    doc = _doc(text)
    if doc is None:
        return []
    out = []
    for e in doc.ents:
        if e.label_ not in labels:
            continue
        words = []
        for t in e:
            if not (t.text[:1].isupper() or t.text in ("&", "of", "on", "de", "da", "van", "von") or t.like_num):
                break
            words.append(t.text_with_ws)
        name = "".join(words).strip()
        if name:
            out.append(name)
    return out


def _capitalised(text: str, *, fragment: bool = False, joins: bool = True) -> list[str]:
    """Runs of capitalised words ("Books on Wheels") that are no question word, no day or month and,
    unless ``text`` is a fragment ("Northgate"), no sentence's plain first word: the names a small
    model's entity tagger can miss ("Millbrook", "Bilal"). ``joins``: "of", "on", "&" may join two
    names' words (not for a person's name)."""
    doc = _doc(text)
    if doc is None:
        return []
    runs: list[str] = []
    current: list[str] = []

    def name(t: Any) -> bool:
        opening = t.is_sent_start and t.pos_ != "PROPN" and not fragment
        return bool(t.text[:1].isupper()) and t.lower_ not in _WH and t.lower_ not in _CALENDAR and not opening

    for t in doc:
        if name(t) or (joins and current and t.lower_ in ("of", "on", "&", "de", "da") and t.i + 1 < len(doc) and name(doc[t.i + 1])):
            current.append(t.text_with_ws)
        elif current:
            runs.append("".join(current).strip())
            current = []
    return [*runs, "".join(current).strip()] if current else runs


def _last(history: Sequence[Turn], labels: frozenset[str], *, answer_first: bool) -> str:
    """The first name of those kinds in the last turn that gives one (its answer first, or its
    question first); for a person, a chat line's speaker counts, and where the tagger finds none,
    the first capitalised name."""
    for turn in reversed(history):
        for text in (turn.answer, turn.question) if answer_first else (turn.question, turn.answer):
            found = _entities(text, labels)
            if labels == PEOPLE:  # a full name first: a one-word "person" is often a product ("Gantt")
                names = _capitalised(text, joins=False)
                full = [n for n in found if " " in n] + _SPEAKER.findall(text) + [n for n in names if " " in n]
                # the reader's answer to a "who" question first (to a "where" question it is a place)
                answered = _answered_name(text) if text is turn.answer and re.match(r"\W*who\b", turn.question, re.IGNORECASE) else []
                found = answered + full + found + names
            elif not found and text:
                found = _capitalised(text)
            if found:
                return found[0]
    return ""


#: an answer's first sentence that is a name alone, the reader's answer :meth:`Turn.of` puts first ("Amara Okoye. …")
_NAME_ALONE = re.compile(r"^\s*([A-Z][\w'’-]+(?: [A-Z][\w'’-]+){1,3})\.(?:\s|$)")


def _answered_name(text: str) -> list[str]:
    """The full name an answer opens with, alone (the reader's answer to a "who" question: "Amara
    Okoye." before the claims), where the tagger takes it for no place or time: a name it reads as an
    organisation ("Amara Okoye" as ORG) is still the person the answer gave; [] otherwise."""
    found = _NAME_ALONE.match(text)
    if found is None:
        return []
    name = found.group(1)
    if _entities(name, PLACES | {"DATE", "TIME"}) or any(w in _CALENDAR for w in name.casefold().split()):
        return []
    return [name]


def _group(history: Sequence[Turn]) -> str:
    """Who "they" are: the people or organisation the previous question named, else what it counted
    ("How many volunteers…": "volunteers"), else the last person named."""
    previous = history[-1]
    named = _entities(previous.question, GROUPS)
    if named:
        return named[0]
    doc = _doc(previous.question)
    if doc is not None:
        for chunk in doc.noun_chunks:
            if chunk.root.tag_ in ("NNS", "NNPS"):
                words = [t.text for t in chunk if t.lower_ not in _WH and t.lower_ not in ("many", "much", "the")]
                if words:
                    return " ".join(words)
    return _last(history, PEOPLE, answer_first=True)


def _about(previous: Turn) -> str:
    """What the previous question was about: its noun phrase that is not the one asked for (not
    opening with a question word, no person), the one holding a name first; else a name of a thing
    in the previous answer."""
    doc = _doc(previous.question)
    if doc is not None:

        def names(span: Any, kinds: Any) -> bool:  # a name of one of ``kinds`` overlaps ``span``
            return any(kinds(e.label_) and e.start < span.end and e.end > span.start for e in doc.ents)

        for t in doc:  # the thing the verb acts on or is said of, not the one asked for
            if t.dep_ in ("dobj", "nsubjpass", "attr", "nsubj") and t.pos_ in ("NOUN", "PROPN"):
                span = next((c for c in doc.noun_chunks if c.root.i == t.i), doc[t.i : t.i + 1])
                if not any(w.lower_ in _WH for w in span) and not names(span, PEOPLE.__contains__):
                    return span.text
        chunks = [c for c in doc.noun_chunks if c[0].lower_ not in _WH and c.root.pos_ != "PRON" and not names(c, PEOPLE.__contains__)]
        named = [c for c in chunks if names(c, lambda label: label not in NOT_THINGS)]
        if named or chunks:
            return (named or chunks)[0].text
    things = _entities(previous.answer, frozenset({"ORG", "PRODUCT", "WORK_OF_ART", "EVENT", "FAC", "GPE", "LOC", "LAW"}))
    return things[0] if things else ""


def _named_before(doc: Any, i: int, *, people: bool) -> bool:
    """The follow-up brings in, before word ``i``, something new that "it" stands for (a phrase with
    "a", "an" or "another": "What happens to a shift … to work it?") or, for a personal pronoun
    (``people``), someone new (also "my", "your", "our": "My mum can't leave the house. How many
    things can it bring her?"); a day or a time is nobody ("on a Thursday")."""
    times = {t.i for e in doc.ents if e.label_ in ("DATE", "TIME") for t in e}
    opens = ("a", "an", "another", "my", "your", "our") if people else ("a", "an", "another")
    return any(c.end <= i and c[0].lower_ in opens and c.root.i not in times for c in doc.noun_chunks)


def _place(previous: Turn, history: Sequence[Turn], noun: str = "") -> str:
    """The place "there" or "that room" (``noun``: "room") stands for: when the previous question
    asked where or which (a room, a branch), the previous answer's name that ends in the noun ("Willow
    Room") or else its first place, or with none the place that question describes ("the room where
    the Riverside Writers meet"); else the last place a question named."""
    q = previous.question.casefold()
    if re.match(rf"^(?:where|which (?:{_PLACE_NOUNS})|what (?:{_PLACE_NOUNS}))\b", q):
        names = _capitalised(previous.answer)
        ending = [n for n in names if noun and n.casefold().split()[-1] in (noun.casefold(), noun.casefold() + "s")]
        found = ending or _entities(previous.answer, PLACES | {"ORG"}) or names
        if found:
            return found[0]
        described = _described(previous.question, noun or "place")
        if described:
            return described
    return _last(history, PLACES | {"ORG"}, answer_first=False)


def _asked_thing(previous: Turn) -> str:
    """What "it" stands for when the previous question asked for a thing ("What service does Ruth
    Adeyemi run?", "Which reading group does Dev Patel organise?") and named no other thing, only
    people: that thing, described by the question ("the service that Ruth Adeyemi runs"), since an
    answer can be wrong and the question cannot. "" otherwise ("Which version fixed the SAML bug?":
    "it" is the bug, :func:`_about`)."""
    doc = _doc(previous.question)
    if doc is None or not doc or doc[0].lower_ not in ("what", "which"):
        return ""
    asked = _asked_phrase(doc)
    if asked is None:
        return ""
    people = {t.i for e in doc.ents if e.label_ in PEOPLE for t in e}
    rest = [t for t in doc[asked.end :] if not t.is_punct]
    inverted = _inverted(rest)
    if inverted is not None:  # "does Dev Patel organise": the word after the subject is the verb, whatever its tag
        auxiliary, subject, after = inverted
        rest = [*subject, *(after[1:] if auxiliary in ("do", "does", "did") else after)]
    others = [t for t in rest if t.pos_ in ("NOUN", "PROPN") and t.i not in people]
    return "" if others else _described(previous.question)


#: irregular past tenses a described question may need ("Which room did they meet in?": "that they met in")
_PAST = dict(
    pair.split(":")
    for pair in (
        "be:was bring:brought build:built buy:bought choose:chose come:came do:did find:found get:got give:gave go:went "
        "have:had hold:held keep:kept know:knew lead:led leave:left lose:lost make:made meet:met pay:paid put:put "
        "run:ran say:said see:saw sell:sold send:sent set:set speak:spoke spend:spent take:took teach:taught tell:told "
        "think:thought win:won write:wrote"
    ).split()
)
_AUXILIARIES = frozenset("do does did is are was were has have had can could will would should may might must".split())


def _asked_phrase(doc: Any) -> Any:
    """The phrase a "what"/"which" question asks for, without the question word ("service" of "What
    service does …", "reading group" of "Which reading group …"): the words after it up to the
    first verb or auxiliary; None when there are none (a bare "What is …?")."""
    end = 1
    while end < len(doc) and doc[end].pos_ in ("NOUN", "PROPN", "ADJ") and doc[end].lower_ not in _AUXILIARIES:
        end += 1
    return doc[1:end] if end > 1 and doc[end - 1].pos_ in ("NOUN", "PROPN") else None


def _inflected(verb: str, auxiliary: str) -> str:
    """``verb`` (its base form) as a statement says it after do-support is dropped: "does … run" ->
    "runs", "did … meet" -> "met", "do … meet" -> "meet"."""
    low = verb.casefold()
    if auxiliary == "does":
        if low in ("have", "do", "go"):
            return {"have": "has", "do": "does", "go": "goes"}[low]
        if re.search(r"[^aeiou]y$", low):
            return verb[:-1] + "ies"
        return verb + ("es" if re.search(r"(?:s|sh|ch|x|z)$", low) else "s")
    if auxiliary == "did":
        if low in _PAST:
            return _PAST[low]
        return verb + ("d" if low.endswith("e") else "ed")
    return verb


def _described(question: str, noun: str = "") -> str:
    """The thing a question asks for, described by the question: "What service does Ruth Adeyemi
    run?" -> "the service that Ruth Adeyemi runs"; "Which branch runs Lego Club?" -> "the branch that
    runs Lego Club"; "Where do the Riverside Writers meet?" (``noun`` "room") -> "the room where the
    Riverside Writers meet". "" for a question of another shape."""
    doc = _doc(question)
    if doc is None or not doc:
        return ""
    first = doc[0].lower_
    if first == "where":
        head, rest = f"the {noun or 'place'} where", doc[1:]
    elif first in ("what", "which") and (asked := _asked_phrase(doc)) is not None:
        head, rest = f"the {asked.text} that", doc[asked.end :]
    else:
        return ""
    words = list(rest)
    while words and words[-1].is_punct:  # the question mark; "on-call", "8-9" keep theirs
        words.pop()
    if not words:
        return ""
    inverted = _inverted(words)
    if inverted is None:
        if first == "where":
            return ""  # "Where is open late?": no statement to make of it
        return f"{head} {_written(words)}"  # the asked phrase is the subject: "that runs Lego Club"
    auxiliary, subject, after = inverted
    if auxiliary in ("do", "does", "did"):
        if not after:
            return ""
        said = f"{_inflected(after[0].text, auxiliary)}{after[0].whitespace_}{_written(after[1:])}"
    else:
        said = f"{words[0].text} {_written(after)}"
    return f"{head} {_written(subject)} {said.strip()}".strip()


def _written(tokens: Sequence[Any]) -> str:
    """Tokens as the question wrote them ("on-call", "8-9 March", "Ruth's" stay whole)."""
    return "".join(t.text_with_ws for t in tokens).strip()


def _inverted(words: Sequence[Any]) -> tuple[str, list[Any], list[Any]] | None:
    """A question's words after its question phrase, in inverted order ("does Dev Patel organise",
    "is the book club held in"): the auxiliary, the subject (a name, or "the …" up to the verb) and
    the words after it; None when they are in a statement's order ("runs Lego Club")."""
    if len(words) < 2 or words[0].lower_ not in _AUXILIARIES or words[1].pos_ not in ("DET", "PROPN", "PRON", "NOUN", "NUM", "ADJ"):
        return None
    end = 1
    opened = words[1].pos_ == "DET"
    while (
        end < len(words)
        and (
            words[end].pos_ in ("DET", "PROPN", "PRON", "NUM")
            or (words[end].text in ("-", "'s", "’s") and not words[end - 1].whitespace_)  # "home-delivery", "Ruth's"
            or (not words[end].whitespace_ and end + 1 < len(words) and words[end + 1].text == "-")  # "on" of "on-call"
            or (words[end - 1].text in ("'s", "’s") and words[end].pos_ in ("NOUN", "ADJ"))  # "Ruth's office"
            or words[end].text[:1].isupper()
            or (opened and words[end].pos_ in ("NOUN", "ADJ"))
        )
    ):
        end += 1
    if end == len(words) and end > 2 and words[0].lower_ in ("do", "does", "did"):
        end -= 1  # "does the on-call engineer use": the last word is the verb, whatever its tag
    return None if end == 1 else (words[0].lower_, list(words[1:end]), list(words[end:]))


#: a question asking what something is ("What is the hotel cap in London", "How much is a replacement card", "Who's the
#: fire warden at Leeds"): what it asks about, after the copula
_ASKED_ABOUT = re.compile(
    r"^(?:what|who|when|where|how\s+(?:much|many|long|late|early|often))(?:'s|’s|\s+(?:is|are|was|were))\s+(?P<about>\S.*)$", re.IGNORECASE
)


def _substitute(previous: str, rest: str) -> tuple[str, bool] | None:
    """The previous question with ``rest`` ("in Toronto", "the Lisbon team", "for a team manager",
    "Northgate") put in place of its words of the same kind, or at its end; None without one; with
    whether it was put in place (False: added at the end).
    In order: a phrase with the same head noun ("the Lisbon team" for "the Leeds team"); a name of
    the same kind ("Toronto" for "Leeds"; "the UK" as a whole); a phrase with the same preposition,
    the last ("for a team manager" for "for most roles"); a name for the first name ("Northgate"
    for "Central")."""
    body = previous.strip().rstrip("?.! ")
    rest = rest.rstrip("?.! ")
    if not body or not rest:
        return None
    new_doc, old_doc = _doc(rest), _doc(body)

    def put(start: int, end: int, text: str) -> tuple[str, bool]:
        return body[:start] + text + body[end:] + "?", True

    first = rest.split()[0].casefold()
    if new_doc is not None and old_doc is not None:
        new_chunks = list(new_doc.noun_chunks)
        if first not in _PREPOSITIONS and len(new_chunks) == 1 and new_chunks[0].root.pos_ == "NOUN":
            for chunk in old_doc.noun_chunks:
                if chunk.root.lemma_ != new_chunks[0].root.lemma_:
                    continue
                # "How many vacation days" takes "sick days" after its question words: "How many sick days"
                tail = next((t for t in chunk if t.lower_ not in _WH and t.lower_ not in ("many", "much")), None)
                if tail is not None:
                    return put(tail.idx, chunk.end_char, rest)
        for new in new_doc.ents:
            for old in old_doc.ents:
                if old.label_ == new.label_ and old.label_ not in ("DATE", "TIME", "CARDINAL", "ORDINAL"):
                    start = old.start_char
                    chunk = next((c for c in old_doc.noun_chunks if c.start <= old.start and old.end <= c.end), None)
                    if chunk is not None and chunk.end == old.end and chunk[0].lower_ == "the" and chunk.start == old.start - 1:
                        start = chunk.start_char  # "the UK" is one name with its article: "in Portugal"
                    return put(start, old.end_char, new.text)
        if first in _PREPOSITIONS:
            phrases = [t for t in old_doc if t.lower_ == first and t.dep_ in ("prep", "agent", "dative")]
            if phrases:
                span = old_doc[phrases[-1].i : phrases[-1].right_edge.i + 1]
                return put(span.start_char, span.end_char, rest)
    names, old_names = _capitalised(rest, fragment=True), _capitalised(body)
    if names and old_names and " ".join(names) == rest.removeprefix("the ").strip():
        at = body.find(old_names[0])
        return put(at, at + len(old_names[0]), rest)
    # "What is the hotel cap in London?" … "And the meal allowance abroad?": what it asked about, replaced
    asked = _ASKED_ABOUT.match(body)
    if asked is not None and new_doc is not None and old_doc is not None and first not in _PREPOSITIONS:
        about = [t for t in old_doc if t.idx >= asked.start("about")]
        if any(t.pos_ in ("NOUN", "PROPN") for t in new_doc) and not any(t.pos_ in ("VERB", "AUX") for t in (*about, *new_doc)):
            return put(asked.start("about"), len(body), rest)
    return f"{body} {rest}?", False
