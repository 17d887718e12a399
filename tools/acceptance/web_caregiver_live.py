#!/usr/bin/env python3
"""iRemember's caregiver, live (walker B's care2): Anna's screens follow Mum's album, and each side is
told who replaced what. Two phones (browser contexts at 390×844, touch) of Debian's Chromium, against
the real server and the shipped config. Controls are found by their labels.

- Anna captions a photo; Mum opens it, goes offline and adds words to its notes; meanwhile Anna saves a
  newer caption. Back online Mum's edit is merged over Anna's: Mum's phone says “Anna had changed this
  meanwhile; your edit replaced …” (before: “Another device had changed this too”, though it was
  Anna), from the server's new `replacedBy`.
- Anna's photo screen, left open, follows the album: her caption box shows Mum's words, “Caption
  saved” goes, and a notice says Mum's words replaced hers, quoted, with **Bring mine back**, which
  puts hers back in the album (before: her own words under “Caption saved. It shows in their album.”,
  never told).
- Anna's album grid, left open, shows a photo Mum adds and a caption Mum writes meanwhile.
Screenshots in .build/screenshots/caregiver-live-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
    python3 tools/acceptance/web_caregiver_live.py --binary .build/debug/quire
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import caregiving  # noqa: E402
import iremember  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check  # noqa: E402

PHOTOS = "/api/v1/album/photos"
FIRST = "Tom's birthday at the lake"
SECOND = "Tom's 7th birthday at the lake, with cake"
MUMS = " — with Grandpa"
# A screen left open asks every 10 s: 30 s is three chances.
FOLLOWED = 300


def server_photo(server, owner, photo_id):
    status, photo, _ = call(server, "GET", f"{PHOTOS}/{photo_id}", token=owner)
    return photo if status == 200 else {}


def add_photo(server, owner, index):
    status, body, _ = call(server, "POST", f"{PHOTOS}?takenAt=2024-05-0{index + 1}T09:00", token=owner,
                           raw=iremember.jpeg(server.data, f"live-{index}.jpg", seed=60 + index), content_type="image/jpeg", timeout=60)
    return body["photo"]["id"] if status == 201 else None


def walk_live(browser, server):
    mum = caregiving.invite(browser, server)
    user, owner = mum.page, mum.token
    ids = [add_photo(server, owner, index) for index in range(2)]
    if not all(ids):
        check("Mum's photos added", False, ids)
        return
    anna_context, anna = caregiving.accept(browser, server, mum.link)
    album = f"/#/helping/{mum.account}"

    # Anna captions the photo, and leaves its screen open.
    anna.goto(f"{album}/photo/{ids[0]}")
    caption = anna.get_by_role("textbox", name="Caption")
    caption.wait_for()
    caption.fill(FIRST)
    anna.get_by_role("button", name="Save caption").click()
    status = anna.locator("album-helped-photo form [role=status]")
    webwalk.wait_for(anna, lambda: "Caption saved" in status.inner_text(), tries=100)

    # Mum opens it, goes offline and adds to its notes; meanwhile Anna saves newer words.
    user.goto("/#/album")
    user.locator(f"a.cell[href*='{ids[0]}']").click()
    user.get_by_role("link", name="Mark up").click()
    notes = user.get_by_role("textbox", name="Notes")
    shown = webwalk.wait_for(user, lambda: notes.input_value() == FIRST, tries=100)
    check("Mum's phone shows Anna's caption", shown, notes.input_value())
    mum.context.set_offline(True)
    notes.click()
    user.keyboard.press("End")
    user.keyboard.type(MUMS, delay=10)
    user.wait_for_timeout(1500)
    caption.fill(SECOND)
    anna.get_by_role("button", name="Save caption").click()
    webwalk.wait_for(anna, lambda: server_photo(server, owner, ids[0]).get("notes") == SECOND, tries=100)
    mum.context.set_offline(False)
    user.evaluate("window.dispatchEvent(new Event('online'))")

    merged = FIRST + MUMS
    arrived = webwalk.wait_for(user, lambda: server_photo(server, owner, ids[0]).get("notes") == merged, tries=150)
    check("back online, Mum's words reach the album (merged over Anna's newer caption)", bool(arrived),
          server_photo(server, owner, ids[0]).get("notes"))
    notice = user.locator(".notice.replaced")
    told = webwalk.wait_for(user, lambda: notice.count() > 0 and notice.first.is_visible(), tries=100)
    said = notice.first.inner_text() if notice.count() else "no notice"
    check("Mum's phone names who wrote what her edit replaced (“Anna had changed this meanwhile”), not “another device”",
          told and "Anna had changed this meanwhile" in said and "Another device" not in said, said)
    check("…quoting Anna's words", SECOND in said, said)
    webwalk.shot(user, "caregiver-live", "mum-told-anna")

    # Anna's photo screen, left open, follows: Mum's words, and hers replaced said with a way back.
    field = webwalk.wait_for(anna, lambda: caption.input_value() == merged, tries=FOLLOWED)
    check("Anna's open photo screen shows the caption as it is in the album now (Mum's words)", field, caption.input_value())
    stale = "Caption saved" in status.inner_text()
    check("…no longer says “Caption saved. It shows in their album.”", not stale, status.inner_text())
    replaced = anna.locator(".notice.replaced")
    told = webwalk.wait_for(anna, lambda: replaced.count() > 0 and replaced.first.is_visible(), tries=100)
    said = replaced.first.inner_text() if replaced.count() else "no notice"
    check("…and tells Anna her caption was replaced, quoting what replaced it", told and merged in said and "Mum" in said, said)
    webwalk.shot(anna, "caregiver-live", "anna-told-replaced")
    if told:
        replaced.first.get_by_role("button", name="Bring mine back").click()
        back = webwalk.wait_for(anna, lambda: server_photo(server, owner, ids[0]).get("notes") == SECOND, tries=100)
        check("…“Bring mine back” puts her caption back in Mum's album", bool(back), server_photo(server, owner, ids[0]).get("notes"))
        check("…and in her caption box", caption.input_value() == SECOND, caption.input_value())

    # Anna's album grid, left open, follows: a photo Mum adds and a caption Mum writes.
    anna.goto(album)
    cells = anna.locator("album-helped a.cell")
    webwalk.wait_for(anna, lambda: cells.count() == 2, tries=100)
    added = add_photo(server, owner, 2)
    version = server_photo(server, owner, ids[1]).get("version")
    patched, _, _ = call(server, "PATCH", f"{PHOTOS}/{ids[1]}", token=owner, body={"notes": "The picnic by the tower"},
                         headers={"If-Match": f'"{version}"'})
    check("meanwhile Mum adds a photo and captions another", bool(added) and patched == 200, (added, patched))
    grown = webwalk.wait_for(anna, lambda: cells.count() == 3, tries=FOLLOWED)
    check("Anna's open album shows the photo Mum added", grown, cells.count())
    labelled = webwalk.wait_for(anna, lambda: anna.locator("album-helped a.cell[aria-label*='The picnic by the tower']").count() == 1, tries=100)
    check("…and the caption Mum wrote", labelled, [cells.nth(i).get_attribute("aria-label") for i in range(cells.count())])
    webwalk.shot(anna, "caregiver-live", "anna-album-followed")
    for context in (anna_context, mum.context):
        context.close()


if __name__ == "__main__":
    webwalk.main([("live", "iremember", walk_live)])
