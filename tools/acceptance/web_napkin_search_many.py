#!/usr/bin/env python3
"""Napkin Notes: search finds every matching note, however many (walker 4). With 60 notes holding
"zebra", searching "zebra" online listed 50: the server's search answers at most `limit` (the list
asks 50; there is no cursor) and the 10 others could not be reached from search. Now the server's
ranked matches come first and the phone's own synced notes that match follow, so all 60 show (and
a note not sent yet is found online too, as offline).

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_napkin_search_many.py --binary .build/debug/quire
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webwalk  # noqa: E402
from napkin_notes import call, check  # noqa: E402
from web_no_lost_work import new_user  # noqa: E402

MANY = 60


def search_many(browser, server):
    context, page = new_user(browser, server, "searcher")
    token = webwalk.token_of(page)
    for index in range(MANY):
        status, _, _ = call(server, "POST", "/api/v1/notes", token=token, body={"title": f"Stripe {index:02d}", "text": f"a zebra, number {index}"})
        if status != 201:
            check(f"note {index} made", False, status)
            return
    page.reload()
    rows = page.locator("ol.notes > li")
    listed = webwalk.wait_for(page, lambda: rows.count() == MANY, tries=150)
    check(f"the list shows the {MANY} notes", listed, rows.count())
    page.get_by_role("searchbox", name="Search notes").fill("zebra")
    found = webwalk.wait_for(page, lambda: page.locator("ol.notes[aria-label='Notes found'] > li").count() == MANY, tries=100)
    page.wait_for_timeout(1000)  # the server's answer (150 ms after typing) has come and gone by now
    count = page.locator("ol.notes[aria-label='Notes found'] > li").count()
    check(f"online, searching “zebra” finds all {MANY} (it stopped at 50)", found and count == MANY, count)
    titles = page.locator("ol.notes[aria-label='Notes found'] > li").all_inner_texts()
    check("…each once", len({t.split(chr(10))[0] for t in titles}) == MANY, len(set(titles)))
    webwalk.shot(page, "napkin", "search-many")
    page.get_by_role("searchbox", name="Search notes").fill("zebra number 7")
    narrowed = webwalk.wait_for(page, lambda: page.locator("ol.notes[aria-label='Notes found'] > li").count() == 1, tries=100)
    check("…and “zebra number 7” narrows to the one", narrowed, page.locator("ol.notes[aria-label='Notes found'] > li").all_inner_texts())
    context.close()


def main():
    webwalk.main([("napkin", "napkin-notes", search_many)])


if __name__ == "__main__":
    main()
