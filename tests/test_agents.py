"""Agents and chat front ends (issue 24, items 2 and 3): `citegraph mcp` through the MCP SDK's own
client (in process, over stdio and over streamable HTTP), and the OpenAI-compatible endpoint through
the `openai` client against a live server. A public caller never receives staff text by any route."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from citegraph.embed import HashingEmbedder
from citegraph.output.markdown import escape
from citegraph.pipeline import CiteGraph
from citegraph.serve.mcp_server import build_server
from citegraph.serve.tokens import TokenStore
from citegraph.store import SQLiteStore
from citegraph.verify.cascade import CheckingVerifier

QUESTION = "How long do exports stay available after cancellation?"
SECRET = "The Zephyrion merger closes on 14 March with a price of 412 million."
TOOLS = {"ask", "verify_answer", "search_evidence", "show_document", "list_documents"}


@pytest.fixture
def store(tmp_path: Path, splitter, larkspur: Path, write) -> Iterator[tuple[Path, CiteGraph]]:  # type: ignore[no-untyped-def]
    """The handbook as public, one merger note as staff; hashing embedder (the CLI's `--embedder hashing`)."""
    db = tmp_path / "agents.db"
    graph = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    graph.ingest([larkspur], access=["public"])
    graph.ingest([write("merger.md", SECRET)], access=["staff"])
    yield db, graph
    graph.close()


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    """(is_error, structured content or the error text)."""
    result = await client.call_tool(name, arguments)
    if result.is_error:
        return True, " ".join(getattr(c, "text", "") for c in result.content)
    return False, result.structured_content


def _everything(client: Client) -> Any:
    """Every tool's answer to questions about the secret (which never name what only it says), as one text."""

    async def gather() -> str:
        seen = []
        for name, arguments in (
            ("ask", {"question": "When does the merger close and at what price?"}),
            ("ask", {"question": "What are the main topics of these documents?", "scope": "global"}),
            ("search_evidence", {"query": "merger closing date and price"}),
            ("list_documents", {}),
            ("show_document", {"document": "merger.md"}),
            ("verify_answer", {"question": "What is the merger price?", "answer": "The merger has a price [1]."}),
        ):
            seen.append(json.dumps(await _call(client, name, arguments)))
        return "\n".join(seen)

    return gather()


def test_mcp_tools_carry_spans_verdicts_and_stages(store) -> None:  # type: ignore[no-untyped-def]
    _db, graph = store

    async def main() -> None:
        async with Client(build_server(graph)) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            failed, answer = await _call(client, "ask", {"question": QUESTION})
            assert not failed and answer["status"] == "conflicting"  # the stale FAQ beside the policy
            cited = [c for claim in answer["claims"] for c in claim["citations"]]
            assert cited and all({"document", "version", "start", "end", "sentence"} <= c.keys() for c in cited)
            assert all(c["support"]["label"] and c["support"]["stage"] for c in cited)
            assert "**Sources**" in answer["reply"] and "conflict" in answer["reply"]
            failed, found = await _call(client, "search_evidence", {"query": QUESTION, "top_k": 5})
            assert not failed and 0 < len(found["evidence"]) <= 5
            policy = next(e for e in found["evidence"] if e["sentence"].startswith("Snapshot exports stay available"))
            failed, checked = await _call(
                client, "verify_answer", {"question": QUESTION, "answer": f"Exports stay available for 14 days [{policy['marker']}]."}
            )
            assert not failed and checked["claims"][0]["status"] == "contradicted"
            failed, shown = await _call(
                client, "show_document", {"document": policy["document"], "start": policy["start"], "end": policy["end"], "around": 50}
            )
            assert not failed and shown["span"]["sentence"] == policy["sentence"] and policy["sentence"] in shown["excerpt"]
            assert shown["version"] == policy["version"]
            failed, message = await _call(client, "show_document", {"document": policy["document"], "start": 5})
            assert failed and "start and end together" in message
            failed, message = await _call(client, "ask", {"question": QUESTION, "as_of": "yesterday"})
            assert failed and "as-of" in message  # bad input: the reason, not a crash
            failed, overview = await _call(client, "ask", {"question": "Who approves exports?", "scope": "global"})
            assert not failed and overview["retrieval"]["communities"] and overview["status"] == "related"
            assert all(c["community"] for claim in overview["claims"] for c in claim["citations"])
            failed, message = await _call(client, "ask", {"question": QUESTION, "scope": "everywhere"})
            assert failed and "scope" in message
            # a follow-up, read from the turn before it, and said so
            turn = {"question": QUESTION, "answer": "Exports stay available for 30 days."}
            failed, follow = await _call(client, "ask", {"question": "Who approves them?", "conversation": [turn]})
            assert not failed and follow["question"] == "Who approves exports?"
            assert any(w["code"] == "follow_up" and "'them' as 'exports'" in w["message"] for w in follow["warnings"])

    anyio.run(main)


def test_mcp_a_public_caller_never_receives_staff_text(store) -> None:  # type: ignore[no-untyped-def]
    _db, graph = store

    async def main() -> tuple[str, str]:
        async with Client(build_server(graph)) as public:
            as_public = await _everything(public)
        async with Client(build_server(graph, labels=("staff",))) as staff:
            as_staff = await _everything(staff)
        return as_public, as_staff

    as_public, as_staff = anyio.run(main)
    assert not any(word in as_public for word in ("412 million", "Zephyrion", "14 March"))  # (an error may echo the id asked for)
    assert "412 million" in as_staff and "merger.md" in as_staff  # the same tools do reach it with the label


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cli(db: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "citegraph.cli",
        *args,
        "--db",
        str(db),
        "--embedder",
        "hashing",
        "--generator",
        "extractive",
        "--verifier",
        "guards",
    ]


def test_mcp_over_stdio_reads_with_the_token_it_was_started_with(store) -> None:  # type: ignore[no-untyped-def]
    db, _graph = store
    staff = TokenStore(db).add("hr", ("staff",))
    env = {k: v for k, v in os.environ.items() if k != "CITEGRAPH_TOKEN"}

    async def main() -> tuple[str, str]:
        command, *args = _cli(db, "mcp")
        async with Client(StdioServerParameters(command=command, args=args, env=env)) as public:
            as_public = await _everything(public)
        async with Client(StdioServerParameters(command=command, args=args, env={**env, "CITEGRAPH_TOKEN": staff})) as hr:
            as_staff = await _everything(hr)
        return as_public, as_staff

    as_public, as_staff = anyio.run(main)
    assert "412 million" not in as_public and "412 million" in as_staff


@contextlib.contextmanager
def _running(command: list[str], ready: str, log: Path) -> Iterator[None]:
    """``command`` running until the block ends, once ``ready`` answers (its log in a file: a full pipe would block it)."""
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=out)
        try:
            deadline = time.monotonic() + 120
            while True:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"{' '.join(command[2:4])} did not start: {log.read_text(errors='replace')[-2000:]}")
                try:
                    httpx.get(ready, timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.3)
            yield
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.fixture
def mcp_http(store, tmp_path: Path) -> Iterator[tuple[str, Path]]:  # type: ignore[no-untyped-def]
    db, _graph = store
    port = _free_port()
    with _running(_cli(db, "mcp", "--http", "--port", str(port)), f"http://127.0.0.1:{port}/", tmp_path / "mcp.log"):
        yield f"http://127.0.0.1:{port}/mcp", db


