#!/usr/bin/env python3
"""Napkin Notes: a photo over the app's limit is refused in words a person reads (walker 4). A 23 MB
photo (a newer phone's) chosen for a note said "A photo is limited to 10485760 bytes; this one has
23737648." — byte counts, and nothing on what to do. Now the refusal says "A photo is limited to
25 MB; this one is 26.5 MB. Choose a smaller one." (HTTPKit's 413 `too_large`, every upload; Napkin's
limit is 25 MB since walker 6, a newer phone's photo). A
text file named .jpg says what is wrong and now what to do: "… Choose a photo instead." (media's 415).

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_napkin_big_photo.py --binary .build/debug/quire
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webwalk  # noqa: E402
from napkin_notes import check  # noqa: E402
from web_napkin import photo  # noqa: E402
from web_no_lost_work import new_note, new_user  # noqa: E402


def big_photo(browser, server, data):
    # A real JPEG with 26.5 MB after its end (over Napkin's 25 MB): refused by its Content-Length, before it is read.
    path = os.path.join(data, "big.jpg")
    with open(photo(data), "rb") as small, open(path, "wb") as big:
        big.write(small.read())
        big.write(b"\0" * (26 * 1024 * 1024 + 512 * 1024))
    context, page = new_user(browser, server, "photographer")
    new_note(page, "Holiday")
    with page.expect_file_chooser() as chooser:
        page.get_by_text("Choose photo", exact=True).click()
    chooser.value.set_files(path)
    notice = page.locator(".notice", has_text="limited to")
    shown = webwalk.wait_for(page, lambda: notice.count() > 0 and notice.first.is_visible(), tries=150)
    said = notice.first.inner_text() if notice.count() else "no notice"
    check("a photo over 25 MB is refused in view", shown, said)
    check("…in sizes a person reads (“25 MB”, “26.5 MB”), not byte counts", "25 MB" in said and "26.5 MB" in said and "26214400" not in said, said)
    check("…and says what to do (“Choose a smaller one”)", "Choose a smaller one" in said, said)
    webwalk.shot(page, "napkin", "big-photo")
    notice.first.get_by_role("button", name="OK").click()

    # A text file named .jpg: said what is wrong, and what to do.
    text = os.path.join(data, "notes.jpg")
    with open(text, "w") as file:
        file.write("not a picture at all\n")
    with page.expect_file_chooser() as chooser:
        page.get_by_text("Choose photo", exact=True).click()
    chooser.value.set_files(text)
    refused = page.locator(".notice", has_text="must be an image")
    shown = webwalk.wait_for(page, lambda: refused.count() > 0 and refused.first.is_visible(), tries=150)
    said = refused.first.inner_text() if refused.count() else "no notice"
    check("a text file named .jpg is refused in view, saying what to do (“Choose a photo instead”)", shown and "Choose a photo instead" in said, said)
    context.close()


def main():
    webwalk.main([("napkin", "napkin-notes", lambda browser, server: big_photo(browser, server, server.data))])


if __name__ == "__main__":
    main()
