"""Every setting, declared once: name, default, valid range, environment variable and help.

The CLI builds its options from this table (the range drives their validation, so a flag, an
environment variable and a config-file value are checked alike), :class:`citegraph.CiteGraph`
checks its parameters against it, and the README's settings table is checked against it by a
test, so none of them can drift apart. :data:`DEFAULTS` holds the table's defaults typed
(``DEFAULTS.top_k`` is an ``int``): every other module takes its defaults from there.
"""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass
from typing import Any

from citegraph.errors import UserError

__all__ = ["DEFAULTS", "SETTINGS", "Defaults", "Setting", "check_setting", "graph_settings", "setting"]


@dataclass(frozen=True)
class Setting:
    """One setting. A numeric one may have a ``minimum`` and ``maximum`` (inclusive; with ``above``
    the minimum itself is refused); NaN and infinity are always refused. ``scope`` says where it
    lives: ``graph`` (a field of :class:`~citegraph.components.GraphSpec`, which travels to every
    process that opens the graph) or ``process`` (how one process serves or ingests: workers, request
    limits)."""

    name: str
    default: object
    help: str
    minimum: float | None = None
    maximum: float | None = None
    above: bool = False
    scope: str = "graph"

    @property
    def env(self) -> str:
        return "CITEGRAPH_" + self.name.upper().replace("-", "_")

    @property
    def range(self) -> str:
        """The valid values in words, as the README shows them ('' for a text setting)."""
        if self.minimum is not None and self.maximum is not None:
            return f"from {self.minimum:g} to {self.maximum:g}"
        if self.minimum is not None:
            return f"{'above' if self.above else 'at least'} {self.minimum:g}"
        if self.maximum is not None:
            return f"at most {self.maximum:g}"
        return ""

    def problem(self, value: object) -> str | None:
        """Why ``value`` is not valid for this setting ("must be a whole number at least 1, not 0"), or None."""
        if isinstance(self.default, bool) or not isinstance(self.default, int | float):
            return None
        whole = isinstance(self.default, int)
        kind = "a whole number" if whole else "a number"
        wanted = f"must be {kind}{' ' + self.range if self.range else ''}, not {value!r}"
        if isinstance(value, bool) or not isinstance(value, int | float) or (whole and not isinstance(value, int)):
            return wanted
        if not math.isfinite(value):
            return wanted
        if self.minimum is not None and (value < self.minimum or (self.above and value == self.minimum)):
            return wanted
        if self.maximum is not None and value > self.maximum:
            return wanted
        return None


#: The default ``max-text-mb``. Ingest time grows linearly with a document's text, and most with many
#: short sentences (each is parsed and embedded, and so is every new name in it): bench/hostile.py
#: measured a flood of two-word sentences at about 3 minutes per MB on two cores (ordinary prose
#: about 2), so 3 MB keeps any accepted document under about 10 minutes (docs/scaling.md).
TEXT_MB = 3.0
MINUTES_PER_MB = 3.0  #: the worst measured ingest time per MB of text, in minutes (said in the refusal)

