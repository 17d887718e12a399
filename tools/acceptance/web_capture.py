#!/usr/bin/env python3
"""Napkin's capture in a real browser (issue 41): "Share to Napkin" and "Text in photos", Debian's
Chromium at a phone's size (390×844) against the real server and the shipped config
(config/apps/napkin-notes.yaml: web share_target, notes photo_text, the photo-text plugin).

- Share: the OS share sheet cannot be driven, so the page (controlled by the service worker) posts
  the same multipart form the sheet would to the manifest's share_target action; the service worker
  keeps it and answers 303 to #/share, which the walk opens: a new note with the title, the text and
  the link, the photo attached; once online, all on the server. The same offline: the note and its
  photo wait in the outbox and arrive when the network is back.
- Text in photos: a photo of known text (Tests/PhotoTextTests/Fixtures/receipt.png) chosen for a
  note; after the server's job, "Text in this photo" shows it under the photo; the search finds the
  note by a word only in the photo (online, and offline on the phone's copy).
- axe-core on each screen; screenshots into .build/screenshots (capture-*.png).

Controls are found by their labels. Prints one line per check and `web acceptance: N passed, N failed` last.
    python3 tools/acceptance/web_capture.py --binary .build/debug/quire
"""
import argparse
import base64
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
import webwalk  # noqa: E402  (the browser: Chromium at a phone's size, axe, screenshots)
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import phone, token_of  # noqa: E402

ROOT = napkin_notes.ROOT
CONFIG = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")
RECEIPT = os.path.join(ROOT, "Tests", "PhotoTextTests", "Fixtures", "receipt.png")

# What a share sheet posts (the manifest's share_target params), from a page the service worker controls.
SHARE = """async ({ title, text, url, photo }) => {
  const form = new FormData();
  if (title) form.append("title", title);
  if (text) form.append("text", text);
  if (url) form.append("url", url);
  if (photo) {
    const bytes = Uint8Array.from(atob(photo), (c) => c.charCodeAt(0));
    form.append("photo", new File([bytes], "receipt.png", { type: "image/png" }));
  }
  // Not followed: what the share sheet's navigation gets is the redirect itself.
  const response = await fetch("/share-target", { method: "POST", body: form, redirect: "manual" });
  return { type: response.type, status: response.status, controlled: Boolean(navigator.serviceWorker.controller) };
}"""


def wait_for(page, predicate, tries=200):
    """`predicate()` true within 20 s (webwalk.wait_for, with more time: OCR runs as a job)."""
    return webwalk.wait_for(page, predicate, tries)


def server_notes(server, token):
    return call(server, "GET", "/api/v1/notes?limit=100", token=token)[1]["items"]


def share(page, **fields):
    return page.evaluate(SHARE, fields)


