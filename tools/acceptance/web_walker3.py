#!/usr/bin/env python3
"""What a newcomer's two-phone walk of Foreign Note and AR Notebook found losing or hiding work
(walker3), checked on phones of 390×844:

- foreign: a word added offline to a collection that the other phone deletes meanwhile is kept (it
  was dropped: "This word is not there any more."), said by its word, still said after a reload,
  and "Add it again as a new word" puts it, with all that was typed, in a collection that is left.
- ar: a second text written on a blank page does not land on top of the first (every un-slotted
  insert was centred at one place: the first text unreadable and no longer tappable), and a text
  kept for a deleted page and put on a full page does not cover the text already there.
- signout: AR's battery alert "Sign out and close" with a text being written in "Write on the page"
  first says that text is deleted, quoting it (it went unasked: sign-out forgets every draft), and
  once signed out no dialog is left over the sign-in screen (the Write dialog stayed, taking what was
  typed for the user name and password).
- gone: a notebook deleted on the other phone while a text is being written in it: the text is shown
  on the "no longer here" screen with "Copy the text" (its Add went nowhere and it was never shown again).

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_walker3.py --binary .build/debug/quire [--only foreign,ar]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webwalk  # noqa: E402
from napkin_notes import call, check  # noqa: E402
from webwalk import screen, settled, token_of  # noqa: E402
from web_no_lost_work import eventually, new_user  # noqa: E402
from web_ar_notebook import new_phone  # noqa: E402
from web_offline_deleted import kept_notice, notices_clean, online, reloaded_still_kept  # noqa: E402

N = "/api/v1/notebooks"
V = "/api/v1/vocabulary"


def foreign_note(browser, server):
    context, a = new_user(browser, server, "walker3-words", ready="vocab-collections")
    token = token_of(a)
    kept_in = call(server, "POST", f"{V}/collections", {"name": "Italian"}, token=token)[1]
    doomed = call(server, "POST", f"{V}/collections", {"name": "German"}, token=token)[1]
    a.goto(f"/#/c/{doomed['id']}")
    a.wait_for_selector("text=Add word", timeout=15_000)
    settled(a, 20_000)
    context.set_offline(True)
    a.evaluate("window.dispatchEvent(new Event('offline'))")
    a.click("text=Add word")
    a.wait_for_selector("#entry-word")
    a.fill("#entry-word", "die Milch")
    a.fill("#entry-definitions", "the milk\nmilk in general")
    a.fill("#entry-example", "Die Milch ist kalt.")
    a.click("vocab-entry-form button:has-text('Save')")
    a.wait_for_selector("quire-status[data-state=offline]")
    a.wait_for_timeout(800)
    # The other phone deletes "German" meanwhile.
    call(server, "DELETE", f"{V}/collections/{doomed['id']}", token=token)
    online(context, a)
    text = kept_notice(a, "die Milch")
    what = "Foreign Note (new word, collection deleted)"
    check(f"{what}: the word added offline to a collection deleted on the other phone is kept and said, naming “die Milch”",
          text is not None, a.inner_text("body")[:500])
    notices_clean(a, what, text)
    screen(a, "walker3", "foreign note new word kept", "foreign-note-new-word-kept")
    reloaded_still_kept(a, "die Milch", what)
    a.click(".notice.kept button:has-text('Add it again as a new word')")
    found = []
    for _ in range(40):
        hits = [e for e in call(server, "GET", f"{V}/search?limit=50&q=milch", token=token)[1].get("items", []) if e.get("word") == "die Milch"]
        found = [call(server, "GET", f"{V}/entries/{e['id']}", token=token)[1] for e in hits]
        if found:
            break
        time.sleep(0.5)
    check(f"{what}: “Add it again as a new word” puts it on the server once, with what was typed, in “Italian” (the collection left)",
          len(found) == 1 and found[0].get("definitions") == ["the milk", "milk in general"]
          and found[0].get("example") == "Die Milch ist kalt." and found[0].get("collection") == kept_in["id"], found)
    a.wait_for_timeout(500)
    check(f"{what}: …and the notice goes", a.locator(".notice.kept").count() == 0, a.inner_text("header.bar")[:300])
    context.close()


def overlaps(f, g):
    return f["x"] < g["x"] + g["width"] and g["x"] < f["x"] + f["width"] and f["y"] < g["y"] + g["height"] and g["y"] < f["y"] + f["height"]


def write_text(page, text):
    page.click("nb-book button:has-text('Write')")
    page.wait_for_selector("dialog[open] #nb-text")
    page.fill("#nb-text", text)
    page.click("dialog button:has-text('Add')")


def items_on(server, token, nid, number):
    content = call(server, "GET", f"{N}/notebooks/{nid}", token=token)[1]
    return [i for p in content.get("pages", []) if p.get("number") == number for i in p.get("items", [])]


def ar_notebook(browser, server):
    context, a, token = new_phone(browser, server, "walker3-pages")  # page 1: Blank, the dialog's first layout
    nid = call(server, "GET", f"{N}/notebooks", token=token)[1]["items"][0]["id"]
    write_text(a, "Milk, eggs and bread")
    eventually(a, "() => document.querySelectorAll('nb-book .item').length === 1", 10_000)
    settled(a, 20_000)
    write_text(a, "Call the plumber on Monday")
    eventually(a, "() => document.querySelectorAll('nb-book .item').length === 2", 10_000)
    settled(a, 20_000)
    items = items_on(server, token, nid, 1)
    frames = [i.get("frame") for i in items]
    what = "AR Notebook (blank page)"
    check(f"{what}: a second text written on a blank page is placed apart from the first, not on top of it",
          len(frames) == 2 and all(frames) and not overlaps(frames[0], frames[1]), frames)
    a.wait_for_timeout(500)
    # On the phone: each text is the one a tap at its middle reaches (the first was covered by the second).
    reached = a.evaluate("""() => [...document.querySelectorAll('nb-book .item')].map((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return !!hit && el.contains(hit);
    })""")
    check(f"{what}: on the phone, both texts can be read and tapped (a tap at each one's middle reaches it)",
          reached == [True, True], reached)
    screen(a, "walker3", "ar two texts on a blank page", "ar-two-texts-blank")
    # A text put on a page "centred" (the server's place for an insert without a free slot) does not
    # cover one already there: a one-box page holding a text, and a text sent without a slot.
    page = call(server, "POST", f"{N}/notebooks/{nid}/pages", {"template": "one-slot", "background": "cream"}, token=token)[1]
    number = page.get("number") or 2
    call(server, "POST", f"{N}/notebooks/{nid}/pages/{number}/items", {"kind": "text", "text": "In the box"}, token=token)
    call(server, "POST", f"{N}/notebooks/{nid}/pages/{number}/items", {"kind": "text", "text": "Kept, put centred"}, token=token)
    frames = {i.get("text"): i.get("frame") for i in items_on(server, token, nid, number)}
    box, extra = frames.get("In the box"), frames.get("Kept, put centred")
    middle = box and {"x": box["x"] + box["width"] / 2 - 1, "y": box["y"] + box["height"] / 2 - 1, "width": 2, "height": 2}
    check("AR Notebook (full page): a text put centred on a full one-box page leaves the middle of the box's text, where it is written, uncovered",
          bool(box and extra) and not overlaps(extra, middle), frames)
    # Shared with a second person: "My notebook" beside "from walker3-pages · read only" keeps its words at 390 px.
    link = call(server, "POST", f"{N}/notebooks/{nid}/share", {}, token=token)[1]
    other_context, other, _ = new_phone(browser, server, "walker3-reader", first_page=False)
    call(server, "POST", f"{N}/shared", {"token": link["token"]}, token=token_of(other))
    other.goto("/#/notebooks")
    other.wait_for_selector("nb-notebooks ul[aria-label='Shared with me'] a", timeout=20_000)
    heights = other.evaluate("""() => { const link = document.querySelector("nb-notebooks ul[aria-label='Shared with me'] a");
      const [name, note] = link.querySelectorAll(":scope > span"); const line = parseFloat(getComputedStyle(name).lineHeight) || 24;
      return [name.getBoundingClientRect().height, line, note.getBoundingClientRect().right, link.getBoundingClientRect().right]; }""")
    check("AR Notebook (shared with me): the notebook's name is on one line beside or above “from … · read only” (it broke inside the word)",
          heights[0] < heights[1] * 1.5, heights)
    check("AR Notebook (shared with me): “from … · read only” stays inside its row (it ran past the card's edge)",
          heights[2] <= heights[3], heights)
    screen(other, "walker3", "ar shared with me", "ar-shared-with-me")
    other_context.close()
    context.close()


BATTERY = """window.__bat = {level: 0.9, charging: false, chargingTime: Infinity, dischargingTime: 6000, _l: {},
  addEventListener(t, f) { (this._l[t] = this._l[t] || []).push(f); }, removeEventListener() {},
  dispatch(t) { (this._l[t] || []).forEach((f) => f(new Event(t))); }};
