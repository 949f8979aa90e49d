"""Screenshots of the page for the README and docs: desktop (1280 x 900) and phone (390 x 844), light
and dark, in Debian's chromium driven by Playwright, against a live server over the bundled Larkspur
handbook (the checker verifies; the extractive answerer writes).

    .venv/bin/python docs/screenshots.py --out docs/results/2026-12-02/page
    .venv/bin/python docs/screenshots.py --out docs/results/2026-12-03/page-related --answer-only \
        --question "What happens to billing when I cancel?"

    .venv/bin/python docs/screenshots.py --out docs/results/2026-12-03/page-abbreviations --answer-only \
        --docs tests/data/abbreviations --question "What is the usual treatment for BCC?"

    .venv/bin/python docs/screenshots.py --out docs/results/2026-12-04/page-follow-up --answer-only \
        --follow-up "Who approves them?"

    .venv/bin/python docs/screenshots.py --out docs/results/2026-12-04/page-sources \
        --docs corpora/brightwave/docs --question "What is the hotel limit in London?"

Writes ``{desktop,phone}-{light,dark}-{empty,answer,preview,source,routes,documents}.png``. Not a test: the
browser tests (tests/test_page_browser.py) check the same flows and write nothing here.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

QUESTION = "How long do exports stay available after cancellation?"
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--verifier", default="checker", help="checker (default) or guards")
    parser.add_argument("--question", default=QUESTION, help="the question asked on the page")
    parser.add_argument("--answer-only", action="store_true", help="only the answer's screenshots (e.g. of another status)")
    parser.add_argument("--docs", type=Path, help="a folder to ingest instead of the bundled Larkspur handbook")
    parser.add_argument("--follow-up", help="then this follow-up, in the same conversation ({size}-{scheme}-follow-up.png)")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("needs Debian's chromium (apt-get install chromium) and playwright")
    from importlib import resources

    import uvicorn
    from playwright.sync_api import sync_playwright

    from citegraph.components import GraphSpec
    from citegraph.pipeline import CiteGraph
    from citegraph.serve.app import create_app
    from citegraph.serve.tokens import TokenStore

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, resources.as_file(resources.files("citegraph.demo") / "larkspur") as handbook:
        db = Path(tmp) / "page.db"
        graph = CiteGraph.from_spec(GraphSpec(db=str(db), generator="extractive", verifier=args.verifier))
        graph.ingest([args.docs or handbook], access=["public"])
        tokens = TokenStore(db)
        token = tokens.add("screenshots", ("public",))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(create_app(graph, tokens), host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.1)
        base = f"http://127.0.0.1:{port}"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
                for size, (width, height) in SIZES.items():
                    for scheme in ("light", "dark"):
                        page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
                        page.goto(base + "/")
                        page.evaluate("t => sessionStorage.setItem('citegraph-token', t)", token)
                        page.reload()
                        name = f"{size}-{scheme}"
                        page.wait_for_selector("#examples:not([hidden])")
                        page.screenshot(path=str(args.out / f"{name}-empty.png"))
                        page.fill("#question", args.question)
                        page.click("#ask-button")
                        page.wait_for_selector("#status[data-code]")
                        page.wait_for_function("document.getElementById('sources-box').hidden || document.querySelector('#sources li')")
                        # the graph drawn, where the answer has one to draw and its box is open
                        page.wait_for_function(
                            "document.getElementById('graph-box').hidden || !document.getElementById('graph-box').open "
                            "|| document.getElementById('routes').hidden || document.querySelector('#graph canvas')"
                        )
                        page.screenshot(path=str(args.out / f"{name}-answer.png"), full_page=True)
                        if args.follow_up:
                            page.fill("#question", args.follow_up)
                            page.click("#ask-button")
                            page.wait_for_function(
                                "document.querySelectorAll('#turns .turn').length >= 1 && !document.getElementById('ask-button').disabled"
                            )
                            page.screenshot(path=str(args.out / f"{name}-follow-up.png"), full_page=True)
                        if args.answer_only:
                            page.close()
                            continue
                        page.locator("#answer .chip").first.hover()
                        page.wait_for_selector("#preview:not([hidden])")
                        page.screenshot(path=str(args.out / f"{name}-preview.png"))
                        page.locator("#answer .chip").first.click()
                        page.wait_for_selector("mark#cited")
                        page.screenshot(path=str(args.out / f"{name}-source.png"))
                        page.keyboard.press("Escape")
                        page.check("#all-routes")
                        if size == "phone":  # the graph waits behind its toggle on a phone
                            page.click("#graph-box summary")
                        page.wait_for_selector("#graph canvas")
                        page.locator("#routes").screenshot(path=str(args.out / f"{name}-routes.png"))
                        page.click("#tab-docs")
                        page.wait_for_selector("#documents:not([hidden]) tbody tr")
                        page.screenshot(path=str(args.out / f"{name}-documents.png"), full_page=True)
                        page.close()
                browser.close()
        finally:
            server.should_exit = True
            thread.join(10)
            graph.close()
    print(f"screenshots written to {args.out}")


if __name__ == "__main__":
    main()
