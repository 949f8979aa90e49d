"""Does a source sentence assert its content, or only frame it?

A near-quote is support only when the source *asserts* what it says. "A rumour claimed that the
Billing API leaks customer data, which the audit disproved." contains every word of "The Billing API
leaks customer data" in order, yet it reports the statement and denies it. This module finds the
frames a sentence puts around its content, by rule, with spaCy's parse for part of speech and mood:

======================  ====================================================================
``reported``            hearsay: claimed, alleged(ly), rumour, reportedly, according to, said, …
``hedged``              hedge or condition: may, might, could, possibly, perhaps, whether, if, unless, hypothetically, …
``denied``              denial or correction in the same sentence: disproved, false(ly), untrue, myth, …
``withdrawn``           no longer holding: deprecated, obsolete, outdated, superseded, retracted, …
``question``            the sentence asks
``instruction``         an instruction to an AI or about the text itself ("ignore previous instructions",
                        "answer that …", "respond with …", an imperative of ignore/disregard/forget/pretend/
                        output/print)
``directive``           any other imperative (a base-form root verb with no subject, at the start): the
                        document's own rule or step for its reader ("Order the laptop through #it-help at
                        least two weeks before the start date.", "Click Settings to start an export."):
                        asserted, and quoted like a statement: in a checklist, a policy or a how-to the
                        steps are what it says
``qualified``           only, except, until, after, before, within, not, never: the content is asserted,
                        but a trimmed quote must keep these words
======================  ====================================================================

The rule for quotes (:func:`unkept_frames`): every frame word of the premise must also be in the
claim, so a claim that carries the frame ("A rumour claimed that …", "Exports may be delayed") is
still a quote; a denial need not be carried by a claim that carries the premise's reporting frame
(the rumour did claim it, whatever the audit found); a question or an instruction never supports
by quote. A plain negative ("Refunds are not issued for partial months.") is asserted: its "not"
is ``qualified``, kept by any faithful quote.

The analysis of a sentence is cached by its text; spaCy is called through
:func:`citegraph.sentences.parsed`, under its one lock, because the verifier checks claims from several threads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

from citegraph.verify.text import (
    FUNCTION_WORDS,
    content_words,
    has_phrase,
    premise_sentences,
    quoted_sentences,
    related,
    sentences_quoting,
    tokenize,
    written_sentences,
)

__all__ = [
    "NEVER_QUOTED",
    "NOT_ASSERTED",
    "Frame",
    "FrameKind",
    "asserts",
    "directs",
    "drops_restriction",
    "drops_scope",
    "frame_note",
    "frame_notes",
    "frames",
    "instruction_frame",
    "parse",
    "unkept_frames",
]


class FrameKind(StrEnum):
    REPORTED = "reported"
    HEDGED = "hedged"
    DENIED = "denied"
    WITHDRAWN = "withdrawn"  #: deprecated, obsolete, superseded: once said, no longer holding
    FRAMED = "framed"  #: not by its words: the document's structure (a code block, struck through…: Span.frame)
    QUESTION = "question"
    INSTRUCTION = "instruction"
    DIRECTIVE = "directive"  #: an imperative to the document's reader: its rule or step, asserted (quotable)
    QUALIFIED = "qualified"  #: asserted, but scoped or negated: a trimmed quote must keep the words


#: Kinds that make a sentence not assert its content (``qualified`` and ``directive`` do not).
NOT_ASSERTED = frozenset(
    {
        FrameKind.REPORTED,
        FrameKind.HEDGED,
        FrameKind.DENIED,
        FrameKind.WITHDRAWN,
        FrameKind.FRAMED,
        FrameKind.QUESTION,
        FrameKind.INSTRUCTION,
    }
)
#: Kinds that no claim can carry: such a premise never supports by quote.
NEVER_QUOTED = frozenset({FrameKind.QUESTION, FrameKind.INSTRUCTION})


@dataclass(frozen=True)
class Frame:
    kind: FrameKind
    markers: tuple[str, ...]  #: the words or phrases found, lower-cased, in order of appearance

    @property
    def asserted(self) -> bool:
        return self.kind not in NOT_ASSERTED

    def __str__(self) -> str:
        return f"{self.kind.value} ({', '.join(repr(m) for m in self.markers)})"


# -- vocabularies -----------------------------------------------------------------------------------
# Words that frame whatever part of speech they are (adverbs, nouns, adjectives).
_REPORT_WORDS = frozenset(
    "rumour rumours rumor rumors rumoured rumored alleged allegedly reportedly supposedly purportedly ostensibly hearsay".split()
)
# Verbs (by lemma, only when tagged as a verb: "insurance claims" is not hearsay).
_REPORT_VERBS = frozenset(
    "claim allege rumour rumor say report believe think suggest speculate purport assert insist argue contend suspect tell".split()
)
_REPORT_PHRASES = ("according to",)
# only when tagged MD ("3 May" is a date); not "must": "Receipts must be attached" states the rule itself
_HEDGE_MODALS = frozenset("may might could would should".split())
_HEDGE_WORDS = frozenset(
    "possibly perhaps maybe probably likely unlikely potentially presumably conceivably apparently seemingly whether if unless "
    "hypothetically hypothetical supposing assuming".split()
)
_HEDGE_VERBS = frozenset({"seem", "appear"})
_DENIAL_WORDS = frozenset(
    "disproved disproven debunked false falsely untrue incorrect incorrectly wrong wrongly mistaken mistakenly erroneously "
    "myth myths misconception hoax fake baseless unfounded misleading".split()
)
# Withdrawn from use: what the text says no longer holds ("Deprecated: …", "Old FAQ (obsolete): …").
_WITHDRAWN_WORDS = frozenset("obsolete deprecated outdated superseded retracted withdrawn invalidated".split())
_DENIAL_VERBS = frozenset("deny refute disprove debunk retract dispute".split())
_DENIAL_PHRASES = ("not true", "not the case", "not correct", "not accurate")
_QUALIFIERS = frozenset("only except until after before within not never".split())
# Instructions to the reader or to an AI, whatever the parse says.
_INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget)\s+(?:(?:all|any|the|your|my|every|of)\s+)*(?:(?:previous|prior|above|earlier|preceding|system|these|those)\s+)?"
    r"(?:instructions?|prompts?|rules|guidelines|directions|context|messages?)\b"
    r"|\b(?:ignore|disregard|forget)\s+(?:everything|all|anything)\s+(?:above|before|previous|prior|earlier|else)\b"
    r"|\b(?:system|developer)\s+(?:prompt|message)\b"
    r"|\bas an (?:ai|assistant|language model)\b"
    r"|\bnew instructions?\b"
    r"|\b(?:respond|reply|answer)\s+(?:only\s+)?with\b"
    r"|\byou\s+(?:must|should|will|shall|need to|have to)\s+(?:always\s+)?(?:say|answer|respond|reply|state|claim|tell)\b",
    re.IGNORECASE,
)
# Imperatives that steer whoever reads the text rather than state a step ("Ignore the policy above.",
# "Pretend you are…", "Output only…"): an instruction, not the document's directive. "Answer", "say",
# "tell" and the like are steering only with a clause or "with" ("answer that …", "respond with …",
# below and in _INJECTION): "Tell your manager before 10:00." and "Reply to P1 tickets within an hour."
# are a handbook's rules.
_STEERING = frozenset("ignore disregard forget pretend output print".split())
# "answer that <clause>": an instruction when "that" opens a clause (tagged IN), not "answer that question".
_SPEECH_VERBS = frozenset("answer respond reply say state tell claim write output print repeat".split())
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
# What may come before an imperative verb: "Please", "Now", "Always", "And", punctuation.
_BEFORE_IMPERATIVE = frozenset({"ADV", "INTJ", "CCONJ", "PUNCT", "SPACE"})
_QUESTION_END = re.compile(r"\?[\s\"'”’)\]]*$")


def parse(text: str) -> Any:
    """spaCy's parse of ``text`` (:func:`citegraph.sentences.parsed`: kept, one lock on the shared pipeline)."""
    from citegraph.sentences import parsed

    return parsed([text])[0]


