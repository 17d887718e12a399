#!/usr/bin/env python3
"""iRemember's caregiver, offline and meanwhile (walker 4): what a helper writes, and what it replaces,
is never lost without a word. Two phones (browser contexts at 390×844, touch) of Debian's Chromium,
against the real server and the shipped config. Controls are found by their labels.

- Anna opens a photo, goes offline and saves a caption ("Kept on this phone"); she reloads, still
  offline: the photo screen shows her kept words and the indicator counts them ("Offline · 1
  waiting"), not only "This needs the internet". Back online the photo opens by itself and says
  "Caption saved" (before: "This needs the internet" stayed, the words shown nowhere).
- Anna saves a caption offline while Mum writes other words on the same photo; back online, Anna's
  caption is merged over Mum's newer one and the server says what it replaced: Anna's phone says so
  ("yours replaced “…”") with **Bring it back**, which puts Mum's words back in the album (before:
  nobody was told and Mum's words were gone).
- Anna saves a caption offline and Mum deletes that photo meanwhile: back online the refusal is
  said in view with Anna's words quoted whole and **Copy my words** (before: only to a screen
  reader, and the words were dropped).
- A photo Anna chooses offline is not added (the helper's screens keep nothing of Mum's album):
  said so ("the photo was not added. Choose it again once this phone is online"), and the line goes
  once online (before: "This needs the internet", still there once online).
axe-core on each screen; screenshots in .build/screenshots/caregiver-offline-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
    python3 tools/acceptance/web_caregiver_offline.py --binary .build/debug/quire
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
from webwalk import accessible  # noqa: E402

ROOT = napkin_notes.ROOT
PHOTOS = "/api/v1/album/photos"


def screen(page, name, file):
    accessible(page, name)
    webwalk.shot(page, "caregiver-offline", file)


def server_photo(server, owner, photo_id):
    status, photo, _ = call(server, "GET", f"{PHOTOS}/{photo_id}", token=owner)
    return photo if status == 200 else {}


def walk_all(browser, server, data):
    mum = caregiving.invite(browser, server)
    user_context, owner, owner_id, link = mum.context, mum.token, mum.account, mum.link

    ids = []
    for index in range(3):
        status, body, _ = call(server, "POST", f"{PHOTOS}?takenAt=2024-05-01T{9 + index:02d}:00", token=owner,
                               raw=iremember.jpeg(data, f"lake-{index}.jpg", seed=80 + index), content_type="image/jpeg", timeout=60)
        if status != 201:
            check(f"photo {index + 1} added", False, (status, body))
            return
        ids.append(body["photo"]["id"])

    anna_context, anna = caregiving.accept(browser, server, link)
    album = f"/#/helping/{owner_id}"

    # 1. Saved offline, then a reload offline: her words are shown and counted, then sent.
    anna.goto(f"{album}/photo/{ids[0]}")
    caption = anna.get_by_role("textbox", name="Caption")
    caption.wait_for()
    anna_context.set_offline(True)
    caption.fill("Tom rowing on the lake")
    anna.get_by_role("button", name="Save caption").click()
    status = anna.locator("album-helped-photo form [role=status]")
    webwalk.wait_for(anna, lambda: "Kept on this phone" in status.inner_text(), tries=50)
    anna.reload()
    anna.wait_for_selector("album-helped-photo [role=alert]")
    shown = anna.locator("album-helped-photo main").inner_text()
    check("reloaded offline, the photo screen shows the caption kept on this phone", "Tom rowing on the lake" in shown, shown[:300])
    counted = webwalk.wait_for(anna, lambda: "1 waiting" in anna.locator("quire-status").inner_text(), tries=30)
    check("…and the indicator counts it (“Offline · 1 waiting”)", counted, anna.locator("quire-status").inner_text())
    screen(anna, "a photo reloaded offline, its caption kept", "reloaded")
    anna_context.set_offline(False)
    sent = webwalk.wait_for(anna, lambda: server_photo(server, owner, ids[0]).get("notes") == "Tom rowing on the lake", tries=150)
    check("…back online, the caption reaches Mum's album", bool(sent), server_photo(server, owner, ids[0]).get("notes"))
    opened = webwalk.wait_for(anna, lambda: anna.get_by_role("textbox", name="Caption").count() > 0
                              and "Caption saved" in anna.locator("album-helped-photo").inner_text(), tries=150)
    text = anna.locator("album-helped-photo").inner_text()
    check("…and the photo opens by itself, saying “Caption saved” (no stale “needs the internet”)",
          opened and "internet" not in text, text[:300])
    screen(anna, "back online, the caption saved", "saved")

    # 2. Saved offline while Mum writes other words: Anna is told what hers replaced, and can bring it back.
    anna.goto(f"{album}/photo/{ids[1]}")
    anna.wait_for_function("() => document.querySelector('#helped-caption')?.value === '' && document.querySelector('album-helped-photo figure img')")
    caption = anna.get_by_role("textbox", name="Caption")
    anna_context.set_offline(True)
    caption.fill("Anna's words: the boat house")
    anna.get_by_role("button", name="Save caption").click()
    webwalk.wait_for(anna, lambda: "Kept on this phone" in anna.locator("album-helped-photo form [role=status]").inner_text(), tries=50)
    version = server_photo(server, owner, ids[1]).get("version")
    patched, _, _ = call(server, "PATCH", f"{PHOTOS}/{ids[1]}", token=owner, body={"notes": "Mum's words: Grandad built it"},
                         headers={"If-Match": f'"{version}"'})
    check("meanwhile Mum writes her own words on the photo", patched == 200, patched)
    anna_context.set_offline(False)
    notice = anna.locator(".notice.replaced")
    told = webwalk.wait_for(anna, lambda: notice.count() > 0 and notice.first.is_visible(), tries=150)
    said = notice.first.inner_text() if notice.count() else "no notice"
    check("back online, Anna is told her caption replaced Mum's words, quoted whole", told and "Mum's words: Grandad built it" in said, said)
    screen(anna, "told what her caption replaced", "replaced")
    if told:
        notice.first.get_by_role("button", name="Bring it back").click()
        back = webwalk.wait_for(anna, lambda: server_photo(server, owner, ids[1]).get("notes") == "Mum's words: Grandad built it", tries=100)
        check("…“Bring it back” puts Mum's words back in her album", bool(back), server_photo(server, owner, ids[1]).get("notes"))
        field = webwalk.wait_for(anna, lambda: anna.get_by_role("textbox", name="Caption").input_value() == "Mum's words: Grandad built it", tries=50)
        check("…and Anna's caption box shows them", field, anna.get_by_role("textbox", name="Caption").input_value())

    # 3. Saved offline, then Mum deletes the photo: refused, the words are said whole, in view.
    anna.goto(f"{album}/photo/{ids[2]}")
    # The new photo's screen (not the last one's, captioned): its caption empty, its picture shown.
    anna.wait_for_function("() => document.querySelector('#helped-caption')?.value === '' && document.querySelector('album-helped-photo figure img')")
    caption = anna.get_by_role("textbox", name="Caption")
    anna_context.set_offline(True)
    caption.fill("Anna's words for a photo Mum deletes")
    anna.get_by_role("button", name="Save caption").click()
    webwalk.wait_for(anna, lambda: "Kept on this phone" in anna.locator("album-helped-photo form [role=status]").inner_text(), tries=50)
    anna.get_by_role("link", name="‹ Album").click()
    anna.wait_for_selector("album-helped")
    deleted, _, _ = call(server, "DELETE", f"{PHOTOS}/{ids[2]}", token=owner)
    check("meanwhile Mum deletes that photo", deleted in (200, 204), deleted)
    anna_context.set_offline(False)
    refused = anna.locator(".notice", has_text="Anna's words for a photo Mum deletes")
    told = webwalk.wait_for(anna, lambda: refused.count() > 0 and refused.first.is_visible(), tries=150)
    check("back online, the refused caption is said in view, her words quoted whole", told,
          anna.locator("header").inner_text()[:300])
    if told:
        check("…with “Copy my words”", refused.first.get_by_role("button", name="Copy my words").count() == 1)
        status = anna.locator("album-helped [role=status]").first
        gone = webwalk.wait_for(anna, lambda: "kept on this phone" not in status.inner_text(), tries=50)
        check("…and the album no longer says a caption is kept", gone, status.inner_text())
    screen(anna, "a caption refused, her words in view", "refused")

    # 4. A photo chosen offline is not added (nothing of Mum's album is kept here): said so, plainly.
    iremember.jpeg(data, "offline.jpg", seed=90)
    anna_context.set_offline(True)
    with anna.expect_file_chooser() as chooser:
        anna.get_by_role("button", name="Add a photo").click()
    chooser.value.set_files(os.path.join(data, "offline.jpg"))
    line = anna.locator("album-helped [role=status]").first
    said = webwalk.wait_for(anna, lambda: "not added" in line.inner_text(), tries=50)
    check("offline, “Add a photo” says the photo was not added and to choose it again online", said
          and "Choose it again" in line.inner_text(), line.inner_text())
    anna_context.set_offline(False)
    gone = webwalk.wait_for(anna, lambda: "offline" not in line.inner_text(), tries=50)
    check("…and online again that line goes (no stale “offline”)", gone, line.inner_text())
    for context in (anna_context, user_context):
        context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-caregiver-offline-") as data:
        server = iremember.Server(os.path.abspath(args.binary), data, free_port())
        server.config = iremember.make_config(data)
        sys.exit(webwalk.run(server, lambda browser: walk_all(browser, server, data), args=()))


if __name__ == "__main__":
    main()