def test_mcp_over_http_is_behind_the_api_tokens(mcp_http) -> None:  # type: ignore[no-untyped-def]
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    url, db = mcp_http
    staff = TokenStore(db).add("hr", ("staff",))

    async def main() -> tuple[str, str]:
        async with Client(url) as public:
            as_public = await _everything(public)
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {staff}"}) as http,
            Client(streamable_http_client(url, http_client=http)) as hr,
        ):
            as_staff = await _everything(hr)
        return as_public, as_staff

    as_public, as_staff = anyio.run(main)
    assert "412 million" not in as_public and "412 million" in as_staff
    refused = httpx.post(url, headers={"Authorization": "Bearer not-a-token"}, json={})
    assert refused.status_code == 401 and "unknown or revoked token" in refused.json()["error"]["message"]


# -- the OpenAI-compatible endpoint --------------------------------------------------------------------
@pytest.fixture
def api(store, tmp_path: Path) -> Iterator[tuple[str, Path]]:  # type: ignore[no-untyped-def]
    db, _graph = store
    port = _free_port()
    with _running(_cli(db, "serve", "--port", str(port)), f"http://127.0.0.1:{port}/health", tmp_path / "serve.log"):
        yield f"http://127.0.0.1:{port}", db


def test_openai_client_gets_a_checked_answer_with_its_sources(api) -> None:  # type: ignore[no-untyped-def]
    import openai

    base, db = api
    with openai.OpenAI(base_url=f"{base}/v1", api_key="public") as client:
        _chat_checks(client, base, db)


