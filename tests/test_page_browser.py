"""The page in a real browser (Debian's chromium driven by Playwright), against a live server, at
1280 x 900 and 390 x 844, light and dark (issue 24, item 1): ask (streamed), a citation chip's
preview, its span opened, a conflict and a not-found answer shown in words, an overview grouped by theme, upload, delete, a bad
token, the empty state, and an accessibility scan with axe-core (vendored, sha256-checked).

Skipped where chromium or playwright is not installed (``apt-get install chromium``,
``pip install playwright``); screenshots go to the test's temporary folder (docs/screenshots.py
makes the ones in the docs)."""

from __future__ import annotations

import hashlib
import itertools
import shutil
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium")
playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

SECRET = "The Zephyrion merger closes on 14 March with a price of 412 million."
QUESTION = "How long do exports stay available after cancellation?"
AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
ABBREVIATED = Path(__file__).parent / "data" / "abbreviations"
VIEWS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def server(tmp_path: Path, splitter, larkspur: Path, write) -> Iterator[tuple[str, str, str, str]]:  # type: ignore[no-untyped-def]
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
    graph.ingest([ABBREVIATED], access=["clinic"])  # a guide that defines "BCC", read only with the clinic token
    tokens = TokenStore(db)
    writer_token = tokens.add("writer", ("public",))
    nobody = tokens.add("nobody", ("nobody",))  # reads nothing: the empty state
    clinic = tokens.add("clinic", ("clinic",))
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
    yield f"http://127.0.0.1:{port}", writer_token, nobody, clinic
    served.should_exit = True
    thread.join(10)
    graph.close()


@pytest.fixture(scope="module")
def axe() -> str:
    source = AXE.read_bytes()
    assert hashlib.sha256(source).hexdigest() == AXE_SHA256, f"{AXE} is not the vendored axe-core 4.14.1"
    return source.decode("utf-8")


def _serious(page, axe: str) -> list[str]:  # type: ignore[no-untyped-def]
    """axe-core's serious and critical violations on the page as it stands, one line each."""
    page.add_script_tag(content=axe)
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


LABEL_OVERLAPS = """() => {
    const cy = window.citegraphGraph;
    const box = (e) => e.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true});
    const labels = cy.elements().filter((e) => e.style('label')).map((e) => [e.style('label'), box(e)]).filter(([, b]) => b.w > 0);
    const hits = [];
    for (let i = 0; i < labels.length; i++)
        for (let j = i + 1; j < labels.length; j++) {
            const [a, p] = labels[i], [b, q] = labels[j];
            const x = Math.min(p.x2, q.x2) - Math.max(p.x1, q.x1), y = Math.min(p.y2, q.y2) - Math.max(p.y1, q.y1);
            if (x > 2 && y > 2) hits.push(a + ' / ' + b);
        }
    return hits;
}"""


