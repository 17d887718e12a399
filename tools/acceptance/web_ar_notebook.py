#!/usr/bin/env python3
"""The web client in a real browser: AR Notebook on a phone (390×844, touch), Debian's Chromium
driven by Playwright, against the real server and the shipped config.

Walks the use cases a phone's browser can: sign-up and the welcome (FR3.2.2); opening gives a
default notebook (UC-3); a page from a template in a palette colour (UC-4); inserts typed, pasted
through the Clipboard API (141 characters: the server's refusal shown as its sentence) and a
picture from the gallery (UC-5/6/7); an item dragged past the page's edge and kept inside (UC-10);
undo (UC-9); pages turned by swiping and by buttons; the notebook turned round (the 360° view);
a page deleted after confirming (UC-8); shared read-only, the recipient's view without editing
controls (UC-11/12); pinned where the owner stands and found by someone walking near it (UC-13);
the battery through a replaced `navigator.getBattery` (UC-14: the blocking alert at 4 %, "I am
charging"); the camera through Chromium's fake capture device fed a dark frame and a daylight
frame (UC-15: the light judged). axe-core checks every screen; screenshots go to
docs/screenshots/ar-notebook-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402  (the browser: Chromium at a phone's size, axe, screenshots)
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import token_of  # noqa: E402

ROOT = napkin_notes.ROOT
CONFIG = os.path.join(ROOT, "config", "apps", "ar-notebook.yaml")
N = "/api/v1/notebooks"
HERE = {"latitude": 38.7223, "longitude": -9.1393, "accuracy": 10}
NEAR = {"latitude": 38.7224, "longitude": -9.1394, "accuracy": 10}
# The phone's battery, as the page sees it; the walk moves it with window.__battery(level, charging).
BATTERY = """(() => {
  const listeners = {};
  const state = { level: 0.8, charging: false, addEventListener(type, f) { (listeners[type] ||= []).push(f); } };
  window.__battery = (level, charging) => {
    state.level = level; state.charging = charging;
    for (const f of [...(listeners.levelchange || []), ...(listeners.chargingchange || [])]) f();
  };
  navigator.getBattery = () => Promise.resolve(state);
  navigator.share = async (data) => { window.__shared = data; };
})();"""


def shot(page, name):
    webwalk.shot(page, "ar-notebook", name)


def screen(page, name, file=None):
    webwalk.screen(page, "ar-notebook", name, file)


def frames(data):
    """One-frame Y4M videos for Chromium's fake camera: a dark room and daylight."""
    paths = {}
    for name, (y, u, v) in {"dark": (18, 128, 128), "daylight": (200, 124, 126)}.items():
        path = os.path.join(data, f"{name}.y4m")
        with open(path, "wb") as handle:
            handle.write(b"YUV4MPEG2 W320 H240 F30:1 Ip A1:1 C420jpeg\n")
            for _ in range(3):
                handle.write(b"FRAME\n" + bytes([y]) * (320 * 240) + bytes([u]) * (160 * 120) + bytes([v]) * (160 * 120))
        paths[name] = path
    return paths