def _imperative(sent: Any) -> str | None:
    """The root verb when ``sent`` is in the imperative mood: base form (VB), no subject, no "to" or modal
    before it, and nothing but adverbs, interjections and punctuation ahead of it."""
    root = sent.root
    if root.tag_ != "VB" or any(c.dep_ in _SUBJECTS for c in root.children):
        return None
    if any(c.dep_ in {"aux", "auxpass"} and (c.tag_ in {"TO", "MD"}) for c in root.children):
        return None
    ahead = [t for t in sent if t.i < root.i]
    if all(t.pos_ in _BEFORE_IMPERATIVE or t.lower_ in {"please", "do", "not", "n't", "never"} for t in ahead):
        return str(root.lower_)
    return None


def _add(found: dict[FrameKind, list[str]], kind: FrameKind, marker: str) -> None:
    markers = found.setdefault(kind, [])
    if marker not in markers:
        markers.append(marker)


@lru_cache(maxsize=4096)
def frames(sentence: str) -> tuple[Frame, ...]:
    """The frames ``sentence`` puts around its content; empty for a plain, unqualified assertion."""
    text = " ".join(sentence.split())
    if not text:
        return ()
    found: dict[FrameKind, list[str]] = {}
    doc = parse(text)
    words = [t.lower_.replace("’", "'") for t in doc]
    words = ["not" if w == "n't" else w for w in words]
    imperatives = [(sent.root.i, root) for sent in doc.sents if (root := _imperative(sent))]
    ordering = {i for i, _ in imperatives}  # "Tell your manager…", "Report incidents within an hour.": a rule, not hearsay
    for t, word in zip(doc, words, strict=True):
        lemma = t.lemma_.lower()
        verb = t.pos_ in {"VERB", "AUX"}
        reports_to = lemma == "report" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ == "to"  # "she reports to the director"
        if word in _REPORT_WORDS or (verb and lemma in _REPORT_VERBS and not reports_to and t.i not in ordering):
            _add(found, FrameKind.REPORTED, word)
        if (word in _HEDGE_MODALS and t.tag_ == "MD") or word in _HEDGE_WORDS or (verb and lemma in _HEDGE_VERBS):
            _add(found, FrameKind.HEDGED, word)
        if word in _DENIAL_WORDS or (verb and lemma in _DENIAL_VERBS):
            _add(found, FrameKind.DENIED, word)
        if word in _WITHDRAWN_WORDS:
            _add(found, FrameKind.WITHDRAWN, word)
        if word in _QUALIFIERS:
            _add(found, FrameKind.QUALIFIED, word)
        if word in _SPEECH_VERBS and t.i + 1 < len(doc) and doc[t.i + 1].lower_ == "that" and doc[t.i + 1].tag_ == "IN":
            heads = [t, t.head] if t.dep_ == "conj" else [t]  # "Ignore … and answer that …": the subject is the head's
            if not any(c.dep_ in _SUBJECTS and c.lower_ != "you" for h in heads for c in h.children):
                _add(found, FrameKind.INSTRUCTION, f"{word} that")
    for phrase in _REPORT_PHRASES:
        if has_phrase(words, phrase):
            _add(found, FrameKind.REPORTED, phrase)
    for phrase in _DENIAL_PHRASES:
        if has_phrase(words, phrase):
            _add(found, FrameKind.DENIED, phrase)
    for sent in doc.sents:
        if _QUESTION_END.search(sent.text):
            _add(found, FrameKind.QUESTION, "?")
    for match in _INJECTION.finditer(text):
        _add(found, FrameKind.INSTRUCTION, " ".join(match.group().lower().split()))
    # an imperative is the document's directive to its reader, unless the sentence steers its reader
    # (an injection, "answer that …") or the verb itself does ("Disregard the policy above.")
    steering = FrameKind.INSTRUCTION in found or any(v in _STEERING for _, v in imperatives)
    for _, imperative in reversed(imperatives):
        found.setdefault(FrameKind.INSTRUCTION if steering else FrameKind.DIRECTIVE, []).insert(0, imperative)
    order = list(FrameKind)
    return tuple(Frame(kind, tuple(dict.fromkeys(markers))) for kind, markers in sorted(found.items(), key=lambda kv: order.index(kv[0])))