def _ask(page, question: str) -> None:  # type: ignore[no-untyped-def]
    """Ask, recording what the page showed while the answer streamed in."""
    page.evaluate("""() => {
        window.seen = {disabled: [], progress: [], status: []};
        const watch = (id, list, read) => new MutationObserver(() => window.seen[list].push(read(document.getElementById(id))))
            .observe(document.getElementById(id), {attributes: true, childList: true, subtree: true, characterData: true});
        watch('ask-button', 'disabled', (e) => e.disabled);
        watch('progress-text', 'progress', (e) => e.textContent);
        watch('status', 'status', (e) => e.textContent);
    }""")
    page.fill("#question", question)
    page.click("#ask-button")
    page.wait_for_selector("#status[data-code]")
    page.wait_for_function("!document.getElementById('ask-button').disabled")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_ask_streams_then_a_chip_previews_and_opens_its_span(server, axe: str, view: str, scheme: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base, _token, _nobody, _clinic = server
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWS[view], color_scheme=scheme)
        page.goto(base + "/")
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        # the empty page: how many documents this caller may read, and questions to start with
        page.wait_for_selector("#examples:not([hidden])")
        assert "documents you may read" in page.inner_text("#doc-count")
        assert "What are the main themes of these documents?" in page.inner_text("#example-list")
        assert not _serious(page, axe)  # the empty page
        page.screenshot(path=str(tmp_path / f"{view}-{scheme}-empty.png"))
        _ask(page, QUESTION)
        seen = page.evaluate("window.seen")
        assert True in seen["disabled"] and seen["disabled"][-1] is False  # the button is off while it answers
        assert any("Checking each claim" in t for t in seen["progress"])  # the progress said what it was doing
        assert "Checking…" in seen["status"]  # claims were shown as they were checked, before the answer was done
        # the lesson's case in words: sources disagree, the old FAQ named stale; the codes only in tooltips
        assert page.inner_text("#status") == "Sources disagree" and page.get_attribute("#status", "title") == "status: conflicting"
        codes = page.eval_on_selector_all("#warnings li", "items => items.map((li) => li.dataset.code)")
        assert "conflict" in codes and "stale" in codes
        assert "conflicting" not in page.inner_text("#result") and "_" not in page.inner_text("#status-note")
        chips = page.locator("#answer .chip")
        assert chips.count() >= 1
        # chips are numbered 1..n in the order the answer cites its sources; the list under the answer has one line each
        numbers = page.eval_on_selector_all("#answer .chip", "cs => cs.map((c) => Number(c.textContent))")
        firsts = list(dict.fromkeys(numbers))
        assert firsts == list(range(1, len(firsts) + 1)), numbers
        page.wait_for_selector("#sources li")
        sources = page.locator("#sources li")
        assert sources.count() == len(firsts)
        cited = page.evaluate("() => current.claims[0].citations[0]")
        assert cited["version"][:8] in sources.first.inner_text() and "public" in sources.first.inner_text()
        assert any(state in page.inner_text("#sources") for state in ("current", "superseded by", "older version"))
        # a chip previews its sentence on hover (and on focus), then opens it at its version, highlighted
        first = page.evaluate("() => current.claims[0].citations[0]")
        chips.first.hover()
        page.wait_for_selector("#preview:not([hidden])")
        assert first["sentence"] in page.inner_text("#preview") and first["document"] in page.inner_text("#preview")
        page.mouse.move(0, 0)
        chips.first.focus()
        assert page.is_visible("#preview")
        page.keyboard.press("Enter")
        page.wait_for_selector("mark#cited")
        assert page.inner_text("mark#cited") == first["sentence"]  # the highlight is text[start:end] of that span
        position = page.eval_on_selector("#source", "e => getComputedStyle(e).position")
        assert position == ("fixed" if view == "phone" else "sticky")  # a sheet over the answer on a phone
        assert page.evaluate("document.activeElement.id") == "source-close"
        note = page.inner_text("#source-note")  # the panel's header: its date, version and whether it is current
        assert first["version"][:8] in note and any(state in note for state in ("current", "superseded by", "older version"))
        page.screenshot(path=str(tmp_path / f"{view}-{scheme}-source.png"))
        page.keyboard.press("Escape")  # closes it, and the focus goes back to the chip
        assert page.is_hidden("#source") and page.evaluate("document.activeElement.classList.contains('chip')")
        # each claim's full audit one click away
        page.locator("#answer .mark").first.click()
        assert page.is_visible("#audit-0") and "decided by" in page.inner_text("#audit-0")
        if view == "phone":  # one column: nothing wider than the screen
            assert page.evaluate("document.documentElement.scrollWidth") <= VIEWS[view]["width"]
        violations = _serious(page, axe)
        assert not violations, violations
        # the routes: none of the cited sentences was found by a route here, so the graph waits for the toggle
        assert page.is_visible("#routes-none")
        page.check("#all-routes")
        if view == "phone":  # on a phone the graph waits behind its toggle; the routes in words are there
            assert not page.evaluate("document.getElementById('graph-box').open")
            page.click("#graph-box summary")
        page.wait_for_selector("#graph canvas")
        assert page.evaluate("window.citegraphGraph.zoom()") >= 0.75  # its 14 px labels at least 10.5 px on screen
        overlaps = page.evaluate(LABEL_OVERLAPS)
        assert not overlaps, overlaps  # legible: no label drawn over another node's or edge's label
        edge = page.evaluate("(() => { const e = window.citegraphGraph.edges()[0]; e.emit('tap'); return e.data('span'); })()")
        page.wait_for_function(f"document.getElementById('cited') && document.getElementById('cited').textContent === {edge['sentence']!r}")
        page.keyboard.press("Escape")
        # not in the documents: said in words, the nearest evidence as context only
        _ask(page, "What was the annual revenue in 2023?")
        assert page.get_attribute("#status", "data-code") == "not_found" and page.inner_text("#status") == "Not in your documents"
        assert "do not answer this question" in page.inner_text("#status-note") and page.locator("#answer .mark").count() == 0
        # said once (the status), then why, in words; the nearest evidence as context only
        assert page.inner_text("#result").lower().count("do not answer this question") == 1
        assert "Why: " in page.inner_text("#warnings") and "P(answerable)" not in page.inner_text("#result")
        page.screenshot(path=str(tmp_path / f"{view}-{scheme}-not-found.png"), full_page=True)
        # public (no token): the staff document is nowhere on the page
        _ask(page, "When does the Zephyrion merger close?")
        page.click("#tab-docs")
        page.wait_for_selector("#documents tbody tr")
        assert "412 million" not in page.content() and "merger.md" not in page.inner_text("#documents")
        violations = _serious(page, axe)
        assert not violations, violations
        browser.close()


