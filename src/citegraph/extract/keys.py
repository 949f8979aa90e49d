"""Entity keys: the normalised name that merges mentions of one entity.

"Export", "export" and "Exports" share the key ``export``: lemmas, case-folded, with determiners,
possessives and punctuation left out. Keys are computed from the parse of the sentence the mention
is in when there is one; a bare name (an imported record, a CLI argument) is parsed on its own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

__all__ = ["entity_key", "key_from_tokens"]

_DROP_POS = {"DET", "PRON", "PUNCT", "SPACE", "CCONJ", "PART"}


# Terminal escape sequences (CSI such as "\x1b[2J" or "\x1b[0m", also cut short; OSC; two-byte
# escapes), then any control or bidirectional-override character left: a key is a name, never a
# command to the terminal that shows it.
_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]?|\x9b[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _fold(text: str) -> str:
    text = _CONTROL.sub(lambda m: " " if m.group().isspace() else "", _ESCAPE.sub("", text))
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def key_from_tokens(tokens: Iterable[Any], *, lemmatise: bool = True) -> str:
    words = []
    for tok in tokens:
        if tok.pos_ in _DROP_POS and not tok.like_num:
            continue
        # Only nouns are lemmatised ("Exports" -> "export"); proper nouns, adjectives and numbers keep
        # their form, so "Larkspur" or "latest" are never turned into a lemma guess.
        word = tok.lemma_ if lemmatise and tok.pos_ == "NOUN" and tok.lemma_.strip() else tok.text
        words.append(word)
    return _fold(" ".join(words))


def entity_key(name: str, nlp: Any | None = None) -> str:
    """Key for a bare name. Without a parser, falls back to case-folding only."""
    if nlp is None:
        return _fold(name)
    doc = nlp(name)
    key = key_from_tokens(doc)
    return key or _fold(name)
