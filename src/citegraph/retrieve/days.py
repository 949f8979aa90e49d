"""The day of the year a text names, however it is written: what ranks a conversation or a meeting
by the day a question names ("What time does LiHua propose for dinner on 20260930?",
:attr:`~citegraph.retrieve.modes.bridge.Bridge.dates`)."""

from __future__ import annotations

import re

__all__ = ["DAY_DIGITS", "DAY_WORDS", "calendar_name", "day_of", "days_named"]

_MONTH_NAMES = "January February March April May June July August September October November December".split()
_MONTH_RE = "|".join(_MONTH_NAMES)  # capitalised only: "may" the modal is not a month

#: a day written as digits: 2025-03-04, 20260930 (LiHua-World's "Time: 20260930_16:00", a file
#: named 20260930_1600.txt), 04/03/2025 or 04.03.2025 (a four-digit year; day first, as WhatsApp
#: writes it in Europe; month first only where the first number cannot be a month)
DAY_DIGITS = re.compile(
    r"(?<!\d)(?:(?P<y>20\d\d|19\d\d)-?(?P<m>0[1-9]|1[0-2])-?(?P<d>0[1-9]|[12]\d|3[01])"
    r"|(?P<a>\d{1,2})[/.](?P<b>\d{1,2})[/.](?:19|20)\d\d)(?!\d)"
)
#: a day written with its month's name: "4 March", "March 4th", "4th of March"
DAY_WORDS = re.compile(
    rf"\b(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m>{_MONTH_RE})|(?P<m2>{_MONTH_RE})\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?)\b"
)


def day_of(found: re.Match[str]) -> str | None:
    """The day a :data:`DAY_DIGITS` or :data:`DAY_WORDS` match names, as "March 4" (no year), or None
    when its numbers are no day of a month."""
    groups = found.groupdict()
    if groups.get("y") is not None:
        month, day = int(groups["m"]), int(groups["d"])
    elif groups.get("a") is not None:
        a, b = int(groups["a"]), int(groups["b"])
        day, month = (a, b) if b <= 12 else (b, a)
    elif groups.get("m") is not None:
        month, day = _MONTH_NAMES.index(groups["m"]) + 1, int(groups["d"])
    else:
        month, day = _MONTH_NAMES.index(groups["m2"]) + 1, int(groups["d2"])
    return f"{_MONTH_NAMES[month - 1]} {day}" if 1 <= month <= 12 and 1 <= day <= 31 else None


def days_named(text: str) -> set[str]:
    """The days of the year ``text`` names, as "March 4", however written (digits or words)."""
    return {d for pattern in (DAY_DIGITS, DAY_WORDS) for m in pattern.finditer(text) if (d := day_of(m)) is not None}


_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
#: a name that is only a time: a day of the week or a month (or their plurals), a year or other bare
#: number, a date, a season or a relative day ("saturday", "march", "2025", "4 march", "tomorrow")
_CALENDAR = re.compile(
    r"(?:(?:\d+(?:st|nd|rd|th)?|of|the|on|in|every|each|last|next|this|early|late|mid|end|"
    + "|".join(w + "s?" for w in [*_WEEKDAYS, *(m.casefold() for m in _MONTH_NAMES)])
    + r"|spring|summer|autumn|fall|winter|today|tomorrow|yesterday|tonight|weekends?|[\d./:-]+)\s*)+",
    re.IGNORECASE,
)


def calendar_name(key: str) -> bool:
    """Whether an entity's ``key`` names only a time ("saturday", "march", "2025", "4 march 2025"):
    such a name links texts by the calendar, not by what they are about."""
    return _CALENDAR.fullmatch(key.strip()) is not None
