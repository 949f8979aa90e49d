"""Extraction by a local language model, one sentence per call, with a JSON schema.

Provenance is the sentence *the program* sent, never text the model returns. Every entity name the
model returns must occur in that sentence (case- and inflection-insensitive) or it is rejected as
``not_in_sentence`` — which also keeps the prompt's worked example out of the graph. Malformed
output is retried a bounded number of times, then the sentence is recorded as
``extraction_failed`` with the raw output kept. A backend that is down raises
:class:`~citegraph.errors.BackendUnavailable`: never an empty result.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from citegraph.errors import ModelOutputError
from citegraph.extract.base import Extractor, occurs_in, sentence_lemmas
from citegraph.extract.keys import entity_key
from citegraph.llm.base import ChatModel, Message
from citegraph.models import Document, ExtractedEntity, ExtractedRelation, Extraction, Rejection, Span
from citegraph.prompts import load_prompt, render
from citegraph.sentences import Sentence

__all__ = ["EXTRACTION_SCHEMA", "LLMExtractor", "parse_extraction"]

# Compact rows, not objects: ["name", "TYPE"] and ["source", "type", "target"]. The same facts cost
# about 40% fewer generated tokens than {"name": ..., "type": ...} objects, and generation is most of
# an in-process extraction's time (bench/extract.py). The parser still accepts the object form.
# maxItems bounds a looping model's output (SmolLM2 was seen repeating one row until max_tokens).
_STRING = {"type": "string"}
MAX_ROWS = 12
EXTRACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "maxItems": MAX_ROWS,
            "items": {"type": "array", "prefixItems": [_STRING, _STRING], "minItems": 2, "items": False},
        },
        "relations": {
            "type": "array",
            "maxItems": MAX_ROWS,
            "items": {"type": "array", "prefixItems": [_STRING, _STRING, _STRING], "minItems": 3, "items": False},
        },
    },
    "required": ["entities", "relations"],
}


@dataclass(frozen=True)
class RawExtraction:
    entities: list[tuple[str, str]]  #: (name, type)
    relations: list[tuple[str, str, str]]  #: (source, type, target)


def _text(item: dict[str, Any], field: str) -> str:
    value = item.get(field)
    if not isinstance(value, str):
        raise ModelOutputError(f"field {field!r} must be a string, got {type(value).__name__}")
    return " ".join(value.split())


def _fields(item: Any, names: tuple[str, ...], what: str) -> tuple[str, ...]:
    """One entity or relation row: a list in the schema's order, or an object with those keys."""
    if isinstance(item, list):
        if len(item) != len(names):
            raise ModelOutputError(f"each {what} must be a list of {len(names)} strings ({', '.join(names)}), got {len(item)}")
        item = dict(zip(names, item, strict=True))
    elif not isinstance(item, dict):
        raise ModelOutputError(f"each {what} must be a list [{', '.join(names)}]")
    return tuple(_text(item, name) for name in names)


