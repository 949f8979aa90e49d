"""The HTTP API against a hostile or unlucky caller: a huge question, a huge body, an upload while
another process writes, names no file system takes. Each test reproduces a break a re-probe found."""

from __future__ import annotations

import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from citegraph.embed import HashingEmbedder
from citegraph.pipeline import CiteGraph
from citegraph.serve.app import create_app
from citegraph.serve.tokens import TokenStore
from citegraph.store import SQLiteStore


@pytest.fixture
def upload_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's temporary folder for this test alone, to see what an upload leaves there."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def app(tmp_path: Path, splitter, larkspur: Path) -> Iterator[tuple[TestClient, str, str]]:  # type: ignore[no-untyped-def]
    """A server over a SQLite store whose writes wait at most 0.3 s for the lock; a staff token."""
    db = str(tmp_path / "serve.db")
    graph = CiteGraph(SQLiteStore(db, lock_timeout=0.3), HashingEmbedder(), splitter=splitter)
    graph.ingest([larkspur], access=["public"])
    writer = CiteGraph(SQLiteStore(db, lock_timeout=0.3), HashingEmbedder(), splitter=splitter)
    tokens = TokenStore(db, lock_timeout=0.3)
    token = tokens.add("staff", ("staff", "public"))
    with TestClient(create_app(graph, tokens, writer=writer)) as client:
        yield client, token, db
    writer.close()
    graph.close()


def _wait(client: TestClient, job: str, token: str) -> dict:  # type: ignore[type-arg]
    for _ in range(600):
        state = client.get(f"/jobs/{job}", headers={"Authorization": f"Bearer {token}"}).json()
        if state["state"] in ("done", "failed"):
            return state  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError(f"job {job} did not end")


def test_a_question_over_the_limit_is_refused_with_422_naming_it(app) -> None:  # type: ignore[no-untyped-def]
    client, _token, _db = app
    for path, extra in (("/ask", {}), ("/verify", {"answer_text": "Exports last 30 days [1]."})):
        response = client.post(path, json={"question": "x" * 2001, **extra})
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["type"] == "too_long" and "2,001 characters" in error["message"] and "max-question-chars" in error["message"]
    assert client.post("/ask", json={"question": "How long do exports stay available? " * 50}).status_code == 200  # 1,850 characters


@pytest.mark.slow
def test_a_query_body_has_a_cap_of_kilobytes_and_an_upload_keeps_megabytes(app) -> None:  # type: ignore[no-untyped-def]
    client, token, _db = app
    huge = client.post("/ask", json={"question": "q", "answer_text": "word " * 100_000})  # 500 KB, over max-query-kb 256
    assert huge.status_code == 413 and "max-query-kb" in huge.json()["error"]["message"]
    upload = {"documents": [{"name": "big.md", "text": "Exports stay available for 30 days. " * 10_000}]}  # 360 KB
    accepted = client.post("/documents", json=upload, headers={"Authorization": f"Bearer {token}"})
    assert accepted.status_code == 202, accepted.text
    assert _wait(client, accepted.json()["job"], token)["state"] == "done"


def test_an_upload_while_another_process_writes_is_a_503_and_leaves_no_text_behind(app, upload_tmp: Path) -> None:  # type: ignore[no-untyped-def]
    client, token, db = app
    staff = {"Authorization": f"Bearer {token}"}
    body = {"documents": [{"name": "merger.md", "text": "The Zephyrion merger closes on 14 March."}], "access": ["staff"]}
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # a CLI ingest's transaction, elsewhere
    try:
        busy = client.post("/documents", json=body, headers=staff)
        assert busy.status_code == 503, busy.text
        assert busy.json()["error"]["type"] == "busy" and "write lock" in busy.json()["error"]["message"]
        assert list(upload_tmp.iterdir()) == []
        assert client.get("/documents").status_code == 200  # readers answer meanwhile
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    accepted = client.post("/documents", json=body, headers=staff)
    assert accepted.status_code == 202, accepted.text
    assert _wait(client, accepted.json()["job"], token)["state"] == "done"
    assert list(upload_tmp.iterdir()) == []  # after success too


def test_an_upload_that_fails_in_its_job_leaves_no_text_behind(app, upload_tmp: Path) -> None:  # type: ignore[no-untyped-def]
    client, token, _db = app
    staff = {"Authorization": f"Bearer {token}"}
    # Stored as public by the fixture: an upload asking for staff is refused in the job (an ingest never relabels).
    body = {"documents": [{"name": "billing.md", "text": "Billing ends at once."}], "access": ["staff"]}
    accepted = client.post("/documents", json=body, headers=staff)
    report = _wait(client, accepted.json()["job"], token)
    assert report["state"] == "done" and report["report"]["documents"][0]["status"] == "failed"
    assert list(upload_tmp.iterdir()) == []


