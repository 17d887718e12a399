#!/usr/bin/env python3
"""Foreign Note's statistics and "Fit my parameters" in a real browser: Debian's Chromium at a
phone's size (390×844, touch), against the real server and the shipped config
(config/apps/foreign-note.yaml).

A month of reviews is seeded through the API (40 words reviewed on four days, backdated; every
fifth word forgotten once); the Statistics screen, found by its label, shows the year's heatmap
with those days' counts, the due forecast with the counts the server's cards give, true
retention; "Fit my parameters" runs the optimizer as a background job, its progress shown, to
done: the fitted parameters are the user's on the server, and "Back to default" forgets them. A
user with too few reviews is told how many a fit needs. Offline, the screen shows the last copy
fetched. axe-core on each state; screenshots in .build/screenshots/foreign-note-stats-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
    python3 tools/acceptance/web_stats.py --binary .build/debug/quire
"""
import argparse
import datetime
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
import webwalk  # noqa: E402  (the browser: Chromium at a phone's size, axe, screenshots)
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import phone  # noqa: E402

ROOT = napkin_notes.ROOT
CONFIG = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")
V = "/api/v1/vocabulary"
PASSWORD = "a good password"
DAYS = [-28, -25, -18, -5]  # days before today the words were reviewed
WORDS = 40


def shot(page, name):
    webwalk.shot(page, "foreign-note", f"stats-{name}")


def seed(server, username):
    """Signs `username` up, adds WORDS words and reviews each on DAYS (backdated, in time order):
    answers the token, the reviews per day, and each word's card due date after its last review."""
    token = napkin_notes.sign_up(server, username, PASSWORD)
    _, collection, _ = call(server, "POST", f"{V}/collections", {"name": "Deutsch"}, token=token)
    entries = []
    for index in range(WORDS):
        status, entry, _ = call(server, "POST", f"{V}/entries",
                                {"collection": collection["id"], "word": f"Wort {index}", "definitions": [f"word {index}"]}, token=token)
        assert status == 201, (status, entry)
        entries.append(entry["id"])
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    today = now.date()
    per_day, due = {}, {}
    for offset in DAYS:
        at = now + datetime.timedelta(days=offset)
        for index, entry in enumerate(entries):
            rating = "again" if offset == -18 and index % 5 == 0 else "good"
            stamp = (at + datetime.timedelta(seconds=index)).isoformat().replace("+00:00", "Z")
            status, body, _ = call(server, "POST", f"{V}/review", {"entry": entry, "rating": rating, "reviewedAt": stamp}, token=token)
            assert status == 201, (status, body)
            due[entry] = body["card"]["due"]
            day = str(today + datetime.timedelta(days=offset))
            per_day[day] = per_day.get(day, 0) + 1
    return token, per_day, due, today


def forecast_of(due, today):
    """Cards due on each of the next 30 days (today's with the overdue ones), from the cards."""
    counts = [0] * 30
    for stamp in due.values():
        day = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).date()
        index = (day - today).days
        if index < 30:
            counts[max(index, 0)] += 1
    return counts


def forecast_bars(page):
    """The forecast's bars as drawn: (day label, count, height) of each, in order."""
    return [tuple(bar) for bar in page.eval_on_selector_all(
        "svg rect.bar.due",
        "rects => rects.map(r => [r.querySelector('title').textContent.split(':')[0], Number(r.getAttribute('data-value')),"
        " Number(r.getAttribute('height'))])")]


