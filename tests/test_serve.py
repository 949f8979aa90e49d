"""citegraph serve (issue 11, first part): the HTTP API over one graph, bearer tokens, one error shape."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from citegraph.cli import main
from citegraph.embed import HashingEmbedder
from citegraph.errors import UserError
from citegraph.output import answer_json
from citegraph.pipeline import CiteGraph
from citegraph.serve.app import create_app
from citegraph.serve.tokens import TokenStore
from citegraph.store import SQLiteStore
from citegraph.verify.cascade import CheckingVerifier

QUESTION = "How long do exports stay available after cancellation?"
SECRET = "The Zephyrion merger closes on 14 March with a price of 412 million."


@pytest.fixture
def served(tmp_path: Path, splitter, larkspur: Path, write) -> Iterator[tuple[TestClient, CiteGraph, TokenStore]]:  # type: ignore[no-untyped-def]
    db = tmp_path / "serve.db"
    graph = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    graph.ingest([larkspur], access=["public"])
    graph.ingest([write("merger.md", SECRET)], access=["staff"])
    tokens = TokenStore(db)
    with TestClient(create_app(graph, tokens)) as client:
        # the server parses the store's sentences ahead in a thread that reads ``graph`` under the
        # server's lock; a test that calls ``graph`` itself, outside that lock, waits for it first
        # (one SQLite connection serves one transaction at a time)
        for thread in threading.enumerate():
            if thread.name == "parse-ahead":
                thread.join()
        yield client, graph, tokens
    graph.close()


def _error(response, status: int, kind: str) -> str:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.text
    body = response.json()
    assert body["ok"] is False and body["error"]["type"] == kind and body["error"]["message"]
    return str(body["error"]["message"])


def test_ask_over_http_is_the_cli_json(served) -> None:  # type: ignore[no-untyped-def]
    client, graph, _tokens = served
    assert client.get("/health").json()["ok"] is True
    over_http = client.post("/ask", json={"question": QUESTION}).json()
    in_process = json.loads(json.dumps(answer_json(graph.ask(QUESTION, labels=["public"]))))
    assert over_http == in_process
    assert over_http["status"] == "conflicting" and over_http["claims"]  # the stale FAQ beside the policy
    # a follow-up: read from the turn before it, and said so
    turn = {"question": QUESTION, "answer": over_http["answer"]}
    follow = client.post("/ask", json={"question": "Who approves them?", "conversation": [turn]}).json()
    assert follow["question"] == "Who approves exports?" and follow["warnings"][0]["code"] == "follow_up"


def test_verify_checks_an_answer_written_elsewhere(served) -> None:  # type: ignore[no-untyped-def]
    client, graph, _tokens = served
    context = {c.span.text: c.marker for c in graph.ask(QUESTION, labels=["public"]).context}
    marker = context["Snapshot exports stay available for 30 days after cancellation."]
    checked = client.post("/verify", json={"question": QUESTION, "answer_text": f"Exports stay available for 14 days [{marker}]."}).json()
    assert checked["claims"][0]["status"] == "contradicted"
    assert checked["models"]["generator"] == "answer-file"


def test_a_token_reads_with_its_labels_and_no_token_reads_as_public(served) -> None:  # type: ignore[no-untyped-def]
    client, _graph, tokens = served
    staff = tokens.add("hr", ("staff",))
    as_staff = {"Authorization": f"Bearer {staff}"}
    question = {"question": "When does the Zephyrion merger close?"}
    assert "412 million" not in client.post("/ask", json=question).text
    assert "412 million" in client.post("/ask", json=question, headers=as_staff).text
    overview = {"question": "What are the main topics of these documents?", "scope": "global"}
    assert "412 million" not in client.post("/ask", json=overview).text  # no community, no point, from a document it cannot read
    assert client.post("/ask", json=overview).json()["retrieval"]["communities"]
    for path in ("/documents", "/documents/merger.md", "/relations", "/traverse?entity=Zephyrion%20merger", "/entities/Zephyrion%20merger"):
        public = client.get(path)  # an error may echo the name asked for, never the private text
        assert "412 million" not in public.text and "14 March" not in public.text and "merger closes" not in public.text, path
    assert [d["id"] for d in client.get("/documents", headers=as_staff).json()] == ["merger.md"]
    assert client.get("/documents/merger.md", headers=as_staff).json()["text"] == SECRET
    _error(client.get("/documents/merger.md"), 404, "not_found")  # public: as if it did not exist

    tokens.revoke("hr")
    assert "revoked" in _error(client.get("/documents", headers=as_staff), 401, "unauthorised")
    assert "Bearer" in _error(client.get("/documents", headers={"Authorization": "Basic abc"}), 401, "unauthorised")


def test_every_read_endpoint_answers_in_the_cli_shapes(served) -> None:  # type: ignore[no-untyped-def]
    client, _graph, _tokens = served
    docs = client.get("/documents").json()
    assert {d["id"] for d in docs} == {"billing.md", "exports.md", "faq-2023.md", "retention-policy.md", "snapshots.md"}
    doc = client.get("/documents/retention-policy.md").json()
    assert doc["current"] is True and "30 days after cancellation" in doc["text"] and doc["versions"][0]["version"] == doc["version"]
    assert client.get("/documents/retention-policy.md/history").json()[0]["id"] == "retention-policy.md"
    entity = client.get("/entities/Export").json()
    for m in entity["mentions"]:
        assert doc["text"][m["start"] : m["end"]] == m["sentence"] or m["document"] != "retention-policy.md"
    both = client.get("/relations", params=[("between", "Export"), ("between", "Cancellation")]).json()
    assert both and all({r["source"], r["target"]} == {"export", "cancellation"} for r in both)
    reached = client.get("/traverse", params={"entity": "Export", "hops": 1}).json()
    assert reached["hops"] == 1 and reached["nodes"]


def test_errors_have_one_shape_and_the_right_status(served) -> None:  # type: ignore[no-untyped-def]
    client, _graph, _tokens = served
    assert "did you mean" in _error(client.get("/entities/Exportz"), 404, "not_found")
    assert "question" in _error(client.post("/ask", json={}), 422, "invalid_request")
    _error(client.post("/ask", json={"question": "x", "hops": 99}), 422, "invalid_request")
    _error(client.post("/ask", json={"question": "x", "scope": "everywhere"}), 422, "invalid_request")
    assert "between" in _error(client.get("/relations", params=[("between", "a"), ("between", "b"), ("between", "c")]), 400, "bad_input")
    _error(client.get("/documents/nope.md"), 404, "not_found")


def test_tokens_from_the_cli_are_shown_once_and_stored_as_hashes(tmp_path: Path, larkspur: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEGRAPH_DB", str(tmp_path / "t.db"))
    monkeypatch.setenv("CITEGRAPH_EMBEDDER", "hashing")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(larkspur), "--quiet"]).exit_code == 0
    added = runner.invoke(main, ["token", "add", "support", "--labels", "staff,public"])
    assert added.exit_code == 0, added.output
    token = added.stdout.strip()
    assert len(token) >= 40 and token.encode() not in (tmp_path / "t.db").read_bytes()
    assert TokenStore(tmp_path / "t.db").labels(token) == ("staff", "public")
    listed = json.loads(runner.invoke(main, ["token", "list", "--json"]).stdout)
    assert listed == [{"name": "support", "labels": ["staff", "public"], "created_at": listed[0]["created_at"], "revoked_at": None}]
    assert runner.invoke(main, ["token", "add", "support", "--labels", "x"]).exit_code == 1  # the name is taken
    assert runner.invoke(main, ["token", "revoke", "support"]).exit_code == 0
    assert TokenStore(tmp_path / "t.db").labels(token) is None
    assert runner.invoke(main, ["token", "revoke", "support"]).exit_code == 1  # no active token by that name


def test_serve_refuses_a_public_address_without_any_token(tmp_path: Path, larkspur: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEGRAPH_DB", str(tmp_path / "s.db"))
    monkeypatch.setenv("CITEGRAPH_EMBEDDER", "hashing")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(larkspur), "--quiet"]).exit_code == 0
    refused = runner.invoke(main, ["serve", "--host", "0.0.0.0"])
    assert refused.exit_code == 1 and "refusing to listen on 0.0.0.0 with no access token" in refused.output


def _wait(client: TestClient, job: str, headers: dict[str, str]) -> dict:  # type: ignore[type-arg]
    import time

    for _ in range(600):  # bounded: 60 s
        state = client.get(f"/jobs/{job}", headers=headers).json()
        if state["state"] in {"done", "failed"}:
            return state  # type: ignore[no-any-return]
        time.sleep(0.1)
    raise AssertionError(f"job {job} did not finish: {state}")


def test_upload_ingests_in_the_background_with_progress_and_labels_within_the_token(served) -> None:  # type: ignore[no-untyped-def]
    import base64

    client, _graph, tokens = served
    staff = {"Authorization": f"Bearer {tokens.add('staff-writer', ('staff',))}"}
    other = {"Authorization": f"Bearer {tokens.add('other', ('staff',))}"}
    note = {"name": "plan.md", "text": "The Orion plan ships on 2 May. It needs three reviewers."}
    assert "token" in _error(client.post("/documents", json={"documents": [note]}), 401, "unauthorised")
    assert "cannot label documents hr" in _error(
        client.post("/documents", json={"documents": [note], "access": ["hr"]}, headers=staff), 403, "forbidden"
    )
    _error(client.post("/documents", json={"documents": [{"name": "x.md"}]}, headers=staff), 400, "bad_input")
    _error(client.post("/documents", json={"documents": [{"name": "x.md", "content_base64": "%%%"}]}, headers=staff), 400, "bad_input")

    accepted = client.post(
        "/documents",
        json={"documents": [note, {"name": "b.txt", "content_base64": base64.b64encode(b"Reviewers sign off in Orion.").decode()}]},
        headers=staff,
    )
    assert accepted.status_code == 202 and accepted.json()["access"] == ["staff"]
    job = accepted.json()["job"]
    _error(client.get(f"/jobs/{job}", headers=other), 404, "not_found")  # another token's job
    finished = _wait(client, job, staff)
    assert finished["state"] == "done" and finished["done"] == finished["total"] == 2
    assert {d["id"]: d["status"] for d in finished["report"]["documents"]} == {"plan.md": "ok", "b.txt": "ok"}
    assert {"plan.md", "b.txt"} <= {d["id"] for d in client.get("/documents", headers=staff).json()}
    assert "plan.md" not in client.get("/documents").text  # public does not see a staff upload
    assert "2 May" in client.post("/ask", json={"question": "When does the Orion plan ship?"}, headers=staff).text


def test_an_upload_over_the_size_limit_is_refused_whole(tmp_path: Path, splitter) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "small.db"
    graph = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter)
    tokens = TokenStore(db)
    headers = {"Authorization": f"Bearer {tokens.add('w', ('public',))}"}
    with TestClient(create_app(graph, tokens, max_file_bytes=100)) as client:
        big = {"documents": [{"name": "ok.md", "text": "Small."}, {"name": "big.md", "text": "word " * 100}]}
        assert "big.md" in _error(client.post("/documents", json=big, headers=headers), 413, "too_large")
        assert client.get("/documents").json() == []  # nothing of the upload was ingested
    graph.close()


def test_delete_needs_a_token_holding_every_label_of_the_document(served, write) -> None:  # type: ignore[no-untyped-def]
    client, graph, tokens = served
    graph.ingest([write("joint.md", "The joint budget is shared by staff and hr.")], access=["staff", "hr"])
    staff = {"Authorization": f"Bearer {tokens.add('staff-only', ('staff',))}"}
    both = {"Authorization": f"Bearer {tokens.add('both', ('staff', 'hr'))}"}
    _error(client.delete("/documents/merger.md"), 401, "unauthorised")
    _error(client.delete("/documents/billing.md", headers=staff), 404, "not_found")  # public doc, but this token cannot read it
    assert "labels this caller does not hold" in _error(client.delete("/documents/joint.md", headers=staff), 403, "forbidden")
    removed = client.delete("/documents/merger.md", headers=staff).json()
    assert removed[0]["doc_id"] == "merger.md"
    _error(client.get("/documents/merger.md", headers=staff), 404, "not_found")
    assert client.delete("/documents/joint.md", headers=both).status_code == 200


def test_readers_keep_answering_while_an_upload_is_written(tmp_path: Path, splitter, larkspur: Path) -> None:  # type: ignore[no-untyped-def]
    """The writer graph has its own connection: a read during the write sees the last committed state,
    and the first read after it sees the new document (the view follows the store's change token)."""
    import threading

    db = tmp_path / "rw.db"
    reader = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    reader.ingest([larkspur])
    writer = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter)
    entered, release = threading.Event(), threading.Event()
    ingest = writer.ingest

    def held_ingest(*args, **kwargs):  # type: ignore[no-untyped-def]
        entered.set()
        assert release.wait(30), "the test never released the write"
        return ingest(*args, **kwargs)

    writer.ingest = held_ingest  # type: ignore[method-assign]
    tokens = TokenStore(db)
    headers = {"Authorization": f"Bearer {tokens.add('w', ('public',))}"}
    with TestClient(create_app(reader, tokens, writer=writer)) as client:
        job = client.post("/documents", json={"documents": [{"name": "new.md", "text": "Orion ships on 2 May."}]}, headers=headers).json()[
            "job"
        ]
        assert entered.wait(30)
        during = client.post("/ask", json={"question": QUESTION})  # answered while the writer holds its lock
        assert during.status_code == 200 and during.json()["claims"]
        assert "new.md" not in client.get("/documents").text
        release.set()
        assert _wait(client, job, headers)["state"] == "done"
        assert "new.md" in {d["id"] for d in client.get("/documents").json()}
        assert "2 May" in client.post("/ask", json={"question": "When does Orion ship?"}).text
    reader.close()
    writer.close()


