"""Model specs, the HTTP clients against a stand-in Ollama server, and the parsers on recorded outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citegraph.components import make_chat_model
from citegraph.errors import BackendUnavailable, ModelOutputError, ModelUnavailable, UserError
from citegraph.extract.llm_extractor import EXTRACTION_SCHEMA, parse_extraction
from citegraph.llm import Message, parse_spec
from citegraph.llm.ollama import OllamaChat, OllamaEmbedder, parse_chat_response
from citegraph.llm.openai_compat import parse_completion
from tests.ollama_standin import StandIn, serve

RECORDED = Path(__file__).parent / "recorded"


def test_specs_resolve_in_one_place() -> None:
    assert str(parse_spec("ollama:qwen2.5")) == "ollama:qwen2.5@http://127.0.0.1:11434"
    assert str(parse_spec("ollama:qwen2.5@http://127.0.0.1:9")) == "ollama:qwen2.5@http://127.0.0.1:9"
    assert str(parse_spec("openai:qwen@http://127.0.0.1:8080/v1")) == "openai:qwen@http://127.0.0.1:8080/v1"
    assert parse_spec("gguf:/models/x.gguf").model == "/models/x.gguf"
    with pytest.raises(UserError, match="'ollama:…', 'openai:…', 'gguf:…'"):
        parse_spec("hf:some/model")
    with pytest.raises(UserError, match="needs a base URL"):
        parse_spec("openai:qwen")
    with pytest.raises(UserError, match="must start with http"):
        parse_spec("ollama:qwen@127.0.0.1:9")


def test_ollama_chat_with_schema_and_logprobs() -> None:
    state = StandIn({"qwen2.5": lambda messages, fmt: json.dumps({"echo": messages[-1]["content"], "schema": bool(fmt)})})
    with serve(state) as url:
        model = make_chat_model(f"ollama:qwen2.5@{url}")
        result = model.chat([Message("user", "hello")], schema=EXTRACTION_SCHEMA, top_logprobs=2)
        model.close()
    assert json.loads(result.text) == {"echo": "hello", "schema": True}
    assert result.first_token_logprobs == {"Yes": -0.1, "No": -2.4}
    (request,) = state.requests
    assert request["format"] == EXTRACTION_SCHEMA and request["stream"] is False
    assert request["options"]["temperature"] == 0 and request["top_logprobs"] == 2


def test_ollama_errors_are_errors_not_empty_results() -> None:
    with serve(StandIn({"qwen2.5": lambda m, f: "ok"})) as url:
        missing = OllamaChat("llama3", url)
        with pytest.raises(ModelUnavailable, match="not found, try pulling it first"):
            missing.chat([Message("user", "hi")])
        missing.close()
    down = OllamaChat("qwen2.5", "http://127.0.0.1:9", timeout=2)
    with pytest.raises(BackendUnavailable, match=r"cannot reach http://127\.0\.0\.1:9/api/chat"):
        down.chat([Message("user", "hi")])
    down.close()


def test_ollama_embedder() -> None:
    with serve(StandIn({"nomic-embed-text": lambda m, f: ""})) as url:
        embedder = OllamaEmbedder("nomic-embed-text", url)
        vectors = embedder.embed(["exports use snapshots", "snapshot exports", "billing"])
        embedder.close()
    assert embedder.dim == 64 and vectors.shape == (3, 64)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2])


def test_parsers_on_recorded_responses() -> None:
    ollama = json.loads((RECORDED / "ollama_chat_logprobs.json").read_text())
    result = parse_chat_response(ollama)
    assert result.text == "Yes" and result.first_token_logprobs["Yes"] > result.first_token_logprobs["No"]
    completion = json.loads((RECORDED / "llamacpp_completion_logprobs.json").read_text())
    parsed = parse_completion(completion)
    assert parsed.text == "No" and set(parsed.first_token_logprobs) >= {"No", "Yes"}
    with pytest.raises(ModelOutputError, match="no choices"):
        parse_completion({"error": "x"})
    with pytest.raises(ModelOutputError, match="no message content"):
        parse_chat_response({"done": True})


@pytest.mark.parametrize(
    ("raw", "entities", "relations"),
    [
        ('{"entities": [{"name": "Exports", "type": "concept"}], "relations": []}', [("Exports", "CONCEPT")], []),
        (
            '```json\n{"entities": [{"name": "A", "type": "ORG"}, {"name": "B", "type": ""}], '
            '"relations": [{"source": "A", "type": "Uses", "target": "B"}]}\n```',
            [("A", "ORG"), ("B", "CONCEPT")],
            [("A", "uses", "B")],
        ),
        # the schema's compact rows, as Qwen 1.5B writes them
        (
            '{"entities": [["Arthur\'s Magazine", "ORG"], ["Philadelphia", "place"]], '
            '"relations": [["Arthur\'s Magazine", "Published in", "Philadelphia"]]}',
            [("Arthur's Magazine", "ORG"), ("Philadelphia", "PLACE")],
            [("Arthur's Magazine", "published in", "Philadelphia")],
        ),
        # repeated rows, as a looping model writes them, are kept once
        (
            '{"entities": [["VIVA Media AG", "ORG"], ["VIVA Media AG", "PRODUCT"], ["VIVA Media AG", "PRODUCT"]], '
            '"relations": [["A", "owns", "B"], ["A", "owns", "B"]]}',
            [("VIVA Media AG", "ORG"), ("VIVA Media AG", "PRODUCT")],
            [("A", "owns", "B")],
        ),
        # Broken heads seen from whole-paragraph calls: empty names are dropped by the parser, not stored.
        ('{"entities": [{"name": ", ", "type": "X"}, {"name": "", "type": "X"}], "relations": []}', [(",", "X")], []),
    ],
)
def test_parse_extraction_accepts_good_shapes(raw: str, entities: list, relations: list) -> None:
    parsed = parse_extraction(raw)
    assert parsed.entities == entities and parsed.relations == relations


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "Sure! Here are the entities: Export, Snapshot.",
        '{"entities": [{"name": "A"',
        '{"entities": "A", "relations": []}',
        '{"entities": [1], "relations": []}',
        '{"entities": [["A"]], "relations": []}',
        '{"entities": [], "relations": [["A", "uses"]]}',
        '{"entities": [["A", 3]], "relations": []}',
    ],
)
def test_parse_extraction_rejects_bad_shapes(raw: str) -> None:
    with pytest.raises(ModelOutputError):
        parse_extraction(raw)


@pytest.mark.parametrize("backend", ["ollama", "openai"])
def test_a_model_server_streams_its_answer_piece_by_piece(backend: str) -> None:
    """Ollama's NDJSON stream and an OpenAI-compatible server's server-sent events: the pieces arrive
    one by one and, joined, are the text the same request gives unstreamed."""
    text = "Exports stay available for 30 days [1]. Billing stops at once [2]."
    state = StandIn({"qwen2.5": lambda messages, fmt: text})
    with serve(state) as url:
        model = make_chat_model(f"ollama:qwen2.5@{url}" if backend == "ollama" else f"openai:qwen2.5@{url}/v1")
        pieces = list(model.stream([Message("user", "How long?")], max_tokens=50))
        whole = model.chat([Message("user", "How long?")], max_tokens=50).text
        model.close()
    assert len(pieces) == len(text.split()) and "".join(pieces) == whole == text
    assert state.streamed == 1 and state.requests[0]["stream"] is True


def test_a_stream_that_breaks_is_an_error_not_a_short_answer() -> None:
    with serve(StandIn({"qwen2.5": lambda m, f: "ok"})) as url:
        missing = make_chat_model(f"ollama:llama3@{url}")
        with pytest.raises(ModelUnavailable, match="not found"):
            list(missing.stream([Message("user", "hi")]))
        missing.close()
    down = make_chat_model("openai:qwen@http://127.0.0.1:9/v1")
    with pytest.raises(BackendUnavailable, match="cannot reach"):
        list(down.stream([Message("user", "hi")]))
    down.close()


def test_a_stream_cut_short_or_of_the_wrong_shape_is_an_error_not_a_short_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    from citegraph.llm import ollama
    from citegraph.llm.openai_compat import stream_deltas

    piece = 'data: {"choices": [{"delta": {"content": "Exports stay"}}]}'
    with pytest.raises(ModelOutputError, match="ended before the model finished"):
        list(stream_deltas([piece], "openai:x"))
    with pytest.raises(ModelOutputError, match="not a JSON object"):
        list(stream_deltas(["data: [1]"], "openai:x"))
    last = 'data: {"choices": [{"delta": {"content": " 30 days."}, "finish_reason": "stop"}]}'
    assert "".join(stream_deltas([piece, last], "openai:x")) == "Exports stay 30 days."  # a finish_reason ends it
    assert "".join(stream_deltas([piece, "data: [DONE]"], "openai:x")) == "Exports stay"
    lines = ['{"message": {"content": "Exports stay"}, "done": false}']
    monkeypatch.setattr(ollama, "stream_lines", lambda *a, **k: iter(lines))
    model = ollama.OllamaChat("qwen2.5", "http://127.0.0.1:9")
    with pytest.raises(ModelOutputError, match="ended before the model finished"):
        list(model.stream([Message("user", "How long?")]))
    lines.append('{"message": {"content": ""}, "done": true}')
    assert "".join(model.stream([Message("user", "How long?")])) == "Exports stay"
    model.close()