@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_documents_upload_delete_bad_token_and_empty(server, axe: str, view: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base, token, _nobody, _clinic = server
    note = tmp_path / "orion.md"
    note.write_text("The Orion plan ships on 2 May. It needs three reviewers.", encoding="utf-8")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWS[view])
        page.goto(base + "/")

        def use(value: str) -> None:
            page.evaluate(
                "(v) => { const t = document.getElementById('token'); t.value = v; t.dispatchEvent(new Event('change')); }", value
            )

        use("not-a-token")  # a bad token is named, not shown as an empty table
        page.click("#tab-docs")
        page.wait_for_selector("#docs-error:not([hidden])")
        assert "401" in page.inner_text("#docs-error") and "token" in page.inner_text("#docs-error") and page.is_hidden("#documents")
        use(page.evaluate("() => ''"))
        page.click("#tab-ask")
        page.click("#tab-docs")
        page.wait_for_selector("#documents:not([hidden]) tbody tr")
        assert page.is_hidden("#docs-error")
        # names open the document; dates and labels are shown
        row = page.locator("#documents tr", has_text="retention-policy.md")
        assert "2025-06-01" in row.inner_text() and "public" in row.inner_text()
        row.locator("button.link").click()
        page.wait_for_selector("#source:not([hidden])")
        # the panel is headed by the document's title, with its file name, date and state beneath
        assert "retention policy" in page.inner_text("#source-title").lower() and "Snapshot exports" in page.inner_text("#source-text")
        assert "retention-policy.md" in page.inner_text("#source-note") and "dated 2025-06-01" in page.inner_text("#source-note")
        page.keyboard.press("Escape")
        # a public reader is not shown an upload form it cannot use; a token brings it
        assert page.is_hidden("#upload-form") and page.is_visible("#upload-note")
        # upload with a token: per-file progress, then the document is listed
        use(token)
        assert page.is_visible("#upload-form") and page.is_hidden("#upload-note")
        page.click("#tab-ask")
        page.click("#tab-docs")
        page.set_input_files("#files", str(note))
        page.click("#upload-form button[type=submit]")
        page.wait_for_function(
            "document.querySelector('#upload-files li') && document.querySelector('#upload-files li').textContent.includes('added')",
            timeout=60000,
        )
        page.wait_for_selector("#documents button.link:text('orion.md')")
        assert page.get_attribute("#upload-files progress", "value") == "1"
        violations = _serious(page, axe)
        assert not violations, violations
        # delete asks first: dismissed, nothing happens; accepted, the document goes
        orion = page.locator("#documents tr", has_text="orion.md")
        page.once("dialog", lambda dialog: dialog.dismiss())
        orion.get_by_role("button", name="delete orion.md").click()
        page.wait_for_timeout(300)
        assert page.locator("#documents tr", has_text="orion.md").count() == 1
        page.once("dialog", lambda dialog: dialog.accept())
        orion.get_by_role("button", name="delete orion.md").click()
        page.wait_for_function("!document.querySelector('#documents').textContent.includes('orion.md')")
        browser.close()


