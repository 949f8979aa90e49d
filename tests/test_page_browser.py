"""The page in a real browser (Debian's chromium driven by Playwright), against a live server.

Skipped where chromium or playwright is not installed (``apt-get install chromium``,
``pip install playwright``); screenshots go to the test's temporary folder."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium")
playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

SECRET = "The Zephyrion merger closes on 14 March with a price of 412 million."


@pytest.fixture
def server(tmp_path: Path, splitter, larkspur: Path, write) -> Iterator[tuple[str, str]]:  # type: ignore[no-untyped-def]
    import uvicorn

    from citegraph.embed import HashingEmbedder
    from citegraph.pipeline import CiteGraph
    from citegraph.serve.app import create_app
    from citegraph.serve.tokens import TokenStore
    from citegraph.store import SQLiteStore
    from citegraph.verify.cascade import CheckingVerifier

    db = tmp_path / "page.db"
    graph = CiteGraph(SQLiteStore(db), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier())
    graph.ingest([larkspur])
    graph.ingest([write("merger.md", SECRET)], access=["staff"])
    tokens = TokenStore(db)
    writer_token = tokens.add("writer", ("public",))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(graph, tokens), host="127.0.0.1", port=port, log_level="warning")
    served = uvicorn.Server(config)
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    for _ in range(200):  # bounded: 20 s
        if served.started:
            break
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}", writer_token
    served.should_exit = True
    thread.join(10)
    graph.close()


def test_ask_click_a_citation_and_see_its_span_highlighted(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base, _token = server
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(base + "/")
        page.fill("#question", "How long do exports stay available after cancellation?")
        page.click("#ask-form button[type=submit]")
        page.wait_for_selector("#claims > li")
        assert page.inner_text("#status") == "conflicting"  # the handbook's 2023 FAQ disagrees with its policy
        assert "stale" in page.inner_text("#warnings")
        statuses = page.locator("#claims > li .badge").all_inner_texts()
        assert statuses and set(statuses) <= {"supported", "not supported", "contradicted", "uncited", "unverified", "invalid marker"}
        link = page.locator(".citation a").first
        sentence = page.locator(".citation").first.inner_text().split("“", 1)[1].split("”", 1)[0]
        link.click()
        page.wait_for_selector("mark#cited")
        assert page.inner_text("mark#cited") == sentence  # the highlight is text[start:end] of that span
        page.screenshot(path=str(tmp_path / "answer.png"), full_page=True)

        # the routes, drawn: an edge opens the sentence that asserts its relation
        page.wait_for_selector("#routes:not([hidden]) #graph canvas")
        edge = page.evaluate("(() => { const e = window.citegraphGraph.edges()[0]; e.emit('tap'); return e.data('span'); })()")
        page.wait_for_function(f"document.getElementById('cited') && document.getElementById('cited').textContent === {edge['sentence']!r}")
        assert page.evaluate("window.citegraphGraph.edges().length") >= 1

        # public (no token): the staff document is nowhere on the page
        page.fill("#question", "When does the Zephyrion merger close?")
        page.click("#ask-form button[type=submit]")
        page.wait_for_selector("#claims > li")
        page.click("#tab-docs")
        page.wait_for_selector("#documents tbody tr")
        assert "412 million" not in page.content() and "merger.md" not in page.inner_text("#documents")
        browser.close()


def test_upload_shows_progress_and_the_document_appears(server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base, token = server
    note = tmp_path / "orion.md"
    note.write_text("The Orion plan ships on 2 May. It needs three reviewers.", encoding="utf-8")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(base + "/")
        page.fill("#token", token)
        page.dispatch_event("#token", "change")
        page.click("#tab-docs")
        page.set_input_files("#files", str(note))
        page.click("#upload-form button[type=submit]")
        page.wait_for_function("document.getElementById('upload-state').textContent.startsWith('done')", timeout=60000)
        assert page.get_attribute("#upload-progress", "value") == page.get_attribute("#upload-progress", "max")
        page.wait_for_selector("#documents td:text('orion.md')")
        page.screenshot(path=str(tmp_path / "documents.png"), full_page=True)
        browser.close()
