#!/usr/bin/env python3
"""An offline change to a record the other phone deleted is never thrown away (kept.js), in all
four apps: phone A goes offline and changes something; the thing (in AR Notebook, the page it goes
on) is deleted from the other phone (the account's API, as phone B does); A comes back online. The
outbox's write is refused, and what A wrote is kept on the phone (the account's IndexedDB) with a
sentence naming the thing by its title, word, notes or page number (never an internal id), the
app's own way back and Discard. A reload between coming online and choosing keeps it; the way back
puts the recovered record on the server (iRemember: the notes copied, as the app offers online).

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_offline_deleted.py --binary .build/debug/quire
"""
import argparse
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iremember  # noqa: E402
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import screen, settled, token_of  # noqa: E402
from web_no_lost_work import eventually, iremember_with_photo, new_user, stroke, strokes_on_server  # noqa: E402
from web_ar_notebook import add_page, new_phone  # noqa: E402

ROOT = napkin_notes.ROOT
N = "/api/v1/notebooks"
# Internal ids as the server makes them, and the raw refusals the walker saw.
ID = re.compile(r"\b(?:n|e|p|pg|nb|it)_?[0-9a-z]{12,}\b|local:[0-9a-f]{16}")
RAW = ("No entry '", "No note", "is no longer in this notebook")


def kept_notice(page, words, timeout=20_000):
    """The kept notice naming `words`, once shown: its text, or None."""
    ok = eventually(page, f"() => [...document.querySelectorAll('.notice.kept')].some((n) => n.innerText.includes({words!r}))", timeout)
    return page.inner_text(".notice.kept") if ok else None


def online(context, page):
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")


def notices_clean(page, what, text):
    shown = page.inner_text("header.bar")
    check(f"{what}: the sentence names it, and no internal id or raw server text is shown",
          text is not None and not ID.search(shown) and not any(raw in shown for raw in RAW), (text, shown[:400]))


def reloaded_still_kept(page, words, what):
    page.reload()
    text = kept_notice(page, words, 15_000)
    check(f"{what}: after a reload, before choosing, it is still kept and said", text is not None, page.inner_text("body")[:300])
    return text