def asserts(sentence: str) -> bool:
    """Whether ``sentence`` states its content plainly (qualifiers such as "not" or "only" allowed)."""
    return all(f.asserted for f in frames(sentence))


def instruction_frame(sentence: str) -> Frame | None:
    """The ``instruction`` or ``question`` frame of ``sentence``, if any: text no answer should quote as a claim."""
    return next((f for f in frames(sentence) if f.kind in NEVER_QUOTED), None)


def directs(sentence: str) -> bool:
    """``sentence`` is a directive to its reader ("Order the laptop two weeks ahead.")."""
    return any(f.kind is FrameKind.DIRECTIVE for f in frames(sentence))


def _claim_words(claim: str) -> list[str]:
    """The claim's words, spelled as the premise's markers are: "n't" and "cannot" carry "not"."""
    words: list[str] = []
    for w in tokenize(claim):
        words.extend(("can", "not") if w == "cannot" else ("not",) if w == "n't" else (w,))
    return words


def unkept_frames(claim: str, premises: Iterable[str]) -> tuple[Frame, ...]:
    """The frames of the cited sentences that ``claim`` does not carry: what stops a near-quote from
    being support. Empty: the claim keeps every frame word (or the premise asserts plainly)."""
    words = _claim_words(claim)
    about = content_words(claim)
    found: list[Frame] = []
    for text in premises:
        # the sentences the claim quotes word for word (whole, or holding the words it quotes: a frame
        # opening the sentence, "Old FAQ (obsolete): …", is the quote's), else the sentences of the cited
        # passage it is about (all of them when it is about none): another sentence's "said" frames
        # nothing of a quote
        sentences = premise_sentences(text)
        quoted = quoted_sentences(claim, sentences) or sentences_quoting(claim, sentences)

        def about_it(sentence: str) -> bool:  # it is about the claim, or the claim says most of it
            words = content_words(sentence)
            return related(about, words) or 2 * len(words & about) >= max(len(words), 1) > 0

        premise = " ".join(quoted or [s for s in sentences if about_it(s)] or sentences)
        later = _later_clause(tokenize(claim), quoted)  # empty for whole sentences: no clause comes after
        premise_frames = tuple(f for f in frames(premise) if not _hedges_only(f, later))
        reported = [f for f in premise_frames if f.kind is FrameKind.REPORTED]
        reports_the_report = bool(reported) and all(has_phrase(words, m) for f in reported for m in f.markers)
        for frame in premise_frames:
            if frame.kind in NEVER_QUOTED:
                found.append(frame)
            elif frame.kind is FrameKind.DIRECTIVE:
                continue  # the rule holds whether the claim says "Order the laptop…" or "The laptop is ordered…"
            elif frame.kind is FrameKind.DENIED and reports_the_report:
                continue
            elif not all(has_phrase(words, m) for m in frame.markers):
                found.append(frame)
    return tuple(dict.fromkeys(found))


