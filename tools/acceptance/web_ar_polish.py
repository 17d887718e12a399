#!/usr/bin/env python3
"""AR Notebook's smaller findings of the newcomer walk, in a real browser at a phone's size
(390×844), against the real server and the shipped config (the helpers of web_ar_notebook.py):

- a “Two boxes: top and bottom” page draws its two boxes (an empty one looked blank);
- in “Cover and name” every cover's radio keeps its size (the third, beside two lines of words,
  was squashed to 15 px);
- the name on a picture cover sits on a dark scrim (white on a light picture was unreadable);
- a confirmation such as “Undone: the text is back…” is shown on screen (a toast), not only said
  to screen readers.

Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from napkin_notes import check  # noqa: E402
from web_ar_notebook import appears, at_page, change_text, new_phone, picture_then_cover_dialog, run_walk, screen, write_text  # noqa: E402


def two_boxes(browser, server):
    context, page, _ = new_phone(browser, server, "web-polish-boxes", first_page=False)
    # One tap: the book just opened is not drawn again when the feed's first pull changes nothing
    # shown (it was, and a tap landing in that instant opened nothing; web_walker5 turnrace).
    page.click("nb-book button:has-text('New page')")
    page.wait_for_selector("dialog input[value='two-slots']", timeout=10_000)
    page.check("dialog input[value='two-slots']")
    page.click("dialog button:has-text('OK')")
    at_page(page, "Page 1 of 1")
    boxes = page.eval_on_selector_all(".sheet.page .slot", """els => els.map(e => { const r = e.getBoundingClientRect();
        return [Math.round(r.top), Math.round(r.height), getComputedStyle(e).borderTopStyle]; })""")
    check("a new “Two boxes: top and bottom” page draws its two empty boxes, one above the other, outlined",
          len(boxes) == 2 and all(h > 40 and style != "none" for _, h, style in boxes) and boxes[0][0] + boxes[0][1] <= boxes[1][0] + 1, boxes)
    screen(page, "a two-box page", "polish-two-boxes")
    write_text(page, "In the top box")
    left = page.eval_on_selector_all(".sheet.page .slot", "els => els.length")
    check("…a text put in one box leaves the other outlined (one box drawn)", left == 1, left)
    context.close()


def cover_dialog_and_picture(browser, server):
    context, page, _ = new_phone(browser, server, "web-polish-cover", first_page=False)
    page.click("nb-book button:has-text('Cover and name')")
    radios = page.eval_on_selector_all("dialog input[name=cover]", """els => els.map(e => { const r = e.getBoundingClientRect();
        return [e.value, Math.round(r.width), Math.round(r.height)]; })""")
    check("in “Cover and name” every cover's radio keeps its size (none squashed beside two lines of words)",
          len(radios) == 3 and all(w >= 20 for _, w, _ in radios), radios)
    page.click("dialog button:has-text('Cancel')")
    # A picture cover: a light picture, the name on it readable.
    offered = picture_then_cover_dialog(page)
    if offered:
        page.check("dialog label:has-text('The picture on page 1') input")
        page.click("dialog button:has-text('Save')")
    else:
        page.click("dialog button:has-text('Cancel')")
    shown = appears(page, ".sheet.cover-image .cover-title", 8_000)
    backing = page.evaluate("() => { const t = document.querySelector('.sheet.cover-image .cover-title'); return t ? getComputedStyle(t).backgroundColor : null; }")
    rgba = [float(n) for n in re.findall(r"[\d.]+", backing or "")]
    dark_enough = len(rgba) == 4 and max(rgba[:3]) <= 40 and rgba[3] >= 0.5
    check("the name on a picture cover sits on a dark scrim (at least half opaque) so white text reads on any picture",
          offered and shown and dark_enough, backing)
    screen(page, "a picture cover with its name on a scrim", "polish-cover-picture")
    context.close()


def undo_shown(browser, server):
    context, page, _ = new_phone(browser, server, "web-polish-undo")
    write_text(page, "First words")
    change_text(page, "First words", "Second words")
    page.wait_for_selector(".sheet .item-text:has-text('Second words')", timeout=5_000)
    page.click("nb-book button:has-text('Undo')")
    page.wait_for_selector(".sheet .item-text:has-text('First words')", timeout=5_000)
    toast = None
    try:
        toast = page.wait_for_selector(".toast:has-text('Undone')", state="visible", timeout=3_000).inner_text()
    except Exception:
        pass
    said = page.evaluate("() => document.getElementById('announcer')?.textContent ?? ''")
    check("Undo's confirmation (“Undone: …”) is shown on the screen, not only said to screen readers",
          bool(toast) and toast.startswith("Undone"), (toast, said))
    screen(page, "Undo's confirmation shown", "polish-undo")
    context.close()


def main():
    def walk(browser, server, _provider):
        two_boxes(browser, server)
        cover_dialog_and_picture(browser, server)
        undo_shown(browser, server)
    sys.exit(run_walk("web-ar-polish", walk))


if __name__ == "__main__":
    main()
