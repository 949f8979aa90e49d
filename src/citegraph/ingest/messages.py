"""Loaders for what people said: e-mails (``.eml``) and meeting transcripts (``.vtt``, ``.srt``).

An e-mail is read as its subject (a heading, as a page's title is), its sender, recipients and day,
a unit each ("From: Sofia Almeida <sofia@example.com>"), then its body as plain text (an HTML-only
body through the HTML loader); the day it was sent is its date. A quoted earlier message ("On 4 March, Tom wrote:" and the lines
after it) stays in the text without its "> " marks, where the structure reader frames what a
reporting sentence announces (:mod:`citegraph.ingest.structure`), so it is not read as the
sender's own words; quoted lines with no such sentence before them are read as the body is.

A transcript is read as a chat log is: one line per turn, ``[00:01:05] Speaker: words``, so that
each turn is one unit with its speaker and time (:func:`citegraph.sentences.message_speaker`);
the speaker is the cue's voice tag (``<v Sofia Almeida>``) or the ``Name:`` it opens with, and the
cues one speaker says in a row (a tool cuts a long turn into several) are one turn.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import re

from citegraph.errors import InputFileError
from citegraph.ingest.loaders import Metadata, decode, read_html

__all__ = ["read_email", "read_transcript"]


def read_email(path: str, data: bytes) -> tuple[str, Metadata]:
    """An e-mail's subject, its header lines (from, to, cc, date) and its body's text."""
    try:
        message = email.message_from_bytes(data, policy=email.policy.default)
    except Exception as exc:  # the parser is lenient; a failure here is a file that is no message at all
        raise InputFileError(path, f"cannot read the e-mail: {exc}", "save the message as .eml (RFC 822)") from exc
    lines = []
    subject = _REPLY.sub("", " ".join(str(message.get("Subject") or "").split()))
    if subject:
        lines.append(subject)  # the message's title: a heading over it, never a claim ("Re:" would read as a speaker)
    for field in ("From", "To", "Cc", "Date"):
        value = message.get(field)
        if value:
            lines.append(f"{field}: {' '.join(str(value).split())}")
    if not lines:
        raise InputFileError(path, "no From, To, Date or Subject header: not an e-mail", "save the message as .eml (RFC 822)")
    text = ""
    try:
        body = message.get_body(preferencelist=("plain", "html"))
        if body is not None:
            content = body.get_content()
            if body.get_content_type() == "text/html":
                text = read_html(path, content.encode("utf-8") if isinstance(content, str) else content)[0]
            else:
                text = content if isinstance(content, str) else decode(path, content)
    except InputFileError:
        raise
    except Exception as exc:  # an unknown charset, a body part that is no text: the message's own problem
        raise InputFileError(path, f"cannot read the e-mail's body: {exc}", "save the message as .eml (RFC 822) with a text body") from exc
    dated = None
    if message.get("Date"):
        try:
            dated = email.utils.parsedate_to_datetime(str(message["Date"])).date().isoformat()
        except (TypeError, ValueError):  # a malformed Date header: no date, never a failed document
            dated = None
    body_lines: list[str] = []
    was_quoted = False
    for line in text.replace("\r\n", "\n").split("\n"):
        quoted = _QUOTED.match(line)
        if bool(quoted) != was_quoted and body_lines and body_lines[-1]:
            body_lines.append("")  # a quoted message is a paragraph of its own, apart from the line that reports it
        was_quoted = bool(quoted)
        body_lines.append(line[quoted.end() :].rstrip() if quoted else line.rstrip())  # "> " marks, not words
    return "\n\n".join(lines) + "\n\n" + "\n".join(body_lines).strip() + "\n", Metadata(dated)


_REPLY = re.compile(r"^(?:(?:re|fwd?|aw|sv|tr)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)  # "Re: Fwd: ..." before a subject
_QUOTED = re.compile(r"^(?:[ \t]*>)+[ \t]?")


_TIMING = re.compile(r"(?:(\d{1,2}):)?(\d{1,2}):(\d{2})[.,]\d{1,3}\s+-->")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]+)>")
_TAG = re.compile(r"</?[^>]+>")
_NAMED = re.compile(r"^([^\s:][^:\n]{0,40}):\s+(\S.*)$")


def read_transcript(path: str, data: bytes) -> tuple[str, Metadata]:
    """A WebVTT or SubRip transcript as one ``[HH:MM:SS] Speaker: words`` line per turn."""
    text = decode(path, data).replace("\r\n", "\n").replace("\r", "\n")
    turns: list[list[str]] = []  # [time, speaker, words]
    for cue in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in cue.split("\n") if line.strip()]
        timed = next(((i, found) for i, line in enumerate(lines) if (found := _TIMING.match(line))), None)
        if timed is None:  # the WEBVTT header, a NOTE or STYLE block, a cue number alone
            continue
        at, timing = timed
        hours, minutes, seconds = timing.group(1) or "0", timing.group(2), timing.group(3)
        stamp = f"{int(hours):02d}:{int(minutes):02d}:{int(seconds):02d}"
        said = " ".join(lines[at + 1 :])
        voice = _VOICE.search(said)
        speaker = " ".join(voice.group(1).split()) if voice else ""
        words = " ".join(_TAG.sub("", said).split())
        named = _NAMED.match(words) if not speaker else None
        if named:
            speaker, words = named.group(1).strip(), named.group(2)
        if not words:
            continue
        if turns and speaker and turns[-1][1] == speaker:
            turns[-1][2] += " " + words
        else:
            turns.append([stamp, speaker, words])
    if not turns:
        raise InputFileError(
            path, "no cue with a time (00:00:01.000 --> 00:00:04.000) found", "give a WebVTT (.vtt) or SubRip (.srt) transcript"
        )
    out = [f"[{stamp}] {speaker}: {words}" if speaker else f"[{stamp}] {words}" for stamp, speaker, words in turns]
    return "\n".join(out) + "\n", Metadata(None)
