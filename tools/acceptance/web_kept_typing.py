#!/usr/bin/env python3
"""What a person typed survives the other phone deleting what it was for (a walk of two phones of one
account, AR Notebook and Foreign Note, found by a newcomer's walk; /tmp/walkfix/findings.md 1-3):

- AR Notebook: a text changed offline that the other phone removed is kept, and “Keep my text as a
  new text” puts it on the page (it was refused with 422, the text lost: kind "keyboard").
- AR Notebook: text typed into “Change the text” or “Write on the page” and not saved (the tab closed)
  comes back when the notebook opens again even when the other phone removed that text or deleted
  that page meanwhile (it was dropped under “What you were writing is back.”), and “Keep my text as
  a new text” offered online does not bring the same text back a second time. When the page left
  is full, the text goes on a new page (it went centred on the full page, under its item).
- Foreign Note: changes typed into Edit word and not saved (the tab closed) are shown again, with the
  word as it was and “Add it again as a new word”, when the other phone deleted the word meanwhile
  (they were hidden behind “This word is not there any more.”).

The other phone is the account's API (what phone B does). Prints one line per check and
`web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_kept_typing.py --binary .build/debug/quire [--only ar,foreign]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webwalk  # noqa: E402
from napkin_notes import call, check  # noqa: E402
from webwalk import screen, settled, token_of  # noqa: E402
from web_no_lost_work import eventually, new_user  # noqa: E402
from web_ar_notebook import add_page, at_page, new_phone  # noqa: E402

N = "/api/v1/notebooks"
V = "/api/v1/vocabulary"


def texts_on_server(server, token, nid):
    content = call(server, "GET", f"{N}/notebooks/{nid}", token=token)[1]
    return [(p.get("number"), i.get("text")) for p in content.get("pages", []) for i in p.get("items", []) if i.get("text")]


def server_has(server, token, nid, text, tries=40):
    """The (page number, text) pairs on the server once `text` is among them (or the last seen)."""
    found = []
    for _ in range(tries):
        found = texts_on_server(server, token, nid)
        if any(t == text for _, t in found):
            break
        time.sleep(0.5)
    return found


def item_on_server(server, token, nid, page, text):
    return call(server, "POST", f"{N}/notebooks/{nid}/pages/{page}/items", {"kind": "text", "text": text}, token=token)[1]["item"]


def reopen(context, page):
    """The tab closed and the app opened again on the same phone (its storage kept): the new page."""
    page.close()
    again = context.new_page()
    webwalk.PAGES.append(again)
    again.goto("/")
    again.wait_for_selector("nb-book .stage")
    return again


def typed_then_page_deleted(a, context, server, token, nid, text):
    """`text` typed into Write on page 2 and not saved, page 2 deleted on the other phone, the tab
    closed and the notebook opened again: (the new page, whether the dialog is back with `text`)."""
    a.click("nb-book button:has-text('Write')")
    a.wait_for_selector("dialog[open] #nb-text")
    a.fill("#nb-text", text)
    a.wait_for_timeout(300)
    ask = call(server, "DELETE", f"{N}/notebooks/{nid}/pages/2", token=token)[1]
    call(server, "DELETE", f"{N}/notebooks/{nid}/pages/2?confirm={ask.get('confirm')}", token=token)
    a = reopen(context, a)
    return a, eventually(a, f"() => document.querySelector('dialog[open] #nb-text')?.value === {text!r}", 10_000)


def change_text_dialog(page, text):
    """Taps the page's text `text`, chooses “Change the text”: the text dialog open."""
    page.locator("nb-book [data-item]", has_text=text).first.tap()
    page.wait_for_selector("dialog[open] input[value=edit]")
    page.check("dialog[open] input[value=edit]")
    page.click("dialog[open] button:has-text('OK')")
    page.wait_for_selector("dialog[open] #nb-text")


def signin_error_in_view(browser, server):
    """Finding 7: a shared link opened signed out, “Create an account” with nothing typed: its error in view."""
    context, page = webwalk.phone(browser, server)
    page.goto("/#/accept/" + "x" * 43)
    page.wait_for_selector("quire-signin form")
    page.get_by_role("button", name="Create an account").click()
    said = eventually(page, "() => (document.querySelector('#signin-error')?.textContent ?? '').length > 0", 10_000)
    page.wait_for_timeout(400)
    box = page.evaluate("() => { const r = document.querySelector('#signin-error').getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }")
    check("AR Notebook: signing up from a shared link with nothing typed, the error is in view (it was below the fold, at 835 of 844)",
          said and box[0] >= 0 and box[1] <= box[2] + 1, box)
    context.close()