def test_no_documents_yet_says_how_to_add_them(server, axe: str) -> None:  # type: ignore[no-untyped-def]
    base, _token, nobody, _clinic = server
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(color_scheme="dark")
        page.goto(base + "/")
        page.evaluate("(v) => sessionStorage.setItem('citegraph-token', v)", nobody)
        page.reload()
        page.click("#tab-docs")
        page.wait_for_selector("#docs-empty:not([hidden])")
        assert "citegraph ingest" in page.inner_text("#docs-empty") and page.is_hidden("#documents") and page.is_hidden("#docs-error")
        violations = _serious(page, axe)
        assert not violations, violations
        browser.close()


def test_the_page_says_which_abbreviations_the_question_was_read_with(server) -> None:  # type: ignore[no-untyped-def]
    base, _token, _nobody, clinic = server
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(base + "/")
        page.evaluate("(v) => sessionStorage.setItem('citegraph-token', v)", clinic)
        page.reload()
        _ask(page, "What is the usual treatment for BCC?")
        assert "BCC = basal cell carcinoma" in page.inner_text("#answer")
        assert page.input_value("#question") == "What is the usual treatment for BCC?"  # shown as asked
        browser.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_an_overview_is_shown_as_cited_points_grouped_by_theme(server, axe: str, view: str, scheme: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A question about the whole corpus: one group per community drawn on, its name, its quoted
    points with their chips; grey ("Overview, not checked"), never green; the staff document absent."""
    base, _token, _nobody, _clinic = server
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWS[view], color_scheme=scheme)
        page.goto(base + "/")
        _ask(page, "What are the main topics of these documents?")
        assert page.inner_text("#status") == "Overview, not checked" and page.get_attribute("#status", "data-code") == "related"
        drawn = page.evaluate("() => current.retrieval.communities")
        groups = page.locator("#answer .theme")
        assert drawn and groups.count() == len(drawn)
        names = page.eval_on_selector_all("#answer .theme-name", "items => items.map((e) => e.textContent)")
        assert names == [c["title"] for c in drawn]  # one group per community, in the order drawn on
        for i in range(groups.count()):
            assert groups.nth(i).locator(".chip").count() >= 1  # every point cites its sentence
        assert "overview" in page.eval_on_selector_all("#warnings li", "items => items.map((li) => li.dataset.code)")
        assert "Zephyrion" not in page.inner_text("#result")
        if view == "phone":
            assert page.evaluate("document.documentElement.scrollWidth") <= VIEWS[view]["width"]
        page.screenshot(path=str(tmp_path / f"{view}-{scheme}-overview.png"), full_page=True)
        violations = _serious(page, axe)
        assert not violations, violations
        browser.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_a_follow_up_is_read_from_the_conversation_shown_above_it(server, axe: str, view: str, scheme: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Two turns: the second ("Who approves them?") is read as "Who approves exports?" and says so;
    the first stays above it with its chips still opening their sources; a new conversation forgets it."""
    base, _token, _nobody, _clinic = server
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWS[view], color_scheme=scheme)
        page.goto(base + "/")
        _ask(page, QUESTION)
        assert page.is_hidden("#conversation")  # one turn: nothing earlier to show
        first = page.evaluate("() => current.question")
        _ask(page, "Who approves them?")
        page.wait_for_function("current && current.question !== " + repr(first))
        assert page.evaluate("() => current.question") == "Who approves exports?"
        assert "Read as a follow-up: “Who approves exports?”" in page.inner_text("#answer")
        assert "follow_up" in page.eval_on_selector_all("#warnings li", "items => items.map((li) => li.dataset.code)")
        assert page.is_visible("#conversation") and page.locator("#turns .turn").count() == 1
        assert first in page.inner_text("#turns")
        page.locator("#turns .chip").first.click()  # an earlier turn's source still opens
        page.wait_for_selector("#source:not([hidden])")
        if view == "phone":
            assert page.evaluate("document.documentElement.scrollWidth") <= VIEWS[view]["width"]
        page.screenshot(path=str(tmp_path / f"{view}-{scheme}-follow-up.png"), full_page=True)
        violations = _serious(page, axe)
        assert not violations, violations
        page.click("#source-close")
        page.click("#new-conversation")
        assert page.is_hidden("#conversation") and page.locator("#turns .turn").count() == 0
        browser.close()


