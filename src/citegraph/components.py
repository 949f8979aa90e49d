"""Components from spec strings, in one place: every setting that names a component is turned into an
instance here, and ``citegraph models`` checks the configured ones here. The CLI, the Python API and
the evaluation commands call these; none of them reads a spec string itself.

    embedder     minilm | hashing | ollama:MODEL[@URL]
    extractor    spacy | a model spec
    generator    extractive | a model spec
    verifier     checker | guards | none | a judge model spec
    model spec   ollama:MODEL[@URL] | openai:MODEL@BASE_URL | gguf:PATH_OR_NAME (grammar: :mod:`citegraph.llm.spec`)

Implementations are imported when one is made, so an optional SDK is needed only by what uses it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citegraph.errors import CitegraphError, UserError
from citegraph.llm.spec import OLLAMA_URL, parse_spec
from citegraph.settings import DEFAULTS, check_setting, graph_settings

if TYPE_CHECKING:
    from citegraph.answer.base import Answerer
    from citegraph.embed.base import Embedder
    from citegraph.extract.base import Extractor
    from citegraph.llm.base import ChatModel
    from citegraph.sentences import SentenceSplitter
    from citegraph.verify.base import Verifier
    from citegraph.verify.judge import LLMJudge

__all__ = [
    "BUILT_IN",
    "DEMO_MODEL",
    "GraphSpec",
    "KnownModelFile",
    "ModelCheck",
    "ModelsReport",
    "check_models",
    "check_store_embedder",
    "demo_model",
    "embedder_flag",
    "make_answerer",
    "make_chat_model",
    "make_embedder",
    "make_extractor",
    "make_judge",
    "make_verifier",
]

#: Per role, the values that name a component built into citegraph rather than a model.
BUILT_IN: Mapping[str, tuple[str, ...]] = {
    "embedder": ("minilm", "hashing"),
    "extractor": ("spacy",),
    "generator": ("extractive",),
    "verifier": ("checker", "guards", "none"),
}
DEMO_MODEL = "qwen2.5-coder-1.5b"  #: the local model ``citegraph demo`` uses when it is pulled


@dataclass(frozen=True)
class GraphSpec:
    """One graph's parsed options: its store, its components as spec strings, and its settings, as
    plain values. It is the one record that travels to every process that opens the graph (the CLI,
    an ingest worker, a Ray actor, a server's worker process): it pickles, and :meth:`to_json`
    carries it where only text can go. Numbers are checked against the settings table when made.
    Its fields are the table's settings of the graph's scope, with the table's defaults: checked at
    import (:func:`_check_spec_fields`), so a setting added to the table without a field here, or a
    default written here, fails at once."""

    db: str = DEFAULTS.db
    embedder: str = DEFAULTS.embedder
    extractor: str = DEFAULTS.extractor
    generator: str = DEFAULTS.generator
    verifier: str = DEFAULTS.verifier
    support_threshold: float = DEFAULTS.support_threshold
    timeout: float = DEFAULTS.timeout
    lock_timeout: float = DEFAULTS.lock_timeout
    dangling: str = DEFAULTS.dangling
    retrieval: str = DEFAULTS.retrieval
    hops: int = DEFAULTS.hops
    top_k: int = DEFAULTS.top_k
    context_size: int = DEFAULTS.context_size
    depth_penalty: float = DEFAULTS.depth_penalty
    max_file_mb: float = DEFAULTS.max_file_mb
    max_text_mb: float = DEFAULTS.max_text_mb
    max_answer_chars: int = DEFAULTS.max_answer_chars
    max_claims: int = DEFAULTS.max_claims
    max_question_chars: int = DEFAULTS.max_question_chars

    def __post_init__(self) -> None:
        object.__setattr__(self, "db", str(self.db))  # a Path is welcome; the record keeps text
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, int | float) and not isinstance(value, bool):
                check_setting(field.name.replace("_", "-"), value)

    def replace(self, **changes: Any) -> GraphSpec:
        """This spec with ``changes`` (field names as keywords); an unknown name is the caller's mistake."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise UserError(f"unknown graph option(s): {', '.join(unknown)}")
        return dataclasses.replace(self, **changes)

    def retriever_options(self) -> dict[str, Any]:
        """The retriever's keyword arguments (:class:`~citegraph.retrieve.retriever.Retriever`)."""
        return {
            "top_k": self.top_k,
            "hops": self.hops,
            "context_size": self.context_size,
            "depth_penalty": self.depth_penalty,
            "mode": self.retrieval,
        }

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> GraphSpec:
        return cls(**json.loads(text))


def _check_spec_fields() -> None:
    fields = {f.name: f.default for f in dataclasses.fields(GraphSpec)}
    table = graph_settings()
    if fields != table:
        differ = sorted(n for n in set(fields) | set(table) if fields.get(n, ...) != table.get(n, ...))
        raise TypeError(f"GraphSpec and the settings table (scope 'graph') differ in: {', '.join(differ)}")


_check_spec_fields()


def make_chat_model(text: str, *, timeout: float = DEFAULTS.timeout) -> ChatModel:
    """The chat model a model spec names (see :mod:`citegraph.llm.spec`)."""
    spec = parse_spec(text)
    if spec.scheme == "ollama":
        from citegraph.llm.ollama import OllamaChat

        return OllamaChat(spec.model, spec.url or OLLAMA_URL, timeout=timeout)
    if spec.scheme == "openai":
        from citegraph.llm.openai_compat import OpenAIChat

        return OpenAIChat(spec.model, spec.url or "", timeout=timeout)
    from citegraph.llm.gguf import GGUFChat

    return GGUFChat(spec.model)


def make_embedder(name: str, *, timeout: float = DEFAULTS.timeout, threads: int = 0) -> Embedder:
    """``threads``: the in-process embedder's threads (0: onnxruntime's default, every core)."""
    from citegraph.embed import HashingEmbedder, MiniLMEmbedder

    if name == "minilm":
        return MiniLMEmbedder(threads=threads)
    if name == "hashing":
        return HashingEmbedder()
    if name.startswith("ollama:"):
        from citegraph.llm.ollama import OllamaEmbedder

        spec = parse_spec(name)
        return OllamaEmbedder(spec.model, spec.url or OLLAMA_URL, timeout=timeout)
    raise UserError(f"unknown embedder {name!r}; choose 'minilm', 'ollama:MODEL[@URL]' or 'hashing'")


def embedder_flag(name: str) -> str:
    """The ``--embedder`` value that makes an embedder named ``name`` (what a store records)."""
    return "hashing" if name.startswith("hashing-") else "minilm" if name.startswith("all-MiniLM-") else name


def check_store_embedder(stored: str | None, name: str) -> None:
    """Refuse to open a store built with the embedder ``stored`` with another one (``name``): its
    vectors would not be comparable. None (an empty store) takes any."""
    if stored is None or stored == name:
        return
    built = stored if embedder_flag(stored) == stored else f"{embedder_flag(stored)} ({stored})"
    raise UserError(f"this store was built with --embedder {built}; open it with that, not --embedder {embedder_flag(name)}")


def make_extractor(spec: str, splitter: SentenceSplitter, *, timeout: float = DEFAULTS.timeout) -> Extractor:
    """``spacy`` or a model spec; a model that does not answer is an error here, before any work."""
    if spec == "spacy":
        from citegraph.extract.spacy_extractor import SpacyExtractor

        return SpacyExtractor(splitter)
    from citegraph.extract.llm_extractor import LLMExtractor

    model = make_chat_model(spec, timeout=timeout)
    return LLMExtractor(model, nlp=splitter.nlp, parallel=model.concurrency)


def make_answerer(spec: str, *, timeout: float = DEFAULTS.timeout) -> Answerer:
    if spec == "extractive":
        from citegraph.answer.extractive import ExtractiveAnswerer

        return ExtractiveAnswerer()
    from citegraph.answer.llm_answerer import LLMAnswerer

    return LLMAnswerer(make_chat_model(spec, timeout=timeout))


def make_verifier(spec: str, *, threshold: float = DEFAULTS.support_threshold, timeout: float = DEFAULTS.timeout) -> Verifier:
    """``checker`` (guards and citegraph's trained checker), ``guards`` (no model but the screen),
    ``none`` (label everything unverified), or a judge model spec (the checker first, then the judge)."""
    from citegraph.verify.cascade import CheckingVerifier
    from citegraph.verify.judge import LLMJudge

    if spec == "none":
        from citegraph.verify.base import UncheckedVerifier

        return UncheckedVerifier()
    if spec == "guards":
        return CheckingVerifier(threshold=threshold)
    if spec == "checker":
        return CheckingVerifier(threshold=threshold, checker=True)
    return CheckingVerifier(LLMJudge(make_chat_model(spec, timeout=timeout)), threshold=threshold, checker=True)


def make_judge(spec: str, *, timeout: float = DEFAULTS.timeout) -> LLMJudge | None:
    """The judge a verifier spec names, alone (``citegraph eval support``); None for ``checker``,
    ``guards`` and ``none``, which have no judge."""
    if spec in BUILT_IN["verifier"]:
        return None
    from citegraph.verify.judge import LLMJudge

    return LLMJudge(make_chat_model(spec, timeout=timeout))


@dataclass(frozen=True)
class ModelCheck:
    """One configured component as ``citegraph models`` reports it."""

    role: str  #: extractor, generator
    spec: str
    status: str  #: ``built in``, ``not checked``, ``answers`` or ``unavailable: REASON``


@dataclass(frozen=True)
class KnownModelFile:
    """A known GGUF model and whether it is pulled into the cache."""

    name: str
    spec: str
    pulled: bool
    path: str
    note: str
    calibrated: bool  #: a calibration record ships for it as a judge (its scores are fitted probabilities)


@dataclass(frozen=True)
class ModelsReport:
    """``citegraph models``: the configured components, then the known models and the cache they go in."""

    configured: tuple[ModelCheck, ...]
    known: tuple[KnownModelFile, ...]
    cache: str


def check_models(roles: Mapping[str, str], *, timeout: float = DEFAULTS.timeout, check: bool = True) -> ModelsReport:
    """Each role's spec (``{"extractor": "spacy", ...}``) and, with ``check``, whether its model
    answers; then every known model and whether it is pulled."""
    from citegraph.llm.registry import KNOWN_MODELS, cache_dir

    configured = []
    for role, spec in roles.items():
        status = "built in"
        if spec not in BUILT_IN.get(role, ()):
            status = "not checked"
            if check:
                try:
                    make_chat_model(spec, timeout=timeout).check()
                    status = "answers"
                except CitegraphError as exc:
                    status = f"unavailable: {exc}"
        configured.append(ModelCheck(role, spec, status))
    known = []
    for model in KNOWN_MODELS.values():
        path = cache_dir() / model.file_name
        known.append(KnownModelFile(model.name, f"gguf:{model.name}", path.is_file(), str(path), model.note, model.calibration is not None))
    return ModelsReport(tuple(configured), tuple(known), str(cache_dir()))


def demo_model(role: str, requested: str) -> tuple[str, str]:
    """The model spec ``citegraph demo`` uses for a role (``generator``, ``verifier``) and a note.
    ``auto`` is the local :data:`DEMO_MODEL` when it is pulled and llama-cpp-python is installed,
    else the role's default setting, and the note says why."""
    if requested != "auto":
        return requested, ""
    fallback = {"generator": DEFAULTS.generator, "verifier": DEFAULTS.verifier}[role]
    from citegraph.llm.registry import find_model

    try:
        import llama_cpp  # noqa: F401

        find_model(DEMO_MODEL)
    except (ImportError, CitegraphError) as exc:
        reason = "llama-cpp-python is not installed" if isinstance(exc, ImportError) else str(exc)
        return fallback, f"local model unavailable ({reason}); using '{fallback}' instead"
    return f"gguf:{DEMO_MODEL}", ""
