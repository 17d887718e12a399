#!/usr/bin/env python3
"""AR Notebook in the browser: two phones of one account change one text (issue 39).

The phone that saves later is told what it replaced ("Changed on another device meanwhile…",
web_ar_notebook.py's two_phones_one_text checks it); this walk checks the other phone, whose text
was replaced: following the sync poke, it says its text was changed on another device, quoting
its own words, with “Bring back mine”, which puts them back on the server; the other phone is
then told the same in turn. A phone that changes its own text twice is told nothing. A change
made offline that, once sent, replaced the other phone's text offers “Bring back theirs”: Change
the text with both; saved, the phone is not told its own change came from another device, and the
other phone's notice says its text is back.

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


def offline_replaced_theirs(browser, server):
    """A's change made offline, sent once online, replaces B's: A is told with “Bring back theirs”,
    which opens Change the text with both; saved, A is not told its own change came from another
    device, and B's notice follows: its text is back."""
    first, page, token = new_phone(browser, server, USER + "-offline")
    write_text(page, "Porto")
    second, other = second_phone(browser, server, USER + "-offline")
    other.wait_for_selector(".sheet .item-text:has-text('Porto')", timeout=10_000)
    first.set_offline(True)
    change_text(page, "Porto", "Porto. A: Ribeira")
    change_text(other, "Porto", "Porto. B: Livraria Lello")
    first.set_offline(False)
    notice = ".notice.replaced:has-text('Livraria Lello')"
    shown = appears(page, notice, 15_000)
    check("A's offline change, sent once online, is said to have replaced B's text, with “Bring back theirs”",
          shown and page.is_visible(f"{notice} button:has-text('Bring back theirs')"), page.inner_text("body")[:400])
    told = appears(other, "nb-book .nb-said:has-text('Your text was changed on another device')", 10_000)
    check("(B is told its text now reads A's)", told and "Ribeira" in said(other), said(other))
    if not shown:
        second.close()
        first.close()
        return
    page.click(f"{notice} button:has-text('Bring back theirs')")
    opened = appears(page, "dialog #nb-text", 8_000)
    value = page.input_value("#nb-text") if opened else ""
    hint = page.inner_text("dialog .hint") if opened and page.query_selector("dialog .hint") else ""
    check("“Bring back theirs” opens Change the text with both texts, theirs first, and says so",
          value == "Porto. B: Livraria Lello\nPorto. A: Ribeira" and "Both texts" in hint, (value, hint))
    webwalk.shot(page, "ar-notebook", "bring-back-theirs")
    if not opened:
        second.close()
        first.close()
        return
    page.fill("#nb-text", "Porto. B: Livraria Lello")
    page.click("dialog button:has-text('Save')")
    back = None
    deadline = time.time() + 10
    while time.time() < deadline:
        back = server_text(server, token)
        if back == ["Porto. B: Livraria Lello"]:
            break
        time.sleep(0.2)
    check("saved, B's text is back on the server", back == ["Porto. B: Livraria Lello"], back)
    page.wait_for_timeout(2_500)
    check("…and A is not told that its own change came from another device",
          "another device" not in said(page), said(page))
    check("…and B's notice follows: its text is back, no “Bring back mine” left",
          appears(other, "nb-book .nb-said:has-text('Your text is back')", 10_000)
          and not other.is_visible("nb-book .nb-said button:has-text('Bring back mine')"), said(other))
    second.close()
    first.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-ar-conflicts-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=ar_notebook.SHIPPED)
        sys.exit(webwalk.run(server, lambda browser: (overwritten_phone_told(browser, server), offline_replaced_theirs(browser, server))))


if __name__ == "__main__":
    main()
