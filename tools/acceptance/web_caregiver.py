#!/usr/bin/env python3
"""iRemember's caregiver (issue 41), in a real browser: three phones (browser contexts at 390×844,
touch) of Debian's Chromium against the real server and the shipped config (album: { caregivers:
true }). Controls are found by their labels.

The user (Get Started: a device account) opens "Family helping you", invites (the link and its QR
code, Copy link); the family member, on their own phone, opens the link, creates their own account,
accepts as "Anna", lands in "Mum's album", adds a photo and writes its caption. The user's phone
shows the photo with "Added by Anna" and the caption. Anna makes "Restore access for Mum"; its link
opened on a third, fresh phone lands in the user's album (the same account, its photos; the first
phone still signed in). The user ends the caregiving ("Stop helping", asked first; Cancel keeps
it): Anna's album screen then says she no longer helps, and the server refuses her (403
not_caregiver). A used restore link and a used invitation say why, in words. axe-core on each
screen; screenshots in .build/screenshots/caregiver-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
    python3 tools/acceptance/web_caregiver.py --binary .build/debug/quire
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
from webwalk import accessible, token_of  # noqa: E402

ROOT = napkin_notes.ROOT
# The phone's share sheet stands in as on the other walks: Chromium on Linux has none.
SHARE_SHEET = "navigator.share = async (data) => { window.__shared = data; };"


def shot(page, name):
    webwalk.shot(page, "caregiver", name)


def screen(page, name, file):
    accessible(page, name)
    shot(page, file)


def session_of(page):
    return page.evaluate("JSON.parse(localStorage.getItem('quire.session'))")


def walk_all(browser, server, data):
    # The user's phone ---------------------------------------------------------------------------
    user_context, user = webwalk.phone(browser, server, SHARE_SHEET)
    user.goto("/")
    user.get_by_role("button", name="Get Started").click()
    user.wait_for_selector("album-home")
    family = user.get_by_role("link", name="Family helping you")
    check("the main menu offers “Family helping you”", family.is_visible())
    family.click()
    user.wait_for_selector("album-family")
    user.get_by_label("Your name, as your family knows you").fill("Mum")
    user.get_by_role("button", name="Invite a family member").click()
    link_field = user.get_by_label("The link")
    link_field.wait_for()
    link = link_field.input_value()
    check("the invitation is a link to #/help/…", "/#/help/" in link, link)
    check("the invitation shows its QR code", user.get_by_role("img", name="QR code for the link: Your invitation").is_visible())
    check("the screen says nobody helps yet", user.get_by_text("Nobody helps with your album yet.").is_visible())
    screen(user, "Family helping you, an invitation made", "family-invite")

    # The family member's phone: their own account ----------------------------------------------------
    anna_context, anna = webwalk.phone(browser, server)
    anna.goto(link.replace(server.base, ""))
    anna.wait_for_selector("quire-signin")
    anna.get_by_label("User name").fill("anna")
    anna.get_by_label("Password").fill("a good password")
    anna.get_by_role("button", name="Create an account").click()
    anna.wait_for_selector("album-help-accept h1:has-text(\"Mum's album\")")
    screen(anna, "the invitation, opened", "accept")
    anna.get_by_role("button", name="Accept and help").click()
    check("accepting asks her name first", anna.get_by_text("Say your name").is_visible())
    anna.get_by_label("Your name, as they know you").fill("Anna")
    anna.get_by_role("button", name="Accept and help").click()
    anna.wait_for_selector("album-helped h1:has-text(\"Mum's album\")")
    check("accepted: Anna is in “Mum's album”", "#/helping/" in anna.url, anna.url)
    owner_id = session_of(user)["accountId"]
    check("…the user's album, not her own", anna.url.endswith(owner_id), anna.url)
    anna.wait_for_selector("text=No photos yet")
    screen(anna, "the album she helps with, empty", "helped-empty")

    # Anna adds a photo and its caption.
    iremember.jpeg(data, "lake.jpg", taken="2024:06:01 10:00:00", seed=7)
    with anna.expect_file_chooser() as chooser:
        anna.get_by_role("button", name="Add a photo").click()
    chooser.value.set_files(os.path.join(data, "lake.jpg"))
    anna.wait_for_selector("album-helped-photo form")
    check("the photo she added says “Added by Anna”", anna.locator("dd.added-by").inner_text() == "Anna")
    anna.get_by_label("Caption", exact=True).fill("Tom's birthday at the lake")
    anna.get_by_role("button", name="Save caption").click()
    anna.wait_for_selector("text=Caption saved")
    screen(anna, "the photo she added, captioned", "helped-photo")
    anna.wait_for_selector("album-helped-photo figure img")
    placed = anna.evaluate("""() => { const box = document.querySelector('album-helped-photo figure img').getBoundingClientRect();
        return { left: Math.round(box.left), right: Math.round(box.right), page: document.documentElement.scrollWidth }; }""")
    check("…the photo is the screen's width, centred (as the user's own photo view), not shifted right past the margin",
          placed["left"] >= 0 and placed["right"] <= 390 and abs(placed["left"] - (390 - placed["right"])) <= 2 and placed["page"] <= 390, placed)
    anna.get_by_role("link", name="‹ Album").click()
    anna.wait_for_selector("album-helped ul.grid a.cell")
    cell = anna.locator("album-helped ul.grid a.cell").first.get_attribute("aria-label")
    check("her album screen lists it, captioned and added by her", "Tom's birthday at the lake" in cell and "added by Anna" in cell, cell)

    # The user sees it, added by Anna ------------------------------------------------------------------
    user.goto("/#/album")
    user.wait_for_selector("a.cell", timeout=20_000)
    label = user.locator("a.cell").first.get_attribute("aria-label")
    check("the user's album has the photo", "Photo from" in (label or ""), label)
    user.locator("a.cell").first.click()
    user.wait_for_selector("dd.added-by")
    check("the user's photo says “Added by Anna”", user.locator("dd.added-by").inner_text() == "Anna")
    check("…with Anna's caption", user.get_by_text("Tom's birthday at the lake").first.is_visible())
    screen(user, "the photo Anna added, on the user's phone", "user-photo")

    # Restore access, onto a third, fresh phone ---------------------------------------------------------
    anna.get_by_role("button", name="Restore access for Mum").click()
    restore_field = anna.get_by_label("The link")
    restore_field.wait_for()
    restore = restore_field.input_value()
    check("the restore link is one to #/restore/…", "/#/restore/" in restore, restore)
    check("…with its QR code", anna.get_by_role("img", name="QR code for the link: Restore access for Mum").is_visible())
    screen(anna, "Restore access for Mum", "restore-link")
    new_context, new_phone = webwalk.phone(browser, server)
    new_phone.goto(restore.replace(server.base, ""))
    new_phone.wait_for_selector("album-restore")
    screen(new_phone, "a restore link on a fresh phone", "restore-open")
    new_phone.get_by_role("button", name="Open my album").click()
    new_phone.wait_for_selector("album-home")
    check("the fresh phone is the user's account", session_of(new_phone)["accountId"] == owner_id)
    check("…with its device secret, as the first phone", session_of(new_phone).get("deviceSecret") == session_of(user).get("deviceSecret"))
    new_phone.wait_for_function("() => /1 photo/.test(document.querySelector('.lead')?.textContent ?? '')", timeout=20_000)
    check("…and its album: 1 photo", True)
    screen(new_phone, "the user's album on the restored phone", "restored-home")
    status, _, _ = call(server, "GET", "/api/v1/album/photos", token=token_of(user))
    check("the first phone's session goes on", status == 200, status)
    # Used: the same link on another fresh phone says so.
    used_context, used = webwalk.phone(browser, server)
    used.goto(restore.replace(server.base, ""))
    used.get_by_role("button", name="Open my album").click()
    used.wait_for_selector("#restore-error:has-text('already been used')")
    check("a used restore link says it was used and to ask for a new one", "Ask your helper for a new one" in used.locator("#restore-error").inner_text())
    used_context.close()

    # Ending the caregiving ------------------------------------------------------------------------
    user.goto("/#/family")
    stop = user.get_by_role("button", name="Stop Anna helping")
    stop.wait_for()
    stop.click()
    user.get_by_role("button", name="Cancel").click()
    check("Cancel keeps Anna helping", user.get_by_role("button", name="Stop Anna helping").is_visible())
    screen(user, "Family helping you, with Anna", "family-anna")
    user.get_by_role("button", name="Stop Anna helping").click()
    user.locator("dialog").get_by_role("button", name="Stop helping").click()
    user.wait_for_selector("text=Nobody helps with your album yet.")
    check("after Stop helping, nobody helps", True)
    status, body, _ = call(server, "GET", f"/api/v1/album/helping/{owner_id}/photos", token=token_of(anna))
    check("the server refuses Anna at once (403 not_caregiver)", status == 403 and body.get("reason") == "not_caregiver", (status, body))
    anna.goto(f"/#/helping")
    anna.wait_for_selector("text=You do not help with any album now")
    anna.goto(f"/#/helping/{owner_id}")
    anna.wait_for_selector("album-helped p.error")
    check("her album screen says she no longer helps", "any more" in anna.locator("album-helped p.error").inner_text())
    screen(anna, "an album she no longer helps with", "ended")
    # The invitation was used: opened again, it says so.
    anna.goto(link.replace(server.base, ""))
    anna.wait_for_selector("album-help-accept p.error")
    check("a used invitation says so, and what to do", "Ask for a new one" in anna.locator("album-help-accept p.error").inner_text())
    screen(anna, "a used invitation", "invitation-used")
    for context in (new_context, anna_context, user_context):
        context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-caregiver-") as data:
        server = iremember.Server(os.path.abspath(args.binary), data, free_port())
        server.config = iremember.make_config(data)
        sys.exit(webwalk.run(server, lambda browser: walk_all(browser, server, data)))


if __name__ == "__main__":
    main()