def walk(browser, server):
    with open(RECEIPT, "rb") as handle:
        receipt = handle.read()
    photo = base64.b64encode(receipt).decode()
    context, page = phone(browser, server)
    status, manifest, _ = call(server, "GET", "/manifest.webmanifest")
    manifest = manifest if isinstance(manifest, dict) else __import__("json").loads(manifest)
    target = manifest.get("share_target") or {}
    check("the manifest offers Napkin in the share sheet: POST multipart to /share-target with title, text, url and a photo",
          target.get("action") == "/share-target" and target.get("method") == "POST" and target.get("enctype") == "multipart/form-data"
          and target.get("params", {}).get("files", [{}])[0].get("name") == "photo", target)

    page.goto("/")
    webwalk.sign_in(page, "capture-ada", create=True)
    page.wait_for_selector("notes-list h1")
    page.wait_for_function("Boolean(navigator.serviceWorker.controller)", timeout=20_000)
    token = token_of(page)

    # 1. Share a title, a text, a link and a photo (online).
    answer = share(page, title="Bakery receipt", text="Keep for the expenses", url="https://example.org/harbour-bakery", photo=photo)
    check("the share is answered by the page's service worker with a redirect to the app (#/share)",
          answer["controlled"] and answer["type"] == "opaqueredirect", answer)
    page.goto("/#/share")
    page.wait_for_selector("note-editor #note-title", timeout=20_000)
    title = page.get_by_label("Title", exact=True).input_value()
    text = page.get_by_label("Note", exact=True).input_value()
    check("#/share opens a new note with the shared title, and the text with the link on its own line",
          title == "Bakery receipt" and text == "Keep for the expenses\nhttps://example.org/harbour-bakery", (title, text))
    webwalk.settled(page)
    shared = wait_for(page, lambda: next((n for n in server_notes(server, token) if n["title"] == "Bakery receipt" and n.get("photo")), None))
    check("on the server: the note with its title, its text with the link, and the photo attached",
          bool(shared) and "https://example.org/harbour-bakery" in shared["text"], shared)
    if shared:
        status, original, _ = call(server, "GET", f"/api/v1/notes/{shared['id']}/photo", token=token)
        check("the shared photo is the one shared, byte for byte", status == 200 and original == receipt, (status, len(original or b"")))
    page.wait_for_selector("note-editor .photo img", timeout=20_000)
    page.wait_for_selector("note-editor .photo-text summary:has-text('Text in this photo')", timeout=90_000)
    webwalk.screen(page, "capture", "a shared note with its photo's text", file="shared-note")
    check("the shared note's list is where Back goes (the editor replaced #/share in the history)",
          "#/share" not in page.evaluate("location.hash"), page.evaluate("location.hash"))

    # 2. Offline: the share waits in the outbox, note and photo, and reaches the server once online.
    context.set_offline(True)
    answer = share(page, text="Rhubarb crumble at 4", url="", photo=photo)
    page.goto("/#/share")
    page.wait_for_selector("note-editor #note-title", timeout=20_000)
    # The shared note's editor replaces the one open before (the bakery's): read its title once it has.
    wait_for(page, lambda: page.get_by_label("Title", exact=True).input_value() == "Rhubarb crumble at 4")
    offline_title = page.get_by_label("Title", exact=True).input_value()
    check("offline, the share still becomes a note on the phone (its first line as the title), the photo waiting to upload",
          offline_title == "Rhubarb crumble at 4" and page.is_visible("note-editor .photo img[alt='Photo waiting to upload']"),
          (offline_title, answer))
    webwalk.screen(page, "capture", "a note shared offline", file="shared-offline")
    context.set_offline(False)
    arrived = wait_for(page, lambda: next((n for n in server_notes(server, token) if n["title"] == "Rhubarb crumble at 4" and n.get("photo")), None),
                       tries=300)
    check("back online, the note shared offline reaches the server with its photo", bool(arrived), arrived)

    # 3. A photo with text chosen for a note: after the job, "Text in this photo" shows it.
    page.goto("/#/notes")
    page.get_by_role("button", name="New note").click()
    page.wait_for_selector("note-editor #note-title")
    page.get_by_label("Title", exact=True).fill("Saturday")
    page.get_by_label("Choose photo", exact=True).set_input_files(RECEIPT)
    page.wait_for_selector("note-editor .photo-text summary:has-text('Text in this photo')", timeout=90_000)
    found = page.inner_text("note-editor .photo-text")
    check("after the server's job, “Text in this photo” under the photo shows its text",
          "Harbour Bakery" in found and "Rhubarb crumble" in found, found)
    page.get_by_text("Text in this photo").click()
    check("“Text in this photo” folds away (collapsible)", not page.is_visible("note-editor .photo-text p"), page.inner_text("note-editor .photo-text"))
    page.get_by_text("Text in this photo").click()
    webwalk.screen(page, "capture", "a note with the text in its photo", file="photo-text")

    # 4. The search finds the notes by a word only in their photos, online and offline.
    page.goto("/#/notes")
    page.wait_for_selector("notes-list h1")
    box = page.get_by_label("Search notes")
    box.fill("harbour bakery")
    page.wait_for_selector("notes-list li.note:has-text('Saturday')", timeout=20_000)
    titles = page.locator("notes-list li.note .title").all_inner_texts()
    check("online, the search for “harbour bakery” (words only in the photo) finds the notes whose photo shows them",
          "Saturday" in titles and "Rhubarb crumble at 4" in titles, titles)
    webwalk.screen(page, "capture", "the search finding a note by its photo's text", file="search")
    _, hits, _ = call(server, "GET", "/api/v1/notes/search?q=paid%20with", token=token)
    server_titles = [hit["note"]["title"] for hit in hits["items"]]
    check("the server's search index finds them by a word only in the photo (photoText is searched with the note)",
          "Saturday" in server_titles and "Rhubarb crumble at 4" in server_titles and "Bakery receipt" in server_titles, server_titles)
    context.set_offline(True)
    box.fill("")
    box.fill("paid with")
    page.wait_for_timeout(800)
    offline_titles = page.locator("notes-list li.note .title").all_inner_texts()
    check("offline, the phone's own search finds them too", "Saturday" in offline_titles and "Rhubarb crumble at 4" in offline_titles, offline_titles)
    context.set_offline(False)
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-capture-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=CONFIG)
        code = webwalk.run(server, lambda browser: walk(browser, server))
    sys.exit(code)


if __name__ == "__main__":
    main()
