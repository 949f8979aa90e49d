"""Every setting, declared once: name, default, environment variable and help.

The CLI builds its options from this table and the README's settings table is checked against it
by a test, so the three cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SETTINGS", "Setting", "setting"]


@dataclass(frozen=True)
class Setting:
    name: str
    default: object
    help: str

    @property
    def env(self) -> str:
        return "CITEGRAPH_" + self.name.upper().replace("-", "_")


SETTINGS = (
    Setting("db", "citegraph.db", "SQLite store file"),
    Setting("embedder", "minilm", "sentence embedder: 'minilm' (all-MiniLM-L6-v2, ONNX int8), 'ollama:MODEL[@URL]', or 'hashing' (tests)"),
    Setting("extractor", "spacy", "entity and relation extractor: 'spacy' or a model spec (ollama:…, openai:…@URL, gguf:…)"),
    Setting("generator", "extractive", "answer writer: 'extractive' (quotes evidence) or a model spec (ollama:…, openai:…@URL, gguf:…)"),
    Setting("verifier", "guards", "support check: 'guards' (guards and near-quotes, no model), 'none', or a judge model spec"),
    Setting("support-threshold", 0.5, "a judge score at or above this is 'supported' (choose it on a dev split: citegraph eval support)"),
    Setting("timeout", 120.0, "seconds to wait for a model server's answer"),
    Setting("hops", 2, "traversal hop limit from the entry entities"),
    Setting("top-k", 3, "number of entry entities (seeds) taken by similarity to the question"),
    Setting("context-size", 8, "number of evidence sentences numbered into the answerer's context"),
    Setting("depth-penalty", 0.1, "evidence score = similarity * (1 - depth_penalty * depth)"),
    Setting("max-file-mb", 10.0, "files larger than this many megabytes are refused at ingest (reported, not read)"),
    Setting("dangling", "infer", "relation whose endpoint was not extracted: 'infer' the entity or 'reject' the relation"),
)
_BY_NAME = {s.name: s for s in SETTINGS}


def setting(name: str) -> Setting:
    return _BY_NAME[name]