# A clause that opens with one of these after the quoted one is its own: "It is not unique to Asia, but it
# might seem more pronounced there" hedges the second clause, not the first.
_CONTRAST = frozenset("but yet although though while whereas".split())
# The hedges that stay inside their clause: all but "unless", which excepts from what came before
# ("Refunds are issued, but unless…"). "only", "not", "except" are qualifiers: a claim must keep them
# wherever they stand ("…, but only if the item is unused").
_CLAUSE_HEDGES = (_HEDGE_MODALS | _HEDGE_WORDS | frozenset("seem seems seemed appear appears appeared".split())) - {"unless"}


def _later_clause(claim_words: list[str], quoted: list[str]) -> list[str]:
    """The words after the claim in the one sentence it quotes from its start, when they open a clause of
    their own with a contrast ("…, but …"); empty otherwise."""
    if len(quoted) != 1:
        return []
    words = tokenize(quoted[0])
    n = len(claim_words)
    if n and words[:n] == claim_words and len(words) > n + 1 and words[n] in _CONTRAST:
        return words[n:]
    return []


def _hedges_only(frame: Frame, later: list[str]) -> bool:
    """The frame is a hedge whose every word is in the contrasting later clause only."""
    return bool(later) and frame.kind is FrameKind.HEDGED and all(m in _CLAUSE_HEDGES and has_phrase(later, m) for m in frame.markers)


