#!/usr/bin/env python3
"""What a newcomer's walk of Napkin Notes and iRemember on phones found saying something false about a
photo (walker6, phones of 390×844):

- napkin_photo_said: a photo chosen for a note was announced "Photo added." the moment it was queued,
  so a photo the server then refused (over the limit, or not a photo) had already been said added.
  Now "Photo added." is said once the server took it, and a refusal is said ("The photo was not
  added. …" with the server's words). A phone camera's 15 MB photo is taken (Napkin's limit was
  10 MB; it is 25 MB now, as iRemember's): the old server refused it.
- napkin_list_said: the whole list of notes was a live region: every change synced from the other
  phone made a screen reader read every title again, and a search read the list rather than what it
  found. Now only a search or a filter is said, in one sentence ("1 note found.", "No note holds …").
  The photo buttons are named by the words they show ("Choose photo"; it was "Choose a photo").
- iremember_refused: a file that is not a photo, chosen with "Choose From Phone", opened the mark-up
  screen saying "This photo was deleted on another phone" (false: it was never added) over a broken
  picture. Now it says the photo was not added, with the server's words, and offers "Choose another
  photo"; the screen reader is told the same.

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_walker6.py --binary .build/debug/quire [--only napkin_photo_said,napkin_list_said,iremember_refused]
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import settled  # noqa: E402
from web_napkin import photo  # noqa: E402
from web_no_lost_work import new_note, new_user  # noqa: E402

ROOT = napkin_notes.ROOT
MB = 1024 * 1024

# Every text the page's live regions (and alerts) come to hold, in order: what a screen reader is told.
SAID = """
window.__said = [];
new MutationObserver((changes) => {
  for (const change of changes) {
    const at = change.target.nodeType === 1 ? change.target : change.target.parentElement;
    const found = [...change.addedNodes].filter((n) => n.nodeType === 1 && n.matches?.('[role=alert]')).map((n) => n.textContent.trim());
    const region = at?.closest?.('[aria-live],[role=status],[role=alert]');
    if (region) found.push(region.textContent.trim());
    for (const text of found) if (text && window.__said[window.__said.length - 1] !== text) window.__said.push(text);
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def said(page):
    return page.evaluate("window.__said || []")


def padded(data, name, size):
    """A real JPEG followed by zeros up to `size` bytes (the server refuses or takes it by its length)."""
    path = os.path.join(data, name)
    with open(photo(data), "rb") as small, open(path, "wb") as big:
        head = small.read()
        big.write(head)
        big.write(b"\0" * (size - len(head)))
    return path


def choose(page, path):
    with page.expect_file_chooser() as chooser:
        page.get_by_text("Choose photo", exact=True).click()
    chooser.value.set_files(path)


def napkin_photo_said(browser, server, data):
    context, page = new_user(browser, server, "walker6-photos", init_script=SAID)
    new_note(page, "Lecture 4")
    names = [page.get_by_label(words, exact=True).count() for words in ("Take photo", "Choose photo")]
    check("Napkin, the photo buttons: named by the words they show (“Take photo”, “Choose photo”), not “Take a photo”",
          names == [1, 1], names)
    what = "Napkin, a phone camera's photo"
    choose(page, padded(data, "camera15.jpg", 15 * MB))
    took = webwalk.wait_for(page, lambda: any("Photo added." in s for s in said(page)) or page.locator(".notice").count() > 0, tries=300)
    words = said(page)
    check(f"{what}: a 15 MB photo (a newer phone's) is taken and then said “Photo added.”",
          took and any("Photo added." in s for s in words) and page.locator(".notice").count() == 0,
          (words, page.locator(".notice").all_inner_texts()))
    settled(page, 60_000)

    for name, path, refusal, words_of_it in (
            ("over 25 MB", padded(data, "huge.jpg", 26 * MB + MB // 2), "limited to", ("25 MB", "26.5 MB")),
            ("not a photo", os.path.join(data, "notes.jpg"), "must be an image", ("Choose a photo instead",))):
        if not os.path.exists(path):
            with open(path, "w") as file:
                file.write("not a picture at all\n" * 50)
        page.evaluate("window.__said = []")
        choose(page, path)
        notice = page.locator(".notice", has_text=refusal)
        shown = webwalk.wait_for(page, lambda: notice.count() > 0 and notice.first.is_visible(), tries=300)
        page.wait_for_timeout(600)  # what the screen reader hears after the refusal, too
        words = said(page)
        told = [s for s in words if "not added" in s]
        check(f"Napkin, a photo {name}: refused in view, in words ({', '.join(words_of_it)})",
              shown and all(w in notice.first.inner_text() for w in words_of_it), notice.all_inner_texts())
        check(f"Napkin, a photo {name}: the screen reader is never told “Photo added.”",
              not any("Photo added." in s for s in words), words)
        check(f"Napkin, a photo {name}: the screen reader is told it was not added, with the server's words",
              bool(told) and any(all(w in s for w in words_of_it) for s in told), words)
        webwalk.shot(page, "walker6", f"napkin-photo-{name.replace(' ', '-')}")
        notice.first.get_by_role("button", name="OK").click()

    # Offline, a photo is only queued: said to wait on the phone, "added" once the server took it.
    page.evaluate("window.__said = []")
    context.set_offline(True)
    page.evaluate("window.dispatchEvent(new Event('offline'))")
    choose(page, photo(data))
    page.wait_for_timeout(1500)
    words = said(page)
    check("Napkin, a photo chosen offline: said to wait on the phone, not “Photo added.”",
          any("sent when the phone is online" in s for s in words) and not any("Photo added." in s for s in words), words)
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    webwalk.wait_for(page, lambda: any("Photo added." in s for s in said(page)), tries=300)
    check("Napkin, a photo chosen offline: “Photo added.” once it reached the server", any("Photo added." in s for s in said(page)), said(page))
    context.close()


def napkin_list_said(browser, server, data):
    context, page = new_user(browser, server, "walker6-list", init_script=SAID)
    token = webwalk.token_of(page)
    for title in ("Groceries", "Lecture notes", "Birthday ideas"):
        call(server, "POST", "/api/v1/notes", {"title": title, "text": "x"}, token=token)
    webwalk.wait_for(page, lambda: page.locator("li.note").count() == 3, tries=150)
    page.evaluate("window.__said = []")
    # The other phone writes a note: the list redraws here, and says nothing of every title again.
    call(server, "POST", "/api/v1/notes", {"title": "Train times", "text": "07:42"}, token=token)
    webwalk.wait_for(page, lambda: page.locator("li.note").count() == 4, tries=150)
    page.wait_for_timeout(600)
    words = said(page)
    check("Napkin, the list: a note from the other phone does not make the screen reader read every title again",
          not any("Groceries" in s or "Lecture notes" in s for s in words), words)
    page.evaluate("window.__said = []")
    page.fill("#notes-search", "lectu")
    webwalk.wait_for(page, lambda: any("found" in s for s in said(page)), tries=50)
    words = said(page)
    check("Napkin, the list: a search says how many notes it found (“1 note found.”), not the list read out",
          "1 note found." in words and not any("Groceries" in s for s in words), words)
    page.fill("#notes-search", "zzzz")
    webwalk.wait_for(page, lambda: any("No note holds" in s for s in said(page)), tries=50)
    check("Napkin, the list: a search that finds nothing says so", any("No note holds “zzzz”" in s for s in said(page)), said(page))
    context.close()


def iremember_refused(browser, server, data):
    context, page = webwalk.phone(browser, server, init_script=SAID)
    page.goto("/")
    page.click("text=Get Started")
    page.wait_for_selector("album-home")
    path = os.path.join(data, "shopping.jpg")
    with open(path, "w") as file:
        file.write("a shopping list, not a photo\n" * 50)
    page.locator("album-home input[type=file]:not([capture])").first.set_input_files(path)
    page.wait_for_selector("album-markup, album-photo-markup, .screen", timeout=15_000)
    webwalk.wait_for(page, lambda: page.get_by_text("not added to your album").count() > 0 or page.get_by_text("deleted on another phone").count() > 0, tries=150)
    page.wait_for_timeout(800)
    body = page.inner_text("main")
    what = "iRemember, a file that is not a photo"
    check(f"{what}: the mark-up screen never says it was deleted on another phone (it was never added)",
          "deleted on another phone" not in body and not any("deleted on another phone" in s for s in said(page)), (body[:300], said(page)))
    check(f"{what}: it says the photo was not added, with the server's words (“must be an image”)",
          "not added to your album" in body and "must be an image" in body, body[:400])
    check(f"{what}: the screen reader is told the same", any("not added to your album" in s for s in said(page)), said(page))
    choose_again = page.get_by_role("link", name="Choose another photo")
    check(f"{what}: “Choose another photo” is offered", choose_again.count() > 0 and choose_again.first.is_visible(), body[:300])
    webwalk.accessible(page, "iRemember, photo not added")
    webwalk.shot(page, "walker6", "iremember-not-a-photo")
    if choose_again.count():
        choose_again.first.click()
        page.wait_for_selector("album-home")
        check(f"{what}: “Choose another photo” goes back to the main menu (Choose From Phone)", page.get_by_text("Choose From Phone").count() > 0,
              page.inner_text("body")[:200])
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    parser.add_argument("--only", help="comma-separated: napkin_photo_said,napkin_list_said,iremember_refused")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    only = set((args.only or "napkin_photo_said,napkin_list_said,iremember_refused").split(","))
    config = lambda name: os.path.join(ROOT, "config", "apps", f"{name}.yaml")  # noqa: E731
    code = 0
    for key, name, walk in (("napkin_photo_said", "napkin-notes", napkin_photo_said), ("napkin_list_said", "napkin-notes", napkin_list_said),
                            ("iremember_refused", "iremember", iremember_refused)):
        if key not in only:
            continue
        with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
            server = napkin_notes.Server(binary, data, free_port(), config=config(name))
            code |= webwalk.run(server, lambda browser, walk=walk, server=server, data=data: walk(browser, server, data))
    sys.exit(code)


if __name__ == "__main__":
    main()