def napkin(browser, server):
    context, a = new_user(browser, server, "offline-napkin")
    token = token_of(a)
    for case in ("keep", "discard"):
        title = "Offline idea" if case == "keep" else "Second thought"
        typed = f"typed on the train ({case})"
        made = call(server, "POST", "/api/v1/notes", {"title": title, "text": "", "date": "2026-01-01"}, token=token)[1]
        a.goto(f"/#/notes/{made['id']}")
        a.wait_for_selector("note-editor #note-text")
        eventually(a, f"() => document.querySelector('#note-title')?.value === {title!r}")
        context.set_offline(True)
        a.evaluate("window.dispatchEvent(new Event('offline'))")
        a.fill("#note-text", typed)
        a.wait_for_timeout(1_200)
        if case == "keep":  # and a stroke on its back (walk10: the way back kept the text, not the drawing)
            a.evaluate(f"location.hash = '#/notes/{made['id']}/back'")
            a.wait_for_selector("canvas.pad")
            stroke(a)
            a.wait_for_timeout(800)
        a.evaluate("location.hash = '#/notes'")
        a.wait_for_selector("notes-list h1")
        call(server, "DELETE", f"/api/v1/notes/{made['id']}", token=token)
        online(context, a)
        text = kept_notice(a, title)
        what = f"Napkin Notes ({case})"
        check(f"{what}: A's offline edit of a note deleted on the other phone is kept and said, naming “{title}”, with its text",
              text is not None and typed in text, a.inner_text("header.bar")[:400])
        notices_clean(a, what, text)
        if case == "keep":
            screen(a, "offline-deleted", "napkin kept notice", "napkin-kept")
        reloaded_still_kept(a, title, what)
        if case == "keep":
            a.click(".notice.kept button:has-text('Keep my text as a new note')")
            found = []
            for _ in range(40):
                found = [n for n in napkin_notes.all_notes(server, token) if n.get("text") == typed and n.get("title") == title]
                if found and found[0].get("drawing"):
                    break
                time.sleep(0.5)
            drawing = strokes_on_server(server, token, found[0]["id"], 1) if found else {}
            check(f"{what}: “Keep my text as a new note” puts it on the server as a new note, titled as before, with the drawing on its back",
                  len(found) == 1 and len((drawing or {}).get("strokes", [])) == 1, [(n.get("title"), n.get("text"), n.get("drawing")) for n in napkin_notes.all_notes(server, token)])
            said = a.locator(".notice", has_text="Kept as a new note")
            opened = said.count() == 1
            if opened:
                said.get_by_role("button", name="Open it").click()
                opened = eventually(a, f"() => document.querySelector('note-editor #note-text')?.value === {typed!r}", 5_000)
            check(f"{what}: …said where it shows (it was only announced), with “Open it”, which opens the new note", opened,
                  a.inner_text("body")[:300])
            a.evaluate("location.hash = '#/notes'")
            a.wait_for_selector("notes-list h1")
        else:
            a.click(".notice.kept button:has-text('Discard')")
            a.click("dialog button:has-text('Discard')")
            a.wait_for_timeout(500)
            a.reload()
            a.wait_for_selector("notes-list h1")
            a.wait_for_timeout(1_500)
            check(f"{what}: Discard, after confirming, lets it go: not said again after a reload", a.locator(".notice.kept").count() == 0,
                  a.inner_text("header.bar")[:300])
    # Still open in the editor: the editor offers the way back itself (it did before); the header
    # does not offer it a second time, and once taken nothing stays kept.
    made = call(server, "POST", "/api/v1/notes", {"title": "Open idea", "text": "", "date": "2026-01-01"}, token=token)[1]
    a.goto(f"/#/notes/{made['id']}")
    a.wait_for_selector("note-editor #note-text")
    eventually(a, "() => document.querySelector('#note-title')?.value === 'Open idea'")
    context.set_offline(True)
    a.evaluate("window.dispatchEvent(new Event('offline'))")
    a.fill("#note-text", "typed with the note open")
    a.wait_for_timeout(1_200)
    call(server, "DELETE", f"/api/v1/notes/{made['id']}", token=token)
    online(context, a)
    eventually(a, "() => /deleted on another phone/.test(document.querySelector('note-editor')?.textContent ?? '')")
    a.wait_for_timeout(2_000)  # the refused edit has come back by now
    offers = a.get_by_role("button", name="Keep my text as a new note").count()
    check("Napkin Notes (open): the note deleted while open offers “Keep my text as a new note” once (the editor's, not the header's too)",
          offers == 1, (offers, a.inner_text("header.bar")[:300]))
    if offers:
        a.get_by_role("button", name="Keep my text as a new note").first.click()
        opened = eventually(a, "() => document.querySelector('note-editor #note-text')?.value === 'typed with the note open'", 5_000)
        check("…and taken there, the new note opens with the text (the screen said the note was gone still; walk10)",
              opened and "Note deleted" not in a.inner_text("body"), a.inner_text("body")[:300])
        a.wait_for_timeout(1_000)
        a.reload()
        a.wait_for_selector("note-editor, notes-list")
        a.wait_for_timeout(1_500)
        kept = [n for n in napkin_notes.all_notes(server, token) if n.get("text") == "typed with the note open"]
        check("…and once taken there, nothing stays kept: one new note on the server, no notice after a reload",
              len(kept) == 1 and a.locator(".notice.kept").count() == 0, (len(kept), a.inner_text("header.bar")[:300]))
    context.close()


def word_open(browser, server, user, word):
    """A new Foreign Note user's phone with `word` (Portuguese, in its own collection) open: (context, page, token, entry)."""
    context, a = new_user(browser, server, user, ready="vocab-collections")
    token = token_of(a)
    collection = call(server, "POST", "/api/v1/vocabulary/collections", {"name": "Portuguese"}, token=token)[1]
    entry = call(server, "POST", "/api/v1/vocabulary/entries", {**word, "languages": ["pt", "en"], "collection": collection["id"]}, token=token)[1]
    a.goto(f"/#/e/{entry['id']}")
    a.wait_for_selector(f"vocab-entry h1:has-text('{word['word']}')", timeout=15_000)
    return context, a, token, entry