def parse_extraction(text: str) -> RawExtraction:
    """Pure parser for the model's JSON (tested on recorded outputs). Raises ModelOutputError."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ModelOutputError("no JSON object in the output")
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise ModelOutputError(f"invalid JSON: {exc.msg} at {exc.pos}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("entities"), list) or not isinstance(data.get("relations"), list):
        raise ModelOutputError("expected an object with lists 'entities' and 'relations'")
    entities, relations = [], []
    for item in data["entities"]:
        name, type_ = _fields(item, ("name", "type"), "entity")
        if name:
            entities.append((name, type_.upper() or "CONCEPT"))
    for item in data["relations"]:
        source, type_, target = _fields(item, ("source", "type", "target"), "relation")
        if source and target:
            relations.append((source, type_.lower() or "related to", target))
    # A small model repeats rows (Qwen 1.5B was seen listing one name eight times): keep the first of each.
    entities = list(dict.fromkeys(entities))
    relations = list(dict.fromkeys(relations))
    return RawExtraction(entities, relations)


class LLMExtractor(Extractor):
    def __init__(self, model: ChatModel, *, nlp: Any | None = None, retries: int = 2, parallel: int = 1) -> None:
        self.model = model
        self.nlp = nlp
        self.retries = retries
        self.parallel = parallel
        self.name = f"llm:{model.name}"
        #: calls, invalid outputs, sentences, failed sentences: what bench/extract.py reports
        self.stats: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._prefix = [
            Message("system", load_prompt("extract_system").strip()),
            Message("user", load_prompt("extract_example_sentence").strip()),
            Message("assistant", load_prompt("extract_example_output").strip()),
        ]

    def close(self) -> None:
        self.model.close()

    # -- one sentence ------------------------------------------------------------------------------
    def _call(self, sentence: str) -> tuple[RawExtraction | None, str, str]:
        """(parsed, raw output, error). BackendUnavailable propagates."""
        messages = [*self._prefix, Message("user", render("extract_user", sentence=sentence).strip())]
        raw, error = "", ""
        for _attempt in range(self.retries + 1):
            try:
                raw = self.model.chat(messages, schema=EXTRACTION_SCHEMA, max_tokens=512).text
            except ModelOutputError as exc:
                # e.g. a prompt too long for the context: this sentence fails (no retry can help), not the document
                self._count(calls=1, invalid_outputs=1, sentences=1, failed_sentences=1)
                return None, raw, str(exc)
            try:
                parsed = parse_extraction(raw)
                self._count(calls=1, sentences=1)
                return parsed, raw, ""
            except ModelOutputError as exc:
                self._count(calls=1, invalid_outputs=1)
                error = str(exc)
                messages = [
                    *messages,
                    Message("assistant", raw),
                    Message("user", f"That output is not valid ({error}). Reply with the JSON object only."),
                ]
        self._count(sentences=1, failed_sentences=1)
        return None, raw, error

    def _count(self, **counts: int) -> None:
        with self._lock:
            self.stats.update(counts)

    def extract(self, document: Document, sentences: Sequence[Sentence]) -> Extraction:
        spans = [s.span for s in sentences]
        if self.parallel > 1:
            with ThreadPoolExecutor(self.parallel) as pool:
                results = list(pool.map(lambda span: self._call(span.text), spans))
        else:
            results = [self._call(span.text) for span in spans]
        entities: list[ExtractedEntity] = []
        relations: list[ExtractedRelation] = []
        rejected: list[Rejection] = []
        for span, (parsed, raw, error) in zip(spans, results, strict=True):
            if parsed is None:
                rejected.append(Rejection("sentence", "extraction_failed", f"{span.start}-{span.end}: {error}", raw))
                continue
            self._accept(span, parsed, entities, relations, rejected)
        return Extraction(self.name, tuple(entities), tuple(relations), (), tuple(rejected))

    def _accept(
        self,
        span: Span,
        parsed: RawExtraction,
        entities: list[ExtractedEntity],
        relations: list[ExtractedRelation],
        rejected: list[Rejection],
    ) -> None:
        lemmas = sentence_lemmas(span.text, self.nlp)
        for name, type_ in parsed.entities:
            if not occurs_in(name, span.text, lemmas, self.nlp):
                rejected.append(
                    Rejection("entity", "not_in_sentence", f"{name!r} does not occur in {span.document}:{span.start}-{span.end}", name)
                )
                continue
            start: int | None
            end: int | None
            at = span.text.casefold().find(name.casefold())
            # casefold() can change lengths (ß -> ss), so the found position is checked on the original text.
            if at >= 0 and span.text[at : at + len(name)].casefold() == name.casefold():  # the sentence's own text
                start, end = span.start + at, span.start + at + len(name)
                name = span.text[at : at + len(name)]
            else:
                start = end = None
            entities.append(ExtractedEntity(name, entity_key(name, self.nlp), type_, span, start, end))
        for source, type_, target in parsed.relations:
            missing = [n for n in (source, target) if not occurs_in(n, span.text, lemmas, self.nlp)]
            if missing:
                rejected.append(
                    Rejection(
                        "relation",
                        "not_in_sentence",
                        f"{', '.join(map(repr, missing))} does not occur in {span.document}:{span.start}-{span.end}",
                        f"{source} -[{type_}]-> {target}",
                    )
                )
                continue
            relations.append(ExtractedRelation(entity_key(source, self.nlp), entity_key(target, self.nlp), type_, span, source, target))