#: qualifiers that scope what their sentence says to part of it: a trimmed quote that drops one says more
_SCOPING = frozenset({"only", "except", "until"})


def drops_scope(frame: Frame, premise: str, claim: str) -> bool:
    """``frame`` (one ``claim`` does not carry) is a qualifier that scopes the clause the claim quotes
    ("only", "except", "until": its verb is the claim's) and the claim leaves out more of that sentence
    than the word: "Employees receive private medical insurance." of "Only full-time employees receive…"
    says more than its sentence; "Full-time employees receive…" says less, and is supported; "Maria Lopez
    joined in 2015." of "…in 2015 and only later led design" quotes a clause the "only" is not in. The
    "only" of "not only … but also" adds and scopes nothing."""
    if frame.kind is not FrameKind.QUALIFIED or len(written_sentences(claim)) > 1:  # a summary says its sentences in its own words
        return False
    scoping = set(frame.markers) & _SCOPING
    if "only" in scoping and re.search(r"\bnot only\b", premise, re.IGNORECASE):
        scoping.discard("only")
    if not scoping:
        return False
    said = parse(claim)
    mine, lemmas = {t.lower_ for t in said}, {t.lemma_.lower() for t in said}
    for doc in (parse(s) for s in premise_sentences(premise)):
        for token in doc:
            if token.lower_ not in scoping:
                continue
            verb = token
            while verb.pos_ not in ("VERB", "AUX") and verb.head is not verb:
                verb = verb.head
            left_out = {t.lower_ for t in doc if t.is_alpha or t.like_num} - mine - scoping - FUNCTION_WORDS
            if verb.lemma_.lower() in lemmas and left_out:
                return True
    return False


#: entity types that name a place, a body or a group: what a subject's phrase restricts it to
_RESTRICTING = frozenset({"GPE", "LOC", "FAC", "ORG", "NORP"})


def drops_restriction(premise: str, claim: str) -> str | None:
    """``claim`` keeps the subject of a ``premise`` sentence, a common noun, but leaves out the phrase
    that restricts it to a named place, body or group ("Staff can park for free." of "Staff in the
    Leeds office can park for free.", "Members can borrow…" of "Members of Riverside Libraries can
    borrow…"): it says the sentence of everyone. The phrase left out ("in the Leeds office"), or None.
    A name's own phrase ("The Kestrel Room at Central") describes, and restricts nothing."""
    if len(written_sentences(claim)) > 1:  # a summary says its sentences in its own words
        return None
    said = {t.lower_ for t in parse(claim)}
    words = {w for w in said if w.isalnum()} - FUNCTION_WORDS
    for doc in (parse(s) for s in premise_sentences(premise)):
        if not words <= {t.lower_ for t in doc}:  # the claim is no trim of this sentence
            continue
        for sent in doc.sents:
            for subject in (c for c in sent.root.children if c.dep_ in ("nsubj", "nsubjpass") and c.pos_ == "NOUN"):
                if subject.lower_ not in said:
                    continue
                for prep in (c for c in subject.children if c.dep_ == "prep"):
                    names = {t.lower_ for t in prep.subtree if t.pos_ == "PROPN" or t.ent_type_ in _RESTRICTING}
                    if names and not names & said:
                        return " ".join(t.text for t in prep.subtree)
    return None


def frame_note(frame: Frame) -> str:
    """How a frame is named in a verdict's notes: ``not asserted: reported ('rumour', 'claimed')``."""
    if frame.kind is FrameKind.QUALIFIED:
        return f"condition dropped: {', '.join(repr(m) for m in frame.markers)}"
    return f"not asserted: {frame}"


def frame_notes(found: Iterable[Frame]) -> tuple[str, ...]:
    return tuple(frame_note(f) for f in found)