def edited_offline_then_deleted(context, a, server, token, entry, example):
    """Offline, the word open on A gets `example` and is saved; the other phone deletes it; A comes back online."""
    context.set_offline(True)
    a.evaluate("window.dispatchEvent(new Event('offline'))")
    a.click("text=Edit")
    a.wait_for_selector("#entry-example")
    a.fill("#entry-example", example)
    a.click("vocab-entry-form button:has-text('Save')")
    a.wait_for_timeout(800)
    call(server, "DELETE", f"/api/v1/vocabulary/entries/{entry['id']}", token=token)
    online(context, a)


def foreign_note(browser, server):
    context, a, token, entry = word_open(browser, server, "offline-words", {"word": "obrigado", "definitions": ["thank you"]})
    edited_offline_then_deleted(context, a, server, token, entry, "Muito obrigado pela ajuda!")
    text = kept_notice(a, "obrigado")
    what = "Foreign Note"
    check(f"{what}: A's offline edit of a word deleted on the other phone is kept and said, naming “obrigado”", text is not None,
          a.inner_text("header.bar")[:400])
    notices_clean(a, what, text)
    screen(a, "offline-deleted", "foreign note kept notice", "foreign-note-kept")
    reloaded_still_kept(a, "obrigado", what)
    a.click(".notice.kept button:has-text('Add it again as a new word')")
    found = []
    for _ in range(40):
        hits = [e for e in call(server, "GET", "/api/v1/vocabulary/search?limit=50&q=obrigado", token=token)[1].get("items", [])
                if e.get("word") == "obrigado"]
        found = [call(server, "GET", f"/api/v1/vocabulary/entries/{e['id']}", token=token)[1] for e in hits]
        if found:
            break
        time.sleep(0.5)
    check(f"{what}: “Add it again as a new word” puts the word on the server with the example typed offline and its definitions",
          len(found) == 1 and found[0].get("example") == "Muito obrigado pela ajuda!" and found[0].get("definitions") == ["thank you"], found)
    context.close()
    foreign_undone(browser, server)
    foreign_replaced_then_deleted(browser, server)


def foreign_undone(browser, server):
    """The other phone deletes the word and then undoes it: A's kept edit goes back on the word
    itself ("Put my changes back"), not into a second copy ("Add it again as a new word" stayed
    offered after the Undo and made the word twice; walk10)."""
    context, a, token, entry = word_open(browser, server, "offline-undone", {"word": "bom dia", "definitions": ["good morning"]})
    edited_offline_then_deleted(context, a, server, token, entry, "Bom dia, Maria!")
    what = "Foreign Note (the delete undone)"
    kept = kept_notice(a, "bom dia") is not None
    call(server, "POST", f"/api/v1/vocabulary/entries/{entry['id']}/restore", token=token)
    back = eventually(a, "() => [...document.querySelectorAll('.notice.kept')].some((n) => n.innerText.includes('is back'))", 15_000)
    shown = a.inner_text("header.bar")
    check(f"{what}: A's kept edit, once the word is back, offers to put it back on it, not to add it again",
          kept and back and "Put my changes back" in shown and "Add it again as a new word" not in shown
          and "changed on another device" not in shown, shown[:400])
    screen(a, "offline-deleted", "foreign note kept, word back", "foreign-note-kept-back")
    if back:
        a.click(".notice.kept button:has-text('Put my changes back')")
    words, now = [], {}
    for _ in range(40):
        words = [e for e in call(server, "GET", "/api/v1/vocabulary/search?limit=50&q=bom", token=token)[1].get("items", []) if e.get("word") == "bom dia"]
        now = call(server, "GET", f"/api/v1/vocabulary/entries/{entry['id']}", token=token)[1]
        if now.get("example") == "Bom dia, Maria!":
            break
        time.sleep(0.5)
    check(f"{what}: …and it goes on the word itself: one “bom dia”, with the example typed offline",
          len(words) == 1 and now.get("example") == "Bom dia, Maria!" and a.locator(".notice.kept").count() == 0, (len(words), now.get("example")))
    context.close()


