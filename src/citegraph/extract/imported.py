"""Import extractions made elsewhere (the seed notebook's record shape), one JSON object per line::

    {"document": "policy.md",
     "entities":  [{"name": "Export", "type": "CONCEPT", "description": "...", "source_sentence": "..."}],
     "relations": [{"source": "Export", "target": "Snapshot", "type": "uses", "description": "...",
                    "source_sentence": "..."}]}

Each ``source_sentence`` is located in the document text (whitespace-normalised, exact otherwise)
and stored as a span. It must be one or more *whole* sentences as the splitter cut the document: a
record whose sentence is not in the document is rejected as ``sentence_not_in_document``, one that
matches only a fragment ("s", "Exports", a span across a sentence boundary) as
``not_whole_sentences``; neither is ever stored with an invented span. A name longer than
``MAX_NAME_CHARS`` is rejected as ``name_too_long`` (a name is a few words, not a page).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citegraph.errors import InputFileError
from citegraph.extract.base import Extractor
from citegraph.extract.keys import entity_key
from citegraph.models import Document, ExtractedEntity, ExtractedRelation, Extraction, Rejection, Span
from citegraph.sentences import Sentence

__all__ = ["MAX_NAME_CHARS", "ImportedExtractions", "ImportedExtractor", "load_extractions", "locate"]

MAX_NAME_CHARS = 300


@dataclass(frozen=True)
class _Record:
    line: int
    document: str
    entities: tuple[dict[str, str], ...]
    relations: tuple[dict[str, str], ...]


def _fields(path: str, line: int, where: str, item: Any, required: tuple[str, ...]) -> dict[str, str]:
    if not isinstance(item, dict):
        raise InputFileError(f"{path}:{line}", f"{where} must be a JSON object, got {type(item).__name__}")
    out: dict[str, str] = {}
    for name in (*required, "type", "description"):
        value = item.get(name, "")
        if name in required and (not isinstance(value, str) or not value.strip()):
            raise InputFileError(f"{path}:{line}", f"{where} needs a non-empty string field {name!r}")
        if not isinstance(value, str):
            raise InputFileError(f"{path}:{line}", f"{where} field {name!r} must be a string")
        out[name] = value
    return out


def load_extractions(path: Path) -> ImportedExtractions:
    """Read and validate the whole file before anything is stored; shape errors name file and line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise InputFileError(str(path), "no such file", "check the --extractions path") from exc
    except UnicodeDecodeError as exc:
        raise InputFileError(str(path), "not valid UTF-8") from exc
    records: list[_Record] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputFileError(f"{path}:{number}", f"invalid JSON: {exc.msg}", "one JSON object per line") from exc
        if not isinstance(obj, dict) or not isinstance(obj.get("document"), str) or not obj["document"]:
            raise InputFileError(f"{path}:{number}", "each line needs a string field 'document' (the document id)")
        entities, relations = obj.get("entities", []), obj.get("relations", [])
        if not isinstance(entities, list) or not isinstance(relations, list):
            raise InputFileError(f"{path}:{number}", "'entities' and 'relations' must be lists")
        records.append(
            _Record(
                number,
                obj["document"],
                tuple(_fields(str(path), number, f"entities[{i}]", e, ("name", "source_sentence")) for i, e in enumerate(entities)),
                tuple(
                    _fields(str(path), number, f"relations[{i}]", r, ("source", "target", "source_sentence"))
                    for i, r in enumerate(relations)
                ),
            )
        )
    return ImportedExtractions(str(path), records)


class ImportedExtractions:
    def __init__(self, path: str, records: Sequence[_Record]) -> None:
        self.path = path
        self.by_document: dict[str, list[_Record]] = {}
        for record in records:
            self.by_document.setdefault(record.document, []).append(record)

    def extractor_for(self, doc_id: str, nlp: Any | None = None) -> ImportedExtractor | None:
        records = self.by_document.get(doc_id)
        return ImportedExtractor(self.path, records, nlp) if records else None

    def unmatched(self, doc_ids: set[str]) -> list[Rejection]:
        """Records naming a document that was not part of this ingest."""
        return [
            Rejection(
                "record",
                "unknown_document",
                f"{self.path}:{r.line}: no document with id {r.document!r} in this ingest",
                r.document,
            )
            for doc, records in sorted(self.by_document.items())
            if doc not in doc_ids
            for r in records
        ]


