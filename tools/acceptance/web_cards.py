#!/usr/bin/env python3
"""Foreign Note's card kinds and "no review is lost" on phones (390×844, touch), Debian's Chromium
driven by Playwright, against the real server and the shipped config; controls found by label.

- A collection's "Card kinds" dialog turns on definition → word and fill in the blank; the words
  then come up as each kind, one card of a word per session: the word, "What is the word for …?"
  with its definitions, and the example with a blank (the word blanked, or the user's {{c1::…}}).
- Phone A, offline, reviews a word; phone B, online, reviews the same word a minute later; A comes
  back online and sends its older review: the server keeps both (no 409, nothing dropped) and the
  card is computed from both.
axe-core checks every screen; screenshots go to .build/screenshots/foreign-note-cards-*.png.
Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import argparse
import os
import time
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import phone, settled, token_of  # noqa: E402

ROOT = napkin_notes.ROOT
CONFIG = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")
V = "/api/v1/vocabulary"
USER, PASSWORD = "web-cards", "a good password"


def screen(page, name, file=None):
    webwalk.screen(page, "foreign-note", name, file and f"cards-{file}")


def make(server, token, path, body):
    status, made, _ = call(server, "POST", f"{V}/{path}", body, token=token)
    if status != 201:
        raise RuntimeError(f"POST {path}: {status} {made}")
    return made["id"]


def feed(server, token, kind):
    _, page, _ = call(server, "GET", "/api/v1/sync/changes?limit=500", token=token)
    return [i["record"] for i in page["items"] if i["kind"] == kind and i.get("record")]


def dismiss_tip(page):
    tip = page.get_by_role("button", name="Got it")
    if tip.count():
        tip.first.click()


def review_session(page, collection):
    """Opens the collection's review; answers each card Easy; returns what each card asked."""
    page.goto(f"/#/c/{collection}")
    page.locator("vocab-collection").get_by_role("link", name="Review", exact=True).click()
    page.wait_for_selector("vocab-review .flashcard, vocab-review .review-done")
    dismiss_tip(page)
    asked = []
    while page.locator("vocab-review .flashcard").count():
        card = page.locator("vocab-review .flashcard")
        asked.append((card.get_attribute("aria-label"), card.inner_text().strip()))
        page.get_by_role("button", name="Show answer").click()
        page.get_by_role("button", name="Easy").wait_for()
        asked[-1] += (page.locator("vocab-review .answer").inner_text().strip(),)
        page.get_by_role("button", name="Easy").click()
        page.wait_for_timeout(100)
    return asked


def kinds(page, server, token):
    page.goto("/")
    webwalk.sign_in(page, USER, PASSWORD, create=True)
    page.wait_for_selector("vocab-collections")
    french = make(server, token_of(page), "collections", {"name": "French"})
    token = token_of(page)
    make(server, token, "entries", {"collection": french, "word": "pomme", "definitions": ["apple"], "languages": ["fr"],
                                    "example": "Je mange une pomme."})
    make(server, token, "entries", {"collection": french, "word": "chat", "definitions": ["cat"], "languages": ["fr"],
                                    "example": "Le {{c1::chat}} dort au soleil."})
    page.goto(f"/#/c/{french}")
    page.wait_for_selector("vocab-collection h1:has-text('French')")
    page.wait_for_function("() => document.querySelector('vocab-collection')?.innerText.includes('2 words')", timeout=20_000)
    dismiss_tip(page)
    check("a collection says its cards: word → definition by default", "cards: Word → definition" in page.inner_text("vocab-collection"),
          page.inner_text("vocab-collection")[:300])
    page.get_by_role("button", name="Card kinds").click()
    dialog = page.get_by_role("dialog", name="Cards for each word")
    dialog.wait_for()
    check("the Card kinds dialog: word → definition on, the other two off",
          page.get_by_label("Word → definition").is_checked() and not page.get_by_label("Definition → word").is_checked()
          and not page.get_by_label("Fill in the blank").is_checked())
    page.get_by_label("Definition → word").check()
    page.get_by_label("Fill in the blank").check()
    screen(page, "the Card kinds dialog", "dialog")
    dialog.get_by_role("button", name="Save").click()
    dialog.wait_for(state="detached")
    # The write leaves from the dialog's close event, a moment after it is gone: "Saved" may still
    # show from before it, so the server is asked until it says so (10 s at most).
    deadline = time.time() + 10
    while True:
        _, collection, _ = call(server, "GET", f"{V}/collections/{french}", token=token)
        if collection.get("cardKinds") == ["forward", "reverse", "cloze"] or time.time() > deadline:
            break
        time.sleep(0.2)
    settled(page)
    check("Save turns reverse and cloze on for the collection (on the server)", collection.get("cardKinds") == ["forward", "reverse", "cloze"],
          collection)
    check("…and the collection says so", "Definition → word, Fill in the blank" in page.inner_text("vocab-collection"))

    first = review_session(page, french)
    check("first session: each word as word → definition", sorted(a[0] for a in first) == ["Card", "Card"]
          and sorted(a[1].split("\n")[0] for a in first) == ["chat", "pomme"], first)
    page.goto(f"/#/c/{french}")
    page.locator("vocab-collection").get_by_role("link", name="Review", exact=True).click()
    page.wait_for_selector("vocab-review .flashcard")
    text = page.inner_text("vocab-review")
    check("second session: definition → word, said clearly (“What is the word for …?”, the definitions, not the word)",
          "What is the word for" in text and ("apple" in text or "cat" in text) and "Definition → word" in text
          and "pomme" not in text.replace("Je mange une pomme", "") and "chat" not in text, text)
    screen(page, "a definition → word card", "reverse")
    page.get_by_role("button", name="Show answer").click()
    page.get_by_role("button", name="Easy").wait_for()
    answer = page.inner_text("vocab-review .answer")
    check("…its answer is the word", "pomme" in answer or "chat" in answer, answer)
    screen(page, "a definition → word card's answer", "reverse-answer")
    page.get_by_role("button", name="Easy").click()
    page.wait_for_selector("vocab-review .flashcard")
    page.get_by_role("button", name="Show answer").click()
    page.get_by_role("button", name="Easy").click()
    page.wait_for_selector("vocab-review .review-done")

    page.goto(f"/#/c/{french}")
    page.locator("vocab-collection").get_by_role("link", name="Review", exact=True).click()
    page.wait_for_selector("vocab-review .flashcard")
    sentences = []
    for _ in range(2):
        card = page.locator("vocab-review .flashcard.cloze")
        card.wait_for()
        sentences.append(card.inner_text())
        blank = page.get_by_role("img", name="blank")
        check("a cloze card: “Fill in the blank”, the example with a blank read as “blank”",
              "Fill in the blank" in card.inner_text() and blank.count() == 1 and "pomme" not in card.inner_text()
              and "chat" not in card.inner_text(), card.inner_text())
        if len(sentences) == 1:
            screen(page, "a cloze card", "cloze")
        page.get_by_role("button", name="Show answer").click()
        page.get_by_role("button", name="Easy").wait_for()
        if len(sentences) == 1:
            screen(page, "a cloze card's answer", "cloze-answer")
        page.get_by_role("button", name="Easy").click()
    check("…made from the word blanked and from the user's {{c1::…}}",
          any("Je mange une" in s for s in sentences) and any("dort au soleil" in s for s in sentences), sentences)
    page.wait_for_selector("vocab-review .review-done")
    settled(page)
    cards = [c for c in feed(server, token, "vocabulary.card")]
    check("six cards on the server, each kind its own schedule", len(cards) == 6 and sorted(c.get("kind", "forward") for c in cards)
          == ["cloze", "cloze", "forward", "forward", "reverse", "reverse"], [(c["entry"], c.get("kind")) for c in cards])
    return token


