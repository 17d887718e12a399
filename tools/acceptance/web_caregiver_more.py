#!/usr/bin/env python3
"""iRemember's caregiver, the rest of issue 41 (web_caregiver.py walks the invitation, adding a
photo, restoring and ending): two phones (browser contexts at 390×844, touch) of Debian's Chromium
with a fake microphone (`--use-fake-device-for-media-stream`: a beep), against the real server and
the shipped config. Controls are found by their labels.

The user (Get Started) invites; Anna accepts on her own phone. The user's album has 130 photos
(added through the API): Anna's album screen shows 60, then "Show more photos" twice, 130 in all
(and a photo Mum adds shows at once, while 60 show and once all do),
each once. On a photo Anna names a face — "Name someone in this photo", a tap, "Who is this?" with
"Who they are to Mum" — and records the caption in her voice (Record, Stop; her screen plays it and
offers no Delete: deleting stays the user's). The user's phone then shows "Emma — your
granddaughter" large under the photo and plays "Recorded caption, in Anna's voice". Shared, the
photo's page names Emma; with "Show people's names on new links" unticked on the Share screen, the
next link's page leaves her out. axe-core on each screen; screenshots in
.build/screenshots/caregiver-more-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
    python3 tools/acceptance/web_caregiver_more.py --binary .build/debug/quire
"""
import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import caregiving  # noqa: E402
import iremember  # noqa: E402
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from web_map_voice import plays_on_tap, record  # noqa: E402
from web_voice import FAKE_MICROPHONE  # noqa: E402
from webwalk import accessible, token_of  # noqa: E402
from web_no_lost_work import eventually  # noqa: E402

ROOT = napkin_notes.ROOT
PHOTOS = "/api/v1/album/photos"
COUNT = 130


def screen(page, name, file):
    accessible(page, name)
    webwalk.shot(page, "caregiver-more", file)