def _normalised(text: str) -> tuple[str, list[int]]:
    """Whitespace runs collapsed to one space, with the original index of every kept character."""
    chars: list[str] = []
    index: list[int] = []
    in_space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            if not in_space and chars:
                chars.append(" ")
                index.append(i)
            in_space = True
        else:
            chars.append(ch)
            index.append(i)
            in_space = False
    return "".join(chars), index


def locate(
    text: str,
    sentence: str,
    _cache: dict[int, tuple[str, list[int]]] | None = None,
    *,
    aligned: Callable[[int, int], bool] = lambda start, end: True,
) -> tuple[int, int] | None:
    """``(start, end)`` of the first whitespace-normalised occurrence of ``sentence`` in ``text``
    for which ``aligned(start, end)`` holds."""
    needle = " ".join(sentence.split())
    if not needle:
        return None
    haystack, index = _normalised(text) if _cache is None else _cache.setdefault(id(text), _normalised(text))
    at = haystack.find(needle)
    while at >= 0:
        found = index[at], index[at + len(needle) - 1] + 1
        if aligned(*found):
            return found
        at = haystack.find(needle, at + 1)
    return None


class ImportedExtractor(Extractor):
    def __init__(self, path: str, records: Sequence[_Record], nlp: Any | None = None) -> None:
        self.records = records
        self.nlp = nlp
        self.name = f"import:{Path(path).name}"

    def extract(self, document: Document, sentences: Sequence[Sentence]) -> Extraction:
        text = document.text
        cache: dict[int, tuple[str, list[int]]] = {}
        spans: dict[tuple[int, int], Span] = {(s.span.start, s.span.end): s.span for s in sentences}
        extra: dict[tuple[int, int], Span] = {}
        entities: list[ExtractedEntity] = []
        relations: list[ExtractedRelation] = []
        rejected: list[Rejection] = []

        starts = {s.span.start for s in sentences}
        ends = {s.span.end for s in sentences}

        def reject(kind: str, reason: str, detail: str, item: dict[str, str]) -> None:
            record = json.dumps(
                {k: v if len(v) <= MAX_NAME_CHARS else v[:MAX_NAME_CHARS] + "…" for k, v in item.items()}, ensure_ascii=False
            )
            rejected.append(Rejection(kind, reason, detail, record))

        def span_for(kind: str, item: dict[str, str], line: int) -> Span | None:
            found = locate(text, item["source_sentence"], cache, aligned=lambda start, end: start in starts and end in ends)
            if found is None:
                if locate(text, item["source_sentence"], cache) is not None:
                    reject(
                        kind,
                        "not_whole_sentences",
                        f"line {line}: source_sentence matches only part of a sentence of {document.id} "
                        "(a fragment, or a span across a sentence boundary); give whole sentences",
                        item,
                    )
                else:
                    reject(kind, "sentence_not_in_document", f"line {line}: source_sentence not found in {document.id}", item)
                return None
            if found not in spans:
                spans[found] = extra[found] = Span(document.id, document.version, *found, text[found[0] : found[1]])
            return spans[found]

        def too_long(kind: str, item: dict[str, str], line: int, *fields: str) -> bool:
            long = [f for f in fields if len(item[f]) > MAX_NAME_CHARS]
            if long:
                reject(kind, "name_too_long", f"line {line}: {', '.join(long)} is over {MAX_NAME_CHARS} characters", item)
            return bool(long)

        for record in self.records:
            for item in record.entities:
                span = None if too_long("entity", item, record.line, "name") else span_for("entity", item, record.line)
                if span is None:
                    continue
                at = span.text.casefold().find(item["name"].casefold())
                start, end = (span.start + at, span.start + at + len(item["name"])) if at >= 0 else (None, None)
                entities.append(
                    ExtractedEntity(
                        item["name"], entity_key(item["name"], self.nlp), item["type"] or "CONCEPT", span, start, end, item["description"]
                    )
                )
            for item in record.relations:
                span = None if too_long("relation", item, record.line, "source", "target") else span_for("relation", item, record.line)
                if span is None:
                    continue
                relations.append(
                    ExtractedRelation(
                        entity_key(item["source"], self.nlp),
                        entity_key(item["target"], self.nlp),
                        item["type"] or "related to",
                        span,
                        item["source"],
                        item["target"],
                        item["description"],
                    )
                )
        return Extraction(self.name, tuple(entities), tuple(relations), tuple(extra.values()), tuple(rejected))
