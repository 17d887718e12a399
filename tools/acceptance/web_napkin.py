#!/usr/bin/env python3
"""The web client in a real browser: Napkin Notes on a phone (390×844, touch), Debian's Chromium
driven by Playwright, against the real server and the shipped config.

Walks every screen of the manual (sign-up, the list, a new note, edit, a camera photo with EXIF
GPS, drawing on the back with pointer events, reorder by drag and by keyboard, delete with
confirmation), then offline (create and edit, reload, back online: every change on the server once)
and a second device of the same user seeing an edit within a second, without a reload. axe-core
checks every screen; screenshots go to .build/screenshots/ (tools/screenshots: docs/screenshots/).

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
import webwalk  # noqa: E402  (the browser: Chromium at a phone's size, axe, screenshots)
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import accessible, phone, status_is, token_of  # noqa: E402

ROOT = napkin_notes.ROOT
CONFIG = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")


def shot(page, name):
    webwalk.shot(page, "napkin", name)


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


# The drawn pixels' box on a canvas or in an image: [minX, minY, maxX, maxY] of every pixel at
# least half opaque (the pad's letterbox tint is fainter), in the canvas' own pixels; null if none.
INK_BOX = """(canvas) => {
  const { data, width, height } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
  let box = null;
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    if (data[(y * width + x) * 4 + 3] < 128) continue;
    box = box ? [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)] : [x, y, x, y];
  }
  return box;
}"""


def drawing_width_and_shape(page, server, token, note_id):
    """The back's width slider saves nothing by itself (never a write without a body under a
    "Saved" bar), and a drawing keeps the shape of the surface it was drawn on: a circle drawn on
    the phone upright is a circle turned to landscape, on the phone and in the server's PNG and SVG."""
    import base64
    import json
    import math

    sent = []  # (method, body) of every write of the drawing, and the server's answers
    answers = []
    on_request = lambda r: sent.append((r.method, r.post_data)) if r.url.endswith("/drawing") and r.method != "GET" else None  # noqa: E731
    on_response = lambda r: answers.append(r.status) if r.url.endswith("/drawing") and r.request.method != "GET" else None  # noqa: E731
    page.on("request", on_request)
    page.on("response", on_response)
    canvas = page.locator("canvas.pad")
    ink = lambda: canvas.evaluate(INK_BOX)  # noqa: E731

    def stroke(points):
        page.mouse.move(*points[0])
        page.mouse.down()
        for point in points[1:]:
            page.mouse.move(*point)
        page.mouse.up()

    def square(box, slack):
        return box is not None and abs((box[2] - box[0]) - (box[3] - box[1])) <= slack

    def on_server(strokes):
        """The drawing on the server once it has `strokes` strokes (the pad's write goes through
        the outbox: the bar may say "Saved" a moment before it is queued); the last one read if never."""
        drawing = {}
        for _ in range(50):
            webwalk.settled(page)
            _, drawing, _ = call(server, "GET", f"/api/v1/notes/{note_id}/drawing", token=token)
            if len(drawing.get("strokes", [])) == strokes:
                break
            page.wait_for_timeout(100)
        return drawing

    try:
        # The width slider, moved as a finger does: only the next stroke changes.
        slider = page.locator("drawing-pad .width input")
        track = slider.bounding_box()
        page.mouse.click(track["x"] + track["width"] * 0.8, track["y"] + track["height"] / 2)
        chosen = float(slider.input_value())
        page.wait_for_timeout(1_000)
        webwalk.settled(page)
        _, drawing, _ = call(server, "GET", f"/api/v1/notes/{note_id}/drawing", token=token)
        check("moving the width slider sends no write without a body (and nothing the server refuses)",
              all(body for _, body in sent) and all(200 <= status < 300 for status in answers), (sent, answers))
        check("…so the bar's “Saved” is true: the drawing on the server is still the three strokes",
              len(drawing.get("strokes", [])) == 3, drawing)
        box = canvas.bounding_box()
        stroke([(box["x"] + 30 + step * 10, box["y"] + box["height"] * 0.9) for step in range(8)])
        drawing = on_server(4)
        widths = [s.get("width") for s in drawing.get("strokes", [])]
        check(f"the next stroke has the width chosen ({chosen}), and every write sent was a drawing",
              len(widths) == 4 and abs(widths[-1] - chosen) < 1e-9 and chosen != widths[0]
              and all("strokes" in json.loads(body) for _, body in sent), (chosen, widths))

        # A circle drawn upright, on a cleared back.
        page.click("drawing-pad >> text=Clear")
        on_server(0)
        canvas.scroll_into_view_if_needed()
        box = canvas.bounding_box()
        cx, cy, r = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, min(box["width"], box["height"]) * 0.3
        stroke([(cx + r * math.cos(a * math.pi / 30), cy + r * math.sin(a * math.pi / 30)) for a in range(61)])
        drawing = on_server(1)
        upright = ink()
        check("a circle drawn on the phone upright is round on its canvas", square(upright, 4), upright)
        check("the drawing records the shape of the surface it was drawn on (aspect = width ÷ height)",
              abs((drawing.get("aspect") or 0) - box["width"] / box["height"]) < 0.01, (drawing.get("aspect"), box))

        # Turned to landscape: the canvas is wide and low, the circle must stay round.
        page.set_viewport_size({"width": 844, "height": 390})
        page.wait_for_function("""() => { const c = document.querySelector('canvas.pad');
            return c.clientWidth > c.clientHeight && c.width === Math.round(c.clientWidth * devicePixelRatio); }""")
        page.wait_for_timeout(300)
        canvas.scroll_into_view_if_needed()
        turned = ink()
        page.screenshot(path=os.path.join(ROOT, ".build", "napkin-back-landscape.png"))
        check("turned to landscape, the circle is still a circle on the phone (its drawn pixels' box is square)",
              square(turned, 4), turned)

        # A stroke drawn in landscape lands under the finger.
        box = canvas.bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        stroke([(cx - 20 + step * 5, cy) for step in range(9)])
        on_server(2)
        under = canvas.evaluate("""(c, at) => c.getContext('2d').getImageData(Math.round(at[0] * devicePixelRatio),
            Math.round(at[1] * devicePixelRatio), 1, 1).data[3]""", [box["width"] / 2, box["height"] / 2])
        check("drawn in landscape, a stroke lands under the finger", under >= 128, under)

        # The server's renditions, measured in a blank page of the same browser.
        blank = page.context.new_page()
        for query in ("size=844x390", "format=svg&size=844x390", "size=400x800", ""):
            status, image, _ = call(server, "GET", f"/api/v1/notes/{note_id}/drawing/image?{query}", token=token)
            kind = "image/svg+xml" if "svg" in query else "image/png"
            url = f"data:{kind};base64," + base64.b64encode(image if isinstance(image, bytes) else b"").decode()
            rendered = blank.evaluate("""async ([url, measure]) => {
                const img = new Image(); img.src = url; await img.decode();
                const canvas = document.createElement('canvas');
                canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
                canvas.getContext('2d').drawImage(img, 0, 0);
                return [canvas.width, canvas.height, eval(measure)(canvas)];
            }""", [url, INK_BOX]) if status == 200 else None
            check(f"the server's rendering ({query or 'the default size'}) keeps the circle round",
                  rendered is not None and square(rendered[2], 3), (status, rendered))
        blank.close()

        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_function("""() => { const c = document.querySelector('canvas.pad');
            return c.clientWidth < c.clientHeight && c.width === Math.round(c.clientWidth * devicePixelRatio); }""")
        page.wait_for_timeout(300)
        back = ink()
        check("turned upright again, the circle is where it was drawn, as round",
              square(back, 4) and upright is not None and all(abs(a - b) <= 4 for a, b in zip(back, upright)), (back, upright))
    finally:
        page.remove_listener("request", on_request)
        page.remove_listener("response", on_response)
        page.set_viewport_size({"width": 390, "height": 844})