navigator.getBattery = () => Promise.resolve(window.__bat);"""


def battery_low(page, level):
    page.evaluate(f"window.__bat.level = {level}; window.__bat.dispatch('levelchange')")
    page.wait_for_selector("dialog.battery[open]", timeout=15_000)


def ar_sign_out(browser, server):
    context, a, _ = new_phone(browser, server, "walker3-battery")
    context.add_init_script(BATTERY)
    a.reload()
    a.wait_for_selector("nb-book button:has-text('Write')", timeout=20_000)
    typed = "A long note about the garden, half written"
    a.click("nb-book button:has-text('Write')")
    a.wait_for_selector("dialog[open] #nb-text")
    a.fill("#nb-text", typed)
    battery_low(a, 0.03)
    a.click("dialog.battery button:has-text('Sign out and close')")
    asked = eventually(a, f"() => [...document.querySelectorAll('dialog[open]')].some((d) => d.innerText.includes({typed[:30]!r}))", 5_000)
    what = "AR Notebook (battery: Sign out and close)"
    check(f"{what}: with a text being written and not added, signing out first says it is deleted, quoting it",
          asked, a.inner_text("body")[:400])
    screen(a, "walker3", "ar sign out asks for the text being written", "ar-signout-typing")
    if asked:
        a.click("dialog[open]:has(#confirm-question) button:has-text('Cancel')")
        a.wait_for_timeout(500)
        check(f"{what}: Cancel keeps it: the Write dialog is still open with the text", a.input_value("#nb-text") == typed,
              a.inner_text("body")[:300])
    battery_low(a, 0.02)
    a.click("dialog.battery button:has-text('Sign out and close')")
    if eventually(a, "() => !!document.querySelector('dialog[open] button') && [...document.querySelectorAll('dialog[open] button')].some((b) => b.textContent === 'Sign out and delete')", 5_000):
        a.click("dialog[open]:has(#confirm-question) button:has-text('Sign out and delete')")
    a.wait_for_selector("#username, input[autocomplete=username]", timeout=15_000)
    a.wait_for_timeout(800)
    left = a.evaluate("[...document.querySelectorAll('dialog[open]')].map((d) => d.innerText.slice(0, 60))")
    check(f"{what}: once signed out, no dialog of the notebook is left open over the sign-in screen", left == [], left)
    context.close()


def ar_notebook_gone(browser, server):
    context, a, token = new_phone(browser, server, "walker3-gone")
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    nid = call(server, "GET", f"{N}/notebooks", token=token)[1]["items"][0]["id"]
    settled(a, 20_000)
    typed = "Directions to the cabin: left after the bridge"
    a.click("nb-book button:has-text('Write')")
    a.wait_for_selector("dialog[open] #nb-text")
    a.fill("#nb-text", typed)
    a.wait_for_timeout(500)
    # The other phone deletes the notebook meanwhile.
    _, ask, _ = call(server, "DELETE", f"{N}/notebooks/{nid}", token=token)
    call(server, "DELETE", f"{N}/notebooks/{nid}?confirm={ask.get('confirm')}", token=token)
    eventually(a, "() => /no longer here/.test(document.body.innerText)", 20_000)
    a.wait_for_timeout(500)
    what = "AR Notebook (notebook deleted while writing)"
    body = a.inner_text("main")
    check(f"{what}: the text being written is shown on the “no longer here” screen (its Add went nowhere, the text never shown again)",
          typed in body and a.locator("dialog[open]").count() == 0, (body[:300], a.locator("dialog[open]").count()))
    screen(a, "walker3", "ar notebook gone with the text being written", "ar-notebook-gone")
    if typed in body:
        a.click("main button:has-text('Copy the text')")
        a.wait_for_timeout(500)
        copied = a.evaluate("navigator.clipboard.readText()")
        check(f"{what}: “Copy the text” copies it", copied == typed, copied)
    context.close()


def main():
    webwalk.main([("foreign", "foreign-note", foreign_note), ("ar", "ar-notebook", ar_notebook),
                  ("signout", "ar-notebook", ar_sign_out), ("gone", "ar-notebook", ar_notebook_gone)])


if __name__ == "__main__":
    main()