@pytest.fixture
def model_server(tmp_path: Path, splitter, write) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """A server whose answers a scripted language model writes, a word every 40 ms, as a model streams."""
    import uvicorn

    from citegraph.answer.llm_answerer import LLMAnswerer
    from citegraph.embed import HashingEmbedder
    from citegraph.llm.base import FakeChatModel, Message
    from citegraph.pipeline import CiteGraph
    from citegraph.serve.app import create_app
    from citegraph.serve.tokens import TokenStore
    from citegraph.store import SQLiteStore
    from citegraph.verify.cascade import CheckingVerifier

    class Slow(FakeChatModel):
        def stream(self, messages: Sequence[Message], *, max_tokens: int = 512) -> Iterator[str]:
            for piece in super().stream(messages, max_tokens=max_tokens):
                time.sleep(0.04)
                yield piece

    def answer(messages: Sequence[Message]) -> str:
        line = next(x for x in messages[-1].content.splitlines() if "Exports stay available" in x)
        n = line.split("]")[0].lstrip("[")
        return f"Exports stay available for 30 days after cancellation [{n}]. Exports stay available for 90 days [{n}]."

    db = tmp_path / "model.db"
    policy = write("policy.md", "Exports stay available for 30 days after cancellation. Billing stops at the end of the period.")
    graph = CiteGraph(
        SQLiteStore(db), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier(), answerer=LLMAnswerer(Slow(answer))
    )
    graph.ingest([policy])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    served = uvicorn.Server(uvicorn.Config(create_app(graph, TokenStore(db)), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    for _ in range(200):
        if served.started:
            break
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    served.should_exit = True
    thread.join(10)
    graph.close()


@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_a_models_answer_shows_as_it_is_written_marked_unchecked_then_checked_in_place(
    model_server, axe: str, view: str, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Issue 38, item 2: the model's words appear as it writes them, under "Not yet checked"; each
    claim's check then replaces the mark; the claim its check contradicted is struck through in place."""
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWS[view])
        page.goto(model_server + "/")
        page.evaluate("""() => {
            window.drafts = [];
            new MutationObserver(() => { const d = document.querySelector('#answer .draft'); if (d) window.drafts.push(d.textContent); })
                .observe(document.getElementById('answer'), {childList: true, subtree: true, characterData: true});
        }""")
        page.fill("#question", "How long do exports stay available after cancellation?")
        page.click("#ask-button")
        page.wait_for_selector("#status[data-code]")
        drafts = page.evaluate("window.drafts")
        growing = [d for d in drafts if d.startswith("Not yet checked: ")]
        assert len(set(growing)) >= 5, drafts  # the text grew word by word, marked as not yet checked
        assert any(len(a) < len(b) for a, b in itertools.pairwise(growing))
        assert page.locator("#answer .draft").count() == 0  # checked: no draft left
        struck = page.locator("#answer .bad-claim")
        assert struck.count() >= 1 and "90 days" in "".join(struck.all_inner_texts())
        assert page.eval_on_selector("#answer .bad-claim", "e => getComputedStyle(e).textDecorationLine") == "line-through"
        assert "30 days" in page.inner_text("#answer") and page.locator("#answer .mark.bad").count() == 1
        page.screenshot(path=str(tmp_path / f"{view}-model.png"))
        violations = _serious(page, axe)
        assert not violations, violations
        browser.close()
