#!/usr/bin/env python3
"""Beyond the documents (issue 41), in a real browser: Read aloud in iRemember and Foreign Note, and
iRemember's "On this day". Debian's Chromium at 390×844 (touch), driven by Playwright, against the
real server and the shipped configs (which switch both on: web: { read_aloud: true },
album: { on_this_day: true }).

Speech: a fake `speechSynthesis` installed before the app starts records every utterance with its
`lang`; the walk checks what was said and in which language (iRemember: the phone's language, here
en-GB; Foreign Note: the entry's), that a second tap stops, and that a phone without
`speechSynthesis` shows no button. On this day: three photos with EXIF dates (29 Feb 2024,
28 Feb 2026, 1 Mar 2025) on a phone whose clock Playwright fixes at 28 Feb 2027, a year without a
29th: the home screen shows "1 year ago today" and "3 years ago today" (the leap-day photo) with
their captions, not the 1 March one, offline too; before any photo there is no section at all.
With both switched off in the YAML, the manifest has neither and the screens show neither.
axe-core on each screen; screenshots in .build/screenshots/beyond-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iremember  # noqa: E402  (the album's harness: Server, make_config, jpeg)
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import settled, token_of  # noqa: E402

ROOT = napkin_notes.ROOT
FOREIGN_NOTE = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")
V = "/api/v1/vocabulary"
TODAY = "2027-02-28T10:00:00Z"
# A speechSynthesis that says nothing and records what it was asked to say.
FAKE_SPEECH = """(() => {
  window.__spoken = [];
  window.__cancels = 0;
  class FakeUtterance { constructor(text) { this.text = text; this.lang = ''; this.onend = null; this.onerror = null; } }
  const synth = {
    current: null, speaking: false,
    speak(u) { window.__spoken.push({ text: u.text, lang: u.lang }); this.current = u; this.speaking = true; },
    cancel() { window.__cancels += 1; const u = this.current; this.current = null; this.speaking = false; if (u && u.onerror) u.onerror({ error: 'interrupted' }); },
    finish() { const u = this.current; this.current = null; this.speaking = false; if (u && u.onend) u.onend({}); },
    pause() {}, resume() {}, getVoices() { return []; },
  };
  Object.defineProperty(window, 'speechSynthesis', { value: synth, configurable: true });
  Object.defineProperty(window, 'SpeechSynthesisUtterance', { value: FakeUtterance, configurable: true, writable: true });
})();"""
NO_SPEECH = """(() => {
  Object.defineProperty(window, 'speechSynthesis', { value: undefined, configurable: true });
  Object.defineProperty(window, 'SpeechSynthesisUtterance', { value: undefined, configurable: true, writable: true });
})();"""


def shot(page, name):
    webwalk.shot(page, "beyond", name)


def screen(page, name, file=None):
    webwalk.screen(page, "beyond", name, file)


def spoken(page):
    return page.evaluate("window.__spoken")


def fits(page, what):
    width = page.evaluate("document.documentElement.scrollWidth")
    check(f"{what} fits the phone's width ({width} ≤ 390 px)", width <= 390, width)


def big_enough(page, selector, what):
    sizes = page.eval_on_selector_all(selector, "els => els.filter(e => e.offsetParent).map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])")
    check(f"{what}: every Read aloud button is at least 44×44 px", sizes and all(w >= 44 and h >= 44 for w, h in sizes), sizes)


def iremember_phone(browser, server, speech=True):
    context, page = webwalk.phone(browser, server, init_script=FAKE_SPEECH if speech else NO_SPEECH, locale="en-GB",
                                  timezone_id="Europe/London", geolocation={"latitude": 51.5007, "longitude": -0.1246, "accuracy": 20},
                                  permissions=["geolocation"])
    context.clock.set_fixed_time(TODAY)
    return context, page


def add_photo(page, server, data, name, taken, notes, seed):
    path = os.path.join(data, name)
    with open(path, "wb") as handle:
        handle.write(iremember.jpeg(data, name, taken=taken, seed=seed))
    if page.locator("album-home").count() == 0:
        page.click("text=Home")
    page.wait_for_selector("album-home")
    with page.expect_file_chooser() as chooser:
        page.click("text=Choose From Phone")
    chooser.value.set_files(path)
    page.wait_for_selector("album-markup #photo-notes", timeout=15_000)
    page.fill("#photo-notes", notes)
    settled(page)
    page.click("album-markup .toolbar button.done")
    page.wait_for_selector("album-photo figure img", timeout=15_000)
    settled(page)


def iremember_walk(browser, server, data):
    context, page = iremember_phone(browser, server)
    page.goto("/")
    page.wait_for_selector("quire-signin")
    page.click("text=Get Started")
    page.wait_for_selector("album-home")
    check("iRemember's phone clock is fixed at 28 Feb 2027 (Playwright's clock)", page.evaluate("new Date().toISOString()").startswith("2027-02-28"),
          page.evaluate("new Date().toISOString()"))
    check("On this day: with no photos, no section and no empty box", page.locator("section.on-this-day").count() == 0
          and "On this day" not in page.inner_text("album-home"))
    token = token_of(page)

    add_photo(page, server, data, "leap.jpg", "2024:02:29 12:00:00", "The picnic with Tom", 1)
    add_photo(page, server, data, "year.jpg", "2026:02:28 09:30:00", "Emma's birthday cake", 2)
    add_photo(page, server, data, "march.jpg", "2025:03:01 16:00:00", "A walk by the river", 3)
    _, body, _ = call(server, "GET", "/api/v1/album/photos?limit=100", token=token)
    taken = sorted(p["takenAt"][:10] for p in body["items"])
    check("three photos on the server, dated by their EXIF DateTimeOriginal (not the upload time)",
          taken == ["2024-02-29", "2025-03-01", "2026-02-28"], taken)

    # The photo view: Read aloud beside the notes (the user's language: the phone's, en-GB) and the facts.
    buttons = page.eval_on_selector_all("album-photo button.speak", "els => els.map(e => e.getAttribute('aria-label'))")
    check("the photo view has Read aloud beside its notes and its facts", buttons == ["Read aloud the notes", "Read aloud when and where it was taken"], buttons)
    big_enough(page, "album-photo button.speak", "the photo view")
    page.click("album-photo button[aria-label='Read aloud the notes']")
    said = spoken(page)
    check("Read aloud speaks the notes in the user's language (en-GB)", said[-1:] == [{"text": "A walk by the river", "lang": "en-GB"}], said)
    label = page.get_attribute("album-photo button.speak >> nth=0", "aria-label")
    check("…and while it speaks, the button says Stop", label == "Stop reading the notes" and "Stop" in page.inner_text("album-photo button.speak >> nth=0"), label)
    screen(page, "the photo with Read aloud speaking", "photo")
    cancels = page.evaluate("window.__cancels")
    page.click("album-photo button[aria-label='Stop reading the notes']")
    check("tapping again stops (speechSynthesis.cancel) and the button says Read aloud again",
          page.evaluate("window.__cancels") > cancels and page.get_attribute("album-photo button.speak >> nth=0", "aria-label") == "Read aloud the notes"
          and len(spoken(page)) == len(said))
    page.click("album-photo button[aria-label='Read aloud when and where it was taken']")
    said = spoken(page)
    check("Read aloud speaks when the photo was taken, in en-GB", said[-1]["lang"] == "en-GB" and said[-1]["text"].startswith("Taken ")
          and "2025" in said[-1]["text"], said[-1:])
    page.evaluate("speechSynthesis.finish()")
    check("when the speech ends by itself, the button says Read aloud again",
          page.get_attribute("album-photo button.speak >> nth=1", "aria-label") == "Read aloud when and where it was taken")

    # The home screen: On this day, 28 Feb 2027 (no 29th): 28 Feb 2026 and 29 Feb 2024, not 1 Mar 2025.
    page.click("text=Home")
    page.wait_for_selector("album-home section.on-this-day")
    years = page.eval_on_selector_all("section.on-this-day h3", "els => els.map(e => e.textContent)")
    captions = page.eval_on_selector_all("section.on-this-day .memory .caption", "els => els.map(e => e.textContent)")
    check("On this day on 28 Feb 2027: “1 year ago today” and “3 years ago today” (the 29 Feb 2024 photo, in a year without a 29th)",
          years == ["1 year ago today", "3 years ago today"], years)
    check("…each with its caption; the 1 March photo is not there", captions == ["Emma's birthday cake", "The picnic with Tom"], captions)
    page.wait_for_function("() => [...document.querySelectorAll('section.on-this-day .memory img')].length === 2 && "
                           "[...document.querySelectorAll('section.on-this-day .memory img')].every(i => i.complete && i.naturalWidth > 0)", timeout=15_000)
    check("…with their pictures", True)
    big_enough(page, "section.on-this-day button.speak", "On this day")
    fits(page, "the home screen with On this day")
    screen(page, "the home screen with On this day", "on-this-day")
    page.click("section.on-this-day button.speak >> nth=1")
    said = spoken(page)
    check("Read aloud on On this day says “3 years ago today: The picnic with Tom” in en-GB",
          said[-1:] == [{"text": "3 years ago today: The picnic with Tom", "lang": "en-GB"}], said[-1:])
    # Another phone changes a photo not of this day: the section is not drawn again (no flicker).
    _, body, _ = call(server, "GET", "/api/v1/album/photos?limit=100", token=token)
    march = next(p for p in body["items"] if p["takenAt"].startswith("2025-03-01"))
    page.evaluate("window.__section = document.querySelector('section.on-this-day')")
    call(server, "PATCH", f"/api/v1/album/photos/{march['id']}", {"notes": "A walk by the river, in the rain"}, token=token)
    page.wait_for_timeout(2_500)  # live sync brings it within a second (web_iremember.py)
    check("a change to a photo not of this day leaves On this day as it was (not drawn again)",
          page.evaluate("document.querySelector('section.on-this-day') === window.__section"))
    # Another phone changes a caption: the section follows (sync), without a reload.
    leap = next(p for p in body["items"] if p["takenAt"].startswith("2024-02-29"))
    status, _, _ = call(server, "PATCH", f"/api/v1/album/photos/{leap['id']}", {"notes": "The picnic with Tom and Emma"}, token=token)
    page.wait_for_function("() => [...document.querySelectorAll('section.on-this-day .memory .caption')].some(e => e.textContent === 'The picnic with Tom and Emma')",
                           timeout=15_000)
    check("a caption changed on another phone shows in On this day without a reload", status == 200)

    # Offline, from the phone's copy: a reload without the network still shows it.
    page.wait_for_selector("section.on-this-day")
    context.set_offline(True)
    page.reload()
    page.wait_for_selector("album-home", timeout=15_000)
    page.wait_for_selector("section.on-this-day", timeout=10_000)
    years = page.eval_on_selector_all("section.on-this-day h3", "els => els.map(e => e.textContent)")
    check("offline, after a reload, On this day is still there (the phone's copy)", years == ["1 year ago today", "3 years ago today"], years)
    context.set_offline(False)
    page.click("section.on-this-day .memory >> nth=1")
    page.wait_for_selector("album-photo figure")
    check("a photo of On this day opens that photo", page.inner_text("album-photo p.notes") == "The picnic with Tom and Emma")

    # The slideshow: the caption read aloud.
    page.goto("/#/slideshow")
    page.wait_for_function("() => document.querySelector('.slideshow .slide img')?.src.startsWith('blob:')", timeout=15_000)
    page.click("[aria-label='Pause']")
    caption = page.text_content(".slideshow .caption")
    page.click(".slideshow button[aria-label='Read aloud the caption']")
    said = spoken(page)
    wanted = caption.split(" (")[0].replace(" · ", ". ")
    check("the slideshow reads its caption aloud (the day and the notes, not “1 of 3”) in en-GB",
          said[-1]["lang"] == "en-GB" and said[-1]["text"] == wanted, (said[-1:], caption))
    big_enough(page, ".slideshow button.speak", "the slideshow")
    screen(page, "the slideshow with Read aloud", "slideshow")
    page.click("[aria-label='Close the slideshow']")
    context.close()

    # A phone without speechSynthesis: no button at all (a new account, its own photo).
    context, page = iremember_phone(browser, server, speech=False)
    page.goto("/")
    page.click("text=Get Started")
    page.wait_for_selector("album-home")
    add_photo(page, server, data, "plain.jpg", "2026:02:28 09:30:00", "Lunch at Anna's", 4)
    check("without speechSynthesis the photo view shows no Read aloud button", page.locator("button.speak").count() == 0
          and "Read aloud" not in page.inner_text("album-photo"))
    page.click("text=Home")
    page.wait_for_selector("section.on-this-day")
    check("…nor On this day (which is still shown)", page.locator("button.speak").count() == 0)
    context.close()


def foreign_note_walk(browser, server):
    context, page = webwalk.phone(browser, server, init_script=FAKE_SPEECH, locale="en-GB")
    page.goto("/")
    webwalk.sign_in(page, "beyond-lea", "a good password", create=True)
    page.wait_for_selector("vocab-collections")
    page.click("text=New collection")
    page.wait_for_selector("dialog #name-input")
    page.fill("#name-input", "Words")
    page.click("dialog button:has-text('Save')")
    page.wait_for_selector("vocab-collection h1:has-text('Words')")

    def add(word, definition, languages, example):
        page.click("text=Add word")
        page.wait_for_selector("#entry-word")
        page.fill("#entry-word", word)
        page.fill("#entry-definitions", definition)
        page.fill("#entry-languages", languages)
        page.fill("#entry-example", example)
        page.click("vocab-entry-form button:has-text('Save')")
        page.wait_for_selector(f"vocab-entry h1:has-text('{word}')")

    add("la pomme", "apple", "fr, en", "Je mange une pomme.")
    buttons = page.eval_on_selector_all("vocab-entry button.speak", "els => els.map(e => e.getAttribute('aria-label'))")
    check("a Foreign Note entry has Read aloud on its word and its example", buttons == ["Read aloud the word", "Read aloud the example"], buttons)
    big_enough(page, "vocab-entry button.speak", "the entry")
    page.click("vocab-entry button[aria-label='Read aloud the word']")
    check("the word is spoken in the entry's language (fr), not the phone's (en-GB)", spoken(page)[-1:] == [{"text": "la pomme", "lang": "fr"}], spoken(page))
    page.click("vocab-entry button[aria-label='Read aloud the example']")
    check("the example is spoken in the entry's language, and the word's button is no longer “Stop”",
          spoken(page)[-1:] == [{"text": "Je mange une pomme.", "lang": "fr"}]
          and page.locator("vocab-entry button[aria-label='Read aloud the word']").count() == 1, spoken(page)[-1:])
    fits(page, "the entry with Read aloud")
    screen(page, "a word with Read aloud", "foreign-note-entry")
    cancels = page.evaluate("window.__cancels")
    page.click("vocab-entry button[aria-label='Stop reading the example']")
    check("tapping again stops it", page.evaluate("window.__cancels") > cancels
          and page.locator("vocab-entry button[aria-label='Read aloud the example']").count() == 1)
    settled(page)
    page.click("text=‹ Words")
    add("der Apfel", "apple", "de-DE", "Der Apfel ist rot.")
    page.click("vocab-entry button[aria-label='Read aloud the example']")
    check("another entry's language (de-DE) is its own", spoken(page)[-1:] == [{"text": "Der Apfel ist rot.", "lang": "de-DE"}], spoken(page)[-1:])
    settled(page)
    entry = page.evaluate("location.hash")
    context.close()

    context, page = webwalk.phone(browser, server, init_script=NO_SPEECH, locale="en-GB")
    page.goto("/")
    webwalk.sign_in(page, "beyond-lea", "a good password")
    page.wait_for_selector("vocab-collections")
    page.goto("/" + entry)
    page.wait_for_selector("vocab-entry h1:has-text('der Apfel')")
    check("without speechSynthesis a word shows no Read aloud button", page.locator("button.speak").count() == 0)
    context.close()


def switched_off_walk(browser, server, data):
    """The same app with both switched off in its YAML: no On this day, no Read aloud."""
    _, manifest, _ = call(server, "GET", "/api/v1/manifest")
    features = {f for p in manifest["plugins"] for f in p["features"]}
    check("with read_aloud: false and on_this_day: false the manifest has neither feature",
          "read-aloud" not in features and "on-this-day" not in features and "photos" in features, sorted(features))
    context, page = iremember_phone(browser, server)
    page.goto("/")
    page.click("text=Get Started")
    page.wait_for_selector("album-home")
    add_photo(page, server, data, "off.jpg", "2026:02:28 09:30:00", "Emma's birthday cake", 5)
    check("switched off: the photo view has no Read aloud button (speechSynthesis or not)", page.locator("button.speak").count() == 0)
    page.click("text=Home")
    page.wait_for_selector("album-home")
    page.wait_for_timeout(500)
    check("switched off: the home screen has no On this day, though a photo is from a year ago today",
          page.locator("section.on-this-day").count() == 0 and "year ago today" not in page.inner_text("album-home"))
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    codes = []
    with tempfile.TemporaryDirectory(prefix="quire-web-beyond-") as data:
        server = iremember.Server(binary, data, free_port())
        server.config = iremember.make_config(data)
        codes.append(webwalk.run(server, lambda browser: iremember_walk(browser, server, data)))
    with tempfile.TemporaryDirectory(prefix="quire-web-beyond-off-") as data:
        server = iremember.Server(binary, data, free_port())
        path = iremember.make_config(data)
        with open(path) as handle:
            text = handle.read()
        assert "read_aloud: true" in text and "on_this_day: true" in text
        with open(path, "w") as handle:
            handle.write(text.replace("read_aloud: true", "read_aloud: false").replace("on_this_day: true", "on_this_day: false"))
        server.config = path
        codes.append(webwalk.run(server, lambda browser: switched_off_walk(browser, server, data)))
    with tempfile.TemporaryDirectory(prefix="quire-web-beyond-fn-") as data:
        server = napkin_notes.Server(binary, data, free_port(), config=FOREIGN_NOTE)
        codes.append(webwalk.run(server, lambda browser: foreign_note_walk(browser, server)))
    sys.exit(1 if any(codes) else 0)


if __name__ == "__main__":
    main()
