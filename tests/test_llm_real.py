"""Real local models on this machine: SmolLM2-135M (98 MB) in-process through llama-cpp-python, and
through llama.cpp's own OpenAI-compatible server started on 127.0.0.1. The model is too weak to give
good answers; these tests check the code paths and contracts, not the quality."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from citegraph.components import make_chat_model
from citegraph.embed import HashingEmbedder
from citegraph.errors import CitegraphError
from citegraph.extract.llm_extractor import EXTRACTION_SCHEMA, LLMExtractor, parse_extraction
from citegraph.llm import Message
from citegraph.llm.registry import find_model
from citegraph.models import DocumentStatus
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.store import SQLiteStore

SMALL = "smollm2-135m"


def _small_model_path() -> Path:
    try:
        import llama_cpp  # noqa: F401

        return find_model(SMALL)
    except (ImportError, CitegraphError) as exc:
        if os.environ.get("CI"):
            raise  # in CI the set-up installs both: a missing model is a failure, not a skip
        pytest.skip(f"needs llama-cpp-python and `citegraph models pull {SMALL}` ({exc})")


@pytest.fixture(scope="module")
def small_model() -> Path:
    return _small_model_path()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(small_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    log = log_path.open("wb")  # a file, not a pipe: the server logs a lot and a full pipe would block it
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(small_model),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log_path.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{base}/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama_cpp.server did not start within 120 s")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.mark.parametrize("route", ["gguf", "openai"])
def test_chat_json_schema_and_logprobs(route: str, request: pytest.FixtureRequest) -> None:
    if route == "gguf":
        model = make_chat_model(f"gguf:{SMALL}")
    else:
        model = make_chat_model(f"openai:{SMALL}@{request.getfixturevalue('llama_server')}")
    out = model.chat(
        [Message("user", "List the entities in: 'Exports use the latest snapshot.'")], schema=EXTRACTION_SCHEMA, max_tokens=512
    )
    parse_extraction(out.text)  # schema-constrained output always parses
    judged = model.chat([Message("user", "Is the sky blue? Answer yes or no.")], max_tokens=1, top_logprobs=5)
    model.close()
    assert judged.first_token_logprobs and all(v <= 0 for v in judged.first_token_logprobs.values())


def test_same_prompt_same_answer_in_process() -> None:
    _small_model_path()
    model = make_chat_model(f"gguf:{SMALL}")
    messages = [Message("user", "Name one colour.")]
    assert model.chat(messages, max_tokens=8).text == model.chat(messages, max_tokens=8).text  # temperature 0


def test_llm_extractor_end_to_end_through_the_server(splitter, llama_server: str) -> None:  # type: ignore[no-untyped-def]
    model = make_chat_model(f"openai:{SMALL}@{llama_server}")
    graph = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, extractor=LLMExtractor(model, nlp=splitter.nlp))
    request_close = graph.close
    (report,) = graph.ingest_texts([TextInput("a.md", "Exports use the latest snapshot. Snapshots are kept for 90 days.")]).documents
    # A weak model may find little, but never invents provenance: every stored mention slices to its sentence.
    assert report.status in {DocumentStatus.OK, DocumentStatus.PARTIAL, DocumentStatus.EMPTY}
    doc = graph.store.get_document("a.md")
    assert doc is not None
    data = graph.store.graph(None)
    for _, span_index, _surface, _ in data.mentions:
        span = data.spans[span_index]
        assert doc.text[span.start : span.end] == span.text
    for rejection in report.rejected:
        assert rejection.reason in {"not_in_sentence", "extraction_failed"}
    request_close()


def test_generator_through_the_cli_with_the_real_server(llama_server: str, larkspur: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from citegraph.cli import main

    db = str(tmp_path / "g.db")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(larkspur), "--db", db, "--embedder", "hashing", "--quiet"]).exit_code == 0
    result = runner.invoke(
        main,
        [
            "ask",
            "How long do exports stay available?",
            "--db",
            db,
            "--embedder",
            "hashing",
            "--generator",
            f"openai:{SMALL}@{llama_server}",
            "--no-verify",  # this test is about the generator route; verification has its own tests
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["models"]["generator"] == f"openai:{SMALL}@{llama_server}"
    assert answer["answer"] and answer["claims"]  # whatever it wrote was split, resolved and labelled
    assert {c["status"] for c in answer["claims"]} <= {"unverified", "uncited", "invalid_marker"}


def test_the_in_process_model_gives_its_hidden_state_with_the_same_first_token() -> None:
    """The judge's head reads the state that predicts the answer's first token in the same forward pass;
    asking for it changes neither the log-probabilities nor (on a repeat) the state."""
    _small_model_path()
    model = make_chat_model(f"gguf:{SMALL}")
    messages = [Message("user", "Is the sky blue? Answer yes or no.")]
    plain = model.first_token(messages, top_logprobs=5)
    with_state = model.first_token(messages, top_logprobs=5, state=True)
    again = model.first_token([*messages[:-1], Message("user", "Is grass green? Answer yes or no.")], top_logprobs=5, state=True)
    repeat = model.first_token(messages, top_logprobs=5, state=True)
    model.close()
    assert plain.state is None and with_state.state is not None and len(with_state.state) == model.llm.n_embd()  # type: ignore[attr-defined]
    assert with_state.first_token_logprobs.keys() == plain.first_token_logprobs.keys()
    assert all(abs(with_state.first_token_logprobs[k] - v) < 1e-3 for k, v in plain.first_token_logprobs.items())
    assert again.state != with_state.state
    assert repeat.state is not None and max(abs(a - b) for a, b in zip(repeat.state, with_state.state, strict=True)) < 1e-3


@pytest.mark.parametrize("route", ["gguf", "openai"])
def test_the_real_models_stream_token_by_token_the_text_they_give_whole(route: str, request: pytest.FixtureRequest) -> None:
    """In-process llama.cpp and llama.cpp's OpenAI-compatible server: the answer arrives in several
    pieces, and joined they are the unstreamed answer to the same prompt (temperature 0)."""
    _small_model_path()
    model = make_chat_model(f"gguf:{SMALL}" if route == "gguf" else f"openai:{SMALL}@{request.getfixturevalue('llama_server')}")
    messages = [Message("user", "Name three colours.")]
    pieces = list(model.stream(messages, max_tokens=12))
    whole = model.chat(messages, max_tokens=12).text
    model.close()
    assert len(pieces) > 1 and "".join(pieces) == whole


def test_a_real_model_writes_out_a_follow_up_or_its_rewrite_is_refused_with_the_reason() -> None:
    """The rewrite path with a real backend: the few-shot prompt renders and the model answers; what it
    wrote is used only if faithful (a 135M model often is not: then the rules' reading stands, with why)."""
    pytest.importorskip("spacy")
    from citegraph.conversation import Turn, resolve

    _small_model_path()
    model = make_chat_model(f"gguf:{SMALL}")
    try:
        history = [Turn("Where is the chess club held?", "Hillside. The chess club meets at Hillside hall.")]
        read = resolve("Which town is that in?", history, model=model)
    finally:
        model.close()
    assert read.unread == ("that",) and read.asked == "Which town is that in?"
    if read.by == model.name:
        assert read.question != read.asked and read.question.endswith("?") and "town" in read.question and not read.refused
    else:
        assert read.question == read.asked and read.refused.startswith("The language model's rewrite was not used: ")