def walk_all(browser, server, data):
    # The user invites; Anna accepts on her phone (as web_caregiver.py walks it, checked there).
    mum = caregiving.invite(browser, server, permissions=["microphone"])
    user_context, user, owner, link = mum.context, mum.page, mum.token, mum.link

    # The user's album: 130 photos, through the API, a minute apart (the newest is the last).
    jpeg = iremember.jpeg(data, "many.jpg", seed=21)
    started = time.time()
    for index in range(COUNT):
        status, _, _ = call(server, "POST", f"{PHOTOS}?takenAt=2024-03-01T{8 + index // 60:02d}:{index % 60:02d}", token=owner, raw=jpeg,
                            content_type="image/jpeg", timeout=60)
        if status != 201:
            check(f"photo {index + 1} of {COUNT} added", False, status)
            return
    print(f"  ({COUNT} photos added in {time.time() - started:.0f} s)")

    anna_context, anna = caregiving.accept(browser, server, link, permissions=["microphone"])

    # Paging: 60, then "Show more photos" until all 130 show, each once.
    cells = "album-helped ul.grid a.cell"
    anna.wait_for_selector(cells)
    check("her album screen shows the first 60 photos", anna.locator(cells).count() == 60, anna.locator(cells).count())
    more = anna.get_by_role("button", name="Show more photos")
    check("…with “Show more photos” below them", more.is_visible())
    more.scroll_into_view_if_needed()
    screen(anna, "the album she helps with, its first photos", "album")

    def mum_adds(at, count):
        """Mum adds a photo (taken `at`); Anna's open album follows it: `count` photos show, without a reload."""
        status, _, _ = call(server, "POST", f"{PHOTOS}?takenAt=2024-03-01T{at}", token=owner, raw=jpeg, content_type="image/jpeg", timeout=60)
        anna.evaluate("window.dispatchEvent(new Event('focus'))")  # what the phone does when it is looked at again (else within 10 s)
        return status == 201 and eventually(anna, f"() => document.querySelectorAll('{cells}').length === {count}", 15_000)
    check("a photo Mum adds while 60 show appears first in the grid (61), without a reload", mum_adds("12:00", 61), anna.locator(cells).count())
    more.click()
    anna.wait_for_function(f"() => document.querySelectorAll('{cells}').length === 121")
    check("“Show more photos” adds the next 60 (121), going on where the grid ended", True)
    more.click()
    anna.wait_for_function(f"() => document.querySelectorAll('{cells}').length === {COUNT + 1}")
    hrefs = anna.eval_on_selector_all(cells, "els => els.map(e => e.getAttribute('href'))")
    check(f"…then the last 10: all {COUNT + 1} photos, each once", len(set(hrefs)) == COUNT + 1, len(set(hrefs)))
    check("…and no “Show more photos” once all are shown", anna.get_by_role("button", name="Show more photos").count() == 0)
    check("the page keeps to the phone's width", anna.evaluate("document.documentElement.scrollWidth") <= 390)
    screen(anna, "the album, all photos shown", "album-all")
    # It stopped following once more than 60 showed.
    check(f"…and a photo Mum adds while all {COUNT + 1} show appears too", mum_adds("12:01", COUNT + 2), anna.locator(cells).count())

    # Anna names a face on the newest photo.
    anna.locator(cells).first.click()
    anna.wait_for_selector("album-helped-photo figure img")
    photo_id = anna.url.rsplit("/", 1)[-1]
    anna.get_by_role("button", name="Name someone in this photo").click()
    target = anna.get_by_role("button", name="Tap where their face is")
    target.wait_for()
    box = anna.locator("album-helped-photo figure img").bounding_box()
    target.click(position={"x": box["width"] * 0.3, "y": box["height"] * 0.4})
    dialog = anna.get_by_role("dialog", name="Who is this?")
    dialog.wait_for()
    check("the naming dialog asks who they are to Mum", dialog.get_by_label("Who they are to Mum").count() == 1)
    dialog.get_by_label("Name", exact=True).fill("Emma")
    dialog.get_by_label("Who they are to Mum").fill("your granddaughter")
    screen(anna, "Who is this?, on her phone", "who-is-this")
    dialog.get_by_role("button", name="Save name").click()
    anna.wait_for_selector("album-helped-photo .person-name:has-text('Emma')", timeout=15_000)
    check("her photo screen names Emma — your granddaughter", "Emma — your granddaughter" in anna.locator("album-helped-photo .person-name").inner_text())
    check("…with a box on the face", anna.locator("album-helped-photo figure .face-box").count() == 1)
    status, body, _ = call(server, "GET", f"{PHOTOS}/{photo_id}/people", token=owner)
    faces = body.get("items", []) if status == 200 else []
    check("the server keeps the name on the user's photo, added by Anna", len(faces) == 1 and faces[0].get("addedBy") == "Anna", (status, body))

    # …and records the caption in her voice.
    scope = "album-helped-photo recorded-voice"
    record(anna, "album-helped-photo", "Record the caption in your voice")
    anna.wait_for_selector(f"{scope} audio", state="attached", timeout=20_000)
    played = plays_on_tap(anna, "album-helped-photo", "Play the recorded caption")
    check("her recording plays on her phone", played > 0.2, played)
    check("…with no Delete (deleting stays the user's)", anna.locator(scope).get_by_role("button", name="Delete recorded caption").count() == 0)
    status, photo, _ = call(server, "GET", f"{PHOTOS}/{photo_id}", token=owner)
    check("the photo has the recording, in Anna's voice", status == 200 and photo.get("voice") and photo.get("voiceBy") == "Anna", photo)
    anna.evaluate("window.scrollTo(0, 0)")
    screen(anna, "the photo she named and recorded", "photo")

    # The user's phone: the name large, the caption in Anna's voice.
    user.goto(f"/#/photo/{photo_id}")
    name = webwalk.wait_for(user, lambda: user.locator("album-photo a.person-name").count() > 0, tries=400)
    check("the name reaches the user's open phone by sync (no reload)", bool(name))
    if not name:
        user.reload()
        user.wait_for_selector("album-photo a.person-name", timeout=20_000)
    check("the user's photo names “Emma — your granddaughter”", "Emma — your granddaughter" in user.locator("album-photo a.person-name").inner_text())
    size = float(user.eval_on_selector("album-photo a.person-name", "e => getComputedStyle(e).fontSize").removesuffix("px"))
    check("…large (at least 24 px)", size >= 24, size)
    user.wait_for_selector("album-photo .voice-line", timeout=20_000)
    line = user.locator("album-photo .voice-line").inner_text()
    check("the user's phone says whose voice: “Recorded caption, in Anna's voice”", "Recorded caption, in Anna's voice" in line, line)
    played = plays_on_tap(user, "album-photo", "Play the recorded caption")
    check("…and plays it", played > 0.2, played)
    user.evaluate("window.scrollTo(0, 0)")
    screen(user, "the photo on the user's phone", "user-photo")

    # "Record it again" over Anna's voice asks first: Cancel keeps hers; recorded over, the phone says at once it is no longer hers.
    voice_line = user.locator("album-photo .voice-line")
    user.locator("album-photo").get_by_role("button", name="Record it again").click()
    dialog = user.get_by_role("dialog")
    dialog.wait_for()
    asked = dialog.inner_text()
    check("“Record it again” over Anna's voice asks first, naming her", "in Anna's voice" in asked, asked)
    screen(user, "recording over Anna's voice, asked first", "record-over")
    dialog.get_by_role("button", name="Cancel").click()
    check("…Cancel keeps Anna's recording", "in Anna's voice" in voice_line.inner_text(), voice_line.inner_text())
    user.locator("album-photo").get_by_role("button", name="Record it again").click()
    user.get_by_role("dialog").get_by_role("button", name="Record again").click()
    user.wait_for_function("() => document.querySelector('album-photo .voice-elapsed')?.textContent === '0:01'", timeout=15_000)
    user.locator("album-photo").get_by_role("button", name="Stop").click()
    stored = webwalk.wait_for(user, lambda: (lambda p: p if p and not p.get("voiceBy") else None)(
        call(server, "GET", f"{PHOTOS}/{photo_id}", token=token_of(user))[1]), tries=200)
    check("…recorded over, the photo's recording is the user's own (no voiceBy)", bool(stored), stored)
    user.reload()
    voice_line.wait_for(timeout=20_000)
    check("…and after a reload the phone no longer says “in Anna's voice”", "Anna" not in voice_line.inner_text(), voice_line.inner_text())

    # Sharing it: the page names Emma by default; "Show people's names on new links" off leaves her out of the next link.
    def shared_page():
        user.goto(f"/#/photo/{photo_id}")
        user.locator("album-photo").get_by_role("button", name="Share", exact=True).click()
        field = user.get_by_label("The link")
        field.wait_for()
        link = field.input_value()
        user.get_by_role("dialog").get_by_role("button", name="Close").click()
        status, page, _ = call(server, "GET", link.replace(server.base, "") + "?format=json")
        return status, json.dumps(page, ensure_ascii=False) if isinstance(page, (dict, list)) else str(page)
    status, page = shared_page()
    check("a shared photo's page names “Emma — your granddaughter” (the default)", status == 200 and "Emma — your granddaughter" in page, (status, page[:300]))
    user.goto("/#/share")
    names = user.get_by_label("Show people's names on new links")
    names.wait_for()
    check("the Share screen offers “Show people's names on new links”, on", names.is_checked())
    names.uncheck()
    screen(user, "Share, names left out of new links", "share-names")
    status, page = shared_page()
    check("…off, the next link's page leaves Emma's name out", status == 200 and "Emma" not in page and "contents" in page, (status, page[:300]))
    for context in (anna_context, user_context):
        context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-caregiver-more-") as data:
        server = iremember.Server(os.path.abspath(args.binary), data, free_port())
        server.config = iremember.make_config(data)
        sys.exit(webwalk.run(server, lambda browser: walk_all(browser, server, data), args=FAKE_MICROPHONE))


if __name__ == "__main__":
    main()
