"""The question of an ``ask``, read once: its text and spaCy's parse of it, and what the answer's
checks derive from the parse (the answer type it asks for, its named entities and content words).

:meth:`Question.read` parses a text once (texts read again, the same question retrieved and then
checked, or the question with its abbreviations spelled out, come from a small cache); retrieval
links the question's names to the graph from it, and the answerability, relevance and extractive
checks read it instead of parsing the question again. Every parse here goes through one path,
:func:`parse`: the shared spaCy pipeline (:func:`~citegraph.sentences.load_spacy`), one call at a time.

What the question asks for (its expected answer type, from the question word): ``when`` and "what
year/date/century" want a date; "how many/much/long/old/far", "what percentage/number" want a number
or quantity; ``who``/``whom``/``whose`` a person, organisation or group; ``where`` a place.
``what``/``which``, yes/no questions and the rest expect no particular type. What it is about (its
terms): the named entities it mentions and the lemmas of its content words (nouns, proper nouns,
verbs, adjectives, numbers) other than the question word's own ("year" in "what year"), auxiliaries
and light verbs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from citegraph.errors import CitegraphError

__all__ = [
    "AGENT",
    "DATE",
    "NUMBER",
    "PLACE",
    "SATISFIES",
    "Question",
    "asks_what_said",
    "asks_who_started",
    "expected_type",
    "holds_type",
    "marked",
    "own_asking_sentence",
    "parse",
    "question_terms",
    "unwrapped",
]

# Expected answer types and the spaCy entity labels that satisfy them.
DATE, NUMBER, AGENT, PLACE = "date", "number", "agent", "place"
SATISFIES: dict[str, frozenset[str]] = {
    DATE: frozenset({"DATE", "TIME"}),
    NUMBER: frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE", "TIME", "ORDINAL"}),
    AGENT: frozenset({"PERSON", "ORG", "NORP"}),
    PLACE: frozenset({"GPE", "LOC", "FAC"}),
}
HOW = {"many": NUMBER, "much": NUMBER, "long": NUMBER, "old": NUMBER, "far": NUMBER, "often": NUMBER, "tall": NUMBER, "big": NUMBER, "large": NUMBER, "high": NUMBER}  # fmt: skip
WHAT_NOUN = {
    "year": DATE, "date": DATE, "day": DATE, "month": DATE, "century": DATE, "decade": DATE, "time": DATE,
    "number": NUMBER, "percentage": NUMBER, "percent": NUMBER, "amount": NUMBER, "population": NUMBER, "age": NUMBER,
    "city": PLACE, "country": PLACE, "state": PLACE, "place": PLACE, "town": PLACE, "location": PLACE,
}  # fmt: skip
#: what may stand between "what" and the noun it asks about: "what's the", "what was the", "which are the"
_COPULA_OR_ARTICLE = frozenset({"is", "'s", "’s", "was", "are", "were", "the", "a", "an"})
_LIGHT = frozenset({"be", "do", "have", "get", "make", "take", "give", "go", "become", "include", "call", "know", "name"})


#: words that open a question: the question words and the auxiliaries of a yes/no question
_ASKING = frozenset(
    "who whom whose what which where when why how is are was were am do does did can could will would shall should "
    "may might must has have had isn't aren't wasn't weren't don't doesn't didn't can't couldn't won't wouldn't "
    "shouldn't hasn't haven't".split()
)


#: a word that greets ("Hi", "Dear", "Good morning")
_GREETING = r"(?:hi|hey|hello|hiya|dear|good\s+(?:morning|afternoon|evening))"
#: what opens a message before its question and asks nothing: "Hi team!", "Quick question:", "Sorry to bother you,"
_OPENER = re.compile(
    rf"^(?:(?:{_GREETING}|morning)(?:\s+(?:all|team|everyone|everybody|there|folks)|\s+(?-i:[A-Z][a-z'’-]+)(?=\s*[,!]))?"
    r"(?![\w'’-])[\s,!.:;-]*)?(?:(?:(?:a|one)\s+)?(?:(?:quick|small|short)\s+)?question(?:\s+for\s+you)?\s*[,!.:;-]+\s*"
    r"|sorry\s+to\s+bother\s+you\b[\s,!.:;-]*)?",
    re.IGNORECASE,
)
#: a request wrapped around a question: "Can you tell me who leads SSO?", "Do you know when…", "I'd like to know…"
_WRAPPED = re.compile(
    r"^(?:please\s+)?"
    r"(?:(?:can|could|would|will)\s+(?:you|someone|anyone)\s+(?:please\s+)?(?:tell|remind|let)\s+me(?:\s+know)?"
    r"|(?:do|does)\s+(?:you|anyone|anybody|someone)\s+know|(?:i|i'd|i would)\s+(?:like|want|need)\s+to\s+know"
    r"|i\s+(?:was|am|'m)\s+wondering|(?:please\s+)?tell\s+me)"
    r"[\s,:]+(?:if\s+|whether\s+)?(?!about\b)(?P<rest>\S.*)$",
    re.IGNORECASE,
)


#: a first line that only greets, as a message or an e-mail opens: "Hello team,", "Hi Sam!", "Dear all,"
_SALUTATION = re.compile(rf"^\s*{_GREETING}\b[^\n?]{{0,40}}\n", re.IGNORECASE)
#: what closes a message after its question and asks nothing: "Thanks!", "Thanks in advance.",
#: "Cheers", "Kind regards," with the writer's name after it ("Thanks,\nSam", "Thanks, Sam")
_SIGN_OFF = re.compile(
    r"(?:(?<=[.!?])|(?<=\n))\s*(?:many\s+)?(?:thanks|thank\s+you|thx|cheers|best|best\s+wishes|kind\s+regards|regards)"
    r"(?:\s+(?:in\s+advance|so\s+much|a\s+lot|again|all|everyone|team))?[^\w\n]*(?:(?:\n\s*|(?<=,)\s*)[^\W\d][\w .'’-]{0,40})?\s*$",
    re.IGNORECASE,
)


#: marks a question may be typed inside, as a pair around all of it: quotes, Markdown emphasis, code
_AROUND = (("**", "**"), ("__", "__"), ('"', '"'), ("“", "”"), ("‘", "’"), ("«", "»"), ("'", "'"), ("*", "*"), ("_", "_"), ("`", "`"))
#: a label before a question ("Q: …", "Q. …"); "Question: …" is an opener
_LABEL = re.compile(r"^q\s*[:.)]\s+", re.IGNORECASE)
#: "Please, how many…": a please before a question ("Please tell me…" is a request, :data:`_WRAPPED`)
_PLEASE = re.compile(r"^please\s*[,!:]?\s+", re.IGNORECASE)


#: a question word mistyped where a question opens ("Waht song does…"): the word meant
_MISTYPED = {
    "waht": "what", "whta": "what", "hwat": "what", "whcih": "which", "whihc": "which", "wich": "which",
    "wehre": "where", "whre": "where", "whne": "when", "wehn": "when",
}  # fmt: skip
_FIRST_WORD = re.compile(r"^([^\W\d_]+)(?=[\s'’])")


def _as_typed(text: str) -> str:
    """``text`` without what is typed around a question and says nothing: symbols and emoji after its
    last mark ("…? 🙏"), a doubled mark ("…??", "…?!"), a pair of quotes or Markdown emphasis around
    all of it ("**Who leads SSO?**"), a "Q:" label, a "Please," before its question word; and with
    its opening question word as meant where it is mistyped ("Waht song…")."""
    out = text.strip()
    while True:
        before = out
        end = len(out)
        # emoji and other pictographs (So, Sk), never a currency or maths sign ("… in €")
        while end and (unicodedata.category(out[end - 1]) in ("So", "Sk") or out[end - 1] in "\ufe0f\u200d" or out[end - 1].isspace()):
            end -= 1
        out = re.sub(r"[?!]*\?[?!]*$", "?", out[:end]) if re.search(r"\?[?!]*$", out[:end]) else out[:end]
        for left, right in _AROUND:
            if len(out) > len(left) + len(right) and out.startswith(left) and out.endswith(right):
                out = out[len(left) : len(out) - len(right)].strip()
                break
        out = _LABEL.sub("", out)
        first = _FIRST_WORD.match(out)
        meant = _MISTYPED.get(first.group(1).casefold()) if first else None
        if first is not None and meant is not None:
            out = (meant.capitalize() if first.group(1)[:1].isupper() else meant) + out[first.end() :]
        please = _PLEASE.match(out)
        if please is not None and _opens_asking(out[please.end() :]):
            out = out[please.end() :]
        if out == before:
            return out


def unwrapped(text: str) -> str:
    """The question inside a request for it: "Can you tell me who leads SSO?" is read as "who leads
    SSO?", "Do you know if the office is open on Sundays" as "the office is open on Sundays", "Hi!
    Quick question: how many…" as "how many…", and a question written as a message ("Hello team,
    / How many days of holiday do I get? / Thanks, / Sam") as its question; the greeting's, the
    request's and the sign-off's words ("tell", "know", "question", "thanks", the writer's name) are
    no part of what is asked, and the embedding, the parse and the checks read what is. Unchanged
    when nothing of the kind opens or closes the text."""
    stripped = _as_typed(text)
    signed = _SIGN_OFF.search(stripped)
    if signed is not None and signed.start() > 0:
        stripped = stripped[: signed.start()].strip()
    salutation = _SALUTATION.match(stripped)
    if salutation is not None and stripped[salutation.end() :].strip():
        stripped = stripped[salutation.end() :].strip()
    opener = _OPENER.match(stripped)
    rest = (stripped[opener.end() :] if opener else "") or stripped
    found = _WRAPPED.match(rest)
    rest = found.group("rest") if found else rest
    if found and rest.endswith(".") and _opens_asking(rest):  # "I need to know how much … get.": a question, asked
        rest = rest[:-1].rstrip() + "?"
    # read again what is left ("Hello team, Waht song…?": the slip is at its start only now)
    return text if rest == text.strip() else unwrapped(rest)


#: where one sentence of a question typed as several ends and the next begins
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")


def marked(text: str) -> str:
    """``text`` with the question mark it asks without: "how many days of holiday do I get" is read
    as "how many days of holiday do I get?". A question typed without one was read as a statement by
    the parse every check starts from (its answer type, its names), and answered differently: of the
    development corpora's 126 dev questions asked without their "?", 7 more were answered wrong.
    Unchanged when the text ends in punctuation or its last sentence opens with no question word
    ("Summarize the travel guide")."""
    stripped = text.rstrip()
    if not stripped or not stripped[-1].isalnum():
        return text
    last = _SENTENCE_BREAK.split(stripped)[-1]
    return f"{stripped}?" if _opens_asking(last) else text


def _opens_asking(sentence: str) -> bool:
    """``sentence`` opens with a question word or an auxiliary ("what's", "whats" too), or with a
    preposition before one ("After how many days…", "In which office…")."""
    words = [re.sub(r"'(?:s|re|d|ll|ve)$", "", w.casefold().replace("’", "'")) for w in sentence.split()[:2]]  # "what's", "who're"
    if len(words) > 1 and words[0] in _BEFORE_ASKING:
        words = words[1:]
    first = words[0] if words else ""
    first = first[:-1] if first in {"whats", "wheres", "whens", "hows", "whos"} else first
    return first in _ASKING


def asking_sentence(text: str) -> str | None:
    """In a question typed as several sentences ("Quick question from a new starter. How many days of
    holiday do I get?", "How many days of holiday do I get? I'm asking for a colleague."), the last
    one that asks: it opens with a question word or an auxiliary and ends in "?". None for a text of
    one sentence, or where none asks so (a name's "vs." or "St." is no sentence's end: what follows
    it opens with no question word)."""
    parts = [p for p in _SENTENCE_BREAK.split(text.strip()) if p]
    return next((part for part in reversed(parts) if _asks(part)), None) if len(parts) > 1 else None


def _asks(sentence: str) -> bool:
    """``sentence`` asks: it opens with a question word or an auxiliary and ends in "?"."""
    return sentence.endswith("?") and _opens_asking(sentence)


#: a word by which an asking sentence points back at what was said before it ("VIVA Media AG changed its
#: name in 2004. What does their new acronym stand for?")
_POINTS_BACK = re.compile(r"\b(?:he|she|it|they|him|her|them|his|its|their|theirs|hers)\b", re.IGNORECASE)


def own_asking_sentence(text: str) -> str | None:
    """The :func:`asking_sentence` of ``text`` where it can be read on its own: None where there is
    none, or where it points back at what was said before it ("… What is his name?"), so that the
    question is read whole."""
    asking = asking_sentence(text)
    return None if asking is None or _POINTS_BACK.search(asking) else asking


#: a question about what someone said, wrote or put forward ("When did Ruth tell…", "What does Jake suggest…"),
#: or what they hold, like or mean to do, which a chat says in their own lines ("What type of pizza does
#: WolfgangSchulz prefer?", "What does Emily plan…", "Which game does Helios call a masterpiece…")
_SAYS = re.compile(
    r"\b(?:say|says|said|tell|tells|told|post|posts|posted|announce[sd]?|mention(?:s|ed)?|write|writes|wrote|ask(?:s|ed)?"
    r"|suggest(?:s|ed)?|propose[sd]?|share[sd]?|repl(?:y|ies|ied)|recommend(?:s|ed)?|offer(?:s|ed)?|think|thinks|thought|explain(?:s|ed)?"
    r"|prefer(?:s|red)?|like[sd]?|love[sd]?|enjoy(?:s|ed)?|plan(?:s|ned)?|want(?:s|ed)?|feel(?:s)?|felt|believe[sd]?|describe[sd]?"
    r"|call(?:s|ed)?|remember(?:s|ed)?|appreciate[sd]?|hope[sd]?|worr(?:y|ies|ied))\b",
    re.IGNORECASE,
)


def asks_what_said(text: str) -> bool:
    """``text`` asks what someone said, wrote or put forward ("When did Ruth tell the volunteers…?",
    "What does Jake suggest…?"), or what they prefer, like, plan or feel ("What type of pizza does
    WolfgangSchulz prefer?"): the speaker's own lines are where the answer is."""
    return _SAYS.search(text) is not None


#: a question about who started a conversation ("Who initiated the discussion about …?", "Who started
#: the thread on …?", "Who first brought up …?"): its answer is whoever opened the conversation
_STARTED = re.compile(
    r"^\W*who(?:'s|\s+\w+)?\s+(?:first\s+)?(?:initiat\w*|start\w*|began|begins?|kick(?:s|ed)?\s+off|open(?:s|ed)?|brought\s+up|brings?\s+up|raised?)\b"
    r"[^?]*\b(?:discussion|conversation|chat|thread|topic|talk|debate)\b",
    re.IGNORECASE,
)


def asks_who_started(text: str) -> bool:
    """``text`` asks who started a conversation ("Who initiated the discussion about Cersei's journey?",
    "Who kicked off the thread about the offsite?"), read as typed (:func:`unwrapped`)."""
    return _STARTED.search(unwrapped(text)) is not None


#: a request to write something from the documents: a role to play ("Imagine you are a hematology
#: fellow…", "You are a medical intern tasked with…", "Assume the role of…") or a verb that asks for a
#: text ("Draft…", "Rewrite … as a discharge summary", "Transform…", "Reformat…")
_ROLE = re.compile(
    r"^\s*(?:imagine\s+(?:you\s+are|you're)|you\s+are\s+an?\b|you're\s+an?\b|assume\s+the\s+role|pretend\s+(?:you|to))", re.I
)
_WRITE = re.compile(
    r"(?:^|[.!?:;]\s+)(?:please\s+)?(?:write|draft|rewrite|transform|reformat|compose|create|prepare|convert|turn|produce|design|develop"
    r"|outline|generate|construct)\b",
    re.IGNORECASE,
)


def writing_request(text: str) -> bool:
    """``text`` asks for something to be written from the documents (a referral letter, a plan, a
    note in another form), by a role to play or a verb that asks for a text, and asks no question
    of its own ("You are a new starter. How many days of holiday do I get?" is a question). Such a
    request has no one answer to find: the evidence most like it is quoted as related, never
    abstained on as "not in your documents", never shown as a checked answer."""
    asks = any(_asks(p) for p in _SENTENCE_BREAK.split(text.strip()))
    return (_ROLE.search(text) is not None or _WRITE.search(text) is not None) and not asks


#: a preposition a question may open with, before its question word ("After how many days…", "To whom…")
_BEFORE_ASKING = frozenset("after before by for from in into on since to until under with within at".split())


def parse(texts: Sequence[str], *, dependencies: bool = True) -> list[Any] | None:
    """``texts`` parsed by the shared spaCy pipeline (:func:`citegraph.sentences.parsed`: one call at a
    time across threads, the recent parses kept; ``dependencies=False`` for a check that reads no
    dependency), or None when there is no spaCy model."""
    from citegraph.sentences import parsed

    try:
        return parsed(texts, dependencies=dependencies)
    except CitegraphError:
        return None


@dataclass(frozen=True)
class Question:
    """A question and its parse (``doc``: a spaCy ``Doc``, None without a spaCy model)."""

    text: str
    doc: Any = field(default=None, repr=False, compare=False)

    @staticmethod
    def read(text: str) -> Question:
        """``text`` parsed, once per distinct text among the last few read."""
        return _read(text)

    @staticmethod
    def of(question: str | Question) -> Question:
        return question if isinstance(question, Question) else _read(question)

    @cached_property
    def expected(self) -> str | None:
        """The answer type asked for (:data:`DATE`, :data:`NUMBER`, :data:`AGENT`, :data:`PLACE`), or None."""
        return None if self.doc is None else expected_type(self.doc)

    @cached_property
    def describes(self) -> bool:
        """It names something by what a clause says of it rather than by its name ("the person leading
        this year's Summer Reading Challenge", "the island where Aoife Brennan is based", "the engineer
        who covered on-call"): a noun of it has a relative or participle clause (spaCy ``relcl``,
        ``acl``). What the clause describes is found first, and then what the question asks of it: a
        question of two hops. False without a spaCy model."""
        return self.doc is not None and any(t.dep_ in {"relcl", "acl"} and t.head.pos_ in {"NOUN", "PROPN"} for t in self.doc)

    @cached_property
    def terms(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Its named entities (casefolded) and its content-word lemmas (:func:`question_terms`), as
        tuples: a question read once is shared by every check (and by the cache)."""
        if self.doc is None:
            return (), ()
        entities, words = question_terms(self.doc, self.expected)
        return tuple(entities), tuple(words)


def holds_type(doc: Any, expected: str, given: str, besides: str = "") -> bool:
    """Whether a parsed sentence ``doc`` holds an answer of the ``expected`` type (:data:`SATISFIES`'s
    entity labels, or for a number any number-like word) that ``given`` (casefolded: the question's
    own words) does not already hold and that does not contain ``besides`` (casefolded: a name the
    sentence was reached through, itself no answer)."""
    labels = SATISFIES[expected]
    return any(
        ent.label_ in labels and ent.text.casefold() not in given and not (besides and besides in ent.text.casefold()) for ent in doc.ents
    ) or (expected == NUMBER and any(t.like_num and t.text.casefold() not in given for t in doc))


@lru_cache(maxsize=64)
def _read(text: str) -> Question:
    parsed = parse([text])
    return Question(text, None if parsed is None else parsed[0])


def expected_type(question: Any) -> str | None:
    """The answer type a parsed question asks for (:data:`DATE`, :data:`NUMBER`, :data:`AGENT`,
    :data:`PLACE`), or None."""
    tokens = [t for t in question if not t.is_punct]
    for i, t in enumerate(tokens):
        low = t.lower_
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if low == "when":
            return DATE
        if low in {"who", "whom", "whose"}:
            return AGENT
        if low == "where":
            return PLACE
        if low == "how" and nxt is not None and nxt.lower_ in HOW:
            return HOW[nxt.lower_]
        if low in {"what", "which"} and nxt is not None:
            # "what year", "which city", "in what year"; the noun may carry a modifier ("what exact date"),
            # and follow "is the" ("What's the age limit?", "What was the date of …"), but not own the
            # noun after it ("What is the city's main export?" asks for no place)
            j = i + 1
            while j < len(tokens) and tokens[j].lower_ in _COPULA_OR_ARTICLE:
                j += 1
            for k, follower in enumerate(tokens[j : j + 2], start=j):
                if follower.pos_ in {"NOUN", "PROPN"}:
                    owned = k + 1 < len(tokens) and tokens[k + 1].lower_ in {"'s", "’s"}
                    return None if owned else WHAT_NOUN.get(follower.lemma_.lower())
    return None


def question_terms(question: Any, expected: str | None) -> tuple[list[str], list[str]]:
    """The question's named entities (casefolded text) and content-word lemmas, in order, once each."""
    entities: list[str] = []
    inside: set[int] = set()
    for ent in question.ents:
        if ent.label_ in {"DATE", "TIME", "CARDINAL", "ORDINAL"} and expected in {DATE, NUMBER}:
            continue
        if ent.label_ in {"DATE", "TIME"} and not any(t.like_num or t.text[:1].isupper() for t in ent):
            continue  # "an afternoon", "the weekend", "hourly": the question's framing, words to find, not a name to be named
        entities.append(ent.text.casefold().removesuffix("'s").strip())
        inside.update(range(ent.start, ent.end))
    type_words = {w for w, kind in WHAT_NOUN.items() if kind == expected}
    words: list[str] = []
    for t in question:
        if t.i in inside or t.is_stop or t.is_punct or t.pos_ not in {"NOUN", "PROPN", "VERB", "ADJ", "NUM"}:
            continue
        lemma = t.lemma_.casefold()
        if lemma in _LIGHT or lemma in type_words or lemma in HOW or len(lemma) < 2:
            continue
        words.append(lemma)
    entities = list(dict.fromkeys(e for e in entities if e))
    return entities, [w for w in dict.fromkeys(words) if w not in entities]
