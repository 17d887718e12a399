#!/usr/bin/env python3
"""AR Notebook in the browser: two phones of one account change one text (issue 39).

The phone that saves later is told what it replaced ("Changed on another device meanwhile…",
web_ar_notebook.py's two_phones_one_text checks it); this walk checks the other phone, whose text
was replaced: following the sync poke, it says its text was changed on another device, quoting
its own words, with “Bring back mine”, which puts them back on the server; the other phone is
then told the same in turn. A phone that changes its own text twice is told nothing.

    python3 tools/acceptance/web_ar_conflicts.py [--binary .build/debug/quire]

Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ar_notebook  # noqa: E402  (the shipped AR Notebook config)
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402  (the browser: Chromium at a phone's size)
from napkin_notes import call, check, free_port  # noqa: E402
from web_ar_notebook import appears, first_notebook_id, new_phone, second_phone, write_text  # noqa: E402  (its phones' setup)

ROOT = napkin_notes.ROOT
N = "/api/v1/notebooks"
USER = "web-overwritten"


def said(page):
    return page.inner_text("nb-book .nb-said") if page.query_selector("nb-book .nb-said") else ""


def open_change(page, was):
    """The item's “Change the text” dialog, open with its text."""
    page.click(f"nb-book .sheet [aria-label='Text: {was}']")
    page.check("dialog label:has-text('Change the text') input")
    page.click("dialog button:has-text('OK')")
    page.wait_for_selector("#nb-text")


def change_text(page, was, text):
    open_change(page, was)
    page.fill("#nb-text", text)
    page.click("dialog button:has-text('Save')")
    page.wait_for_selector(f".sheet .item-text:has-text('{text}')", timeout=5_000)


def server_text(server, token):
    _, content, _ = call(server, "GET", f"{N}/notebooks/{first_notebook_id(server, token)}", token=token)
    return [i.get("text") for p in content["pages"] for i in p["items"]]


def overwritten_phone_told(browser, server):
    first, page, token = new_phone(browser, server, USER)
    write_text(page, "Lisbon")
    # Its own text changed twice: nothing said about another device.
    change_text(page, "Lisbon", "Lisbon. A")
    change_text(page, "Lisbon. A", "Lisbon. A: Fado")
    page.wait_for_timeout(1_500)
    check("a phone that changes its own text twice is not told it was changed elsewhere",
          "another device" not in said(page) and not page.is_visible("nb-book button:has-text('Bring back mine')"), said(page))

    second, other = second_phone(browser, server, USER)
    other.wait_for_selector(".sheet .item-text:has-text('Lisbon. A: Fado')", timeout=10_000)

    # B's dialog is open with the old text while A saves; B saves after.
    open_change(other, "Lisbon. A: Fado")
    other.fill("#nb-text", "Lisbon. B: LX Factory")
    change_text(page, "Lisbon. A: Fado", "Lisbon. A: Fado in Alfama")
    other.click("dialog button:has-text('Save')")
    check("(the later save, B, is told what it replaced)", appears(other, "nb-book .nb-said:has-text('another device')", 8_000), said(other))

    told = appears(page, "nb-book .nb-said:has-text('Your text was changed on another device')", 10_000)
    words = said(page)
    check("the phone whose text was replaced (A) is told, following the sync poke: its own words quoted, with “Bring back mine”",
          told and "Fado in Alfama" in words and "LX Factory" in words and page.is_visible("nb-book .nb-said button:has-text('Bring back mine')"),
          words or page.inner_text("nb-book")[-300:])
    if not told:
        second.close()
        first.close()
        return
    webwalk.shot(page, "ar-notebook", "text-changed-elsewhere")
    page.click("nb-book .nb-said button:has-text('Bring back mine')")
    back = None
    deadline = time.time() + 10
    while time.time() < deadline:
        back = server_text(server, token)
        if back == ["Lisbon. A: Fado in Alfama"]:
            break
        time.sleep(0.2)
    check("“Bring back mine” puts A's text back, on the server and on the page",
          back == ["Lisbon. A: Fado in Alfama"] and appears(page, ".sheet .item-text:has-text('Fado in Alfama')", 5_000), back)
    turn = appears(other, "nb-book .nb-said:has-text('Your text was changed on another device')", 10_000)
    check("…and B, whose text that replaced, is told in turn, with its own “Bring back mine”",
          turn and "LX Factory" in said(other) and other.is_visible("nb-book .nb-said button:has-text('Bring back mine')"), said(other))
    second.close()
    first.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-ar-conflicts-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=ar_notebook.SHIPPED)
        sys.exit(webwalk.run(server, lambda browser: overwritten_phone_told(browser, server)))


if __name__ == "__main__":
    main()
