#!/usr/bin/env python3
"""iRemember's caregiver: what a helper writes is kept and shown as hers (issue 41, left from the
walks as Mum and Anna). Two phones (browser contexts at 390×844, touch) of Debian's Chromium with a
fake microphone, against the real server and the shipped config. Controls are found by their labels.

- Anna's Home shows "Albums you help with" first (above the main menu, on the first screen).
- Offline, Anna saves a caption and stays: the screen says it is kept on this phone; back online it
  says "Caption saved" (no stale "needs the internet"). Words typed and not saved: "‹ Album" asks
  first ("Your caption is not saved yet. Leave without it?"; Cancel keeps them).
- Offline, Anna saves a caption and leaves by "‹ Album": the album screen says one caption is kept;
  back online it reaches Mum's album without a reload, and the indicator says "Saved".
- Mum's photo says "Caption by Anna".
- Mum's Share screen names each photo button differently (four photos of one day).
- Anna records the caption in her voice; Mum records it again: her phone stops saying "in Anna's
  voice" at once, without a reload (the server says `"voiceBy": null`).
axe-core on each screen; screenshots in .build/screenshots/caregiver-edits-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
    python3 tools/acceptance/web_caregiver_edits.py --binary .build/debug/quire
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import caregiving  # noqa: E402
import iremember  # noqa: E402
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from web_map_voice import record  # noqa: E402
from web_voice import FAKE_MICROPHONE  # noqa: E402
from webwalk import accessible  # noqa: E402

ROOT = napkin_notes.ROOT
PHOTOS = "/api/v1/album/photos"


def screen(page, name, file):
    accessible(page, name)
    webwalk.shot(page, "caregiver-edits", file)


def server_notes(server, owner, photo_id):
    status, photo, _ = call(server, "GET", f"{PHOTOS}/{photo_id}", token=owner)
    return photo.get("notes") if status == 200 else None


def walk_all(browser, server, data):
    mum = caregiving.invite(browser, server, permissions=["microphone"])
    user_context, user, owner, owner_id, link = mum.context, mum.page, mum.token, mum.account, mum.link

    # Four photos of one day, no captions, through the API (the newest is the last).
    ids = []
    for index in range(4):
        status, body, _ = call(server, "POST", f"{PHOTOS}?takenAt=2024-03-01T{8 + index:02d}:00", token=owner,
                               raw=iremember.jpeg(data, f"day-{index}.jpg", seed=60 + index), content_type="image/jpeg", timeout=60)
        if status != 201:
            check(f"photo {index + 1} added", False, (status, body))
            return
        ids.append(body["photo"]["id"])  # the mark-up screen: {photo, markup}

    anna_context, anna = caregiving.accept(browser, server, link, permissions=["microphone"])

    # Her Home: "Albums you help with" first.
    anna.goto("/#/")
    helping = anna.get_by_role("link", name="Albums you help with")
    helping.wait_for(timeout=15_000)
    top = helping.bounding_box()["y"]
    menu = anna.get_by_role("navigation", name="Main menu").bounding_box()["y"]
    check("Anna's Home shows “Albums you help with” above the main menu", top < menu, (top, menu))
    check("…on the first screen, without scrolling", top + 40 < 844, top)
    screen(anna, "Anna's Home, the album she helps with first", "home")

    # Offline, she saves a caption and stays on the photo: kept, then saved once online.
    album = f"/#/helping/{owner_id}"
    anna.goto(f"{album}/photo/{ids[1]}")
    caption = anna.get_by_role("textbox", name="Caption")
    caption.wait_for()
    anna_context.set_offline(True)
    caption.fill("Tom at the lake")
    anna.get_by_role("button", name="Save caption").click()
    status = anna.locator("album-helped-photo form [role=status]")
    kept = webwalk.wait_for(anna, lambda: "Kept on this phone" in status.inner_text(), tries=50)
    check("offline, “Save caption” says it is kept on this phone", kept, status.inner_text())
    screen(anna, "a caption saved offline", "kept")
    anna_context.set_offline(False)
    sent = webwalk.wait_for(anna, lambda: server_notes(server, owner, ids[1]) == "Tom at the lake", tries=150)
    check("…back online, the caption reaches Mum's album", bool(sent), server_notes(server, owner, ids[1]))
    said = webwalk.wait_for(anna, lambda: "Caption saved" in status.inner_text(), tries=50)
    check("…and the screen says “Caption saved” (no stale “needs the internet”)", said and "internet" not in status.inner_text(), status.inner_text())

    # Words typed but not saved: "‹ Album" asks first; Cancel keeps them on the screen.
    caption.fill("Tom at the lake, 1998")
    anna.get_by_role("link", name="‹ Album").click()
    dialog = anna.get_by_role("dialog")
    asked = webwalk.wait_for(anna, lambda: dialog.count() > 0 and dialog.is_visible(), tries=50)
    check("typed but not saved, “‹ Album” asks first: “Your caption is not saved yet”", asked and "not saved yet" in dialog.inner_text(),
          dialog.inner_text() if dialog.count() else "no dialog")
    if asked:
        screen(anna, "leaving with a caption not saved, asked first", "leave-asked")
        dialog.get_by_role("button", name="Cancel").click()
        check("…Cancel stays, the words still there", "album-helped-photo" in anna.content() and caption.input_value() == "Tom at the lake, 1998")
        anna.get_by_role("link", name="‹ Album").click()
        anna.get_by_role("dialog").get_by_role("button", name="Leave without it").click()
        anna.wait_for_selector("album-helped")
        check("…“Leave without it” leaves, the album's caption as saved", server_notes(server, owner, ids[1]) == "Tom at the lake")

    # Offline, she saves a caption and leaves by "‹ Album": nothing is dropped.
    anna.goto(f"{album}/photo/{ids[2]}")
    # The new photo's screen (not the last one's, captioned): its caption empty, its picture shown.
    anna.wait_for_function("() => document.querySelector('#helped-caption')?.value === '' && document.querySelector('album-helped-photo figure img')")
    anna_context.set_offline(True)
    caption.fill("Grandad's birthday cake")
    anna.get_by_role("button", name="Save caption").click()
    webwalk.wait_for(anna, lambda: status.inner_text().strip() != "", tries=50)
    anna.get_by_role("link", name="‹ Album").click()
    anna.wait_for_selector("album-helped")
    waiting = anna.locator("album-helped [role=status]").first
    check("left by “‹ Album”, the album screen says the caption is kept", "1 caption kept on this phone" in waiting.inner_text(), waiting.inner_text())
    indicator = anna.locator("quire-status").inner_text()
    check("…and the indicator counts it waiting", "1 waiting" in indicator, indicator)
    screen(anna, "the album offline, a caption kept", "album-kept")
    anna_context.set_offline(False)
    sent = webwalk.wait_for(anna, lambda: server_notes(server, owner, ids[2]) == "Grandad's birthday cake", tries=150)
    check("…back online, it reaches Mum's album without a reload", bool(sent), server_notes(server, owner, ids[2]))
    saved = webwalk.wait_for(anna, lambda: anna.locator("quire-status").inner_text() == "Saved", tries=100)
    check("…and the indicator says “Saved”", saved, anna.locator("quire-status").inner_text())
    shown = webwalk.wait_for(anna, lambda: anna.locator("album-helped ul.grid a.cell").count() == 4, tries=100)
    text = anna.locator("album-helped main").inner_text()
    check("…the album's photos show, with no “kept” or “needs the internet” left", shown and "kept on this phone" not in text
          and "internet" not in text, text[:300])

    # Mum's photo says who wrote its caption.
    user.goto(f"/#/photo/{ids[1]}")
    by = webwalk.wait_for(user, lambda: user.locator("album-photo .caption-by").count() > 0, tries=200)
    if not by:
        user.reload()
        by = webwalk.wait_for(user, lambda: user.locator("album-photo .caption-by").count() > 0, tries=100)
    check("Mum's photo says “Caption by Anna”", by and "Caption by Anna" in user.locator("album-photo .caption-by").inner_text())
    screen(user, "Mum's photo, its caption by Anna", "user-caption")

    # The Share screen: each photo's button has its own name.
    user.goto("/#/share")
    user.wait_for_selector("album-share a.cell")
    labels = user.eval_on_selector_all("album-share a.cell", "els => els.map(e => e.getAttribute('aria-label'))")
    check("the Share screen names each photo differently (4 photos of one day)", len(labels) == 4 and len(set(labels)) == 4, labels)
    screen(user, "Share, each photo named", "share")

    # Anna records the caption in her voice; Mum records it again: at once it is no longer Anna's.
    anna.goto(f"{album}/photo/{ids[3]}")
    record(anna, "album-helped-photo", "Record the caption in your voice")
    anna.wait_for_selector("album-helped-photo recorded-voice audio", state="attached", timeout=20_000)
    user.goto(f"/#/photo/{ids[3]}")
    voice_line = user.locator("album-photo .voice-line")
    heard = webwalk.wait_for(user, lambda: voice_line.count() > 0 and "Anna" in voice_line.inner_text(), tries=200)
    if not heard:
        user.reload()
        heard = webwalk.wait_for(user, lambda: voice_line.count() > 0 and "Anna" in voice_line.inner_text(), tries=200)
    check("Mum's phone says the caption is in Anna's voice", heard)
    user.locator("album-photo").get_by_role("button", name="Record it again").click()
    user.get_by_role("dialog").get_by_role("button", name="Record again").click()
    user.wait_for_function("() => document.querySelector('album-photo .voice-elapsed')?.textContent === '0:01'", timeout=15_000)
    user.locator("album-photo").get_by_role("button", name="Stop").click()
    stored = webwalk.wait_for(user, lambda: (lambda p: p if p and p.get("voice") and not p.get("voiceBy") else None)(
        call(server, "GET", f"{PHOTOS}/{ids[3]}", token=owner)[1]), tries=200)
    check("…recorded again by Mum, the server's recording is hers", bool(stored), stored)
    webwalk.settled(user)
    cleared = webwalk.wait_for(user, lambda: voice_line.count() > 0 and "Anna" not in voice_line.inner_text(), tries=50)
    check("…and at once (no reload) her phone no longer says “in Anna's voice”", cleared,
          voice_line.inner_text() if voice_line.count() else "no voice line")
    for context in (anna_context, user_context):
        context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-caregiver-edits-") as data:
        server = iremember.Server(os.path.abspath(args.binary), data, free_port())
        server.config = iremember.make_config(data)
        sys.exit(webwalk.run(server, lambda browser: walk_all(browser, server, data), args=FAKE_MICROPHONE))


if __name__ == "__main__":
    main()