def test_the_page_and_its_files_are_served_and_a_citation_opens_at_its_version(served) -> None:  # type: ignore[no-untyped-def]
    client, _graph, _tokens = served
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script src="/static/app.js">' in page.text and 'id="claims"' in page.text
    script = client.get("/static/app.js").text
    assert "textContent" in script and "innerHTML" not in script  # document text is never put in as HTML
    assert client.get("/static/app.css").status_code == 200

    citation = client.post("/ask", json={"question": QUESTION}).json()["claims"][0]["citations"][0]
    doc = client.get(f"/documents/{citation['document']}", params={"version": citation["version"]}).json()
    assert doc["version"] == citation["version"]
    assert doc["text"][citation["start"] : citation["end"]] == citation["sentence"]  # what the page highlights
    assert "did you mean" in _error(client.get(f"/documents/{citation['document']}", params={"version": "0" * 16}), 404, "not_found")


def test_graph_and_models_endpoints(served) -> None:  # type: ignore[no-untyped-def]
    client, _graph, tokens = served
    around = client.get("/graph", params={"entity": "Export", "hops": 1}).json()
    assert around["reached"] >= len(around["nodes"]) > 1
    names = {n["entity"] for n in around["nodes"]}
    doc = client.get(f"/documents/{around['edges'][0]['span']['document']}").json()
    for edge in around["edges"]:
        assert {edge["source"], edge["target"]} <= names or edge["source"] in names
        if edge["span"]["document"] == doc["id"]:
            assert doc["text"][edge["span"]["start"] : edge["span"]["end"]] == edge["span"]["sentence"]
    asked = client.get("/graph", params={"question": QUESTION, "limit": 3}).json()
    assert len(asked["nodes"]) <= 3 and asked["reached"] >= len(asked["nodes"])
    _error(client.get("/graph"), 400, "bad_input")
    staff = {"Authorization": f"Bearer {tokens.add('g', ('staff',))}"}
    _error(client.get("/graph", params={"entity": "Zephyrion merger"}), 404, "not_found")  # public: no such entity
    private = client.get("/graph", params={"entity": "Zephyrion merger"}, headers=staff).json()
    assert private["nodes"][0]["entity"] == "zephyrion merger"
    models = client.get("/models").json()
    assert models["in_use"]["verifier"] == "guards+quote"
    qwen = next(m for m in models["known"] if m["name"] == "qwen2.5-coder-1.5b")
    assert qwen["calibrated"] is True