def offline_and_other_phone(browser, server, page, token):
    dairy = make(server, token, "collections", {"name": "Dairy"})
    lait = make(server, token, "entries", {"collection": dairy, "word": "lait", "definitions": ["milk"], "languages": ["fr"]})
    page.goto("/#/")
    page.wait_for_selector("vocab-collections")
    page.wait_for_function("() => document.querySelector('vocab-collections')?.innerText.includes('Dairy')", timeout=20_000)
    page.goto(f"/#/c/{dairy}")
    page.wait_for_function("() => document.querySelector('vocab-collection')?.innerText.includes('1 word')", timeout=20_000)
    settled(page)

    # Phone A offline: reviews lait (Good), kept in its outbox.
    page.context.set_offline(True)
    page.locator("vocab-collection").get_by_role("link", name="Review", exact=True).click()
    page.wait_for_selector("vocab-review .flashcard .word")
    check("offline, phone A shows lait from its own copy", page.inner_text("vocab-review .flashcard .word") == "lait")
    page.get_by_role("button", name="Show answer").click()
    page.get_by_role("button", name="Good").click()
    page.wait_for_selector("vocab-review .review-done")
    page.wait_for_timeout(1_500)  # a minute of the phones' lives: B's review is seconds later

    # Phone B online: the same word, reviewed later (Again).
    second, other = phone(browser, server)
    other.goto("/")
    webwalk.sign_in(other, USER, PASSWORD)
    other.wait_for_selector("vocab-collections")
    other.goto(f"/#/c/{dairy}")
    other.wait_for_function("() => document.querySelector('vocab-collection')?.innerText.includes('1 word')", timeout=20_000)
    other.locator("vocab-collection").get_by_role("link", name="Review", exact=True).click()
    other.wait_for_selector("vocab-review .flashcard .word")
    dismiss_tip(other)
    other.get_by_role("button", name="Show answer").click()
    other.get_by_role("button", name="Again").click()
    settled(other)
    reviews = [r for r in feed(server, token, "vocabulary.review") if r["entry"] == lait]
    check("phone B's later review is on the server", [r["rating"] for r in reviews] == ["again"], reviews)

    # Phone A back online: its older review is sent, and kept.
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    settled(page, 30_000)
    reviews = sorted((r for r in feed(server, token, "vocabulary.review") if r["entry"] == lait), key=lambda r: r["reviewedAt"])
    check("back online, phone A's older review is kept too (not refused, not dropped): both in the log, in time order",
          [r["rating"] for r in reviews] == ["good", "again"], reviews)
    card = next((c for c in feed(server, token, "vocabulary.card") if c["entry"] == lait), {})
    check("…and the card is computed from both (2 reviews; the last, B's again, put it back to the first step)",
          card.get("reps") == 2 and card.get("state") == "learning" and card.get("step") == 0 and card.get("lastReview") == reviews[-1]["reviewedAt"],
          card)
    problems = page.locator("[role=alert]:visible").all_inner_texts()
    check("…and phone A says nothing went wrong", not [p for p in problems if p.strip()], problems)
    screen(page, "phone A back online")
    second.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-cards-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=CONFIG)

        def walk(browser):
            _, page = phone(browser, server)
            token = kinds(page, server, None)
            offline_and_other_phone(browser, server, page, token)
        code = webwalk.run(server, walk)
    sys.exit(code)


if __name__ == "__main__":
    main()