def ar_notebook(browser, server):
    signin_error_in_view(browser, server)
    context, a, token = new_phone(browser, server, "kept-typing")
    nid = call(server, "GET", f"{N}/notebooks", token=token)[1]["items"][0]["id"]
    what = "AR Notebook"

    # 1. Changed offline, removed on the other phone: kept, and kept as a new text for real.
    item = item_on_server(server, token, nid, 1, "Bridge at dawn")
    eventually(a, "() => /Bridge at dawn/.test(document.querySelector('nb-book')?.innerText ?? '')", 15_000)
    context.set_offline(True)
    a.evaluate("window.dispatchEvent(new Event('offline'))")
    change_text_dialog(a, "Bridge at dawn")
    a.fill("#nb-text", "Bridge at dawn, fog on the river (typed offline)")
    a.click("dialog[open] button:has-text('Save')")
    a.wait_for_selector("quire-status[data-state=offline]")
    call(server, "DELETE", f"{N}/notebooks/{nid}/items/{item['id']}", token=token)
    context.set_offline(False)
    a.evaluate("window.dispatchEvent(new Event('online'))")
    kept = eventually(a, "() => [...document.querySelectorAll('.notice.kept')].some((n) => n.innerText.includes('fog on the river'))", 20_000)
    check(f"{what}: a text changed offline and removed on the other phone is kept and said", kept, a.inner_text("header.bar")[:300])
    if kept:
        a.click(".notice.kept button:has-text('Keep my text as a new text')")
    found = server_has(server, token, nid, "Bridge at dawn, fog on the river (typed offline)")
    check(f"{what}: “Keep my text as a new text” puts the changed text on the page (it was refused, 422, and lost)",
          (1, "Bridge at dawn, fog on the river (typed offline)") in found, found)
    a.wait_for_timeout(800)
    bar = a.inner_text("header.bar")
    check(f"{what}: no refusal is said after keeping it (no “Not saved”, no server sentence about 'kind')",
          "'kind'" not in bar and a.text_content("quire-status") != "Not saved", bar[:300])
    a.reload()  # a refusal said stays until its OK: the next cases start from a quiet screen either way
    a.wait_for_selector("nb-book .stage")
    settled(a)

    # 2. “Change the text” typed, the tab closed unsaved; the text removed on the other phone.
    item = item_on_server(server, token, nid, 1, "Lunch by the canal")
    eventually(a, "() => /Lunch by the canal/.test(document.querySelector('nb-book')?.innerText ?? '')", 15_000)
    change_text_dialog(a, "Lunch by the canal")
    a.fill("#nb-text", "Lunch by the canal: sardines, never again")
    a.wait_for_timeout(300)
    call(server, "DELETE", f"{N}/notebooks/{nid}/items/{item['id']}", token=token)
    a = reopen(context, a)
    back = eventually(a, "() => document.querySelector('dialog[open] #nb-text')?.value === 'Lunch by the canal: sardines, never again'", 10_000)
    check(f"{what}: a change of a text typed and not saved, the text removed on the other phone meanwhile, comes back in the dialog"
          " when the notebook opens again (it was dropped under “What you were writing is back.”)", back, a.inner_text("body")[:300])
    if back:
        hint = a.text_content("dialog[open] #nb-text-hint") if a.locator("dialog[open] #nb-text-hint").count() else ""
        check(f"{what}: … the dialog says why it opened: the text was removed, what was typed is kept", "was removed" in hint, hint)
        screen(a, "kept-typing", "ar notebook draft of a removed text given back", "ar-notebook-draft-removed")
        a.click("dialog[open] button:has-text('Add')")
    found = server_has(server, token, nid, "Lunch by the canal: sardines, never again")
    check(f"{what}: … and Add puts it on the page as a new text", (1, "Lunch by the canal: sardines, never again") in found, found)
    settled(a)

    # 3. “Write on the page” typed on page 2, the tab closed unsaved; page 2 deleted on the other phone.
    add_page(a, "Page 2 of 2")
    settled(a)
    a, back = typed_then_page_deleted(a, context, server, token, nid, "Tickets for Saturday")
    check(f"{what}: text written on a page not saved, the page deleted on the other phone meanwhile, comes back in the dialog"
          " (it was dropped without a word)", back, a.inner_text("body")[:300])
    if back:
        hint = a.text_content("dialog[open] #nb-text-hint") if a.locator("dialog[open] #nb-text-hint").count() else ""
        check(f"{what}: … the dialog says the page was deleted and where the text goes", "was deleted" in hint and "page 1" in hint, hint)
        a.click("dialog[open] button:has-text('Add')")
    found = server_has(server, token, nid, "Tickets for Saturday")
    check(f"{what}: … and Add puts it on page 1, the page left", (1, "Tickets for Saturday") in found, found)
    settled(a)

    # 4. Online: the text removed while its change was typed; “Keep my text as a new text”, Add; then
    # the notebook opened again brings nothing back a second time.
    if (a.text_content(".turn-row .where") or "").startswith("Cover"):
        a.click("[aria-label='Next page']")
        at_page(a, "Page 1 of 1")
    item = item_on_server(server, token, nid, 1, "Museum closed Mondays")
    eventually(a, "() => /Museum closed Mondays/.test(document.querySelector('nb-book')?.innerText ?? '')", 15_000)
    change_text_dialog(a, "Museum closed Mondays")
    a.fill("#nb-text", "Museum closed Mondays and Tuesdays")
    call(server, "DELETE", f"{N}/notebooks/{nid}/items/{item['id']}", token=token)
    a.click("dialog[open] button:has-text('Save')")
    a.click("nb-book button:has-text('Keep my text as a new text')")
    a.wait_for_selector("dialog[open] #nb-text")
    a.click("dialog[open] button:has-text('Add')")
    found = server_has(server, token, nid, "Museum closed Mondays and Tuesdays")
    check(f"{what}: online, “Keep my text as a new text” then Add puts it on the page", (1, "Museum closed Mondays and Tuesdays") in found, found)
    settled(a)
    a = reopen(context, a)
    a.wait_for_timeout(1_500)
    check(f"{what}: … and opening the notebook again does not offer the same text a second time",
          a.locator("dialog[open]").count() == 0,
          (a.inner_text("dialog[open]")[:200] if a.locator("dialog[open]").count() else "",
           a.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('quire.draft'))")))
    settled(a)
    notices_whole(a, server, token, nid)
    context.close()


def ar_full_page(browser, server):
    """Text typed on page 2 and not saved, page 2 deleted on the other phone, and page 1 a one-box
    page already full: the dialog says the text goes on a new page, and Add makes one (New page's
    choices) with the text on it, never centred on page 1 under its item (a newcomer's walk found
    it there)."""
    what = "AR Notebook"
    context, a, token = new_phone(browser, server, "kept-typing-full", first_page=False)
    nid = call(server, "GET", f"{N}/notebooks", token=token)[1]["items"][0]["id"]
    call(server, "POST", f"{N}/notebooks/{nid}/pages", {"template": "one-slot", "background": "cream"}, token=token)
    call(server, "POST", f"{N}/notebooks/{nid}/pages", {"template": "blank", "background": "cream"}, token=token)
    item_on_server(server, token, nid, 1, "Map of the old town")
    for number in (1, 2):
        a.click("[aria-label='Next page']")
        at_page(a, f"Page {number} of 2")
    a, back = typed_then_page_deleted(a, context, server, token, nid, "Ferry times: 9:10 and 17:40")
    hint = a.text_content("dialog[open] #nb-text-hint") if back and a.locator("dialog[open] #nb-text-hint").count() else ""
    check(f"{what}: text given back when its page was deleted and the page left is full: the dialog says it goes on a new page",
          back and "new page" in hint and "page 1 is full" in hint, (hint, a.inner_text("body")[:300]))
    if not back:
        context.close()
        return
    a.click("dialog[open] button:has-text('Add')")
    asked = eventually(a, "() => /New page/.test(document.querySelector('dialog[open]')?.innerText ?? '')", 5_000)
    check(f"{what}: … Add asks for the new page (its template and colour)", asked, a.inner_text("body")[:300])
    if asked:
        a.click("dialog[open] button:has-text('OK')")
    found = server_has(server, token, nid, "Ferry times: 9:10 and 17:40")
    check(f"{what}: … and the text is on the new page 2, page 1 keeping only its own item",
          sorted(found) == [(1, "Map of the old town"), (2, "Ferry times: 9:10 and 17:40")], found)
    context.close()


# Each button of the header's notices inside the notices' box and the screen, or what is not.
WHOLE = """() => {
  const box = document.querySelector('header.bar .notices');
  if (!box) return ['no notices'];
  const c = box.getBoundingClientRect();
  return [...box.querySelectorAll('button')].filter((b) => b.offsetParent).map((b) => [b.textContent, b.getBoundingClientRect()])
    .filter(([, r]) => r.top < Math.max(c.top, 0) - 1 || r.bottom > Math.min(c.bottom, innerHeight) + 1)
    .map(([t, r]) => `${t} at ${Math.round(r.top)}-${Math.round(r.bottom)} (box ${Math.round(c.top)}-${Math.round(c.bottom)}, screen ${innerHeight})`);
}"""


def notices_whole(a, server, token, nid):
    """5. Two notices at once (another phone's text replaced; a text kept): each one's buttons whole in view, upright and sideways."""
    what = "AR Notebook"
    call(server, "POST", f"{N}/notebooks/{nid}/pages", {"template": "two-slots", "background": "white"}, token=token)
    ferry = call(server, "POST", f"{N}/notebooks/{nid}/pages/2/items", {"kind": "text", "text": "Ferry at six", "slot": 0}, token=token)[1]["item"]
    market = call(server, "POST", f"{N}/notebooks/{nid}/pages/2/items", {"kind": "text", "text": "Market on Sunday", "slot": 1}, token=token)[1]["item"]
    a.reload()
    a.wait_for_selector("nb-book .stage")
    eventually(a, "() => /Page \\d+ of 2/.test(document.querySelector('.turn-row .where')?.textContent ?? '')", 15_000)
    while not (a.text_content(".turn-row .where") or "").startswith("Page 2"):
        a.click("[aria-label='Next page']")
        a.wait_for_timeout(300)
    eventually(a, "() => /Market on Sunday/.test(document.querySelector('nb-book')?.innerText ?? '')", 15_000)
    context = a.context
    context.set_offline(True)
    a.evaluate("window.dispatchEvent(new Event('offline'))")
    for was, now in (("Ferry at six", "Ferry at six, platform 2"), ("Market on Sunday", "Market on Sunday: cheese stall first")):
        change_text_dialog(a, was)
        a.fill("#nb-text", now)
        a.click("dialog[open] button:has-text('Save')")
        a.wait_for_timeout(300)
    call(server, "PATCH", f"{N}/notebooks/{nid}/items/{ferry['id']}", {"text": "Ferry at seven"}, token=token)
    call(server, "DELETE", f"{N}/notebooks/{nid}/items/{market['id']}", token=token)
    context.set_offline(False)
    a.evaluate("window.dispatchEvent(new Event('online'))")
    both = eventually(a, "() => document.querySelectorAll('header.bar .notices .notice.kept').length === 1"
                         " && document.querySelectorAll('header.bar .notices .notice').length >= 2", 20_000)
    check(f"{what}: another phone's text replaced and a removed text kept: two notices", both, a.inner_text("header.bar")[:300])
    a.wait_for_timeout(500)
    cut = a.evaluate(WHOLE)
    check(f"{what}: at 390×844 every notice's buttons are whole in view (“Keep my text as a new text” was cut off)", not cut, cut)
    webwalk.shot(a, "kept-typing", "ar-notebook-two-notices")
    # A small phone (375×560): the two notices take more than the header's half of the screen and
    # scroll inside it. "More below" shows until the last one is in view (nothing showed it scrolled).
    a.set_viewport_size({"width": 375, "height": 560})
    a.wait_for_timeout(300)
    cue = ("() => { const box = document.querySelector('header.bar .notices');"
           " return [box.scrollHeight > box.clientHeight + 4, box.classList.contains('more-below'),"
           " getComputedStyle(box, '::after').content]; }")
    before = a.evaluate(cue)
    webwalk.shot(a, "kept-typing", "ar-notebook-two-notices-small-phone")
    a.evaluate("() => { const box = document.querySelector('header.bar .notices'); box.scrollTop = box.scrollHeight; }")
    a.wait_for_timeout(300)
    after = a.evaluate(cue)
    check(f"{what}: on a small phone the notices scroll, and “More below” says so until the last one is in view",
          before[:2] == [True, True] and "More below" in before[2] and not after[1], (before, after))
    a.set_viewport_size({"width": 844, "height": 390})
    a.evaluate("window.scrollTo(0, 0)")
    a.wait_for_timeout(500)
    cut = a.evaluate(WHOLE)
    check(f"{what}: at 844×390 (sideways) every notice's buttons are whole in view (the notices were a 156 px strip)", not cut, cut)
    webwalk.shot(a, "kept-typing", "ar-notebook-two-notices-sideways")
    a.click(".notice.kept button:has-text('Keep my text as a new text')")
    found = server_has(server, token, nid, "Market on Sunday: cheese stall first")
    check(f"{what}: … and the kept one's way back works from there", (2, "Market on Sunday: cheese stall first") in found, found)
    a.set_viewport_size({"width": 390, "height": 844})


def foreign_note(browser, server):
    context, a = new_user(browser, server, "kept-words", ready="vocab-collections")
    token = token_of(a)
    what = "Foreign Note"
    collection = call(server, "POST", f"{V}/collections", {"name": "Portuguese"}, token=token)[1]
    entry = call(server, "POST", f"{V}/entries", {"word": "saudade", "definitions": ["longing"], "languages": ["pt", "en"],
                                                  "collection": collection["id"]}, token=token)[1]
    a.goto(f"/#/edit/{entry['id']}")
    a.wait_for_selector("#entry-note")
    eventually(a, "() => document.querySelector('#entry-word')?.value === 'saudade'", 10_000)
    a.fill("#entry-note", "The fado singer's word for it")
    a.wait_for_timeout(300)
    call(server, "DELETE", f"{V}/entries/{entry['id']}", token=token)
    a.close()
    a = context.new_page()
    webwalk.PAGES.append(a)
    a.goto("/")
    a.wait_for_selector("vocab-collections h1")
    said = eventually(a, "() => /Changes you typed for “saudade” were not saved/.test(document.querySelector('vocab-collections')?.innerText ?? '')", 10_000)
    check(f"{what}: the app opened again at its home says that changes typed for “saudade” were not saved and the word was deleted,"
          " with “See my changes”", said and a.get_by_role("link", name="See my changes").count() == 1, a.inner_text("main")[:300])
    screen(a, "kept-typing", "foreign note home with unsaved changes of a deleted word", "foreign-note-unsaved-deleted")
    if said:
        a.get_by_role("link", name="See my changes").click()
    else:
        a.goto(f"/#/edit/{entry['id']}")
    shown = eventually(a, "() => document.querySelector('#entry-note')?.value === \"The fado singer's word for it\"", 10_000)
    check(f"{what}: changes typed into Edit word and not saved, the word deleted on the other phone meanwhile, are shown again"
          " (they were hidden behind “This word is not there any more.”)", shown, a.inner_text("body")[:300])
    if not shown:
        context.close()
        return
    check(f"{what}: … with the word and its definition as this phone last showed them",
          a.input_value("#entry-word") == "saudade" and a.input_value("#entry-definitions") == "longing",
          (a.input_value("#entry-word"), a.input_value("#entry-definitions")))
    said = eventually(a, "() => /deleted on another device/.test(document.querySelector('#entry-gone')?.innerText ?? '')", 5_000)
    check(f"{what}: … saying the word was deleted on another device, with “Add it again as a new word”",
          said and a.get_by_role("button", name="Add it again as a new word").count() >= 1, a.inner_text("body")[:300])
    screen(a, "kept-typing", "foreign note draft of a deleted word", "foreign-note-draft-deleted")
    a.click("vocab-entry-form button[type=submit]")
    found = []
    for _ in range(40):
        hits = [e for e in call(server, "GET", f"{V}/search?limit=50&q=saudade", token=token)[1].get("items", []) if e.get("word") == "saudade"]
        found = [call(server, "GET", f"{V}/entries/{e['id']}", token=token)[1] for e in hits]
        if found:
            break
        time.sleep(0.5)
    check(f"{what}: … and it puts the word back on the server with the note typed and its definition",
          len(found) == 1 and found[0].get("note") == "The fado singer's word for it" and found[0].get("definitions") == ["longing"], found)
    a.goto("/")
    a.wait_for_selector("vocab-collections h1")
    a.wait_for_timeout(500)
    check(f"{what}: … after which the home no longer speaks of them", "were not saved" not in a.inner_text("main"), a.inner_text("main")[:300])
    context.close()


def first_saver_told(browser, server):
    """Finding 5: two devices change one word; the one that saved first is told too, with “Bring back mine”."""
    context, a = new_user(browser, server, "kept-first-saver", ready="vocab-collections")
    token = token_of(a)
    what = "Foreign Note"
    collection = call(server, "POST", f"{V}/collections", {"name": "Portuguese"}, token=token)[1]
    entry = call(server, "POST", f"{V}/entries", {"word": "cafuné", "definitions": ["a caress"], "languages": ["pt", "en"],
                                                  "collection": collection["id"]}, token=token)[1]
    a.goto(f"/#/edit/{entry['id']}")
    eventually(a, "() => document.querySelector('#entry-definitions')?.value === 'a caress'", 10_000)
    a.fill("#entry-definitions", "a caress\nfingers running through a loved one's hair")
    a.click("vocab-entry-form button[type=submit]")
    a.wait_for_selector("vocab-entry h1:has-text('cafuné')")
    settled(a)
    status = call(server, "PATCH", f"{V}/entries/{entry['id']}", {"definitions": ["tenderness (the other phone)"]}, token=token)[0]
    told = eventually(a, "() => [...document.querySelectorAll('header.bar .notice')].some((n) => n.innerText.includes('Your definitions for “cafuné” were changed on another device'))", 15_000)
    check(f"{what}: the phone that saved first is told when another device replaces what it saved (it saw the other text silently)",
          told, (status, a.inner_text("header.bar")[:300]))
    if told:
        screen(a, "kept-typing", "foreign note first saver told", "foreign-note-first-saver-told")
        a.locator("header.bar .notice", has_text="Your definitions for").get_by_role("button", name="Bring back mine").click()
    now = None
    for _ in range(40):
        now = call(server, "GET", f"{V}/entries/{entry['id']}", token=token)[1].get("definitions")
        if now == ["a caress", "fingers running through a loved one's hair"]:
            break
        time.sleep(0.5)
    check(f"{what}: … and “Bring back mine” puts its definitions back on the server", now == ["a caress", "fingers running through a loved one's hair"], now)

    # Saved, then the phone reloaded at once while the other device replaced it: still told (it was
    # kept in memory only, and a reload hid it; walk8).
    a.goto(f"/#/edit/{entry['id']}")
    eventually(a, "() => document.querySelector('#entry-definitions')?.value?.startsWith('a caress')", 10_000)
    a.fill("#entry-definitions", "a caress (saved, then reloaded)")
    a.click("vocab-entry-form button[type=submit]")
    a.wait_for_selector("vocab-entry h1:has-text('cafuné')")
    settled(a)
    a.reload()
    a.wait_for_selector("vocab-entry h1:has-text('cafuné')")
    call(server, "PATCH", f"{V}/entries/{entry['id']}", {"definitions": ["affection (the other phone, again)"]}, token=token)
    told = eventually(a, "() => [...document.querySelectorAll('header.bar .notice')].some((n) => n.innerText.includes('a caress (saved, then reloaded)'))", 15_000)
    check(f"{what}: … and told after a reload too (what it saved is kept on the phone until told)", told, a.inner_text("header.bar")[:300])
    context.close()


def main():
    both = lambda browser, server: (foreign_note(browser, server), first_saver_told(browser, server))  # noqa: E731
    ar = lambda browser, server: (ar_notebook(browser, server), ar_full_page(browser, server))  # noqa: E731
    webwalk.main([("ar", "ar-notebook", ar), ("foreign", "foreign-note", both)])


if __name__ == "__main__":
    main()