def test_an_upload_job_is_seen_by_every_worker_of_the_store(tmp_path: Path, splitter, larkspur: Path) -> None:  # type: ignore[no-untyped-def]
    """``serve --workers N`` runs N apps over one store file: a job accepted by one worker is reported
    by another (jobs live in the store, not in a process's memory)."""
    db = tmp_path / "workers.db"
    first = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter)
    first.ingest([larkspur])
    second = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter)
    tokens = TokenStore(db)
    headers = {"Authorization": f"Bearer {tokens.add('w', ('public',))}"}
    with TestClient(create_app(first, tokens)) as one, TestClient(create_app(second, TokenStore(db))) as two:
        job = one.post("/documents", json={"documents": [{"name": "n.md", "text": "Orion ships on 2 May."}]}, headers=headers).json()["job"]
        finished = _wait(two, job, headers)
        assert finished["state"] == "done" and finished["report"]["documents"][0]["id"] == "n.md"
        assert "n.md" in {d["id"] for d in two.get("/documents").json()}
        _error(two.get(f"/jobs/{job}", headers={"Authorization": f"Bearer {tokens.add('x', ('public',))}"}), 404, "not_found")
    first.close()
    second.close()


def test_a_job_whose_server_process_is_gone_reads_as_failed_and_old_jobs_are_forgotten(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    from citegraph.serve import jobs as jobs_module
    from citegraph.serve.jobs import JobStore

    SQLiteStore(tmp_path / "j.db").close()
    jobs = JobStore(tmp_path / "j.db")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    orphan = jobs.create("owner", 3)
    orphan.pid, orphan.state, orphan.done = int(gone.stdout), "running", 1
    with jobs._connect() as db:
        db.execute("UPDATE upload_jobs SET pid = ? WHERE id = ?", (orphan.pid, orphan.id))
    jobs.save(orphan)
    seen = jobs.get(orphan.id, "owner")
    assert seen is not None and seen.state == "failed" and f"pid {orphan.pid}" in seen.error and seen.done == 1
    assert jobs.get(orphan.id, "someone else") is None

    live = jobs.create("owner", 1)
    assert jobs.get(live.id, "owner").state == "queued"  # type: ignore[union-attr]  # this process is alive

    monkeypatch.setattr(jobs_module, "MAX_JOBS_KEPT", 2)
    finished = []
    for _ in range(3):
        job = jobs.create("owner", 1)
        job.state = "done"
        jobs.save(job)
        finished.append(job.id)
    jobs.create("owner", 1)  # creating forgets the oldest finished jobs beyond the limit
    kept = [j for j in [orphan.id, *finished] if jobs.get(j, "owner") is not None]
    assert kept == finished[1:]
    assert jobs.get(live.id, "owner") is not None  # an unfinished job is never forgotten


def test_serve_with_two_workers_answers_and_reports_jobs_from_either(tmp_path: Path, larkspur: Path) -> None:
    """The real command: two uvicorn worker processes over one store, stopped by SIGINT."""
    import signal
    import socket
    import subprocess
    import sys
    import time

    import httpx

    db = tmp_path / "two.db"
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(larkspur), "--db", str(db), "--embedder", "hashing"]).exit_code == 0
    token = runner.invoke(main, ["token", "add", "w", "--labels", "public", "--db", str(db)]).stdout.strip().splitlines()[-1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from citegraph.cli import main; main()",
            "serve",
            "--db",
            str(db),
            "--embedder",
            "hashing",
            "--port",
            str(port),
            "--workers",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.3)
        headers = {"Authorization": f"Bearer {token}"}
        job = httpx.post(
            f"{base}/documents", json={"documents": [{"name": "n.md", "text": "Orion ships on 2 May."}]}, headers=headers
        ).json()
        states = []
        while time.monotonic() < deadline:
            # a new connection each time: either worker may answer, and each must know the job
            state = httpx.get(f"{base}/jobs/{job['job']}", headers=headers, timeout=10)
            assert state.status_code == 200, state.text
            states.append(state.json()["state"])
            if states[-1] == "done":
                break
            time.sleep(0.2)
        assert states[-1] == "done"
        for _ in range(4):
            assert httpx.post(f"{base}/ask", json={"question": "When does Orion ship?"}, timeout=30).json()["claims"]
    finally:
        server.send_signal(signal.SIGINT)
        log = server.communicate(timeout=60)[0]
    assert server.returncode == 0, log
    assert log.count("Started server process") >= 2, log  # two worker processes served


