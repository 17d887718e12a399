#!/usr/bin/env python3
"""iRemember: a photo chosen is kept on the phone at once, not after the wait for where the phone
is. Before, "Saving your photo…" waited up to 6 s for a position (offline, or no fix indoors)
before the photo went anywhere: a reload, or the phone closing the tab, within that wait lost the
photo. Now the position is asked as the picker opens (choosing overlaps the wait) and waited for
at most a second after.

Walks: offline, with location allowed but no position to be had, "Choose From Phone", a reload
2.5 s later (still offline), then online: the photo is in the album and on the server.

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_photo_kept_at_once.py --binary .build/debug/quire
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iremember  # noqa: E402
import napkin_notes  # noqa: E402  (shared harness: check, call)
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from web_no_lost_work import photo  # noqa: E402

ROOT = napkin_notes.ROOT


def photos_on_server(server, token):
    status, body, _ = call(server, "GET", "/api/v1/album/photos", token=token)
    return body.get("items", []) if status == 200 else []


def chosen_offline_then_reloaded(browser, server, data):
    # Location allowed, no position set: getCurrentPosition answers only at its timeout.
    context, page = webwalk.phone(browser, server, permissions=["geolocation"])
    page.goto("/")
    page.click("text=Get Started")
    page.wait_for_selector("album-home")
    webwalk.settled(page)
    token = webwalk.token_of(page)
    # The reload below is offline: the service worker must have taken the page first (the fresh-clone
    # run once went offline before it had: the reload met Chromium's "no internet" page).
    page.wait_for_function("() => Boolean(navigator.serviceWorker.controller)", timeout=20_000)
    context.set_offline(True)
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Choose From Phone").click()
    chooser.value.set_files(photo(data))
    page.wait_for_timeout(2_500)
    busy = page.locator("text=Saving your photo…").count()
    page.reload()
    page.wait_for_selector("album-home, album-markup, album-photo", timeout=15_000)
    webwalk.shot(page, "iremember", "photo-kept-at-once")
    waiting = page.evaluate("document.querySelector('quire-status')?.textContent || ''")
    check("a photo chosen offline is waiting on the phone 2.5 s later, after a reload",
          "waiting" in waiting, (waiting, "still 'Saving your photo…' when reloaded" if busy else "saved"))
    context.set_offline(False)
    items = webwalk.wait_for(page, lambda: photos_on_server(server, token), tries=200)
    check("online again, that photo reaches the server", len(items) == 1, items)
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    binary = os.path.abspath(parser.parse_args().binary)
    with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
        server = iremember.Server(binary, data, free_port())
        server.config = iremember.make_config(data)
        sys.exit(webwalk.run(server, lambda browser: chosen_offline_then_reloaded(browser, server, data)))


if __name__ == "__main__":
    main()