SETTINGS = (
    Setting("db", "citegraph.db", "the store: a SQLite file, or a postgresql://USER@HOST[:PORT]/DATABASE URL"),
    Setting("lock-timeout", 30.0, "seconds to wait while another process holds the store's write lock", minimum=0),
    Setting("embedder", "minilm", "sentence embedder: 'minilm' (all-MiniLM-L6-v2, ONNX int8), 'ollama:MODEL[@URL]', or 'hashing' (tests)"),
    Setting("extractor", "spacy", "entity and relation extractor: 'spacy' or a model spec (ollama:…, openai:…@URL, gguf:…)"),
    Setting("generator", "extractive", "answer writer: 'extractive' (quotes evidence) or a model spec (ollama:…, openai:…@URL, gguf:…)"),
    Setting(
        "verifier",
        "checker",
        "support check: 'checker' (guards and citegraph's trained checker), 'guards' (guards, near-quotes and the screen), "
        "'none', or a judge model spec (the checker, then the judge)",
    ),
    Setting(
        "support-threshold",
        0.5,
        "a judge score at or above this is 'supported' (choose it on a dev split: citegraph eval support)",
        minimum=0,
        maximum=1,
    ),
    Setting("timeout", 120.0, "seconds to wait for a model server's answer", minimum=0, above=True),
    Setting(
        "retrieval",
        "bridge-embedded",
        "retrieval mode: 'bridge-embedded' (passages, a short document whole and a long one cut at its headings, by their text's "
        "vector, each followed by the passage about an entity "
        "it names), 'bridge' (the same by their sentences' mean vector), 'ppr', 'hybrid', 'bfs', 'dense-sentence', "
        "'dense-passage' or 'notebook' (see citegraph eval retrieval)",
    ),
    Setting("hops", 2, "traversal hop limit from the entry entities", minimum=0, maximum=6),
    Setting("top-k", 3, "number of entry entities (seeds) taken by similarity to the question", minimum=1, maximum=50),
    Setting("context-size", 8, "number of evidence sentences numbered into the answerer's context", minimum=1),
    Setting("depth-penalty", 0.1, "evidence score = similarity * (1 - depth_penalty * depth)", minimum=0, maximum=1),
    Setting(
        "max-answer-chars",
        20000,
        "answer text (generated or from --answer-file) longer than this many characters is refused before any check",
        minimum=1,
    ),
    Setting(
        "max-question-chars",
        2000,
        "a question longer than this many characters is refused before any work (CLI, HTTP API and agents alike)",
        minimum=1,
        maximum=100_000,
    ),
    Setting("max-claims", 100, "an answer of more claims than this is refused before any check", minimum=1),
    Setting(
        "workers",
        1,
        "processes: `ingest` indexes documents in this many (each loads the models once; one writes), `serve` answers in this many",
        minimum=1,
        maximum=64,
        scope="process",
    ),
    Setting("max-file-mb", 10.0, "files larger than this many megabytes are refused at ingest (reported, not read)", minimum=0, above=True),
    Setting(
        "max-text-mb",
        TEXT_MB,
        "documents whose text (read out of the file) is larger than this many megabytes are refused at ingest: "
        "the default keeps one document under about 10 minutes on two cores (docs/scaling.md)",
        minimum=0,
        above=True,
    ),
    Setting(
        "max-request-mb",
        100.0,
        "`serve`: a request body larger than this many megabytes is refused (413) before it is read",
        minimum=0,
        above=True,
        scope="process",
    ),
    Setting(
        "max-query-kb",
        256.0,
        "`serve`: a request body to any endpoint but uploads (/ask, /verify) larger than this many kilobytes is refused (413) "
        "before it is read",
        minimum=0,
        above=True,
        scope="process",
    ),
    Setting(
        "dangling",
        "infer",
        "relation whose sentence names an endpoint no entity covers: 'infer' a mention there or 'reject' the relation",
    ),
)
_BY_NAME = {s.name: s for s in SETTINGS}


@dataclass(frozen=True)
class Defaults:
    """Every setting's default, typed: one field per setting (``-`` written ``_``). Made from the
    table and checked against it at import (the same names, each value of its field's type), so the
    table stays the one place a default is written."""

    db: str
    lock_timeout: float
    embedder: str
    extractor: str
    generator: str
    verifier: str
    support_threshold: float
    timeout: float
    retrieval: str
    hops: int
    top_k: int
    context_size: int
    depth_penalty: float
    max_answer_chars: int
    max_question_chars: int
    max_claims: int
    workers: int
    max_file_mb: float
    max_text_mb: float
    max_request_mb: float
    max_query_kb: float
    dangling: str


def _defaults() -> Defaults:
    values: dict[str, Any] = {s.name.replace("-", "_"): s.default for s in SETTINGS}
    kinds = typing.get_type_hints(Defaults)
    if set(values) != set(kinds):
        raise TypeError(f"Defaults and SETTINGS name different settings: {sorted(set(values) ^ set(kinds))}")
    for name, value in values.items():
        if type(value) is not kinds[name]:
            raise TypeError(f"the default of {name} is {value!r}, not a {kinds[name].__name__}")
    return Defaults(**values)


DEFAULTS = _defaults()


def graph_settings() -> dict[str, object]:
    """Per setting of the graph's scope, its field name (``top_k``) and default: what
    :class:`~citegraph.components.GraphSpec` holds, checked against it where it is made."""
    return {s.name.replace("-", "_"): s.default for s in SETTINGS if s.scope == "graph"}


def setting(name: str) -> Setting:
    return _BY_NAME[name]


def check_setting(name: str, value: object) -> None:
    """Raise :class:`UserError` naming the parameter (``top_k``) and the valid range if ``value`` is out of it."""
    problem = setting(name).problem(value)
    if problem is not None:
        raise UserError(f"{name.replace('-', '_')} {problem}")
