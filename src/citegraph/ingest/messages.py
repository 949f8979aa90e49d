"""Loaders for what people said: e-mails (``.eml``), meeting transcripts (``.vtt``, ``.srt``) and chat
exports as JSON (Slack, Teams, Telegram, Discord).

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

A JSON chat export is read as one ``YYYY-MM-DD HH:MM Name: text`` line per message
(:func:`read_chat_json`).
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import email.utils
import re
from typing import Any

from citegraph.errors import InputFileError, UnsupportedFile
from citegraph.ingest.loaders import Metadata, decode, read_html

__all__ = ["read_chat_json", "read_email", "read_transcript"]


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


# -- chat exports as JSON: one line per message, "YYYY-MM-DD HH:MM Name: text" -----------------------
_CHAT_FIX = (
    "citegraph reads a JSON chat export: a list of messages (or an object with a 'messages' list), each with its text "
    "('text', 'body' or 'content'), its sender ('user_profile.real_name', 'user_name', 'from', 'author' or 'user') and "
    "its time ('ts' in epoch seconds, or 'createdDateTime', 'timestamp', 'date' as ISO 8601)"
)
_SLACK_MENTION = re.compile(r"<@(\w+)(?:\|([^>]+))?>")
_SYSTEM = frozenset({"channel_join", "channel_leave", "channel_topic", "channel_purpose", "channel_name", "channel_archive"})
_SLACK_LINK = re.compile(r"<(https?://[^|>]+)(?:\|([^>]+))?>")
_SLACK_CHANNEL = re.compile(r"<#(\w+)(?:\|([^>]*))?>")  #: "<#C024BE7LR|support>" -> "#support"
#: "<!date^1739962938^{date_short} at {time}|19 Feb 2025 at 11:02>" -> its fallback text, or the day it stands for
_SLACK_DATE = re.compile(r"<!date\^(\d+)\^[^|>]*(?:\|([^>]*))?>")
_SLACK_SPECIAL = re.compile(r"<!(\w+)(?:\^\w+)?(?:\|([^>]*))?>")  #: "<!here>" -> "@here", "<!subteam^S1|@platform>" -> "@platform"


def _sender(message: dict[str, Any]) -> str:
    profile: dict[str, Any] = message["user_profile"] if isinstance(message.get("user_profile"), dict) else {}
    sender = message.get("from") if not isinstance(message.get("from"), dict) else None
    if isinstance(message.get("from"), dict):  # Teams: {"from": {"user": {"displayName": ...}}}
        user = message["from"].get("user") or message["from"]
        sender = user.get("displayName") if isinstance(user, dict) else None
    author = message.get("author")
    if isinstance(author, dict):  # Discord (DiscordChatExporter): {"author": {"name": ..., "nickname": ...}}
        author = author.get("nickname") or author.get("name")
    for value in (
        profile.get("real_name"),
        profile.get("display_name"),
        message.get("user_name"),
        sender,
        author,
        message.get("sender"),
        message.get("speaker"),
        message.get("username"),
        message.get("user"),
    ):
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    return "unknown"


def _when(message: dict[str, Any], path: str) -> str:
    """The message's time as ``YYYY-MM-DD HH:MM`` (UTC for an epoch ``ts``), or "" when it has none."""
    ts = message.get("ts")
    if ts is not None:
        try:
            return dt.datetime.fromtimestamp(float(ts), tz=dt.UTC).strftime("%Y-%m-%d %H:%M")
        except (TypeError, ValueError, OverflowError, OSError):
            raise InputFileError(path, f"a message's 'ts' is not epoch seconds: {str(ts)[:40]!r}", _CHAT_FIX) from None
    for key in ("createdDateTime", "timestamp", "date", "time"):
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            try:
                return dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M")
            except ValueError:
                return " ".join(value.split())[:40]
    return ""


_TEXT_KEYS = ("text", "body", "content", "message")


def _message_text(message: dict[str, Any], path: str) -> str | None:
    """A message's text: a string (Slack, Discord, generic), Teams' ``{"body": {"content": …}}``, or
    Telegram's list of parts (strings and ``{"type": "bold", "text": …}``) joined; None when none."""
    if isinstance(message.get("body"), dict):  # Teams
        content = message["body"].get("content")
        if isinstance(content, str) and str(message["body"].get("contentType", "")).lower() == "html":
            return read_html(path, content.encode("utf-8"))[0]  # "<p>Me until <b>Sunday</b>.</p>": its words, as an e-mail's HTML body
        return content if isinstance(content, str) else None
    for key in _TEXT_KEYS:
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
        if (
            isinstance(value, list)
            and value
            and all(isinstance(p, str) or (isinstance(p, dict) and isinstance(p.get("text"), str)) for p in value)
        ):
            return "".join(p if isinstance(p, str) else p["text"] for p in value)
    return next((message[k] for k in _TEXT_KEYS if isinstance(message.get(k), str)), None)


