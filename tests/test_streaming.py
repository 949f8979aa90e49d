"""A language model's answer streamed as it is written (issue 38, item 2), through the real pipeline
and server (SQLite, spaCy, the hashing embedder, the checking verifier) with a scripted model that
streams word by word: `/ask/stream` sends each piece as a `token` event before the draft and the
checks; the chat endpoint's stream shows the pieces under "Draft, being checked:", then the checked
reply, in which a claim its check contradicted is struck through. The backends' own streams (Ollama,
OpenAI-compatible, in-process llama.cpp) are tested in test_llm_clients.py and test_llm_real.py."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from citegraph.answer.llm_answerer import LLMAnswerer
from citegraph.embed import HashingEmbedder
from citegraph.llm.base import FakeChatModel, Message
from citegraph.pipeline import CiteGraph
from citegraph.serve.app import create_app
from citegraph.serve.chat import CHECKED_HEAD, DRAFT_HEAD
from citegraph.serve.tokens import TokenStore
from citegraph.store import SQLiteStore
from citegraph.verify.cascade import CheckingVerifier

POLICY = "Exports stay available for 30 days after cancellation. Billing stops at the end of the current period."


def _answer(messages: Sequence[Message]) -> str:
    """Cites the export sentence twice: once rightly, once with a number it does not say."""
    evidence = messages[-1].content
    marker = next(line.split("]")[0].lstrip("[") for line in evidence.splitlines() if "Exports stay available" in line)
    return f"Exports stay available for 30 days after cancellation [{marker}]. Exports stay available for 90 days [{marker}]."


@pytest.fixture
def client(tmp_path: Path, splitter, write) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    db = tmp_path / "stream.db"
    model = FakeChatModel(_answer, name="fake-stream")
    graph = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier(), answerer=LLMAnswerer(model))
    graph.ingest([write("policy.md", POLICY)], access=["public"])
    with TestClient(create_app(graph, TokenStore(db))) as served:
        yield served
    graph.close()


def _events(text: str) -> list[tuple[str, object]]:
    out = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in lines:
            out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_ask_stream_sends_each_piece_as_the_model_writes_it_then_the_checks(client: TestClient) -> None:
    with client.stream("POST", "/ask/stream", json={"question": "How long do exports stay available after cancellation?"}) as response:
        events = _events(response.read().decode())
    kinds = [kind for kind, _ in events]
    tokens = [data for kind, data in events if kind == "token"]
    draft = next(data for kind, data in events if kind == "draft")
    assert len(tokens) > 5 and "".join(str(t) for t in tokens).strip() == draft  # the pieces are the draft, in order
    assert kinds.index("token") > kinds.index("context") and max(i for i, k in enumerate(kinds) if k == "token") < kinds.index("draft")
    assert kinds.index("draft") < kinds.index("claim") < kinds.index("done")  # checked after it was written
    done = next(data for kind, data in events if kind == "done")
    assert isinstance(done, dict)
    assert [c["status"] for c in done["claims"]] == ["supported", "contradicted"]


def test_the_chat_stream_shows_the_draft_as_unchecked_then_the_checked_reply(client: TestClient) -> None:
    body = {"model": "citegraph", "stream": True, "messages": [{"role": "user", "content": "How long do exports stay available?"}]}
    with client.stream("POST", "/v1/chat/completions", json=body, headers={"Authorization": "Bearer public"}) as response:
        lines = [line for line in response.read().decode().splitlines() if line.startswith("data: ") and line != "data: [DONE]"]
    chunks = [json.loads(line[6:]) for line in lines]
    pieces = [c["choices"][0]["delta"].get("content", "") for c in chunks]
    text = "".join(pieces)
    assert text.startswith(DRAFT_HEAD)  # the model's text comes first, said to be unchecked
    draft, checked = text[len(DRAFT_HEAD) :].split(CHECKED_HEAD)
    assert draft.count("Exports stay available") == 2 and "~~" not in draft
    assert len([p for p in pieces if p]) > 8  # piece by piece, not one block
    # the checked reply strikes through the claim its check did not support, and keeps the other
    assert (
        "~~Exports stay available for 90 days [1].~~" in checked and "Exports stay available for 30 days after cancellation [1]." in checked
    )
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop" and chunks[-1]["citegraph"]["claims"][1]["status"] == "contradicted"


def test_an_answer_not_written_by_a_model_streams_only_the_checked_reply(tmp_path: Path, splitter, write) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "extractive.db"
    graph = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    graph.ingest([write("policy.md", POLICY)], access=["public"])
    body = {"model": "citegraph", "stream": True, "messages": [{"role": "user", "content": "How long do exports stay available?"}]}
    with (
        TestClient(create_app(graph, TokenStore(db))) as served,
        served.stream("POST", "/v1/chat/completions", json=body, headers={"Authorization": "Bearer public"}) as response,
    ):
        text = "".join(
            json.loads(line[6:])["choices"][0]["delta"].get("content", "")
            for line in response.read().decode().splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"
        )
    graph.close()
    assert DRAFT_HEAD not in text and CHECKED_HEAD not in text and "Exports stay available for 30 days" in text