def test_upload_names_a_file_system_cannot_take_are_refused_and_dot_files_are_read(app, upload_tmp: Path) -> None:  # type: ignore[no-untyped-def]
    client, token, _db = app
    staff = {"Authorization": f"Bearer {token}"}
    for name in ("bad\x00name.md", "line\nbreak.md", ".."):
        refused = client.post("/documents", json={"documents": [{"name": name, "text": "Text."}]}, headers=staff)
        assert refused.status_code == 400, (name, refused.text)
        assert refused.json()["error"]["type"] == "bad_input" and "file name" in refused.json()["error"]["message"]
    assert list(upload_tmp.iterdir()) == []
    accepted = client.post(
        "/documents", json={"documents": [{"name": ".hidden.txt", "text": "Hidden notes are kept for 7 days."}]}, headers=staff
    )
    report = _wait(client, accepted.json()["job"], token)["report"]
    assert [(d["id"], d["status"]) for d in report["documents"]] == [(".hidden.txt", "ok")]
    twice = {"documents": [{"name": "a.md", "text": "Exports last 30 days."}, {"name": "a.md", "text": "Exports last 9 days."}]}
    report = _wait(client, client.post("/documents", json=twice, headers=staff).json()["job"], token)["report"]
    assert sorted((d["status"], d["reason"]) for d in report["documents"]) == [
        ("failed", "duplicate document id in this ingest"),
        ("ok", ""),
    ]


def test_an_upload_name_over_the_file_name_limit_is_a_400_naming_it_and_the_connection_goes_on(app, upload_tmp: Path) -> None:  # type: ignore[no-untyped-def]
    client, token, _db = app
    staff = {"Authorization": f"Bearer {token}"}
    for name in ("n" * 297 + ".md", "é" * 130 + ".md"):  # 300 bytes; 263 bytes of UTF-8
        refused = client.post("/documents", json={"documents": [{"name": name, "text": "Text."}]}, headers=staff)
        assert refused.status_code == 400, refused.text
        message = refused.json()["error"]["message"]
        assert "255 bytes" in message and "shorter name" in message
        assert client.get("/health").status_code == 200  # the next request on the same connection is answered
    assert list(upload_tmp.iterdir()) == []
    fits = "é" * 125 + ".md"  # 253 bytes
    accepted = client.post("/documents", json={"documents": [{"name": fits, "text": "Exports last 30 days."}]}, headers=staff)
    assert accepted.status_code == 202 and _wait(client, accepted.json()["job"], token)["state"] == "done"


def test_an_uploaded_document_shows_the_name_it_was_sent_as_not_the_servers_path(app) -> None:  # type: ignore[no-untyped-def]
    client, token, _db = app
    staff = {"Authorization": f"Bearer {token}"}
    accepted = client.post(
        "/documents",
        json={"documents": [{"name": "invoices-2026.md", "text": "Invoices are sent on the first day of the month."}]},
        headers=staff,
    )
    report = _wait(client, accepted.json()["job"], token)["report"]
    assert [d["source"] for d in report["documents"]] == ["invoices-2026.md"]
    (listed,) = [d for d in client.get("/documents", headers=staff).json() if d["id"] == "invoices-2026.md"]
    assert listed["source"] == "invoices-2026.md"


def test_a_job_whose_store_is_locked_after_the_202_says_busy_retry_at_once(app, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The lock taken right after the 202: the job ends ``failed`` with the real reason, recorded in
    the job table beside the store, which the store's lock does not hold up; not ``queued`` for a
    minute, then "the server process stopped"."""
    from citegraph.serve.jobs import JobStore

    client, token, db = app
    staff = {"Authorization": f"Bearer {token}"}
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    created = JobStore.create

    def create_then_lock(self, owner: str, total: int):  # type: ignore[no-untyped-def]
        job = created(self, owner, total)
        holder.execute("BEGIN IMMEDIATE")  # another process starts writing right after the 202
        return job

    monkeypatch.setattr(JobStore, "create", create_then_lock)
    try:
        started = time.monotonic()
        accepted = client.post("/documents", json={"documents": [{"name": "late.md", "text": "Late text."}]}, headers=staff)
        assert accepted.status_code == 202, accepted.text
        state = _wait(client, accepted.json()["job"], token)
        assert state["state"] == "failed" and state["error"].startswith("busy, retry") and "write lock" in state["error"]
        assert time.monotonic() - started < 30  # not the 60 s of a dead process
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_after_an_upload_and_a_delete_the_saved_graph_of_a_caller_who_had_one_is_prepared_again(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    import threading

    import citegraph.store.snapshots as snapshots

    monkeypatch.setattr(snapshots, "SAVE_ABOVE", 1)  # every graph is "large"
    client, token, db = app
    staff = {"Authorization": f"Bearer {token}"}
    root = Path(db + ".views")

    def saved() -> list[Path]:
        for thread in threading.enumerate():  # the preparing runs in the background
            if thread.name == "prepare-views":
                thread.join(timeout=60)
        return [p for p in root.iterdir() if (p / "complete").exists()] if root.exists() else []

    assert client.post("/ask", json={"question": "How long do exports stay available?"}).status_code == 200
    (before,) = saved()  # the public caller's graph, saved by its ask
    body = {"documents": [{"name": "exports-faq.md", "text": "Exports can be scheduled every Monday."}], "access": ["public"]}
    accepted = client.post("/documents", json=body, headers=staff)
    assert accepted.status_code == 202 and _wait(client, accepted.json()["job"], token)["state"] == "done"
    (after,) = saved()
    assert after.name != before.name and b"scheduled every Monday" in (after / "span_text.npy").read_bytes()
    assert (after / "derived-community_membership.npy").exists()
    assert client.delete("/documents/exports-faq.md", headers=staff).status_code == 200
    (last,) = saved()
    assert last.name != after.name and b"scheduled every Monday" not in (last / "span_text.npy").read_bytes()
