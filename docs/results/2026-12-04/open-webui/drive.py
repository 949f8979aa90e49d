import shutil, sys
from playwright.sync_api import sync_playwright
with sync_playwright() as p:
    b = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
    for name, vp in (("desktop", {"width": 1280, "height": 900}), ("phone", {"width": 390, "height": 844})):
        page = b.new_page(viewport=vp)
        page.goto("http://127.0.0.1:8080/", wait_until="load", timeout=120000)
        page.wait_for_timeout(4000)
        if page.get_by_text("Okay, Let's Go!").count():
            page.get_by_text("Okay, Let's Go!").click()
            page.wait_for_timeout(1000)
        page.screenshot(path=f"/tmp/owshots/{name}-0.png")
        box = page.locator("#chat-input, textarea, div[contenteditable=true]").first
        box.click()
        box.type("What is the hotel limit in London?")
        page.keyboard.press("Enter")
        page.wait_for_timeout(20000)
        page.screenshot(path=f"/tmp/owshots/{name}-1.png", full_page=True)
        box = page.locator("#chat-input, textarea, div[contenteditable=true]").first
        box.click()
        box.type("And in Berlin?")
        page.keyboard.press("Enter")
        page.wait_for_timeout(15000)
        page.screenshot(path=f"/tmp/owshots/{name}-2.png", full_page=True)
        print(name, page.url)
    b.close()
