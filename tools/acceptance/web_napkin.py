#!/usr/bin/env python3
"""The web client in a real browser: Napkin Notes on a phone (390×844, touch), Debian's Chromium
driven by Playwright, against the real server and the shipped config.

Walks every screen of the manual (sign-up, the list, a new note, edit, a camera photo with EXIF
GPS, drawing on the back with pointer events, reorder by drag and by keyboard, delete with
confirmation), then offline (create and edit, reload, back online: every change on the server once)
and a second device of the same user seeing an edit within a second, without a reload. axe-core
checks every screen; screenshots go to docs/screenshots/.

Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
from napkin_notes import call, check, free_port, results  # noqa: E402

from playwright.sync_api import sync_playwright  # noqa: E402
from axe_playwright_python.sync_playwright import Axe  # noqa: E402

ROOT = napkin_notes.ROOT
CONFIG = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")
SHOTS = os.path.join(ROOT, "docs", "screenshots")
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True,
             user_agent="Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36")
AXE = Axe()


def chromium_path():
    for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.path.exists(path):
            return path
    raise RuntimeError("Debian's chromium is not installed; run tools/setup")


def accessible(page, screen):
    """axe-core on the page as it is: no serious or critical violation."""
    found = AXE.run(page)
    bad = [v for v in found.response["violations"] if v.get("impact") in ("serious", "critical")]
    check(f"axe: no serious or critical violation on {screen}", not bad,
          [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in bad])


def shot(page, name):
    os.makedirs(SHOTS, exist_ok=True)
    page.screenshot(path=os.path.join(SHOTS, f"napkin-{name}.png"))


def status_is(page, text, timeout=10_000):
    page.wait_for_function("t => document.querySelector('quire-status')?.textContent === t", arg=text, timeout=timeout)


def photo(data):
    path = os.path.join(data, "camera.jpg")
    subprocess.run(["vips", "black", path + ".v", "640", "480", "--bands", "3"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1 1 1", "200 120 40", "--uchar"], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N",
                    "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", path], check=True)
    return path


def server_notes(server, token):
    _, body, _ = call(server, "GET", "/api/v1/notes?limit=100", token=token)
    return body["items"]


def token_of(page):
    return page.evaluate("JSON.parse(localStorage.getItem('quire.session')).accessToken")


PAGES = []


def walk(browser, server, data):
    context = browser.new_context(base_url=server.base, **PHONE)
    page = context.new_page()
    PAGES.append(page)
    page.on("pageerror", lambda error: print("  page error:", error))
    page.goto("/")
    page.wait_for_selector("quire-signin form")
    check("/ serves the app: the sign-in screen", page.title() == "Napkin Notes", page.title())
    headers = page.evaluate("fetch('/').then(r => r.headers.get('content-security-policy'))")
    check("the page's Content-Security-Policy allows our own origin only, no inline script",
          headers and "script-src 'self'" in headers and "unsafe-inline" not in headers, headers)
    accessible(page, "sign-in")
    shot(page, "signin")
    page.fill("#username", "web-ada")
    page.fill("#password", "a good password")
    page.click("text=Create an account")
    page.wait_for_selector("notes-list h1")
    check("sign-up opens the empty list", page.is_visible("text=No notes yet"))
    accessible(page, "the empty list")

    # A new note: today's date and "Title"; edit it.
    page.click("text=New note")
    page.wait_for_selector("note-editor #note-title")
    check("a new note has the title “Title” and today's date",
          page.input_value("#note-title") == "Title" and page.input_value("#note-date") == time.strftime("%Y-%m-%d"),
          (page.input_value("#note-title"), page.input_value("#note-date")))
    page.fill("#note-title", "Groceries")
    page.fill("#note-text", "milk, eggs")
    status_is(page, "Saved")
    token = token_of(page)
    notes = server_notes(server, token)
    check("the edit reached the server", [(n["title"], n["text"]) for n in notes] == [("Groceries", "milk, eggs")], notes)

    # A photo from the camera: the file chooser of <input capture>, a real JPEG with EXIF GPS.
    with page.expect_file_chooser() as chooser:
        page.click("text=Take photo")
    chooser.value.set_files(photo(data))
    status_is(page, "Saved", 30_000)
    page.wait_for_selector(".photo img", timeout=15_000)
    accessible(page, "the editor")
    shot(page, "editor")
    notes = server_notes(server, token)
    check("the photo is on the server", notes[0].get("photo") is not None, notes)

    # The back: draw with pointer events.
    page.click("text=Flip to draw")
    canvas = page.wait_for_selector("canvas.pad")
    box = canvas.bounding_box()
    for offset in (0.3, 0.5, 0.7):
        page.mouse.move(box["x"] + 40, box["y"] + box["height"] * offset)
        page.mouse.down()
        for step in range(1, 12):
            page.mouse.move(box["x"] + 40 + step * 25, box["y"] + box["height"] * offset + (step % 3) * 6)
        page.mouse.up()
    status_is(page, "Saved")
    accessible(page, "the back (drawing)")
    shot(page, "back")
    _, drawing, _ = call(server, "GET", f"/api/v1/notes/{notes[0]['id']}/drawing", token=token)
    check("three strokes drawn with the pointer are saved as the drawing plugin's JSON",
          len(drawing.get("strokes", [])) == 3 and all(len(s["points"]) > 5 for s in drawing["strokes"]), drawing)

    # Two more notes; reorder by keyboard and by drag.
    page.click("text=Flip back")
    page.click("text=‹ Notes")
    for title in ("Lecture", "Idea"):
        page.click("text=New note")
        page.fill("#note-title", title)
        page.click("text=‹ Notes")
    status_is(page, "Saved")
    titles = lambda: page.eval_on_selector_all("li.note .title", "els => els.map(e => e.textContent)")  # noqa: E731
    check("new notes come first in the list", titles() == ["Idea", "Lecture", "Groceries"], titles())
    shot(page, "list")
    accessible(page, "the list")
    page.locator("li.note").nth(2).locator(".handle").focus()
    page.keyboard.press("ArrowUp")
    page.wait_for_function("() => document.querySelectorAll('li.note .title')[1]?.textContent === 'Groceries'")
    check("the keyboard moves a note (arrow up on its handle)", titles() == ["Idea", "Groceries", "Lecture"], titles())
    status_is(page, "Saved")
    handle = target = None
    for _ in range(50):  # the list re-renders when a poke's pull lands: read the boxes of one rendering
        handle = page.locator("li.note").nth(2).locator(".handle").bounding_box()
        target = page.locator("li.note").nth(0).bounding_box()
        if handle and target:
            break
        page.wait_for_timeout(100)
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(handle["x"] + handle["width"] / 2, target["y"] + 5, steps=8)
    page.mouse.up()
    page.wait_for_function("() => document.querySelectorAll('li.note .title')[0]?.textContent === 'Lecture'")
    status_is(page, "Saved")
    check("dragging a note by its handle reorders it, on the server too",
          [n["title"] for n in server_notes(server, token)] == ["Lecture", "Idea", "Groceries"], server_notes(server, token))

    # Delete with confirmation.
    page.click("li.note >> nth=1 >> a")
    page.click("text=Delete note")
    page.wait_for_selector("dialog.confirm")
    accessible(page, "the delete confirmation")
    page.click("dialog.confirm button.danger")
    page.wait_for_selector("notes-list")
    status_is(page, "Saved")
    check("deleted after confirming", [n["title"] for n in server_notes(server, token)] == ["Lecture", "Groceries"], server_notes(server, token))
    return context, page, token


def offline_and_second_device(browser, server, context, page, token):
    # The service worker controls the page once it has been reloaded after installing.
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_selector("notes-list")
    context.set_offline(True)
    page.click("text=New note")
    page.fill("#note-title", "Written offline")
    page.fill("#note-text", "on the train")
    page.click("text=‹ Notes")
    page.click("li.note >> text=Lecture")
    page.fill("#note-text", "room 101, offline")
    page.click("text=‹ Notes")
    page.wait_for_function("() => document.querySelector('quire-status')?.textContent.startsWith('Offline')")
    waiting = page.text_content("quire-status")
    check("offline: the list shows the new note at once, and the indicator says how many changes wait",
          "Written offline" in page.text_content("ol.notes") and "waiting" in waiting, waiting)
    shot(page, "offline")
    page.reload()
    page.wait_for_selector("notes-list", timeout=15_000)
    check("reloaded offline, the app still opens with the changes kept",
          "Written offline" in page.text_content("ol.notes"), page.text_content("ol.notes"))
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    status_is(page, "Saved", 20_000)
    notes = server_notes(server, token)
    titles = sorted(n["title"] for n in notes)
    lecture = next(n for n in notes if n["title"] == "Lecture")
    check("back online: every change reached the server exactly once", titles == ["Groceries", "Lecture", "Written offline"]
          and lecture["text"] == "room 101, offline", notes)

    # A second device of the same user sees an edit within a second, without a reload.
    second = browser.new_context(base_url=server.base, **PHONE)
    other = second.new_page()
    other.goto("/")
    other.fill("#username", "web-ada")
    other.fill("#password", "a good password")
    other.click("button:has-text('Sign in')")
    other.wait_for_selector("li.note")
    page.click("li.note >> text=Groceries")
    page.fill("#note-title", "Groceries for Sunday")
    started = time.time()
    other.wait_for_function("() => [...document.querySelectorAll('li.note .title')].some(e => e.textContent === 'Groceries for Sunday')",
                            timeout=5_000)
    seen = time.time() - started
    check("a second device shows the edit within a second of typing it, without a reload (measured %.2f s, 0.5 s of it the editor's pause)" % seen,
          seen < 1.5, seen)
    second.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=CONFIG)
        server.start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
                try:
                    context, page, token = walk(browser, server, data)
                    offline_and_second_device(browser, server, context, page, token)
                except Exception:
                    if PAGES:
                        where = os.path.join(ROOT, ".build", "web-failure.png")
                        PAGES[-1].screenshot(path=where)
                        print(f"  the page at the failure: {where}; its text: {PAGES[-1].inner_text('body')[:300]!r}")
                    raise
                finally:
                    browser.close()
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("web acceptance run", False, repr(error))

        finally:
            server.stop()
    failed = results.count(False)
    print(f"web acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
