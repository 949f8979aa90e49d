"""Model specs: their grammar, parsed in one place (:mod:`citegraph.components` makes the models).

    ollama:MODEL[@URL]        Ollama's native API (default URL http://127.0.0.1:11434)
    openai:MODEL@BASE_URL     any OpenAI-compatible server (llama.cpp server, vLLM, LM Studio, Ollama's /v1)
    gguf:PATH_OR_NAME         llama-cpp-python in-process; a known name (``citegraph models``) or a file

A role (extractor, generator) also accepts its built-in default (``spacy``, ``extractive``).
"""

from __future__ import annotations

from dataclasses import dataclass

from citegraph.errors import UserError

__all__ = ["OLLAMA_URL", "SCHEMES", "ModelSpec", "parse_spec"]

SCHEMES = ("ollama", "openai", "gguf")
OLLAMA_URL = "http://127.0.0.1:11434"


@dataclass(frozen=True)
class ModelSpec:
    scheme: str
    model: str
    url: str | None = None

    def __str__(self) -> str:
        return f"{self.scheme}:{self.model}" + (f"@{self.url}" if self.url else "")


def parse_spec(text: str) -> ModelSpec:
    scheme, sep, rest = text.partition(":")
    if not sep or scheme not in SCHEMES:
        raise UserError(
            f"unknown model spec {text!r}: use one of " + ", ".join(f"'{s}:…'" for s in SCHEMES) + " (see citegraph models --help)"
        )
    if scheme == "gguf":
        if not rest:
            raise UserError("gguf: needs a file path or a known model name, e.g. gguf:qwen2.5-coder-1.5b")
        return ModelSpec(scheme, rest)
    model, at, url = rest.partition("@")
    if not model:
        raise UserError(f"{text!r}: the model name is missing")
    if scheme == "openai" and not url:
        raise UserError(f"{text!r}: an OpenAI-compatible spec needs a base URL, e.g. openai:{model}@http://127.0.0.1:8080/v1")
    if at and not url.startswith(("http://", "https://")):
        raise UserError(f"{text!r}: the URL must start with http:// or https://")
    return ModelSpec(scheme, model, url or (OLLAMA_URL if scheme == "ollama" else None))
