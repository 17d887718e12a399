#!/usr/bin/env python3
"""iRemember: tags changed on two phones of one album are all kept. A tag edit sent the photo's
whole list, so a phone back online put its list over the other phone's: a tag the other phone
added meanwhile was gone from both, and nothing said so. Now each edit is what it added and took
off, put onto the server's list as it is when sent (`rebase: tags`, merge-tags.js).

Walks: A and B on one photo's mark-up (tagged "family"); A offline adds "picnic" and takes off
"family"; B online adds "summer"; A online: the server, A and B have "summer" and "picnic", and
not "family".

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_tags_two_phones.py --binary .build/debug/quire
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
from web_no_lost_work import iremember_with_photo  # noqa: E402

ROOT = napkin_notes.ROOT
MARKUP = "album-markup drawing-pad .stage img"


def tags_on_server(server, token):
    status, body, _ = call(server, "GET", "/api/v1/album/photos", token=token)
    items = body.get("items", []) if status == 200 else []
    return items[0].get("tags", []) if items else None


def chips(page):
    return page.evaluate("[...document.querySelectorAll('album-markup .chip.on')].map(b => b.firstChild.textContent.trim())")


def add_tag(page, tag):
    page.get_by_label("New tag").fill(tag)
    page.get_by_role("button", name="Add tag").click()


def two_phones(browser, server, data):
    context_a, a, token = iremember_with_photo(browser, server, data, MARKUP)
    add_tag(a, "family")
    webwalk.settled(a)
    context_b, b = webwalk.phone(browser, server, storage_state=context_a.storage_state())
    b.goto(a.url)
    b.wait_for_selector(MARKUP, timeout=15_000)
    webwalk.wait_for(b, lambda: chips(b) == ["family"])
    context_a.set_offline(True)
    add_tag(a, "picnic")
    a.get_by_role("button", name="Remove the tag family").click()
    add_tag(b, "summer")
    webwalk.settled(b)
    context_a.set_offline(False)
    webwalk.settled(a)
    want = {"summer", "picnic"}
    server_tags = webwalk.wait_for(a, lambda: set(tags_on_server(server, token) or []) == want and tags_on_server(server, token), tries=50)
    check("a tag added on B while A was offline stays after A's tags are sent; A's own added and taken off go too",
          set(server_tags or tags_on_server(server, token) or []) == want, tags_on_server(server, token))
    shown_a = webwalk.wait_for(a, lambda: set(chips(a)) == want)
    shown_b = webwalk.wait_for(b, lambda: set(chips(b)) == want)
    webwalk.shot(b, "iremember", "tags-two-phones")
    check("both phones show summer and picnic (not family)", shown_a and shown_b, (chips(a), chips(b)))
    context_b.close()
    context_a.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    binary = os.path.abspath(parser.parse_args().binary)
    with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
        server = iremember.Server(binary, data, free_port())
        server.config = iremember.make_config(data)
        sys.exit(webwalk.run(server, lambda browser: two_phones(browser, server, data)))


if __name__ == "__main__":
    main()