def test_a_request_body_over_the_limit_is_refused_before_it_is_read(tmp_path: Path, splitter) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "limit.db"
    graph = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter)
    tokens = TokenStore(db)
    headers = {"Authorization": f"Bearer {tokens.add('w', ('public',))}", "content-type": "application/json"}
    body = json.dumps({"documents": [{"name": "a.md", "text": "word " * 400}]}).encode()
    with TestClient(create_app(graph, tokens, max_request_bytes=1000)) as client:
        assert "max-request-mb" in _error(client.post("/documents", content=body, headers=headers), 413, "too_large")

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            for i in range(0, len(body), 256):
                yield body[i : i + 256]

        assert "max-request-mb" in _error(client.post("/documents", content=chunks(), headers=headers), 413, "too_large")
        assert client.get("/documents").json() == []
        small = client.post("/documents", json={"documents": [{"name": "b.md", "text": "Small."}]}, headers=headers)
        assert small.status_code == 202
        assert _wait(client, small.json()["job"], headers)["state"] == "done"
        # Starlette's own errors (no route, wrong method) have the same shape
        _error(client.get("/no/such/path"), 404, "not_found")
        _error(client.put("/ask"), 405, "method_not_allowed")
    graph.close()


def test_the_server_runs_on_a_postgres_store(postgres_cluster, splitter, larkspur: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Tokens and upload jobs live in the PostgreSQL store's own tables; reads keep the label filter."""
    import psycopg

    from citegraph.store import open_store

    url = postgres_cluster.create_database()
    try:
        graph = CiteGraph(open_store(url), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
        graph.ingest([larkspur], access=["public"])
        tokens = TokenStore(url)
        staff = {"Authorization": f"Bearer {tokens.add('staff', ('staff',))}"}
        with pytest.raises(UserError, match="exists"):
            tokens.add("staff", ("staff",))
        with TestClient(create_app(graph, tokens)) as client:
            job = client.post("/documents", json={"documents": [{"name": "merger.md", "text": SECRET}]}, headers=staff).json()["job"]
            assert _wait(client, job, staff)["state"] == "done"
            assert "412 million" in client.post("/ask", json={"question": "When does the Zephyrion merger close?"}, headers=staff).text
            assert "412 million" not in client.post("/ask", json={"question": "When does the Zephyrion merger close?"}).text
            _error(client.get("/documents/merger.md"), 404, "not_found")
            # every request reads its token; on PostgreSQL the connection is lent by the process's pool
            made = []
            connect = psycopg.Connection.connect.__func__  # type: ignore[attr-defined]
            counted = classmethod(lambda cls, *a, **k: made.append(1) or connect(cls, *a, **k))
            monkeypatch.setattr(psycopg.Connection, "connect", counted)  # how a pool connects
            monkeypatch.setattr(psycopg, "connect", lambda *a, **k: made.append(1) or connect(psycopg.Connection, *a, **k))
            for _ in range(20):
                assert client.get("/documents", headers=staff).status_code == 200
            assert len(made) <= 1  # twenty requests: the pooled connection again (one more at most, if it was busy)
            tokens.revoke("staff")
            _error(client.get("/documents", headers=staff), 401, "unauthorised")
        graph.close()
    finally:
        postgres_cluster.drop_database(url)


def test_a_pooled_table_names_a_database_that_went_away(postgres_cluster) -> None:  # type: ignore[no-untyped-def]
    """No connection from the pool within its wait: one direct try names the cause, as the store's errors do."""
    from citegraph.serve.tables import Tables
    from citegraph.store import open_store

    url = postgres_cluster.create_database()
    open_store(url).close()  # a citegraph store: its schema
    tables = Tables(url)
    with tables.connect() as db:
        assert db.execute("SELECT 1").fetchone()[0] == 1
    postgres_cluster.drop_database(url)
    with pytest.raises(UserError, match="does not exist; create it"), tables.connect():
        pass


def _events(text: str) -> list[tuple[str, object]]:
    out = []
    for block in text.strip().split("\n\n"):
        kind = block.split("\n", 1)[0].removeprefix("event: ")
        out.append((kind, json.loads(block.split("data: ", 1)[1])))
    return out


def test_ask_stream_sends_the_answer_as_it_takes_shape(served) -> None:  # type: ignore[no-untyped-def]
    client, _graph, _tokens = served
    response = client.post("/ask/stream", json={"question": QUESTION})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = _events(response.text)
    kinds = [k for k, _ in events]
    assert kinds[:2] == ["stage", "context"] and kinds[-1] == "done"
    assert kinds.index("draft") < kinds.index("claim") < kinds.index("done")
    stages = [d for k, d in events if k == "stage"]
    assert stages == ["retrieving", "answering", "checking", "comparing"]
    final = events[-1][1]
    assert final == client.post("/ask", json={"question": QUESTION}).json()  # the stream ends with /ask's object
    streamed = [d for k, d in events if k == "claim"]
    assert [c["index"] for c in streamed] == list(range(len(final["claims"])))  # type: ignore[index]
    for c in streamed:  # each claim arrives checked: the verdict streamed is the final one, less the stale marks
        assert c["claim"]["status"] == final["claims"][c["index"]]["status"]  # type: ignore[index]
    assert [c["sentence"] for c in events[1][1]] == [c["sentence"] for c in final["context"]]  # type: ignore[union-attr,index]
    failed = _events(client.post("/ask/stream", json={"question": QUESTION, "as_of": "soon"}).text)
    assert failed[-1][0] == "error" and failed[-1][1]["type"] == "bad_input" and "as-of" in failed[-1][1]["message"]  # type: ignore[index]


def test_the_page_reads_the_status_words_from_the_one_vocabulary(served) -> None:  # type: ignore[no-untyped-def]
    """Every answer status and claim verdict has a label, a tone and a meaning in one table, which the
    Markdown, the terminal and the page (through GET /vocabulary, not a copy in app.js) all use; only
    the checked statuses read as good."""
    import citegraph
    from citegraph import output
    from citegraph.cli import views
    from citegraph.models import ANSWER_TERMS, CLAIM_TERMS, AnswerStatus, ClaimStatus, Verdict

    client, _, _ = served
    assert set(ANSWER_TERMS) == set(AnswerStatus)
    assert {s.value for s in ClaimStatus} | {v.value for v in Verdict} <= set(CLAIM_TERMS)
    assert {s for s, t in ANSWER_TERMS.items() if t.tone == "good"} == {AnswerStatus.VERIFIED, AnswerStatus.QUOTED}
    vocabulary = client.get("/vocabulary").json()
    assert vocabulary["answer"]["not_found"]["label"] == "Not in your documents"
    assert vocabulary["answer"]["related"]["tone"] == "muted"
    assert set(vocabulary["claim"]) == set(CLAIM_TERMS)
    for status in AnswerStatus:  # every status is styled in the terminal (conflicting once printed plain)
        assert views._STATUS_STYLE[status.value]
        assert output.STATUS_WORDS[status.value] == ANSWER_TERMS[status].means
    page = (Path(citegraph.__file__).parent / "serve" / "static" / "app.js").read_text(encoding="utf-8")
    assert "/vocabulary" in page and ANSWER_TERMS[AnswerStatus.QUOTED].means not in page and "Partly supported" not in page


def test_the_server_parses_a_small_stores_sentences_ahead_of_the_questions(served) -> None:  # type: ignore[no-untyped-def]
    import threading

    from citegraph import sentences

    _client, graph, _tokens = served
    for thread in threading.enumerate():
        if thread.name == "parse-ahead":
            thread.join(120)
    from citegraph.answer.extractive import claim_forms

    texts, leads = graph.texts_to_parse()
    assert SECRET in texts and leads  # every label's sentences (a parse is only ever given for a text being read)
    assert all((t, True) in sentences._ahead for t in [*texts, *claim_forms(texts)])  # and what their quotes' checks parse
    assert all((t, False) in sentences._ahead or (t, True) in sentences._ahead for t in leads)
    assert graph.texts_to_parse(at_most=len(texts) - 1) == ([], [])  # a larger store: parsed as asked
