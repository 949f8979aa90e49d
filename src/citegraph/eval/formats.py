"""Multi-hop question data in the layouts it is published in, read into one shape.

Both harnesses (``eval retrieval`` and ``eval support``) read questions whose evidence is a few
paragraphs among distractors. The data sets publish them in three layouts:

* **HotpotQA as the Hugging Face hub serves it** (``hotpot_qa``): ``context`` is ``{"title": [...],
  "sentences": [[...], ...]}`` and ``supporting_facts`` is ``{"title": [...], "sent_id": [...]}``.
* **HotpotQA's own files, and 2WikiMultihopQA** (same layout): ``context`` is ``[[title,
  [sentence, ...]], ...]`` and ``supporting_facts`` is ``[[title, sentence index], ...]``; ids are
  ``_id``.
* **MuSiQue**: ``paragraphs`` is ``[{"title", "paragraph_text", "is_supporting"}, ...]``. The gold is
  whole paragraphs (no sentence numbers), and an unanswerable question (``answerable: false``)
  has no supporting paragraph.

A row that fits none of them is refused with its position and the field that is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citegraph.errors import InputFileError

__all__ = ["MultiHopRow", "is_multihop", "multihop_row", "read_json"]


@dataclass(frozen=True)
class MultiHopRow:
    id: str
    question: str
    answer: str
    type: str
    paragraphs: tuple[tuple[str, tuple[str, ...]], ...]  #: (title, sentences); MuSiQue: one "sentence", the paragraph
    gold_paragraphs: tuple[int, ...]  #: positions of the supporting paragraphs, each once, in the gold's order
    gold: tuple[tuple[int, int], ...]  #: (paragraph position, sentence index) of each supporting sentence in the context
    sentence_gold: bool  #: the gold names sentences (HotpotQA, 2Wiki), not only paragraphs (MuSiQue)
    unresolved: int = 0  #: supporting facts naming a title or a sentence number the context does not hold
    aliases: tuple[str, ...] = ()  #: other names of the answer (MuSiQue's answer_aliases)


def is_multihop(row: Any) -> bool:
    """Whether ``row`` looks like a question of one of the layouts above (decides the format of a file)."""
    return isinstance(row, dict) and (("supporting_facts" in row and "context" in row) or ("paragraphs" in row and "question" in row))


def _fail(where: str, index: int, field: str, problem: str) -> InputFileError:
    return InputFileError(
        where,
        f"question {index + 1} (of the file, from 1): {field} {problem}",
        "expected HotpotQA (either layout), 2WikiMultihopQA or MuSiQue rows",
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _pairs(value: Any, keys: tuple[str, str]) -> list[tuple[Any, Any]] | None:
    """``{k1: [...], k2: [...]}`` (parallel lists) or ``[[a, b], ...]`` as a list of pairs; None for neither."""
    if isinstance(value, dict):
        first, second = value.get(keys[0]), value.get(keys[1])
        if isinstance(first, list) and isinstance(second, list) and len(first) == len(second):
            return list(zip(first, second, strict=True))
        return None
    if isinstance(value, list) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
        return [(p[0], p[1]) for p in value]
    return None


def multihop_row(row: Any, index: int, where: str) -> MultiHopRow:
    """One question of any layout above; ``where`` (the file) and ``index`` name it in errors."""
    if not isinstance(row, dict) or "question" not in row:
        raise _fail(where, index, "the row", "is not an object with a 'question'")
    qid = _text(row.get("id", row.get("_id", index)))
    answer = _text(row.get("answer", ""))
    if "paragraphs" in row:
        return _musique(row, index, where, qid, answer)
    paragraphs = _pairs(row.get("context"), ("title", "sentences"))
    if paragraphs is None or not all(isinstance(s, list) for _, s in paragraphs):
        raise _fail(where, index, "context", "needs {title: [...], sentences: [[...]]} or [[title, [sentences]], ...]")
    facts = _pairs(row.get("supporting_facts"), ("title", "sent_id"))
    if facts is None or not all(isinstance(i, int) and not isinstance(i, bool) for _, i in facts):
        raise _fail(where, index, "supporting_facts", "needs {title: [...], sent_id: [...]} or [[title, sentence index], ...]")
    titled = [(_text(t), tuple(_text(s) for s in ss)) for t, ss in paragraphs]
    positions: dict[str, list[int]] = {}
    for i, (title, _) in enumerate(titled):
        positions.setdefault(title, []).append(i)
    paragraphs_gold: dict[int, None] = {}
    gold, unresolved = [], 0
    for title, sentence in dict.fromkeys((_text(t), i) for t, i in facts):
        # two paragraphs of one title: the fact is the first one's that has that sentence
        held = [p for p in positions.get(title, []) if 0 <= sentence < len(titled[p][1])]
        if held:
            paragraphs_gold[held[0]] = None
            gold.append((held[0], sentence))
        else:
            unresolved += 1
            if title in positions:
                paragraphs_gold[positions[title][0]] = None  # the paragraph is evidence even where its sentence number is off
    kind = _text(row.get("type", ""))
    return MultiHopRow(qid, _text(row["question"]), answer, kind, tuple(titled), tuple(paragraphs_gold), tuple(gold), True, unresolved)


def _musique(row: dict[str, Any], index: int, where: str, qid: str, answer: str) -> MultiHopRow:
    paragraphs = row["paragraphs"]
    if not isinstance(paragraphs, list) or not all(isinstance(p, dict) and "paragraph_text" in p for p in paragraphs):
        raise _fail(where, index, "paragraphs", "needs a list of objects with 'paragraph_text'")
    titled = tuple((_text(p.get("title")), (_text(p["paragraph_text"]),)) for p in paragraphs)
    # an unanswerable question (MuSiQue-Full) has no evidence, whatever its paragraphs are flagged
    answerable = row.get("answerable", True) is not False
    gold = tuple((i, 0) for i, p in enumerate(paragraphs) if p.get("is_supporting")) if answerable else ()
    kind = qid.split("__", 1)[0] if "__" in qid else ""  # MuSiQue ids start with the hop pattern, e.g. 2hop__123_456
    aliases = row.get("answer_aliases")
    others = tuple(_text(a) for a in aliases if _text(a).strip()) if isinstance(aliases, list) else ()
    return MultiHopRow(qid, _text(row["question"]), answer, kind, titled, tuple(p for p, _ in gold), gold, False, 0, others)


def read_json(path: Path) -> Any:
    """The JSON value in ``path``, or the list of its JSON lines (``.jsonl``, or several values under another suffix)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(str(path), f"cannot read: {exc}") from exc
    if path.suffix != ".jsonl":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            if "Extra data" not in str(exc):  # more than one value: JSON lines under another suffix
                raise InputFileError(str(path), f"invalid JSON: {exc}") from exc
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputFileError(f"{path}:{number}", f"invalid JSON line: {exc}", "one JSON object per line") from exc
    return rows