def walk(browser, server, data):
    context, page = phone(browser, server)
    page.goto("/")
    page.wait_for_selector("quire-signin form")
    check("/ serves the app: the sign-in screen", page.title() == "Napkin Notes", page.title())
    headers = page.evaluate("fetch('/').then(r => r.headers.get('content-security-policy'))")
    check("the page's Content-Security-Policy allows our own origin only, no inline script",
          headers and "script-src 'self'" in headers and "unsafe-inline" not in headers, headers)
    accessible(page, "sign-in")
    shot(page, "signin")
    webwalk.sign_in(page, "web-ada", create=True)
    page.wait_for_selector("notes-list h1")
    check("sign-up opens the empty list", page.is_visible("text=No notes yet"))
    accessible(page, "the empty list")

    # A new note: today's date and "Title"; edit it.
    page.click("text=New note")
    page.wait_for_selector("note-editor #note-title")
    check("a new note shows “Title” as a placeholder (typing replaces it, not appends to it) and today's date",
          page.input_value("#note-title") == "" and page.get_attribute("#note-title", "placeholder") == "Title"
          and page.input_value("#note-date") == time.strftime("%Y-%m-%d"),
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

    drawing_width_and_shape(page, server, token, notes[0]["id"])

    # Two more notes; reorder by keyboard and by drag.
    page.click("text=Flip back")
    page.click("text=‹ Notes")
    for title in ("Lecture", "Idea"):
        page.click("text=New note")
        page.fill("#note-title", title)
        page.click("text=‹ Notes")
    webwalk.settled(page)
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
    # An import cannot wait for the network as a note does: the phone says so instead of
    # promising to send it later.
    page.set_input_files("div.import input[type=file]", files=[{"name": "Evernote.enex", "mimeType": "application/xml",
                                                                 "buffer": b"<?xml version='1.0'?><en-export></en-export>"}])
    alert = page.wait_for_selector(".import-progress [role=alert]").text_content()
    check("offline: an import chosen says it was not imported and to choose it again online (nothing is promised for later)",
          "offline" in alert and "not imported" in alert and "kept and sent" not in alert, alert)
    page.click(".import-progress [role=alert] >> text=OK")
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
    second, other = phone(browser, server)
    other.goto("/")
    webwalk.sign_in(other, "web-ada")
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

        def walk_all(browser):
            context, page, token = walk(browser, server, data)
            offline_and_second_device(browser, server, context, page, token)
        code = webwalk.run(server, walk_all)
    sys.exit(code)


if __name__ == "__main__":
    main()
