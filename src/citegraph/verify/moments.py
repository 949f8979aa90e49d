"""When a text puts something, relative to an event: "removed at cancellation" is the moment of
cancellation (offset 0); "available for 30 days after cancellation" runs to 30 days after it (offset
+30); "7 days before renewal" is -7. Two texts about the same thing that put it at different offsets
from the same event cannot both hold (the guards' and the conflict check's ``timing``)."""

from __future__ import annotations

from citegraph.verify.text import DIMENSIONS, FUNCTION_WORDS, TOLERANCE, VALUE_WORDS, measured, singular, tokenize

__all__ = ["moments", "show_moment"]

_AT = frozenset({"at", "on", "upon", "until", "till"})
_DETERMINERS = frozenset({"the", "a", "an", "your", "their", "its", "his", "her", "our", "my", "each", "every", "any"})


def _anchor(tokens: list[str], k: int) -> tuple[str, int] | None:
    """The event noun at ``tokens[k]`` (past one determiner) and its position, if it is a word."""
    if k < len(tokens) and tokens[k] in _DETERMINERS:
        k += 1
    if k >= len(tokens):
        return None
    word = tokens[k]
    if word[0].isdigit() or word in FUNCTION_WORDS or word in VALUE_WORDS or len(word) < 3:
        return None
    return singular(word), k


def moments(text: str) -> dict[str, set[float]]:
    """Offsets in days from the events ``text`` times things by: ``{"cancellation": {30.0}}`` for
    "for 30 days after cancellation", ``{"cancellation": {0.0}}`` for "at cancellation" or "until
    cancellation". Only durations directly before "after"/"before", and "at"/"on"/"upon"/"until"
    directly before the event (one determiner between), are read."""
    tokens = tokenize(text)
    out: dict[str, set[float]] = {}
    taken: set[int] = set()
    for dimension, base, _value, _unit, _i, j in measured(text):
        if dimension != "duration" or j < 0 or j >= len(tokens) or tokens[j] not in {"after", "before"}:
            continue
        found = _anchor(tokens, j + 1)
        if found:
            out.setdefault(found[0], set()).add(base if tokens[j] == "after" else -base)
            taken.add(found[1])
    for k, tok in enumerate(tokens):
        if tok in _AT:
            found = _anchor(tokens, k + 1)
            if found and found[1] not in taken:
                out.setdefault(found[0], set()).add(0.0)
    return out


def _show_duration(days: float) -> str:
    for unit in ("century", "decade", "year", "month", "week", "day", "hour", "minute", "second"):
        count = days / DIMENSIONS[unit][1]
        if count >= 1 and abs(count - round(count)) <= TOLERANCE * count:
            n = round(count)
            return f"{n} {unit}" + ("s" if n != 1 and unit != "century" else "")
    return f"{days:g} days"


def show_moment(offset: float, anchor: str) -> str:
    """``at cancellation``, ``30 days after cancellation``."""
    if offset == 0:
        return f"at {anchor}"
    return f"{_show_duration(abs(offset))} {'after' if offset > 0 else 'before'} {anchor}"