def picture(data):
    path = os.path.join(data, "leaf.jpg")
    subprocess.run(["vips", "xyz", path + ".v", "300", "200"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1", "30", "--uchar"], check=True)
    return path


def phone(browser, server, where=HERE):
    return webwalk.phone(browser, server, init_script=BATTERY, geolocation=where,
                         permissions=["geolocation", "clipboard-read", "clipboard-write", "camera"])


def notebook_of(server, token):
    _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
    first = listing["items"][0]
    _, content, _ = call(server, "GET", f"{N}/notebooks/{first['id']}", token=token)
    return content


def sign_up(page, user):
    page.goto("/")
    webwalk.sign_in(page, user, create=True)


def where(page):
    return page.text_content(".turn-row .where")


def owner_walk(page, server, data):
    sign_up(page, "web-ann")
    page.wait_for_selector("nb-welcome")
    check("sign-up shows the welcome and instructions (FR3.2.2)", page.is_visible("text=Welcome to AR Notebook"))
    screen(page, "the welcome", "welcome")
    page.click("text=Open my notebook")
    page.wait_for_selector("nb-book .sheet.cover")
    token = token_of(page)
    content = notebook_of(server, token)
    check("opening gives a new default notebook, its cover shown (UC-3)", content["notebook"]["name"] == "My notebook"
          and where(page).startswith("Cover"), content["notebook"])
    screen(page, "the cover", "cover")

    page.click("nb-book button:has-text('New page')")
    page.check("dialog input[value='two-slots']")
    page.check("dialog input[value='mint']")
    page.click("dialog button:has-text('OK')")
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent === 'Page 1 of 1'")
    content = notebook_of(server, token)
    check("a new page from the two-slot template in mint (UC-4)", [(p["template"], p["background"]) for p in content["pages"]] == [("two-slots", "mint")],
          content["pages"])

    page.click("nb-book button:has-text('Write')")
    page.fill("#nb-text", "Cells are small")
    page.click("dialog button:has-text('Add')")
    page.wait_for_selector(".sheet .item-text:has-text('Cells are small')")
    page.evaluate("navigator.clipboard.writeText('Mitochondria')")
    page.click("nb-book button:has-text('Paste')")
    page.wait_for_selector(".sheet .item-clipboard:has-text('Mitochondria')")
    page.evaluate("navigator.clipboard.writeText('x'.repeat(141))")
    page.click("nb-book button:has-text('Paste')")
    page.wait_for_selector(".notice")
    _, problem, _ = call(server, "POST", f"{N}/notebooks/{content['notebook']['id']}/pages/1/items", {"kind": "clipboard", "text": "x" * 141}, token=token)
    shown = page.text_content(".notice")
    check("pasting 141 characters shows the server's refusal as its sentence (UC-5)", problem["detail"] in shown, (shown, problem))
    page.click(".notice button")
    with page.expect_file_chooser() as chooser:
        page.click("nb-book button:has-text('Picture')")
    chooser.value.set_files(picture(data))
    page.wait_for_selector(".sheet .item-image img", timeout=15_000)
    items = notebook_of(server, token)["pages"][0]["items"]
    check("typed, pasted and a picture from the gallery are on the page, in the template's slots, then centred (UC-6/7)",
          [i["kind"] for i in items] == ["text", "clipboard", "image"] and [i.get("slot") for i in items[:2]] == [0, 1], items)
    screen(page, "a page with items", "page")

    page.click("nb-book button:has-text('Undo')")
    page.wait_for_function("() => !document.querySelector('.sheet .item-image')")
    check("undo takes the last insert (the picture) away (UC-9)", [i["kind"] for i in notebook_of(server, token)["pages"][0]["items"]] == ["text", "clipboard"])

    # With the picture gone, drag the text far past the bottom edge: the server keeps it inside the page's margins.
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator(".sheet .item-text").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 300, steps=6)
    page.mouse.up()
    page.wait_for_function("() => !document.querySelector('.sheet .item-text')?.style.top.startsWith('5%')")
    page.wait_for_timeout(500)
    moved = next(i for i in notebook_of(server, token)["pages"][0]["items"] if i["kind"] == "text")
    shown = page.evaluate("document.querySelector('.sheet .item-text').style.top")
    check("an item dragged past the edge moves, and stays inside the page where the server put it (UC-10)",
          moved["frame"]["y"] > items[0]["frame"]["y"] and moved["frame"]["y"] + moved["frame"]["height"] <= 800
          and abs(float(shown.rstrip("%")) - moved["frame"]["y"] / 8) < 0.01, (moved["frame"], shown))

    # Turning: a swipe right goes back to the cover, the button forward; a second page, swiped to.
    page.evaluate("window.scrollTo(0, 0)")
    stage = page.locator(".stage").bounding_box()
    y = stage["y"] + stage["height"] / 2
    page.mouse.move(stage["x"] + 20, y)
    page.mouse.down()
    page.mouse.move(stage["x"] + 220, y, steps=5)
    page.mouse.up()
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent.startsWith('Cover')")
    page.click("[aria-label='Next page']")
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent === 'Page 1 of 1'")
    page.click("nb-book button:has-text('New page')")
    page.click("dialog button:has-text('OK')")
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent === 'Page 2 of 2'")
    page.click("[aria-label='Previous page']")
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent === 'Page 1 of 2'")
    stage = page.locator(".stage").bounding_box()
    page.mouse.move(stage["x"] + stage["width"] - 10, y)
    page.mouse.down()
    page.mouse.move(stage["x"] + stage["width"] - 210, y, steps=5)
    page.mouse.up()
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent === 'Page 2 of 2'")
    check("pages turn by swiping and by the arrows", True)

    page.fill("#turn", "180")
    page.dispatch_event("#turn", "input")
    turned = page.evaluate("getComputedStyle(document.querySelector('.book')).getPropertyValue('--turn').trim()")
    check("the slider turns the notebook round (the 360° view)", turned == "180deg", turned)
    shot(page, "turned")
    page.fill("#turn", "0")
    page.dispatch_event("#turn", "input")

    page.click("nb-book button:has-text('Delete page')")
    page.wait_for_selector("dialog.confirm")
    question = page.text_content("dialog.confirm p")
    page.click("dialog.confirm button.danger")
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent.endsWith('of 1')")
    check("deleting a page asks first, saying what goes, then deletes it (UC-8)", "Delete page 2" in question
          and len(notebook_of(server, token)["pages"]) == 1, question)
    page.click("[aria-label='Previous page']") if "Page 1" not in where(page) else None
    return token


def share_and_pin(browser, server, page, token):
    page.click("nb-book button:has-text('Pin here')")
    page.wait_for_selector("nb-book button:has-text('Pinned here')")
    content = notebook_of(server, token)
    check("the notebook is pinned where its owner stands (UC-13)", abs(content["notebook"]["pin"]["latitude"] - HERE["latitude"]) < 1e-6, content["notebook"])
    page.click("nb-book button:has-text('Share')")
    page.wait_for_function("() => window.__shared !== undefined")
    link = page.evaluate("window.__shared.url")
    check("Share hands the share sheet a link into the app (UC-11)", "/#/accept/" in link, link)

    second, reader = phone(browser, server, where=NEAR)
    sign_up(reader, "web-bea")
    reader.wait_for_selector("nb-welcome")
    reader.click("text=Open my notebook")
    reader.wait_for_selector("nb-book")
    reader.wait_for_selector(".nearby-bar", timeout=15_000)
    banner = reader.text_content(".nearby-bar")
    check("walking near the pinned notebook shows it (watchPosition → nearby, UC-13)", "My notebook" in banner and "m from you" in banner, banner)
    reader.goto(link.replace(server.base, ""))
    reader.wait_for_selector("nb-book .warning")
    controls = reader.eval_on_selector_all(".nb-actions button", "els => els.map(e => e.textContent)")
    check("the recipient's view is read-only: no editing controls (UC-12)",
          not any(c in controls for c in ("New page", "Write", "Paste", "Picture", "Undo", "Delete page", "Share")), controls)
    screen(reader, "the read-only view", "shared")
    second.close()


def battery(page):
    page.evaluate("window.__battery(0.04, false)")
    page.wait_for_selector("dialog.battery")
    page.keyboard.press("Escape")
    check("at 4 % the low-battery alert blocks, and Escape does not close it (UC-14)", page.is_visible("dialog.battery"))
    screen(page, "the battery alert", "battery")
    page.click("dialog.battery button:has-text('I am charging')")
    page.wait_for_function("() => document.querySelector('dialog.battery .error')?.textContent.length > 0")
    said = page.text_content("dialog.battery .error")
    check("“I am charging” before the phone is: the server's sentence", len(said) > 10, said)
    page.evaluate("window.__battery(0.04, true)")
    page.wait_for_selector("dialog.battery", state="detached", timeout=10_000)
    check("charging: the alert goes", True)


def camera(page, expect_warning, name):
    page.click("nb-book button:has-text('View in your room')")
    page.wait_for_selector(".stage.over-camera video.camera")
    page.wait_for_selector("p.light", timeout=15_000)
    verdict = page.get_attribute("p.light", "class")
    text = page.text_content("p.light")
    check(f"a {name} camera frame is judged before placing: {'a warning' if expect_warning else 'no warning'} (UC-15)",
          ("warning" in verdict) == expect_warning, (verdict, text))
    if expect_warning:
        screen(page, "the camera view", "camera")
    page.click("nb-book button:has-text('View in your room')")


def notebooks_screen(page, server, token):
    page.goto("/#/notebooks")
    page.wait_for_selector("nb-notebooks .big-link")
    screen(page, "my notebooks", "notebooks")
    page.click("nb-notebooks button.danger >> nth=0")
    page.wait_for_selector("dialog.confirm")
    page.click("dialog.confirm button.danger")
    page.wait_for_function("() => !document.querySelector('nb-notebooks button.danger')")
    _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
    check("a notebook is deleted after its confirmation (UC-8)", listing["items"] == [], listing)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-ar-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=CONFIG)
        videos = frames(data)

        def walk(browser):
            context, page = phone(browser, server)
            token = owner_walk(page, server, data)
            share_and_pin(browser, server, page, token)
            battery(page)
            camera(page, True, "dark")
            # A second browser whose camera sees daylight.
            daylight = browser.browser_type.launch(executable_path=webwalk.chromium_path(), args=[
                "--no-sandbox", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                f"--use-file-for-fake-video-capture={videos['daylight']}"])
            try:
                _, other = phone(daylight, server)
                other.goto("/")
                webwalk.sign_in(other, "web-ann")
                other.wait_for_selector("nb-welcome, nb-book")
                if other.is_visible("nb-welcome"):
                    other.click("text=Open my notebook")
                other.wait_for_selector("nb-book .stage")
                camera(other, False, "daylight")
            finally:
                daylight.close()
            notebooks_screen(page, server, token)
        code = webwalk.run(server, walk, args=["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                                               f"--use-file-for-fake-video-capture={videos['dark']}"])
    sys.exit(code)


if __name__ == "__main__":
    main()