def _chat_checks(client: Any, base: str, db: Path) -> None:
    import openai

    assert [m.id for m in client.models.list().data] == ["citegraph"]
    reply = client.chat.completions.create(
        model="citegraph", messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}]
    )
    text = reply.choices[0].message.content or ""
    data = reply.model_extra["citegraph"] if reply.model_extra else {}
    assert data["status"] == "conflicting" and data["claims"]  # the whole citegraph object rides along
    assert "(`conflicting`)" in text and "**Sources**" in text and "(`conflict`)" in text
    # the reply numbers its sources 1..n in the order it cites them, each a line of the numbered list
    cited = list(dict.fromkeys(c["marker"] for claim in data["claims"] for c in claim["citations"]))
    for claim in data["claims"]:
        for c in claim["citations"]:
            assert f"\n{cited.index(c['marker']) + 1}. {escape(c['document'])}," in text and escape(c["sentence"]) in text
    # a conversation: the earlier messages are the turns the last question is read from (never evidence)
    history = [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": text}]
    follow = client.chat.completions.create(model="citegraph", messages=[*history, {"role": "user", "content": "Who approves them?"}])
    followed = follow.model_extra["citegraph"] if follow.model_extra else {}
    assert followed["question"] == "Who approves exports?" and "follow_up" in [w["code"] for w in followed["warnings"]]
    assert all(c["document"] for claim in followed["claims"] for c in claim["citations"])  # cited to documents only
    # streaming: the same checked reply in pieces, the citegraph object in the last chunk
    pieces, last = [], None
    for chunk in client.chat.completions.create(model="citegraph", messages=[{"role": "user", "content": QUESTION}], stream=True):
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
        last = chunk
    assert "".join(pieces) == text and last is not None and last.choices[0].finish_reason == "stop"
    assert last.model_extra and last.model_extra["citegraph"]["status"] == "conflicting"
    # access: the public key never reads staff text; a staff token does; a bad one is refused
    secret_question = [{"role": "user", "content": "When does the merger close and at what price?"}]
    public = client.chat.completions.create(model="citegraph", messages=secret_question)
    assert "412 million" not in json.dumps(public.model_dump())
    staff = TokenStore(db).add("hr", ("staff",))
    with openai.OpenAI(base_url=f"{base}/v1", api_key=staff) as hr:
        as_staff = hr.chat.completions.create(model="citegraph", messages=secret_question)
    assert "412 million" in (as_staff.choices[0].message.content or "")
    with openai.OpenAI(base_url=f"{base}/v1", api_key="not-a-token") as stranger, pytest.raises(openai.AuthenticationError):
        stranger.models.list()
    with pytest.raises(openai.NotFoundError, match="citegraph"):
        client.chat.completions.create(model="gpt-4o", messages=secret_question)