#: Slack writes "&", "<" and ">" in a message's text as entities ("Marrow &amp; Finch")
_SLACK_ESCAPES = (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))


def _slack_date(found: re.Match[str]) -> str:
    """A Slack date token as a reader sees it: its fallback text, or without one its day (UTC)."""
    if found.group(2):
        return found.group(2)
    return dt.datetime.fromtimestamp(int(found.group(1)), tz=dt.UTC).strftime("%Y-%m-%d %H:%M")


def _slack_directory(path: str) -> dict[str, str]:
    """User id -> name from the ``users.json`` of the Slack export ``path`` is in (a channel's day file,
    ``EXPORT/channel/2025-03-04.json``: the export's root is two folders up), or {} when there is none
    or it cannot be read (the ids are kept then, as before)."""
    import json
    from pathlib import Path

    for folder in Path(path).parents[:2]:
        users = folder / "users.json"
        try:
            listed = json.loads(users.read_text(encoding="utf-8")) if users.is_file() else None
        except (OSError, ValueError):
            continue
        if isinstance(listed, list):
            named = {}
            for user in listed:
                if not isinstance(user, dict) or not isinstance(user.get("id"), str):
                    continue
                profile: dict[str, Any] = user["profile"] if isinstance(user.get("profile"), dict) else {}
                for value in (profile.get("real_name"), user.get("real_name"), profile.get("display_name"), user.get("name")):
                    if isinstance(value, str) and value.strip():
                        named[user["id"]] = " ".join(value.split())
                        break
            return named
    return {}


def read_chat_json(path: str, data: bytes) -> tuple[str, Metadata]:
    """A JSON chat export (Slack's channel files, a Teams, Telegram, Discord or generic message list) as one line per
    message, ``YYYY-MM-DD HH:MM Name: text`` in the order written, so each message is one unit of
    evidence with its speaker and time (:func:`citegraph.sentences.is_line_document`). Slack's user
    mentions (``<@U123>``) become the names the export gives those users; links keep their text; "&amp;",
    "&lt;" and "&gt;" are read as the characters Slack wrote them for; a Teams body in HTML is read as its words. JSON
    that is not a message list is skipped with the layout citegraph reads."""
    import json

    try:
        loaded = json.loads(decode(path, data))
    except json.JSONDecodeError as exc:
        raise InputFileError(path, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", "fix the file") from exc
    messages = loaded.get("messages") if isinstance(loaded, dict) else loaded
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise UnsupportedFile(path, "JSON that is not a chat export", _CHAT_FIX)
    names = {str(m["user"]): _sender(m) for m in messages if isinstance(m.get("user"), str) and _sender(m) != m["user"]}
    if any(isinstance(m.get("user"), str) and m["user"] not in names for m in messages):
        names = {**_slack_directory(path), **names}  # an older export names its users in users.json only
    lines = []
    for message in messages:
        if message.get("subtype") in _SYSTEM or message.get("type") == "service":  # joins, topics; Telegram's "pinned", "joined"
            continue
        text = _message_text(message, path)
        if text is None:
            if not any(message.get(k) for k in _TEXT_KEYS):
                continue  # a file, a call or a reaction, with no text to read
            raise UnsupportedFile(path, "a JSON message whose text is in a layout citegraph does not read", _CHAT_FIX)
        text = _SLACK_MENTION.sub(lambda m: "@" + (m.group(2) or names.get(m.group(1), m.group(1))), text)
        text = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(1), text)
        text = _SLACK_CHANNEL.sub(lambda m: "#" + (m.group(2) or m.group(1)), text)
        text = _SLACK_DATE.sub(_slack_date, text)
        text = _SLACK_SPECIAL.sub(lambda m: m.group(2) if (m.group(2) or "").startswith("@") else "@" + (m.group(2) or m.group(1)), text)
        if "ts" in message:  # Slack's: after the mentions and links, whose brackets are its own
            for escaped, plain in _SLACK_ESCAPES:
                text = text.replace(escaped, plain)
        text = " ".join(text.split())
        if not text:
            continue
        when = _when(message, path)
        sender = _sender(message)
        lines.append(f"{when + ' ' if when else ''}{names.get(sender, sender)}: {text}")
    if not lines:
        raise UnsupportedFile(path, "a JSON chat export without any message text", _CHAT_FIX)
    return "\n".join(lines) + "\n", Metadata()