def walk(browser, server):
    token, per_day, due, today = seed(server, "stats-lea")
    expected = forecast_of(due, today)
    context, page = phone(browser, server, timezone_id="UTC")
    page.goto("/")
    webwalk.sign_in(page, "stats-lea", PASSWORD)
    page.wait_for_selector("vocab-collections")
    page.get_by_role("link", name="Statistics").click()
    heatmap = page.get_by_role("img", name="Reviews per day over the last year")
    heatmap.wait_for()
    shown = {day: int(page.get_attribute(f"rect[data-day='{day}']", "data-reviews")) for day in per_day}
    check("the heatmap shows each seeded day's reviews (40 on each of four days)", shown == per_day and set(per_day.values()) == {WORDS}, (shown, per_day))
    cells = page.locator("svg[role=img] rect.heat").count()
    check("the heatmap has a square for each of the last 365 days", cells == 365, cells)
    summary = page.inner_text("#stats-year-summary")
    check("the year's summary says 160 reviews on 4 days", summary.startswith("160 reviews on 4 days"), summary)
    said = page.inner_text("#stats-forecast-summary")
    want = (f"Due today {expected[0]}, tomorrow {expected[1]}, in the next 7 days {sum(expected[:7])}, "
            f"in the next 30 days {sum(expected)}")
    check("the forecast's counts are the cards' (due today, tomorrow, 7 and 30 days)", said == want, (said, want))
    online_bars = forecast_bars(page)
    bars = [value for _, value, _ in online_bars]
    check("the forecast draws a bar per day with the cards' counts", bars == expected, (bars, expected))
    retention = page.inner_text("#stats-retention-summary")
    # Reviews of learned words: days -25 (40 remembered), -18 (32 of 40), -5 (40): but only those in
    # review state count, so the server's figure is taken and checked against the table's.
    _, stats, _ = call(server, "GET", f"{V}/review/statistics?tzOffset=0", token=token)
    month = [sum(r["reviewed"] for r in stats["retentionByDay"]), sum(r["recalled"] for r in stats["retentionByDay"])]
    check("true retention says the server's counts over 30 days", f"({month[1]} of {month[0]} reviews" in retention and month[0] > 0, (retention, month))
    rows = page.locator("#retention-by-interval tbody tr").count()
    check("retention by interval: a row per bucket", rows == 7, rows)
    width = page.evaluate("document.documentElement.scrollWidth")
    check("nothing wider than the phone", width <= 390, width)
    webwalk.accessible(page, "statistics")
    shot(page, "charts")
    page.get_by_role("heading", name="Settings: your parameters").scroll_into_view_if_needed()
    shot(page, "parameters")

    # Fit my parameters: a background job, its progress shown, to done.
    page.evaluate("""() => {
      window.__fitSeen = [];
      new MutationObserver(() => {
        const bar = document.getElementById('fit-progress');
        const said = document.getElementById('fit-said')?.textContent ?? '';
        window.__fitSeen.push((bar ? 'bar ' : '') + said);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    }""")
    page.get_by_role("button", name="Fit my parameters").click()
    page.wait_for_selector("#fit-said:has-text('Done')", timeout=30_000)
    seen = page.evaluate("window.__fitSeen")
    check("fitting shows its progress bar and says what it does, then done",
          any(s.startswith("bar ") and "Fitting" in s for s in seen) and "Done" in page.inner_text("#fit-said"), seen[:6])
    _, settings, _ = call(server, "GET", f"{V}/review/settings", token=token)
    fitted = settings.get("fitted") or {}
    check("the fitted parameters are the user's on the server (21, fitted to 120 reviews)",
          len(fitted.get("parameters", [])) == 21 and fitted.get("reviews") == 120, fitted)
    status_text = page.inner_text("#parameters-status")
    check("the screen says they were fitted, to how many reviews", "Fitted on" in status_text and "120 of your reviews" in status_text, status_text)
    webwalk.accessible(page, "statistics, parameters fitted")
    shot(page, "fitted")
    page.get_by_role("button", name="Back to default").click()
    page.wait_for_selector("#fit-said:has-text('Back to the default parameters')")
    _, settings, _ = call(server, "GET", f"{V}/review/settings", token=token)
    check("Back to default: no fitted parameters on the server", settings.get("fitted") is None, settings)

    # Offline: the last copy fetched.
    page.get_by_role("link", name="Collections").click()
    page.wait_for_selector("vocab-collections")
    context.set_offline(True)
    page.get_by_role("link", name="Statistics").click()
    page.wait_for_selector("#stats-offline")
    offline_said = page.inner_text("#stats-forecast-summary")
    check("offline, the statistics are the last copy fetched, and say so", offline_said == want and page.get_by_role("img", name="Reviews per day over the last year").count() == 1,
          offline_said)
    check("offline, the forecast draws the same bars, day by day, as online", forecast_bars(page) == online_bars,
          (forecast_bars(page), online_bars))
    webwalk.accessible(page, "statistics offline")
    shot(page, "offline")
    # Offline, the app started again (a reload from the service worker), statistics opened again.
    page.reload()
    page.wait_for_selector("#stats-offline")
    check("offline after a reload, the forecast says the same counts", page.inner_text("#stats-forecast-summary") == want,
          page.inner_text("#stats-forecast-summary"))
    check("offline after a reload, the forecast draws the same bars, day by day", forecast_bars(page) == online_bars,
          (forecast_bars(page), online_bars))
    shot(page, "offline-reloaded")
    page.get_by_role("link", name="Collections").click()
    page.wait_for_selector("vocab-collections")
    page.get_by_role("link", name="Statistics").click()
    page.wait_for_selector("#stats-offline")
    check("…and opened again from the collections, the same bars", forecast_bars(page) == online_bars, (forecast_bars(page), online_bars))
    context.set_offline(False)
    context.close()

    # Too few reviews: said, with how many a fit needs.
    napkin_notes.sign_up(server, "stats-new", PASSWORD)
    context, page = phone(browser, server, timezone_id="UTC")
    page.goto("/")
    webwalk.sign_in(page, "stats-new", PASSWORD)
    page.wait_for_selector("vocab-collections")
    page.goto("/#/stats")
    page.get_by_role("button", name="Fit my parameters").click()
    page.wait_for_selector("#fit-error:has-text('at least 100 reviews')")
    check("too few reviews: the screen says a fit needs at least 100, and how many there are", "your log has 0" in page.inner_text("#fit-error"),
          page.inner_text("#fit-error"))
    webwalk.accessible(page, "statistics, too few reviews")
    shot(page, "too-few")
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-stats-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=CONFIG)
        code = webwalk.run(server, lambda browser: walk(browser, server))
    sys.exit(code)


if __name__ == "__main__":
    main()
