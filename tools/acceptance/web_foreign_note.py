#!/usr/bin/env python3
"""The web client in a real browser: Foreign Note on a phone (390×844, touch), Debian's Chromium
driven by Playwright, against the real server and the shipped config.

Walks its use cases: sign-up; a collection (a required name, rename); words with definitions,
languages, tags, a related word as a chip that opens it; search as you type with the server's
highlights and tag filters (all / any / none); past the first 25 words as the list scrolls (a
collection, a search, a tag's words; online over the server's cursor, offline over the device's
copy), a collection's own search box, tag names found by the search, 20,000 words scrolled without
a long task; delete and "Deleted · Undo"; tags; import a CSV from
the file picker with progress, export as a download; then two devices of one user (an edit on one
shows on the other live, without a reload) and offline on both (words added offline,
search over the device's copy, back online: on the server once); then what a walk on the phone
found: a name already taken said in its dialog, long words and addresses no wider than the phone,
a new tag with a space made with the word's edit (online and offline), the server's order of words
on the phone, the undo bar over no control, our own .apkg imported again without copies; the help
screen and a first-use tip (shown once, dismissed, its views and dismissals counted on /metrics),
in portrait and landscape. axe-core checks every screen;
screenshots go to .build/screenshots/foreign-note-*.png (tools/screenshots: docs/screenshots/).

Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import argparse
import os
import sys
import tempfile
import re
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402  (the browser: Chromium at a phone's size, axe, screenshots)
from napkin_notes import call, check, free_port  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from webwalk import phone, settled, token_of  # noqa: E402
from web_no_lost_work import eventually  # noqa: E402

ROOT = napkin_notes.ROOT
CONFIG = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")
V = "/api/v1/vocabulary"
USER, PASSWORD = "web-lea", "a good password"


def shot(page, name):
    webwalk.shot(page, "foreign-note", name)


def screen(page, name, file=None):
    webwalk.screen(page, "foreign-note", name, file)


def browse(server, token, query=""):
    _, body, _ = call(server, "GET", f"{V}/search?limit=100{query}", token=token)
    return body["items"]


def name_dialog(page, name):
    page.wait_for_selector("dialog #name-input")
    page.fill("#name-input", name)
    page.click("dialog button:has-text('Save')")
    page.wait_for_selector("dialog #name-input", state="detached")


# IndexedDB's transactions told complete 1.5 s late (a busy phone), and back to normal.
SLOW_STORAGE = """() => {
  const plain = Object.getOwnPropertyDescriptor(IDBTransaction.prototype, "oncomplete");
  window.quirePlainComplete = plain;
  Object.defineProperty(IDBTransaction.prototype, "oncomplete", { configurable: true, get() { return plain.get.call(this); },
    set(f) { plain.set.call(this, f && ((event) => setTimeout(() => f.call(this, event), 1500))); } });
}"""
QUICK_STORAGE = "() => Object.defineProperty(IDBTransaction.prototype, 'oncomplete', window.quirePlainComplete)"


def add_word(page, word, definitions, languages="", tags=(), new_tag=None):
    page.click("text=Add word")
    page.wait_for_selector("#entry-word")
    page.fill("#entry-word", word)
    page.fill("#entry-definitions", "\n".join(definitions))
    page.fill("#entry-languages", languages)
    if new_tag:
        page.click("vocab-entry-form button:has-text('New tag')")
        name_dialog(page, new_tag)
    for tag in tags:
        page.click(f"vocab-entry-form button.chip:has-text('#{tag}')")
    page.click("vocab-entry-form button:has-text('Save')")
    page.wait_for_selector(f"vocab-entry h1:has-text('{word}')")


def collections_and_words(page, server):
    page.goto("/")
    page.wait_for_selector("quire-signin form")
    check("/ serves Foreign Note: sign-in", page.title() == "Foreign Note", page.title())
    webwalk.sign_in(page, USER, PASSWORD, create=True)
    page.wait_for_selector("vocab-collections")
    check("sign-up opens the empty collections", page.is_visible("text=No collections yet"))
    screen(page, "the empty collections")
    token = token_of(page)

    page.click("text=New collection")
    page.wait_for_selector("dialog #name-input")
    page.click("dialog button:has-text('Save')")
    said = page.text_content("#name-input-error")
    check("a collection's name is required, and the dialog says so", "name is required" in said, said)
    page.fill("#name-input", "Frnech")
    page.click("dialog button:has-text('Save')")
    page.wait_for_selector("vocab-collection h1:has-text('Frnech')")
    page.click("text=Rename")
    name_dialog(page, "French")
    page.wait_for_selector("vocab-collection h1:has-text('French')")
    settled(page)
    _, collections, _ = call(server, "GET", f"{V}/collections", token=token)
    check("a new collection, renamed, is on the server", [c["name"] for c in collections["items"]] == ["French"], collections)

    # On a slow phone (its storage answering 1.5 s late), Save tapped as the New tag dialog closes,
    # before the phone has kept the new tag: once, in CI, the word was saved without it.
    page.evaluate(SLOW_STORAGE)
    add_word(page, "crème brûlée", ["custard dessert", "burnt cream"], "fr", new_tag="food")
    page.evaluate(QUICK_STORAGE)
    page.click("text=‹ French")
    add_word(page, "crème", ["cream"], "fr", tags=["food"])
    page.click("text=‹ French")
    add_word(page, "bonjour", ["hello", "good day"], "fr")
    page.click("text=‹ French")
    add_word(page, "crémerie", ["dairy shop"], "fr", tags=["food"])
    settled(page)
    items = browse(server, token)
    check("four words on the server, with their definitions, languages and tags",
          sorted(i["word"] for i in items) == ["bonjour", "crème", "crème brûlée", "crémerie"]
          and next(i for i in items if i["word"] == "crème brûlée")["definitions"] == ["custard dessert", "burnt cream"]
          and next(i for i in items if i["word"] == "crème")["tagNames"] == ["food"]
          and next(i for i in items if i["word"] == "crème brûlée")["tagNames"] == ["food"], items)
    screen(page, "a word", "entry")

    # A related word: a chip that opens it, on both entries.
    page.click("text=‹ French")
    page.click("ul.entries >> text=crème brûlée")
    page.click("text=Add a related word")
    page.fill("#pick-search", "cre")
    page.click("ul.pick-list button:has-text('crème') >> nth=0")
    page.wait_for_selector("section.relations a.link-chip:has-text('crème')")
    settled(page)
    brulee = next(i for i in browse(server, token) if i["word"] == "crème brûlée")
    _, full, _ = call(server, "GET", f"{V}/entries/{brulee['id']}", token=token)
    creme = next(i for i in browse(server, token) if i["word"] == "crème")
    check("a related word is on the server, and the word keeps its tag", full["relations"] == [{"kind": "related", "entry": creme["id"]}]
          and next(i for i in browse(server, token) if i["word"] == "crème brûlée")["tagNames"] == ["food"], full)
    page.click("section.relations a.link-chip:has-text('crème')")
    page.wait_for_selector("vocab-entry h1:text-is('crème')")
    page.wait_for_selector("section.relations a.link-chip:has-text('crème brûlée')", timeout=10_000)
    check("its chip opens the other word, which lists it back", True)
    page.click("text=‹ French")
    page.wait_for_selector("ul.entries")
    screen(page, "a collection", "collection")
    return token


METRICS_TOKEN = "walk-metrics-token-0123456789abcdefghijklmnop"


def tip_counts(server):
    """quire_vocab_tips{tip, event} from /metrics, as {(tip, event): count}."""
    status, body, _ = call(server, "GET", "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    counts = {}
    for line in (body.decode() if isinstance(body, bytes) else "").splitlines():
        found = re.match(r'quire_vocab_tips\{(.*)\} ([0-9.]+)$', line)
        if found:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', found.group(1)))
            counts[(labels.get("tip"), labels.get("event"))] = float(found.group(2))
    return status, counts


def polled(condition, timeout=5.0):
    """Asks `condition` until it holds (the count is sent as the tip shows) or `timeout` passes."""
    end = time.time() + timeout
    while not condition() and time.time() < end:
        time.sleep(0.1)


def help_and_tips(page, server):
    """NFR 6.4.1: a help screen for each task, and a first-use tip on each task's screen, shown once,
    dismissible, its views and dismissals counted on the server (the operator's /metrics)."""
    page.goto("/#/")
    page.wait_for_selector("vocab-collections")
    try:
        page.get_by_role("link", name="Help", exact=True).click(timeout=5_000)
        page.wait_for_selector("vocab-help h1:text-is('Help')", timeout=5_000)
        topics = page.eval_on_selector_all("vocab-help section h2", "hs => hs.map(h => h.textContent)")
    except PlaywrightError as error:
        topics = [str(error).splitlines()[0]]
    wanted = ["Create a collection", "Add a word", "Tag words", "Search", "Review", "Import and export", "Your words on every device"]
    check("Help (linked from Collections) explains each task: create a collection, add a word, tag, search, review, import and export, sync",
          topics == wanted, topics)
    if topics == wanted:
        screen(page, "help", "help")
    # The first visit of Import and export shows its tip; counted when seen and when dismissed.
    page.goto("/#/files")
    page.wait_for_selector("vocab-files h1")
    note = page.get_by_role("note")
    try:
        note.wait_for(timeout=5_000)
        said = note.text_content()
    except PlaywrightError:
        said = None
    check("the first visit of a task's screen shows its tip (Import and export: .apkg, CSV)", said is not None and "Anki" in said, said)
    if said is None:
        return
    screen(page, "a first-use tip", "tip")
    polled(lambda: tip_counts(server)[1].get(("files", "viewed")) == 1)
    status, counts = tip_counts(server)
    check("…its view is counted on the server (/metrics quire_vocab_tips{tip=files,event=viewed})",
          status == 200 and counts.get(("files", "viewed")) == 1 and ("files", "dismissed") not in counts, (status, counts))
    page.get_by_role("button", name="Got it").click()
    page.get_by_role("note").wait_for(state="detached")
    polled(lambda: tip_counts(server)[1].get(("files", "dismissed")) == 1)
    counts = tip_counts(server)[1]
    check("“Got it” dismisses the tip, and the dismissal is counted", counts.get(("files", "dismissed")) == 1, counts)
    page.goto("/#/")
    page.wait_for_selector("vocab-collections")
    page.goto("/#/files")
    page.wait_for_selector("vocab-files h1")
    page.wait_for_timeout(300)
    check("…and is not shown again", page.get_by_role("note").count() == 0, page.get_by_role("note").all_text_contents())
    # Kept per account on the server (issue 39): a second phone signed in to the account does not show it either.
    second, other = phone(page.context.browser, server)
    other.goto("/")
    webwalk.sign_in(other, USER, PASSWORD)
    other.wait_for_selector("vocab-collections")
    other.goto("/#/files")
    other.wait_for_selector("vocab-files h1")
    other.wait_for_timeout(1_500)
    elsewhere = other.get_by_role("note").all_text_contents()
    check("…nor on a second phone signed in to the same account (which tips it has seen is kept on the server)",
          not [t for t in elsewhere if "Anki" in t], elsewhere)
    second.close()
    # A tip's "More help" opens the help on its task.
    page.goto("/#/search")
    page.wait_for_selector("vocab-search h1")
    page.get_by_role("note").get_by_role("link", name="More help").click()
    page.wait_for_selector("vocab-help h1")
    check("a tip's “More help” opens the help at its task", "task=search" in page.url, page.url)
    # In landscape too: the help and a tip no wider than the screen, the tip's buttons on it.
    page.set_viewport_size({"width": 844, "height": 390})
    try:
        page.wait_for_timeout(200)
        help_width = page.evaluate("document.documentElement.scrollWidth")
        page.goto("/#/review")
        note = page.get_by_role("note")
        note.wait_for(timeout=10_000)
        note.scroll_into_view_if_needed()
        shot(page, "tip-landscape")
        box = note.bounding_box()
        got_it = page.get_by_role("button", name="Got it").bounding_box()
        width = page.evaluate("document.documentElement.scrollWidth")
        check("in landscape (844×390) the help and a tip are no wider than the screen, the tip's “Got it” within it",
              help_width <= 844 and width <= 844 and box and got_it and box["x"] >= 0 and box["x"] + box["width"] <= 844
              and got_it["x"] + got_it["width"] <= box["x"] + box["width"], (help_width, width, box, got_it))
    finally:
        page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/#/")
    page.wait_for_selector("vocab-collections")


def reviewing(page, server, token):
    page.goto("/#/")
    page.click("nav >> text=Review")
    page.wait_for_selector("vocab-review .flashcard .word")
    first = page.text_content("vocab-review .flashcard .word")
    check("Review shows a word of the four, new, with how many are left",
          first in ("bonjour", "crème", "crème brûlée", "crémerie") and "4 to go · new word" in page.text_content("vocab-review"),
          page.text_content("vocab-review"))
    screen(page, "review: a word", "review")
    page.click("#show-answer")
    page.wait_for_selector("vocab-review .ratings")
    labels = page.eval_on_selector_all("vocab-review .rate", "buttons => buttons.map(b => b.innerText.replace(/\\s+/g, ' ').trim())")
    check("the answer, and four ratings that say when the word comes back",
          labels == ["Again 1 min", "Hard 6 min", "Good 10 min", "Easy 8 days"] and page.is_visible("vocab-review .definitions li"), labels)
    screen(page, "review: the answer and the ratings", "review-answer")
    page.click("vocab-review .rate.good")
    page.wait_for_selector("vocab-review :text('3 to go')")
    for _ in range(3):
        page.click("#show-answer")
        page.click("vocab-review .rate.easy")
    page.wait_for_selector("vocab-review .review-done")
    check("after the last word: well done, with today's count",
          "4 words reviewed" in page.text_content("vocab-review") and "Today: 4 reviewed" in page.text_content("vocab-review"),
          page.text_content("vocab-review"))
    screen(page, "review: done", "review-done")
    settled(page)
    _, stats, _ = call(server, "GET", f"{V}/review/stats", token=token)
    _, due, _ = call(server, "GET", f"{V}/review/next", token=token)
    check("the four reviews are on the server, and none of the words is due now",
          stats["reviewedToday"] == 4 and due["items"] == [], (stats, due))


def searching(page, server, token):
    page.click("text=‹ Collections")
    page.wait_for_selector("vocab-collections")
    page.click("#search")
    page.keyboard.type("cre")
    page.wait_for_function("() => document.querySelectorAll('vocab-search ul.entries li').length === 3")
    words = page.eval_on_selector_all("vocab-search .word", "els => els.map(e => e.textContent)")
    check("search as you type: “cre” finds the three crème words, case and accents aside", sorted(words) == ["crème", "crème brûlée", "crémerie"], words)
    page.keyboard.type("me b")
    page.wait_for_function("() => document.querySelectorAll('vocab-search ul.entries li').length === 1")
    marks = page.eval_on_selector_all("vocab-search .word mark", "els => els.map(e => e.textContent)")
    check("…“creme b” keeps crème brûlée, its matched parts highlighted from the server's highlights", marks == ["crème", "b"], marks)
    screen(page, "search", "search")

    page.fill("#search", "")
    page.click("summary:has-text('Filters')")
    food = "button.chip[aria-label^='food']"
    page.click(food)
    try:
        page.wait_for_function("() => document.querySelectorAll('vocab-search ul.entries li').length === 3")
    except PlaywrightError:
        # Once, in CI, the list stayed at crème and crémerie. Which side dropped crème brûlée: the
        # server's own answer to the same search, and the word's record, are printed with the failure.
        tag = page.evaluate("() => new URLSearchParams(location.hash.split('?')[1]).get('all')")
        answer = [i["word"] for i in browse(server, token, f"&all={tag}")]
        brulee = [(i["word"], i["tagNames"]) for i in browse(server, token) if i["word"] == "crème brûlée"]
        check("tag filter “must have food”: the three food words", False, {"server": answer, "record": brulee,
                                                                            "shown": page.text_content("vocab-search [role=status]")})
        raise
    check("tag filter “must have food”: the three food words", True)
    page.click(food)
    page.click(food)
    page.wait_for_function("() => document.querySelectorAll('vocab-search ul.entries li').length === 1")
    words = page.eval_on_selector_all("vocab-search .word", "els => els.map(e => e.textContent)")
    check("…“must not have food”: bonjour alone", words == ["bonjour"], words)
    screen(page, "search filters", "filters")
    page.click(food)


ROWS = "() => document.querySelectorAll('main ul.entries > li').length"


def scrolled_to(page, count, timeout=10_000):
    """Scrolls to the list's end until `count` words are listed (or the time is up); answers the words listed."""
    deadline = time.time() + timeout / 1000
    while time.time() < deadline and page.evaluate(ROWS) < count:
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.wait_for_timeout(150)
    return page.eval_on_selector_all("main ul.entries .word", "els => els.map(e => e.textContent)")


def paging(page, server, token):
    """Past the first 25 words: a collection's list, a search, a tag's words, online and offline (the
    server's keyset cursor, the device's copy); the search box on a collection's screen; tag names
    found by the search."""
    _, verbs, _ = call(server, "POST", f"{V}/collections", {"name": "Verbs"}, token=token)
    _, drill, _ = call(server, "POST", f"{V}/tags", {"name": "drill"}, token=token)
    words = [f"parler{n:03d}" for n in range(70)]
    for n, word in enumerate(words):
        call(server, "POST", f"{V}/entries", {"collection": verbs["id"], "word": word, "definitions": [f"to speak ({n})"],
                                              "tags": [drill["id"]] if n % 7 < 4 else []}, token=token)
    drilled = [w for n, w in enumerate(words) if n % 7 < 4]
    page.goto("/#/")
    page.reload()  # the words came from elsewhere: the phone reads them at start (pokes are walked in two_devices_offline)
    page.wait_for_selector("vocab-collections .big-link:has-text('Verbs')", timeout=15_000)
    page.click("vocab-collections .big-link:has-text('Verbs')")
    page.wait_for_selector("vocab-collection ul.entries")
    first = page.evaluate(ROWS)
    listed = scrolled_to(page, 70)
    check(f"a collection of 70 words lists them a page at a time as it scrolls ({first} first, then all 70, in order)",
          first < 70 and listed == words, (first, len(listed)))

    page.evaluate("window.scrollTo(0, 0)")
    box = page.get_by_role("searchbox", name="Search the words of Verbs")
    box.click()
    page.keyboard.type("parler06")
    page.wait_for_function("() => document.querySelectorAll('vocab-search ul.entries li').length === 10")
    found = page.eval_on_selector_all("vocab-search ul.entries .word", "els => els.map(e => e.textContent)")
    chosen = page.eval_on_selector("#search-collection", "s => s.selectedOptions[0].textContent")
    check("a collection's screen has its own search box: it searches that collection (parler06 → its 10 words)",
          found == words[60:70] and chosen == "Verbs", (found, chosen))

    page.fill("#search", "")
    page.wait_for_function("() => document.querySelector('vocab-search [role=status]')?.textContent.startsWith('25+ words')")
    listed = scrolled_to(page, 70)
    said = page.text_content("vocab-search [role=status]")
    check("online, browsing a collection in the search goes past 25 words as it scrolls (the server's cursor): all 70, once each, in order",
          listed == words and said == "70 words", (len(listed), said))

    page.fill("#search", "dri")
    page.wait_for_selector("vocab-search .tag-hits a.chip")
    page.wait_for_function("() => document.querySelector('vocab-search [role=status]')?.textContent.startsWith('No words')")
    screen(page, "a tag found by its name", "tag-found")
    page.get_by_role("link", name=f"Words tagged drill ({len(drilled)})").click()
    page.wait_for_function("() => location.hash.includes('all=') && document.querySelectorAll('vocab-search ul.entries li').length === 25")
    check("tag names are searchable: typing “dri” offers #drill with its count, and a tap lists its words", True)
    listed = scrolled_to(page, len(drilled))
    check(f"…and a tag's words go past 25 as it scrolls ({len(drilled)})", listed == drilled, len(listed))
    screen(page, "a tag's words, scrolled")

    page.context.set_offline(True)
    page.wait_for_selector("quire-status[data-state=offline]")
    page.reload()
    page.wait_for_selector("vocab-search ul.entries li", timeout=15_000)
    page.wait_for_function("() => document.querySelector('vocab-search [role=status]')?.textContent.includes('on this device')")
    first = page.evaluate(ROWS)
    listed = scrolled_to(page, len(drilled))
    check(f"offline, a tag's words page from the device's copy past 25 too ({first} first, then {len(drilled)})",
          first == 25 and listed == drilled, (first, len(listed)))
    page.fill("#search", "parler")
    page.wait_for_function("() => document.querySelector('vocab-search [role=status]')?.textContent.startsWith('25+ words')")
    page.select_option("#search-collection", label="Every collection")
    listed = scrolled_to(page, len(drilled))
    check("…and a search typed offline", listed == drilled, len(listed))
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.goto("/#/")
    page.wait_for_selector("vocab-collections")


def undo(page, server, token):
    page.fill("#search", "bonjour")
    page.wait_for_function("() => document.querySelectorAll('vocab-search ul.entries li').length === 1")
    page.click("vocab-search ul.entries a")
    page.wait_for_selector("vocab-entry h1:has-text('bonjour')")
    page.click("text=Delete word")
    page.click("dialog.confirm button.danger")
    page.wait_for_selector(".undo-bar")
    settled(page)
    # One read, right after "Saved": the bar says it only once the server answered the delete, and
    # the server's search reads what it committed (no waiting on the server).
    gone = [i["word"] for i in browse(server, token)]
    check("a deleted word is gone from the server, and the “Deleted · Undo” bar shows", "bonjour" not in gone, gone)
    screen(page, "the undo bar", "undo")
    page.click(".undo-bar button:has-text('Undo')")
    settled(page)
    back = [i["word"] for i in browse(server, token)]
    check("Undo brings it back", "bonjour" in back, back)


def tags_and_files(page, server, token, data):
    page.goto("/#/tags")
    page.wait_for_selector("vocab-tags ul.tag-list")
    page.click("button[aria-label='Rename food']")
    name_dialog(page, "cuisine")
    page.wait_for_selector("vocab-tags a.tag-name:has-text('#cuisine')")
    settled(page)
    _, tags, _ = call(server, "GET", f"{V}/tags", token=token)
    check("a tag renamed on the tags screen", [t["name"] for t in tags["items"]] == ["cuisine"], tags)
    screen(page, "tags", "tags")

    path = os.path.join(data, "words.csv")
    with open(path, "w") as handle:
        handle.write("word,definition,tags,collection\n")
        for index in range(5_000):
            handle.write(f"mot{index},word number {index},imported,Imported\n")
    page.goto("/#/files")
    page.wait_for_selector("vocab-files")
    page.evaluate("""() => {
        window.__statuses = [];
        new MutationObserver(() => window.__statuses.push(document.querySelector('#import-status').textContent))
          .observe(document.querySelector('#import-status'), {childList: true, characterData: true, subtree: true});
    }""")
    with page.expect_file_chooser() as chooser:
        page.click("text=Choose a file to import")
    chooser.value.set_files(path)
    page.wait_for_function("() => document.querySelector('#import-status').textContent.startsWith('Imported')", timeout=120_000)
    statuses = page.evaluate("window.__statuses")
    done = page.text_content("#import-status")
    check("import a CSV from the file picker: progress while it runs, then what was imported",
          any(s.startswith("Importing") for s in statuses) and done == "Imported 5000 words.", (statuses[:5], done))
    screen(page, "import and export", "files")
    with page.expect_download() as download:
        page.click("text=Export as CSV")
    exported = open(download.value.path(), encoding="utf-8").read()
    check("export as CSV is a download with every word", "crème brûlée" in exported and "mot4999" in exported and exported.count("\n") >= 5_004,
          exported[:200])


def deleting_after_confirming(page, server, token):
    """UC 5.3 and UC 5.9: a collection and a tag are deleted through their screens, each after a
    question that says what goes; Cancel keeps them."""
    page.goto("/#/tags")
    page.wait_for_selector("vocab-tags")
    page.click("text=New tag")
    name_dialog(page, "scratch")
    page.wait_for_selector("vocab-tags a.tag-name:has-text('#scratch')")
    page.click("button[aria-label='Delete scratch']")
    asked = page.text_content("dialog.confirm #confirm-question")
    page.click("dialog.confirm button:has-text('Cancel')")
    settled(page)
    kept = [t["name"] for t in call(server, "GET", f"{V}/tags", token=token)[1]["items"]]
    check("deleting a tag asks first, saying its words stay; Cancel keeps it", "scratch" in kept and "words stay" in asked, (asked, kept))
    page.click("button[aria-label='Delete scratch']")
    page.click("dialog.confirm button.danger:has-text('Delete')")
    page.wait_for_selector("vocab-tags a.tag-name:has-text('#scratch')", state="detached")
    settled(page)
    left = [t["name"] for t in call(server, "GET", f"{V}/tags", token=token)[1]["items"]]
    check("…and Delete takes it off the screen and the server (UC 5.9)", "scratch" not in left and left, left)

    page.goto("/#/")
    page.wait_for_selector("vocab-collections")
    page.click("text=New collection")
    # Named and sent with Enter (the phone keyboard's Go), not Save: Enter took Cancel, and the
    # name was thrown away without a word (walk10).
    page.wait_for_selector("dialog #name-input")
    page.fill("#name-input", "Scratch")
    page.press("#name-input", "Enter")
    made = eventually(page, "() => document.querySelector('vocab-collection h1')?.textContent.includes('Scratch')", 5_000)
    check("a new collection's name sent with Enter (the keyboard's Go) makes it, as Save does", made, page.inner_text("body")[:200])
    if not made:
        page.click("text=New collection")
        name_dialog(page, "Scratch")
    page.wait_for_selector("vocab-collection h1:has-text('Scratch')")
    settled(page)
    page.click("vocab-collection button.danger:has-text('Delete')")
    asked = page.text_content("dialog.confirm #confirm-question")
    page.click("dialog.confirm button.danger:has-text('Delete')")
    page.wait_for_selector("vocab-collections")
    settled(page)
    names = [c["name"] for c in call(server, "GET", f"{V}/collections", token=token)[1]["items"]]
    check("deleting a collection asks first (“cannot be undone”), then it is gone from the list and the server (UC 5.3)",
          "cannot be undone" in asked and "Scratch" not in names and "French" in names
          and not page.is_visible("vocab-collections .big-link:has-text('Scratch')"), (asked, names))


def slow_phone(page, server, token):
    """Save tapped twice on a busy phone (its storage answering 1.5 s late): one word, and its screen
    at once. The form used to wait for IndexedDB under the person's finger, and a second tap made the
    word again."""
    page.goto("/#/")
    page.click("text=New collection")
    name_dialog(page, "Slow")
    page.wait_for_selector("vocab-collection h1:has-text('Slow')")
    page.click("text=Add word")
    page.fill("#entry-word", "la poire")
    page.fill("#entry-definitions", "the pear")
    page.evaluate(SLOW_STORAGE)
    page.evaluate("""() => {
      const save = document.querySelector("vocab-entry-form form button[type=submit]");
      save.click();
      setTimeout(() => save.click(), 250);
    }""")
    page.wait_for_selector("vocab-entry h1:has-text('la poire')")
    page.wait_for_timeout(2_000)  # the second tap's write, were there one, queued too
    page.evaluate(QUICK_STORAGE)
    settled(page)
    words = [i["word"] for i in browse(server, token, "&collection=Slow")]
    check("Save tapped twice on a busy phone makes the word once", words == ["la poire"], words)
    collection = next(c for c in call(server, "GET", f"{V}/collections", token=token)[1]["items"] if c["name"] == "Slow")
    call(server, "DELETE", f"{V}/collections/{collection['id']}", token=token)


def eventually(page, condition, timeout=10_000):
    """Waits for a JavaScript condition; answers whether it came true."""
    try:
        page.wait_for_function(condition, timeout=timeout)
        return True
    except Exception:  # noqa: BLE001  (a timeout is the answer "no")
        return False


def nothing_lost(browser, server, page, token):
    """A word open on another phone follows an edit (one made offline too) and says what of its own
    typing was changed, with the way back; typing in the word's form, a new word's included, is kept
    across a reload and the phone's Back, and can be thrown away; "Deleted · Undo" stays after a
    reload while the server allows the restore, and reads "“word” deleted" with its space."""
    _, walk, _ = call(server, "POST", f"{V}/collections", {"name": "Walk"}, token=token)
    _, chat, _ = call(server, "POST", f"{V}/entries", {"word": "le chat", "definitions": ["cat"], "languages": ["fr"],
                                                       "collection": walk["id"]}, token=token)
    entry = lambda: call(server, "GET", f"{V}/entries/{chat['id']}", token=token)[1]  # noqa: E731
    second, other = phone(browser, server)
    other.goto("/")
    webwalk.sign_in(other, USER, PASSWORD)
    other.wait_for_selector("vocab-collections")

    # The edit form follows the other phone; a field typed in and not saved that the other phone
    # changed says so, quoting it, with "Bring back mine".
    other.goto(f"/#/edit/{chat['id']}")
    other.wait_for_selector("#entry-note")
    other.fill("#entry-note", "typed on B")
    other.focus("#entry-word")
    page.goto(f"/#/edit/{chat['id']}")
    page.wait_for_selector("#entry-note")
    page.fill("#entry-note", "saved on A")
    page.fill("#entry-definitions", "cat\ntomcat")
    page.click("vocab-entry-form button:has-text('Save')")
    page.wait_for_selector("vocab-entry h1:has-text('le chat')")
    settled(page)
    told = eventually(other, "() => document.querySelector('#entry-definitions')?.value === 'cat\\ntomcat'"
                             " && document.querySelector('#entry-note')?.value === 'saved on A'"
                             " && document.querySelector('#entry-note-replaced')?.textContent.includes('typed on B')")
    other.screenshot(path=os.path.join(ROOT, ".build", "foreign-note-form-replaced.png"))
    check("a word's edit form follows the other phone, and says what B had typed that A changed, quoting it", told,
          (other.input_value("#entry-definitions"), other.input_value("#entry-note"), other.inner_text("vocab-entry-form")[:400]))
    if other.is_visible("#entry-note-replaced >> text=Bring back mine"):
        other.click("#entry-note-replaced >> text=Bring back mine")
    other.click("vocab-entry-form button:has-text('Save')")
    other.wait_for_selector("vocab-entry h1:has-text('le chat')")
    settled(other)
    check("…“Bring back mine” puts B's text back, saved over A's, A's definitions kept",
          (entry()["note"], entry()["definitions"]) == ("typed on B", ["cat", "tomcat"]), entry())
    # A saved "saved on A" and B put its own back over it: A is told, and answers OK.
    a_told = page.locator(".notices .notice", has_text="“saved on A” now reads “typed on B”")
    check("…and A, whose saved note B replaced, is told so with “Bring back mine”", eventually(
        page, "() => [...document.querySelectorAll('.notices .notice')].some((n) => n.textContent.includes('“saved on A” now reads “typed on B”'))", 5_000),
        page.inner_text(".notices")[:300])
    if a_told.count():
        a_told.get_by_role("button", name="OK").click()

    # A's edit made offline, sent when back, replaces B's: B's open word shows it, A is told.
    page.context.set_offline(True)
    page.wait_for_selector("quire-status[data-state=offline]")
    page.goto(f"/#/edit/{chat['id']}")
    page.wait_for_selector("#entry-note")
    page.fill("#entry-note", "written offline on A")
    page.click("vocab-entry-form button:has-text('Save')")
    page.wait_for_selector("vocab-entry h1:has-text('le chat')")
    other.goto(f"/#/edit/{chat['id']}")
    other.wait_for_selector("#entry-note")
    other.fill("#entry-note", "written online on B")
    other.click("vocab-entry-form button:has-text('Save')")
    other.wait_for_selector("vocab-entry .note:has-text('written online on B')")
    settled(other)
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    settled(page, 20_000)
    check("A's offline edit, sent when back, is merged over B's and A is told what it replaced",
          eventually(page, "() => document.querySelector('.notice.replaced')?.textContent.includes('written online on B')"),
          page.inner_text("header")[:300])
    check("…and B's open word follows it, without a reload",
          eventually(other, "() => document.querySelector('vocab-entry .note')?.textContent.includes('written offline on A')"),
          other.inner_text("vocab-entry")[:300])
    if page.is_visible(".notice.replaced"):
        page.locator(".notice.replaced").get_by_role("button", name="OK").click()
    second.close()

    # Typing in a word's form is kept across a reload, said, and saved with Save.
    page.goto(f"/#/edit/{chat['id']}")
    page.wait_for_selector("#entry-example")
    page.fill("#entry-example", "Le chat dort.")
    page.reload()
    page.wait_for_selector("#entry-example")
    check("an edit not saved is kept across a reload, and said", page.input_value("#entry-example") == "Le chat dort."
          and page.is_visible("#entry-draft"), (page.input_value("#entry-example"), page.inner_text("vocab-entry-form")[:200]))
    page.click("vocab-entry-form button:has-text('Save')")
    page.wait_for_selector("vocab-entry h1:has-text('le chat')")
    settled(page)
    check("…and Save sends it", entry()["example"] == "Le chat dort.", entry())

    # A new word not saved yet: kept across a reload and the phone's Back, and can be thrown away.
    page.goto(f"/#/c/{walk['id']}")
    page.wait_for_selector("vocab-collection h1:has-text('Walk')")
    page.click("text=Add word")
    page.wait_for_selector("#entry-word")
    page.fill("#entry-word", "le lapin")
    page.fill("#entry-definitions", "rabbit")
    page.reload()
    page.wait_for_selector("#entry-word")
    kept = (page.input_value("#entry-word"), page.input_value("#entry-definitions"))
    check("a new word not saved yet is kept across a reload, and said", kept == ("le lapin", "rabbit") and page.is_visible("#entry-draft"), kept)
    page.go_back()
    page.wait_for_selector("vocab-collection h1:has-text('Walk')")
    page.click("text=Add word")
    page.wait_for_selector("#entry-word")
    kept = (page.input_value("#entry-word"), page.input_value("#entry-definitions"))
    check("…and across the phone's Back", kept == ("le lapin", "rabbit"), kept)
    screen(page, "a new word kept")
    if page.is_visible("#entry-draft >> text=Throw it away"):
        page.click("#entry-draft >> text=Throw it away")
    page.reload()
    page.wait_for_selector("#entry-word")
    kept = (page.input_value("#entry-word"), page.input_value("#entry-definitions"))
    check("…and “Throw it away” empties the form for good", kept == ("", "") and not page.is_visible("#entry-draft"), kept)

    # "Deleted · Undo" after a reload.
    _, chien, _ = call(server, "POST", f"{V}/entries", {"word": "le chien", "definitions": ["dog"], "collection": walk["id"]}, token=token)
    page.goto(f"/#/e/{chien['id']}")
    page.wait_for_selector("vocab-entry h1:has-text('le chien')")
    page.click("text=Delete word")
    page.click("dialog.confirm button.danger")
    page.wait_for_selector(".undo-bar")
    said = page.text_content(".undo-bar .undo-text").replace("\u00a0", " ")
    # The space shown, not only in the text: the gap between the word and "deleted" on the screen.
    gap = page.evaluate("""() => {
        const text = document.querySelector('.undo-bar .undo-text'), word = text.querySelector('.undo-word');
        const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = node.data.indexOf('deleted');
            if (at < 0) continue;
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + 1);
            return range.getBoundingClientRect().left - word.getBoundingClientRect().right;
        }
        return null;
    }""")
    check("the undo bar reads “le chien” deleted, with its space shown", said == "“le chien” deleted" and gap is not None and gap >= 3, (said, gap))
    settled(page)
    page.reload()
    page.wait_for_selector("vocab-collection, vocab-collections")
    check("a reload keeps the “Deleted · Undo” bar while the server allows the restore",
          eventually(page, "() => document.querySelector('.undo-bar')?.textContent.includes('le chien')", 5_000),
          page.inner_text("body")[-200:])
    if page.is_visible(".undo-bar button:has-text('Undo')"):
        page.click(".undo-bar button:has-text('Undo')")
    settled(page)
    words = [i["word"] for i in browse(server, token, "&collection=Walk")]
    page.reload()
    page.wait_for_selector("vocab-collection, vocab-collections, vocab-entry")
    page.wait_for_timeout(500)
    check("…its Undo brings the word back, and the bar does not come back after", "le chien" in words and not page.is_visible(".undo-bar"),
          (words, page.is_visible(".undo-bar")))
    call(server, "DELETE", f"{V}/collections/{walk['id']}", token=token)
    page.goto("/#/")
    page.wait_for_selector("vocab-collections")


def edits_meet_deletes_and_tags(browser, server, page, token):
    """Two phones on one word: tags added on each are both kept (not the last save's only), and a
    word deleted on one phone while the other edits it is said plainly (no internal id), with a
    way to keep what was typed: "Add it again as a new word"."""
    _, coll, _ = call(server, "POST", f"{V}/collections", {"name": "Fruit"}, token=token)
    _, mela, _ = call(server, "POST", f"{V}/entries", {"word": "la mela", "definitions": ["the apple"], "languages": ["it"],
                                                       "collection": coll["id"]}, token=token)
    second, other = phone(browser, server)
    other.goto("/")
    webwalk.sign_in(other, USER, PASSWORD)
    other.wait_for_selector("vocab-collections")
    tags_of = lambda: sorted(tag["name"] for tag in (call(server, "GET", f"{V}/tags", token=token)[1]["items"])  # noqa: E731
                             if tag["id"] in call(server, "GET", f"{V}/entries/{mela['id']}", token=token)[1].get("tags", []))

    # A's note typed, then a reload: "Your changes not saved yet are back"; B saves another note:
    # A's field says it changed on another device, and the banner, no longer true, goes.
    page.goto(f"/#/edit/{mela['id']}")
    page.wait_for_selector("#entry-note")
    page.fill("#entry-note", "A: feminine")
    page.reload()
    page.wait_for_selector("#entry-draft", timeout=15_000)
    other.goto(f"/#/edit/{mela['id']}")
    other.wait_for_selector("#entry-note")
    other.fill("#entry-note", "B: plural le mele")
    other.click("vocab-entry-form button[type=submit]:has-text('Save')")
    other.wait_for_selector("vocab-entry h1:has-text('la mela')")
    settled(other)
    replaced = eventually(page, "() => document.querySelector('#entry-note-replaced') !== null")
    gone = eventually(page, "() => document.querySelector('#entry-draft') === null", 3_000)
    check("after another device replaced what a reload brought back, “Your changes not saved yet are back” goes (the field says what changed)",
          replaced and gone, page.inner_text("vocab-entry-form")[:300])
    page.goto(f"/#/e/{mela['id']}")
    page.wait_for_selector("vocab-entry h1")

    # Both open Edit; A adds #red and saves; B adds #round and saves: the word has both.
    for each in (page, other):
        each.goto(f"/#/edit/{mela['id']}")
        each.wait_for_selector("#entry-word")
    page.click("vocab-entry-form button:has-text('New tag')")
    name_dialog(page, "red")
    page.click("vocab-entry-form button[type=submit]:has-text('Save')")
    page.wait_for_selector("vocab-entry h1:has-text('la mela')")
    settled(page)
    other.click("vocab-entry-form button:has-text('New tag')")
    name_dialog(other, "round")
    other.click("vocab-entry-form button[type=submit]:has-text('Save')")
    other.wait_for_selector("vocab-entry h1:has-text('la mela')")
    settled(other)
    check("tags added on two phones at once are both kept: A's #red and B's #round", tags_of() == ["red", "round"], tags_of())

    # Both save the example a moment apart and both reload at once (walk10): the phone whose example
    # was replaced is told after its reload, and once it says OK the notice does not come back.
    for each in (page, other):
        each.goto(f"/#/edit/{mela['id']}")
        each.wait_for_selector("#entry-example")
    page.fill("#entry-example", "A: una mela")
    other.fill("#entry-example", "B: la mela rossa")
    for each in (page, other):
        each.click("vocab-entry-form button[type=submit]:has-text('Save')")
    for each in (page, other):
        each.wait_for_selector("vocab-entry h1:has-text('la mela')")
    page.reload()
    other.reload()
    for each in (page, other):
        each.wait_for_selector("vocab-entry h1:has-text('la mela')")
        settled(each)
    kept = call(server, "GET", f"{V}/entries/{mela['id']}", token=token)[1].get("example")
    loser, lost = (page, "A: una mela") if kept == "B: la mela rossa" else (other, "B: la mela rossa")
    told = f"() => [...document.querySelectorAll('.notices .notice')].some((n) => n.textContent.includes('changed on another device')" \
           f" && n.textContent.includes({lost!r}))"
    said = eventually(loser, told, 5_000)
    check("both phones save the example at once and reload: the one whose example was replaced is told so, after its reload",
          kept in ("A: una mela", "B: la mela rossa") and said, (kept, loser.inner_text(".notices")[:300]))
    if said:
        loser.locator(".notices .notice", has_text=lost).get_by_role("button", name="OK").click()
        loser.reload()
        loser.wait_for_selector("vocab-entry h1:has-text('la mela')")
        loser.wait_for_timeout(1_000)
        check("…and once it says OK, a reload does not tell it again", not eventually(loser, told, 1_000),
              loser.inner_text(".notices")[:300])

    # B edits, A deletes: B is told plainly, and can add what it typed again as a new word.
    other.goto(f"/#/edit/{mela['id']}")
    other.wait_for_selector("#entry-example")
    other.fill("#entry-example", "Mangio una mela ogni giorno.")
    page.goto(f"/#/e/{mela['id']}")
    page.wait_for_selector("vocab-entry button:has-text('Delete word')")
    page.click("vocab-entry button:has-text('Delete word')")
    if page.is_visible("dialog.confirm button.danger"):
        page.click("dialog.confirm button.danger")
    settled(page)
    told = eventually(other, "() => /deleted on another device/.test(document.querySelector('vocab-entry-form')?.textContent ?? '')", 5_000)
    if not told:  # not said on its own: Save, as the newcomer did
        other.click("vocab-entry-form button[type=submit]:has-text('Save')")
        other.wait_for_timeout(2_000)
    text = other.inner_text("body")
    shot(other, "word deleted elsewhere")
    check("B editing a word A deletes is told at once it was “deleted on another device”, in plain words, no internal id, its typing still there",
          told and mela["id"] not in text and "No entry" not in text and other.input_value("#entry-example") == "Mangio una mela ogni giorno.",
          text[:400])
    again = other.locator("#entry-gone button:has-text('Add it again as a new word')")
    if again.count():
        again.click()
        other.wait_for_selector("vocab-entry h1:has-text('la mela')")
        settled(other)
    words = [i for i in browse(server, token, "&q=mela") if i["word"] == "la mela"]
    example = call(server, "GET", f"{V}/entries/{words[0]['id']}", token=token)[1].get("example") if words else None
    check("…and “Add it again as a new word” keeps what B typed: the word is back, with B's example",
          len(words) == 1 and example == "Mangio una mela ogni giorno.", (words, example))
    # B edits, A deletes and taps Undo on its bar: the word is back, so B's “deleted” goes and
    # B's Save lands on the restored word (not a second “la mela”).
    if words:
        again_id = words[0]["id"]
        other.goto(f"/#/edit/{again_id}")
        other.wait_for_selector("#entry-note")
        other.fill("#entry-note", "A fruit, feminine.")
        page.goto(f"/#/e/{again_id}")
        page.wait_for_selector("vocab-entry button:has-text('Delete word')")
        page.click("vocab-entry button:has-text('Delete word')")
        if page.is_visible("dialog.confirm button.danger"):
            page.click("dialog.confirm button.danger")
        page.wait_for_selector(".undo-bar")
        settled(page)
        told = eventually(other, "() => !!document.querySelector('#entry-gone')", 5_000)
        page.click(".undo-bar button:has-text('Undo')")
        settled(page)
        cleared = eventually(other, "() => !document.querySelector('#entry-gone')"
                                    " && document.querySelector('vocab-entry-form button[type=submit]')?.textContent === 'Save'", 8_000)
        shot(other, "word deleted elsewhere then undone")
        check("B editing a word A deletes and then brings back (Undo): B's “deleted” notice goes and Save is Save again",
              told and cleared, (told, cleared, other.inner_text("vocab-entry-form")[:300]))
        other.click("vocab-entry-form button[type=submit]")
        other.wait_for_selector("vocab-entry h1:has-text('la mela')")
        settled(other)
        words = [i for i in browse(server, token, "&q=mela") if i["word"] == "la mela"]
        note = call(server, "GET", f"{V}/entries/{again_id}", token=token)[1].get("note")
        check("…and B's Save puts B's change on the restored word: one “la mela”, with B's note",
              [w["id"] for w in words] == [again_id] and note == "A fruit, feminine.", (words, note))
    second.close()
    # The words and tags made here leave the account as it was for the checks after. The tags are
    # deleted while the collection's words are purged in the background: each delete is answered
    # 204 and the tag is gone (a 404 naming a word the purge took left "red" for tags_and_files).
    answers = [call(server, "DELETE", f"{V}/collections/{coll['id']}", token=token)[:2]]
    for name in ("red", "round"):
        tag = tag_named(server, token, name)
        answers.append(call(server, "DELETE", f"{V}/tags/{tag['id']}", token=token)[:2] if tag else (None, name))
    left = [name for name in ("red", "round") if tag_named(server, token, name)]
    check("the scene's collection and its tags #red and #round, deleted at once while its words are purged, are gone (204 each)",
          [status for status, _ in answers] == [204, 204, 204] and not left, (answers, left))


def two_devices_offline(browser, server, page, token):
    second, other = phone(browser, server)
    other.goto("/")
    webwalk.sign_in(other, USER, PASSWORD)
    other.wait_for_selector("vocab-collections")
    other.wait_for_function("() => document.querySelector('vocab-collections .big-link')?.innerText.includes('French')", timeout=30_000)
    settled(other, 60_000)  # its copy is current (5,000 imported words pulled)
    creme = next(i for i in browse(server, token, "&q=cr%C3%A8me%20") if i["word"] == "crème")
    other.goto(f"/#/e/{creme['id']}")
    other.wait_for_selector("vocab-entry h1")
    page.goto(f"/#/edit/{creme['id']}")
    page.wait_for_selector("#entry-definitions")
    page.fill("#entry-definitions", "cream\nthe best part of milk")
    started = time.time()
    page.click("vocab-entry-form button:has-text('Save')")
    shown = eventually(other, "() => [...document.querySelectorAll('vocab-entry li')].some((e) => e.textContent.includes('the best part of milk'))", 10_000)
    seen = time.time() - started
    # The spec's bound (NFR 6.3.2: 10 s); how fast is tools/bench.d/sync.py's to say, not a timed check.
    print("     live sync brought the edit in %.2f s" % seen)
    check("an edit on one device shows on the other without a reload, live (the spec: within 10 s)", shown, seen)

    # Offline on both: a word added on each, searched on the device, then synced once.
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.goto("/#/")
    page.reload()
    page.wait_for_selector("vocab-collections")
    for context in (page.context, second):
        context.set_offline(True)
    page.click("vocab-collections .big-link:has-text('French')")
    add_word(page, "au revoir", ["goodbye"], "fr")
    other.evaluate("location.hash = '#/'")
    other.wait_for_selector("vocab-collections .big-link")
    other.click("vocab-collections .big-link:has-text('French')")
    add_word(other, "merci", ["thank you"], "fr")
    page.evaluate("location.hash = '#/'")
    page.reload()
    page.wait_for_selector("vocab-collections", timeout=15_000)
    page.click("#search")
    page.keyboard.type("revo")
    page.wait_for_function("() => document.querySelector('vocab-search [role=status]')?.textContent.includes('on this device')")
    marks = page.eval_on_selector_all("vocab-search .word mark", "els => els.map(e => e.textContent)")
    check("offline, search runs over the device's copy, highlighted (“revo” → au revoir)", marks == ["revo"], marks)
    shot(page, "offline")
    for context in (page.context, second):
        context.set_offline(False)
    for each in (page, other):
        each.evaluate("window.dispatchEvent(new Event('online'))")
    settled(page, 30_000)
    settled(other, 30_000)
    words = sorted(i["word"] for i in browse(server, token, "&collection=French"))
    check("back online: both devices' words reached the server exactly once",
          words.count("au revoir") == 1 and words.count("merci") == 1, words)
    other.goto("/#/search?q=au%20rev")
    other.wait_for_function("() => [...document.querySelectorAll('vocab-search .word')].some(e => e.textContent === 'au revoir')", timeout=5_000)
    check("…and each device has the other's", True)
    second.close()


LONG_WORD = "Donaudampfschifffahrtsgesellschaftskapitaenswitwenrentenversicherungsanstalten" + "xyz"  # 80 letters, no space
LONG_NAME = "Vocabulaire" + "x" * 80  # a collection's name, no space
ADDRESS = "https://example.com/a/very/long/path/that/never/breaks/anywhere/at/all/index.html?query=parameters&more=values"
LONG_PHRASE = " ".join(["a rather long phrase"] * 8)  # a word of 167 characters, with spaces


def fits(page, where):
    """The page is no wider than the phone."""
    width = page.evaluate("document.documentElement.scrollWidth")
    # On failure, the innermost elements that reach past the phone's edge: what to mend.
    wide = [] if width <= 390 else page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > 391 && ![...e.children].some((c) => c.getBoundingClientRect().right > 391))
        .slice(0, 4).map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}px: ${(e.textContent || '').trim().slice(0, 40)}`)""")
    check(f"{where}: no wider than the phone (scrollWidth {width} ≤ 390)", width <= 390, (width, wide))


def entry_named(server, token, word):
    return next(i for i in browse(server, token, "&q=" + urllib.parse.quote(word)) if i["word"] == word)


def tag_named(server, token, name):
    _, tags, _ = call(server, "GET", f"{V}/tags", token=token)
    return next((t for t in tags["items"] if t["name"] == name), None)


# Every control of the screen, scrolled into view as a tap or the keyboard would: the one at its
# centre is itself, not the "Deleted · Undo" bar.
COVERED = """() => {
    const covered = [];
    for (const control of document.querySelectorAll('main a, main button, main input, main textarea, main select')) {
        const box = control.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1 || control.closest('.undo-bar, dialog')) continue;
        control.scrollIntoView({block: 'nearest'});
        const now = control.getBoundingClientRect();
        const hit = document.elementFromPoint(now.left + now.width / 2, now.top + Math.min(now.height / 2, 24));
        if (!hit || !control.contains(hit)) covered.push((control.textContent || control.id || control.tagName).trim().slice(0, 30));
    }
    window.scrollTo(0, 0);
    return covered;
}"""


def collection_made_offline(page, server, token):
    """A collection made offline, a word begun in it, and the phone back online before Save: the
    collection's create is answered while the form is open (its local id resolved to the server's)
    and the word still goes to it. It said "That collection was deleted too" (seen in a CI run, where
    a slow machine answered the create while the form was filled)."""
    page.context.set_offline(True)
    page.wait_for_selector("quire-status[data-state=offline]")
    page.click("text=New collection")
    page.wait_for_selector("dialog #name-input")
    page.fill("#name-input", "Made on the train")
    page.click("dialog button:has-text('Save')")
    page.wait_for_selector("vocab-collection h1:has-text('Made on the train')")
    page.click("text=Add word")
    page.wait_for_selector("#entry-word")
    page.fill("#entry-word", "le train")
    page.fill("#entry-definitions", "the train")
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    settled(page, 20_000)
    page.click("vocab-entry-form button:has-text('Save')")
    shown = eventually(page, "() => document.querySelector('vocab-entry h1')?.textContent.includes('le train')")
    settled(page, 20_000)
    _, listing, _ = call(server, "GET", f"{V}/collections", token=token)
    made = next((c for c in listing["items"] if c["name"] == "Made on the train"), None)
    words = [i["word"] for i in browse(server, token, "&q=train") if made and i.get("collection") == made["id"]]
    check("a word begun in a collection made offline, saved once back online, goes to that collection",
          shown and words == ["le train"], (page.inner_text("main")[:300], made, words))


def phone_sized(page, server, token):
    """What a walk on a 390×844 phone found: a name already taken said in the dialog, long words and
    addresses that widened the page, a new tag with a space lost the word's edit (online and
    offline), the phone's order of words, the undo bar over the controls, and re-importing our
    own .apkg."""
    # A name already taken: said in the dialog, next to the field, which stays open.
    page.goto("/#/")
    page.wait_for_selector("vocab-collections .big-link")
    page.click("text=New collection")
    page.wait_for_selector("dialog #name-input")
    page.fill("#name-input", "FRÉNCH")
    page.click("dialog button:has-text('Save')")
    try:
        page.wait_for_function("() => document.querySelector('#name-input-error')?.textContent.includes('already have')", timeout=5_000)
    except Exception:  # said elsewhere, or not at all: the check below says how
        pass
    placed = page.evaluate("""() => {
        const open = document.querySelector('dialog[open]'), error = document.querySelector('#name-input-error');
        if (!open || !error) return {inDialog: false, inView: false, notices: document.querySelectorAll('.notice').length};
        const dialog = open.getBoundingClientRect();
        const said = error.getBoundingClientRect();
        return {inDialog: said.top >= dialog.top && said.bottom <= dialog.bottom && said.height > 0,
                inView: said.top >= 0 && said.bottom <= innerHeight, notices: document.querySelectorAll('.notice').length};
    }""")
    check("a collection name already taken: the dialog stays open and says so beside the field, in view",
          page.is_visible("dialog #name-input") and placed["inDialog"] and placed["inView"] and placed["notices"] == 0,
          (placed, page.inner_text("body")[:200]))
    screen(page, "a name already taken", "name-taken")
    if not page.is_visible("dialog #name-input"):
        page.click("text=New collection")
    page.click("dialog button:has-text('Cancel')")
    collection_made_offline(page, server, token)
    page.goto("/#/")
    page.wait_for_selector("vocab-collections .big-link")
    page.click("text=New collection")
    page.wait_for_selector("dialog #name-input")
    page.fill("#name-input", LONG_NAME)
    page.click("dialog button:has-text('Save')")
    page.wait_for_selector("vocab-collection h1")

    # Long words, names and web addresses.
    add_word(page, LONG_WORD, ["a very long word"], "de")
    fits(page, "a word of 80 letters")
    page.click("vocab-entry a.back")
    add_word(page, "site", [ADDRESS], "en")
    page.click("text=Edit")
    page.wait_for_selector("#entry-example")
    page.fill("#entry-example", "see " + ADDRESS)
    page.fill("#entry-note", ADDRESS)
    page.click("vocab-entry-form button:has-text('New tag')")
    page.wait_for_selector("dialog #name-input")
    page.fill("#name-input", "formal greeting")
    page.click("dialog button:has-text('Save')")
    page.wait_for_selector("dialog #name-input", state="detached")
    fits(page, "the word form with a long collection name and an address")
    page.click("vocab-entry-form button:has-text('Save')")
    page.wait_for_selector("vocab-entry h1:text-is('site')")
    settled(page)
    fits(page, "a word whose definition, example and note are a web address")
    site = entry_named(server, token, "site")
    _, site, _ = call(server, "GET", f"{V}/entries/{site['id']}", token=token)
    formal = tag_named(server, token, "formal_greeting")
    check("a new tag typed with a space (“formal greeting”) is made as one word, and the word is saved with its id and the example kept",
          formal is not None and site["tags"] == [formal["id"]] and site["example"] == "see " + ADDRESS and not page.is_visible(".notice"),
          (site, formal, page.text_content(".notices") if page.query_selector(".notices") else ""))
    page.click("vocab-entry a.back")
    page.wait_for_selector("vocab-collection ul.entries")
    fits(page, "a collection with a long name and an 80-letter word")
    screen(page, "long words", "long-words")
    page.goto("/#/")
    page.wait_for_selector("vocab-collections .big-link")
    fits(page, "the collections with a long name")
    page.goto("/#/search?q=" + LONG_WORD[:20])
    page.wait_for_selector("vocab-search ul.entries li")
    fits(page, "search finding an 80-letter word")
    page.goto("/#/tags")
    page.wait_for_selector("vocab-tags ul.tag-list")
    fits(page, "the tags")

    # Offline: an edit with a new tag (spaces and all) waits, then reaches the server with the tag's real id.
    long_entry = entry_named(server, token, LONG_WORD)
    page.goto(f"/#/edit/{long_entry['id']}")
    page.wait_for_selector("#entry-example")
    page.context.set_offline(True)
    page.fill("#entry-example", "written offline")
    page.click("vocab-entry-form button:has-text('New tag')")
    page.wait_for_selector("dialog #name-input")
    page.fill("#name-input", "very formal")
    page.click("dialog button:has-text('Save')")
    page.wait_for_selector("dialog #name-input", state="detached")
    page.click("vocab-entry-form button:has-text('Save')")
    page.wait_for_selector("vocab-entry h1")
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    settled(page, 30_000)
    _, edited, _ = call(server, "GET", f"{V}/entries/{long_entry['id']}", token=token)
    very = tag_named(server, token, "very_formal")
    check("offline: the new tag is created first and the word saved with its server id, the example kept",
          very is not None and edited["tags"] == [very["id"]] and edited["example"] == "written offline", (edited, very))

    # The phone's order is the server's, emoji and all; offline too.
    page.goto("/#/")
    page.wait_for_selector("vocab-collections .big-link")
    page.click("text=New collection")
    name_dialog(page, "Order")
    page.wait_for_selector("vocab-collection h1:has-text('Order')")
    for word in ("seven", "✨ blue", "apple"):
        add_word(page, word, ["x"], "en")
        page.click("vocab-entry a.back")
    page.wait_for_function("() => document.querySelectorAll('vocab-collection ul.entries li').length === 3")
    settled(page)
    phone = page.eval_on_selector_all("vocab-collection .word", "els => els.map(e => e.textContent)")
    served = [i["word"] for i in browse(server, token, "&collection=Order")]
    check("a collection lists its words in the server's order (“✨ blue” as “blue”)", phone == served == ["apple", "✨ blue", "seven"], (phone, served))
    order_id = page.evaluate("location.hash.split('/')[2]")
    page.context.set_offline(True)
    page.goto(f"/#/search?collection={order_id}")
    page.wait_for_function("() => document.querySelector('vocab-search [role=status]')?.textContent.includes('on this device')")
    offline = page.eval_on_selector_all("vocab-search .word", "els => els.map(e => e.textContent)")
    page.fill("#search", "BLUE")
    page.wait_for_function("() => document.querySelectorAll('vocab-search ul.entries li').length === 1")
    marks = page.eval_on_selector_all("vocab-search .word mark", "els => els.map(e => e.textContent)")
    check("offline, the device lists and searches the same way (“BLUE” finds “✨ blue”)", offline == served and marks == ["blue"], (offline, marks))
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")

    # "Deleted · Undo" after a long word: small, in view, over no control.
    page.goto(f"/#/c/{order_id}")
    add_word(page, LONG_PHRASE, ["x"], "en")
    page.click("text=Delete word")
    page.click("dialog.confirm button.danger")
    page.wait_for_selector(".undo-bar")
    page.wait_for_selector("vocab-collection ul.entries")
    bar = page.evaluate("(() => { const r = document.querySelector('.undo-bar').getBoundingClientRect(); "
                        "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height}; })()")
    undo_box = page.evaluate("(() => { const r = document.querySelector('.undo-bar button').getBoundingClientRect(); return r.right <= innerWidth && r.bottom <= innerHeight; })()")
    check("the undo bar after a long word is one compact line in view, its Undo on screen",
          bar["left"] >= 0 and bar["right"] <= 390 and bar["bottom"] <= 844 and bar["height"] <= 90 and undo_box, bar)
    fits(page, "the collection under the undo bar")
    covered = page.evaluate(COVERED)
    check("…and covers none of the collection's controls or rows", covered == [], covered)
    shot(page, "undo-long")
    page.click("vocab-collection ul.entries a:has-text('apple')")
    page.click("text=Edit")
    page.wait_for_selector("#entry-example")
    covered = page.evaluate(COVERED)
    check("…nor the word form's, Save included", covered == [], covered)
    page.fill("#entry-example", "an apple a day")
    page.tap("vocab-entry-form button:has-text('Save')")
    page.wait_for_selector("vocab-entry h1:text-is('apple')")
    covered = page.evaluate(COVERED)
    check("…nor the word's, Delete included; and it is still there to undo",
          covered == [] and page.is_visible(".undo-bar button:has-text('Undo')"), covered)
    page.click(".undo-bar button:has-text('Undo')")
    settled(page)
    check("Undo brings the long word back", any(i["word"] == LONG_PHRASE for i in browse(server, token, "&collection=Order")))

    # Our own .apkg imported again updates the words it has, and adds none.
    before = call(server, "GET", f"{V}/export?format=csv", token=token)[1].decode().count("\n")
    page.goto("/#/files")
    page.wait_for_selector("vocab-files")
    with page.expect_download() as download:
        page.click("text=Export for Anki (.apkg)")
    path = os.path.join(tempfile.mkdtemp(prefix="quire-web-foreign-note-apkg-"), "foreign-note.apkg")
    download.value.save_as(path)
    with page.expect_file_chooser() as chooser:
        page.click("text=Choose a file to import")
    chooser.value.set_files(path)
    page.wait_for_function("() => /^(Imported|Nothing)/.test(document.querySelector('#import-status').textContent)", timeout=180_000)
    said = page.text_content("#import-status")
    after = call(server, "GET", f"{V}/export?format=csv", token=token)[1].decode().count("\n")
    check("re-importing our own .apkg updates the words already here and duplicates none",
          said.startswith("Imported 0 words,") and "updated" in said and after == before, (said, before, after))
    fits(page, "import and export")


def big_collection(page, server, token, count=20_000):
    """A collection of 20,000 words (imported) opens on a page of words and grows a page at a time as it
    scrolls, sorted once per synced copy (the main thread's long tasks are printed with the check)."""
    rows = "word,definition,collection\n" + "".join(f"mot{i:05d},word number {i},Big\n" for i in range(count))
    _, job, _ = call(server, "POST", f"{V}/imports?format=csv", raw=rows.encode(), content_type="text/csv", token=token, timeout=120)
    deadline = time.time() + 120
    state = {}
    while time.time() < deadline:
        _, state, _ = call(server, "GET", f"{V}/imports/{job['id']}", token=token)
        if state.get("state") != "running":
            break
        time.sleep(0.5)
    page.goto("/#/")
    page.reload()
    page.wait_for_selector(f"vocab-collections .big-link:has-text('Big') .count:text-is('{count} words')", timeout=180_000)
    page.evaluate("""() => { window.__long = [];
        new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(Math.round(e.duration)); }).observe({type: 'longtask'}); }""")
    page.click("vocab-collections .big-link:has-text('Big')")
    page.wait_for_selector("vocab-collection ul.entries")
    first = page.evaluate(ROWS)
    opened = page.evaluate("window.__long.splice(0)")
    for _ in range(30):
        page.mouse.wheel(0, 3000)
        page.wait_for_timeout(100)
    listed = page.evaluate(ROWS)
    scrolling = page.evaluate("window.__long")
    # Opening it draws a page of words, not all of them, and scrolling adds pages. How long the main
    # thread was busy is printed, not judged: a timed check failed only when the machine was busy
    # (tools/test's lanes side by side: 114 ms on a saturated CPU); speed is measured by benchmarks.
    check(f"a collection of {count} words opens on its first {first} words and grows a page at a time as it scrolls "
          f"({listed} words scrolled through; long tasks on opening {opened} ms, while scrolling {scrolling} ms)",
          first <= 100 and listed >= 500, (state.get("state"), first, listed, opened, scrolling))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    parser.add_argument("--phone-only", action="store_true", help="sign-up and the first words, then only the phone-sized checks")
    args = parser.parse_args()
    os.environ["QUIRE_METRICS_TOKEN"] = METRICS_TOKEN  # the tips' counts are the operator's, on /metrics
    with tempfile.TemporaryDirectory(prefix="quire-web-foreign-note-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=CONFIG)

        def walk(browser):
            context, page = phone(browser, server)
            token = collections_and_words(page, server)
            help_and_tips(page, server)
            nothing_lost(browser, server, page, token)
            edits_meet_deletes_and_tags(browser, server, page, token)
            if args.phone_only:
                return phone_sized(page, server, token)
            reviewing(page, server, token)
            searching(page, server, token)
            undo(page, server, token)
            tags_and_files(page, server, token, data)
            deleting_after_confirming(page, server, token)
            slow_phone(page, server, token)
            two_devices_offline(browser, server, page, token)
            phone_sized(page, server, token)
            paging(page, server, token)
            big_collection(page, server, token)
        code = webwalk.run(server, walk)
    sys.exit(code)


if __name__ == "__main__":
    main()