def foreign_replaced_then_deleted(browser, server):
    """A's offline edit replaced the other phone's newer note ("Another device had changed this too …
    Bring it back"), and then the word is deleted on the other phone: the notice goes, on every screen
    and after a reload (it stayed, offering to bring back a note on a word that is gone)."""
    what = "Foreign Note"
    context, a, token, entry = word_open(browser, server, "replaced-words", {"word": "saudade", "definitions": ["longing"], "note": "first note"})
    context.set_offline(True)
    a.evaluate("window.dispatchEvent(new Event('offline'))")
    a.click("text=Edit")
    a.wait_for_selector("#entry-note")
    a.fill("#entry-note", "Mine: a longing for what is gone")
    a.click("vocab-entry-form button:has-text('Save')")
    a.wait_for_selector("vocab-entry h1:has-text('saudade')")
    status, _ = call(server, "PATCH", f"/api/v1/vocabulary/entries/{entry['id']}", {"note": "Theirs: nostalgia"}, token=token)[:2]
    online(context, a)
    told = eventually(a, "() => [...document.querySelectorAll('.notice.replaced')].some((n) => n.innerText.includes('Theirs: nostalgia'))", 20_000)
    check(f"{what}: the other phone changed the note meanwhile (PATCH {status}); A's edit replaced it, and A is told, with Bring it back",
          told and status == 200, a.inner_text("header.bar")[:300])
    call(server, "DELETE", f"/api/v1/vocabulary/entries/{entry['id']}", token=token)
    gone = eventually(a, "() => ![...document.querySelectorAll('.notice.replaced')].some((n) => n.innerText.includes('Theirs: nostalgia'))", 20_000)
    check(f"{what}: the word then deleted on the other phone, that notice goes (its Bring it back has nothing left to act on)",
          gone, a.inner_text("header.bar")[:300])
    a.goto("/#/")
    a.reload()
    a.wait_for_selector("vocab-collections")
    a.wait_for_timeout(1_500)
    shown = a.inner_text("header.bar")
    check(f"{what}: …and it does not come back after a reload", "Theirs: nostalgia" not in shown, shown[:300])
    context.close()


def iremember_walk(browser, server, data):
    context, a, token = iremember_with_photo(browser, server, data, "album-markup #photo-notes",
                                             permissions=["clipboard-read", "clipboard-write"])
    photos = call(server, "GET", "/api/v1/album/photos", token=token)[1].get("items", [])
    context.set_offline(True)
    a.evaluate("window.dispatchEvent(new Event('offline'))")
    notes = "Grandma at the lake, summer 1978"
    a.fill("#photo-notes", notes)
    # A tag added too (walk9: it vanished, unsaid, with the photo).
    a.fill("#new-tag", "lake")
    a.click("button:has-text('Add tag')")
    a.wait_for_timeout(1_500)
    a.evaluate("location.hash = '#/'")
    a.wait_for_selector("album-home")
    call(server, "DELETE", f"/api/v1/album/photos/{photos[0]['id']}", token=token)
    online(context, a)
    text = kept_notice(a, notes)
    what = "iRemember"
    check(f"{what}: A's offline notes and tag for a photo deleted on the other phone are kept and said, quoting them",
          text is not None and "the tag “lake”" in text, a.inner_text("header.bar")[:400])
    notices_clean(a, what, text)
    screen(a, "offline-deleted", "iremember kept notice", "iremember-kept")
    reloaded_still_kept(a, notes, what)
    a.click(".notice.kept button:has-text('Copy what I wrote')")
    a.wait_for_timeout(500)
    copied = a.evaluate("navigator.clipboard.readText()")
    check(f"{what}: “Copy what I wrote” copies the notes and the tag (the photo cannot come back), and the notice goes",
          copied == f"Notes: {notes}\nTags: lake" and a.locator(".notice.kept").count() == 0, copied)
    context.close()


