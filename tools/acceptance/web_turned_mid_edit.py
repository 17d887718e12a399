#!/usr/bin/env python3
"""A phone turned in the middle of typing keeps the field being typed in on the screen: Napkin
Notes' note text and iRemember's notes on a photo, at 390x844 turned to 844x390. Before, the page
stayed scrolled where it was and the field went below the fold while the keyboard still typed
into it, so what was typed could not be seen. Also turned back, and typed on: every letter kept.

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_turned_mid_edit.py --binary .build/debug/quire
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iremember  # noqa: E402
import napkin_notes  # noqa: E402  (shared harness: Server, check)
import webwalk  # noqa: E402
from napkin_notes import check, free_port  # noqa: E402
from web_no_lost_work import iremember_with_photo, new_note, new_user  # noqa: E402

ROOT = napkin_notes.ROOT
NAPKIN = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")
TURNED = {"width": 844, "height": 390}
UPRIGHT = {"width": 390, "height": 844}

IN_VIEW = """sel => { const el = document.querySelector(sel); const box = el.getBoundingClientRect();
  const header = document.querySelector('header'); const top = header && getComputedStyle(header).position !== 'static'
    ? header.getBoundingClientRect().bottom : 0;
  return document.activeElement === el && box.top >= top - 1 && box.top + Math.min(box.height, 48) <= innerHeight + 1; }"""


def in_view(page, selector, timeout=3_000):
    try:
        page.wait_for_function(IN_VIEW, arg=selector, timeout=timeout)
        return True
    except Exception:  # noqa: BLE001  (a timeout is the answer "no")
        return False


def where(page, selector):
    return page.evaluate("sel => { const b = document.querySelector(sel).getBoundingClientRect(); return [Math.round(b.top), Math.round(b.bottom), innerHeight, document.activeElement?.id]; }", selector)


def turned(page, app, selector, typed):
    """Types in `selector`, turns the phone, checks the field is in view, types on, turns back."""
    page.click(selector)
    page.keyboard.press("End")
    page.keyboard.type(typed[0], delay=10)
    page.set_viewport_size(TURNED)
    shown = in_view(page, selector)
    webwalk.shot(page, app, "turned-mid-edit")
    check(f"{app}: turned to 844x390 mid-edit, the field being typed in is on the screen", shown, where(page, selector))
    page.keyboard.type(typed[1], delay=10)
    page.set_viewport_size(UPRIGHT)
    back = in_view(page, selector)
    value = page.input_value(selector)
    check(f"{app}: turned back upright, the field is in view and holds every letter typed",
          back and value.endswith(typed[0] + typed[1]), (where(page, selector), value))


def napkin(browser):
    context, page = new_user(browser, SERVER["napkin"], "turner")
    new_note(page, "Turned")
    turned(page, "napkin", "#note-text", ("milk and eggs", " and bread"))
    context.close()


def album(browser, data):
    context, page, _ = iremember_with_photo(browser, SERVER["iremember"], data, "album-markup drawing-pad .stage img")
    notes = "album-markup textarea"
    turned(page, "iremember", notes, ("Grandma at the lake", ", summer 1975"))
    context.close()


SERVER = {}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    binary = os.path.abspath(parser.parse_args().binary)
    code = 0
    with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
        SERVER["napkin"] = napkin_notes.Server(binary, data, free_port(), config=NAPKIN)
        code |= webwalk.run(SERVER["napkin"], napkin)
    with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
        server = iremember.Server(binary, data, free_port())
        server.config = iremember.make_config(data)
        SERVER["iremember"] = server
        code |= webwalk.run(server, lambda browser: album(browser, data))
    sys.exit(code)


if __name__ == "__main__":
    main()