def ar_notebook(browser, server):
    context, a, token = new_phone(browser, server, "offline-pages")
    add_page(a, "Page 2 of 2")
    add_page(a, "Page 3 of 3")
    settled(a, 20_000)
    nid = call(server, "GET", f"{N}/notebooks", token=token)[1]["items"][0]["id"]
    context.set_offline(True)
    a.evaluate("window.dispatchEvent(new Event('offline'))")
    a.wait_for_selector("quire-status[data-state=offline]")
    a.click("nb-book button:has-text('Write')")
    a.wait_for_selector("dialog[open] #nb-text")
    if a.is_visible("dialog button:has-text('OK')"):
        a.click("dialog button:has-text('OK')")
    a.fill("#nb-text", "Offline caption for the bridge")
    a.click("dialog button:has-text('Add')")
    eventually(a, "() => /kept on this phone/.test(document.querySelector('nb-book')?.innerText ?? '')", 5_000)
    # Then changed, still offline: what is kept is the text as last typed (walk9: the first wording
    # only, the change dropped with the refused create's later writes).
    a.click("nb-book .sheet [aria-label^='Text: Offline caption']")
    a.check("dialog label:has-text('Change the text') input")
    a.click("dialog button:has-text('OK')")
    a.fill("#nb-text", "Offline caption for the old bridge")
    a.click("dialog button:has-text('Save')")
    eventually(a, "() => document.querySelector(\"nb-book .sheet [aria-label^='Text: Offline caption for the old bridge']\") !== null", 5_000)
    status, ask, _ = call(server, "DELETE", f"{N}/notebooks/{nid}/pages/3", token=token)
    status, _, _ = call(server, "DELETE", f"{N}/notebooks/{nid}/pages/3?confirm={ask.get('confirm')}", token=token)
    online(context, a)
    text = kept_notice(a, "Offline caption for the old bridge")
    what = "AR Notebook"
    check(f"{what}: A's offline text for page 3, changed offline too, deleted on the other phone, is kept as last typed and said, naming page 3",
          text is not None and "page 3" in text,
          a.inner_text("header.bar")[:400])
    notices_clean(a, what, text)
    a.wait_for_timeout(500)
    book = a.inner_text("nb-book")
    check(f"{what}: the stale “kept on this phone… goes on page 3” box is cleared", "goes on page 3" not in book, book[-300:])
    screen(a, "offline-deleted", "ar notebook kept notice", "ar-notebook-kept")
    reloaded_still_kept(a, "Offline caption for the old bridge", what)
    a.click(".notice.kept button:has-text('Keep my text as a new text')")
    found = []
    for _ in range(40):
        content = call(server, "GET", f"{N}/notebooks/{nid}", token=token)[1]
        found = [(p.get("number"), i.get("text")) for p in content.get("pages", []) for i in p.get("items", []) if i.get("text")]
        if found:
            break
        time.sleep(0.5)
    check(f"{what}: “Keep my text as a new text” puts it on the server, on page 2 (the page before the deleted one)",
          found == [(2, "Offline caption for the old bridge")], found)
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    parser.add_argument("--only", help="comma-separated apps: napkin,foreign,iremember,ar")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    only = set((args.only or "napkin,foreign,iremember,ar").split(","))
    config = lambda name: os.path.join(ROOT, "config", "apps", f"{name}.yaml")  # noqa: E731
    code = 0
    for app, name, walk in (("napkin", "napkin-notes", napkin), ("foreign", "foreign-note", foreign_note), ("ar", "ar-notebook", ar_notebook)):
        if app not in only:
            continue
        with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
            server = napkin_notes.Server(binary, data, free_port(), config=config(name))
            code |= webwalk.run(server, lambda browser, walk=walk, server=server: walk(browser, server))
    if "iremember" in only:
        with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
            server = iremember.Server(binary, data, free_port())
            server.config = iremember.make_config(data)
            code |= webwalk.run(server, lambda browser: iremember_walk(browser, server, data))
    sys.exit(code)


if __name__ == "__main__":
    main()
