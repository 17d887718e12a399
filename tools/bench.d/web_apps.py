#!/usr/bin/env python3
"""The web client's part 2 (issue 18), in Debian's Chromium driven by Playwright at a phone's size,
against release binaries on loopback:

1. Foreign Note, keystroke → results painted (an `input` event on the search box to the frame after
   the results list changed), typing 1 to 4 letters of 40 random words and "word + 2 letters":
   - online at --entries entries (default 1,000,000, imported with `quire-vocab`), the server's
     search with its highlights. The page's sync feed is answered empty, so the phone keeps no
     copy and the numbers are the search's alone;
   - offline at --offline entries (default 50,000) from IndexedDB: the page syncs them, the context
     goes offline, and the same typing runs over the device's copy.
2. AR Notebook, a notebook of 200 pages (3 items each): from opening it to its first page
   visible, and 60 page turns (the button, each with its animation) watched for long tasks (> 50 ms).

    tools/bench.d/web_apps.py --bin .build/release [--entries 1000000] [--offline 50000]

Prints one JSON object; BENCHMARKS.md quotes it.
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request

from playwright.sync_api import sync_playwright

import vocab
from benchlib import free_port, serving

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOREIGN_NOTE = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")
AR_NOTEBOOK = os.path.join(ROOT, "config", "apps", "ar-notebook.yaml")
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
# Keystroke → the frame after the results changed, measured in the page.
MEASURE = """() => {
  window.__lat = [];
  const box = document.querySelector('#search');
  const results = document.querySelector('vocab-search .results');
  let started = 0;
  box.addEventListener('input', () => { started = performance.now(); }, true);
  new MutationObserver(() => {
    if (!started) return;
    const t0 = started; started = 0;
    requestAnimationFrame(() => window.__lat.push(performance.now() - t0));
  }).observe(results, { childList: true, subtree: true, characterData: true });
}"""


EMPTY_FEED = """(() => {
  const fetchFromNetwork = window.fetch.bind(window);
  const empty = JSON.stringify({ items: [], nextCursor: null, hasMore: false });
  window.fetch = (input, init) => String(input instanceof Request ? input.url : input).includes("/api/v1/sync/changes")
    ? Promise.resolve(new Response(empty, { status: 200, headers: { "Content-Type": "application/json" } }))
    : fetchFromNetwork(input, init);
})();"""


def api(base, method, path, body=None, token=None, raw=None, content_type="application/json"):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(base + path, method=method, data=data)
    request.add_header("Content-Type", content_type)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=120) as response:
        text = response.read()
        return json.loads(text) if text else None


def pct(values, q):
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 1) if ordered else None


def typing(page, queries):
    """Types each query a letter at a time into an empty box; answers the latencies."""
    page.evaluate(MEASURE)
    for query in queries:
        page.fill("#search", "")
        page.wait_for_timeout(60)
        for letter in query:
            page.keyboard.type(letter)
            page.wait_for_timeout(120)
    page.wait_for_timeout(300)
    return page.evaluate("window.__lat")


def sign_in_page(page, base, username, password):
    page.goto(base + "/")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("button:has-text('Sign in')")
    page.wait_for_selector("vocab-collections")


def rows_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["word", "definition", "tags", "collection"])
        writer.writerows(rows)


def vocabulary(binaries, scratch, name, count, rng):
    """`count` dictionary entries imported for user `bench` with quire-vocab into a data directory of
    their own; answers the environment, bench's password, the import's seconds and the queries to type."""
    rows = vocab.build_rows(count, rng)
    queries = [q for _, q in vocab.queries(rows, rng, n=40)][:160]
    env = dict(os.environ, QUIRE_DATA=os.path.join(scratch, name))
    path = os.path.join(scratch, f"{name}.csv")
    rows_csv(path, rows)
    tool = lambda name, *args: subprocess.run([os.path.join(binaries, name), *args, "--config", FOREIGN_NOTE], env=env,  # noqa: E731
                                              capture_output=True, text=True)
    tool("quire-auth", "create-user", "bench")
    started = time.time()
    if tool("quire-vocab", "import", path, "--user", "bench").returncode != 0:
        sys.exit("quire-vocab import failed")
    imported = time.time() - started
    reset = tool("quire-auth", "reset-password", "bench")
    password = next(line.split(": ", 1)[1] for line in reset.stdout.splitlines() if line.startswith("password: "))
    return env, password, imported, queries


def foreign_note_online(browser, binaries, scratch, count, rng):
    env, password, imported, queries = vocabulary(binaries, scratch, "online", count, rng)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with serving(binaries, FOREIGN_NOTE, env, port):
        context = browser.new_context(**PHONE, service_workers="block")
        # No local copy: the feed answers empty, so what is measured is the server's search. Answered
        # in the page, not with Playwright's page.route: routing sends every request of the page
        # through the driver, which added ~20 ms before each search was sent.
        context.add_init_script(EMPTY_FEED)
        page = context.new_page()
        sign_in_page(page, base, "bench", password)
        page.goto(base + "/#/search")
        page.wait_for_selector("vocab-search #search")
        latencies = typing(page, queries)
        local = page.text_content("vocab-search [role=status]")
        context.close()
    return {"entries": count, "import_s": round(imported, 1), "keystrokes": len(latencies), "p50_ms": pct(latencies, 0.5),
            "p95_ms": pct(latencies, 0.95), "max_ms": pct(latencies, 1.0), "searched_on_device": "on this device" in (local or "")}


def foreign_note_offline(browser, binaries, scratch, count, rng):
    env, password, _, queries = vocabulary(binaries, scratch, "offline", count, rng)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with serving(binaries, FOREIGN_NOTE, env, port):
        context = browser.new_context(**PHONE)
        page = context.new_page()
        started = time.time()
        sign_in_page(page, base, "bench", password)
        page.wait_for_function(f"() => document.querySelector('quire-status')?.textContent === 'Saved' && "
                               f"document.querySelector('vocab-collections .big-link') !== null", timeout=900_000)
        page.wait_for_function("n => [...document.querySelectorAll('vocab-collections .count')].reduce((s, e) => s + parseInt(e.textContent.replace(/\\D/g, '') || '0'), 0) >= n",
                               arg=count, timeout=900_000)
        synced = time.time() - started
        context.set_offline(True)
        page.evaluate("window.dispatchEvent(new Event('offline'))")
        page.goto(base + "/#/search")
        page.wait_for_selector("vocab-search #search")
        latencies = typing(page, queries)
        local = page.text_content("vocab-search [role=status]")
        context.close()
    return {"entries": count, "sync_s": round(synced, 1), "keystrokes": len(latencies), "p50_ms": pct(latencies, 0.5),
            "p95_ms": pct(latencies, 0.95), "max_ms": pct(latencies, 1.0), "searched_on_device": "on this device" in (local or "")}


def notebook_200(browser, binaries, scratch):
    data = os.path.join(scratch, "ar")
    env = dict(os.environ, QUIRE_DATA=data)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with serving(binaries, AR_NOTEBOOK, env, port):
        api(base, "POST", "/api/v1/auth/register", {"username": "bench-ar", "password": "a good password"})
        token = api(base, "POST", "/api/v1/auth/login", {"username": "bench-ar", "password": "a good password"})["access_token"]
        notebook = api(base, "POST", "/api/v1/notebooks/notebooks", {"name": "Two hundred", "cover": "colors"}, token)["id"]
        for number in range(1, 201):
            api(base, "POST", f"/api/v1/notebooks/notebooks/{notebook}/pages", {"template": "two-slots"}, token)
            for text in ("A heading", "Some words on the page", "x" * 120):
                api(base, "POST", f"/api/v1/notebooks/notebooks/{notebook}/pages/{number}/items", {"kind": "text", "text": text}, token)
        context = browser.new_context(**PHONE)
        context.add_init_script("localStorage.setItem('quire.ar.welcomed', '1');")
        context.add_init_script("""
            window.__long = [];
            new PerformanceObserver(list => { for (const e of list.getEntries()) window.__long.push(e.duration); })
              .observe({type: 'longtask', buffered: true});
        """)
        page = context.new_page()
        page.goto(base + "/")
        page.fill("#username", "bench-ar")
        page.fill("#password", "a good password")
        page.click("button:has-text('Sign in')")
        page.wait_for_selector("nb-book .sheet")
        opens = []
        for _ in range(5):
            page.goto(base + "/#/notebooks")
            page.wait_for_selector("nb-notebooks .big-link")
            started = time.perf_counter()
            page.click("nb-notebooks .big-link")
            page.wait_for_selector("nb-book .sheet")
            opens.append((time.perf_counter() - started) * 1000)
        page.evaluate("window.__long = []")
        turns = []
        for number in range(1, 61):
            started = time.perf_counter()
            page.click("[aria-label='Next page']")
            page.wait_for_function("n => document.querySelector('.turn-row .where')?.textContent.startsWith(`Page ${n} `)", arg=number)
            turns.append((time.perf_counter() - started) * 1000)
        long_tasks = page.evaluate("window.__long")
        context.close()
    return {"pages": 200, "items": 600, "first_page_visible_ms": [round(v, 1) for v in opens], "turns": len(turns),
            "turn_ms_p50": pct(turns, 0.5), "turn_ms_p95": pct(turns, 0.95),
            "long_tasks_while_turning": len(long_tasks), "longest_ms": round(max(long_tasks, default=0), 1)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--offline", type=int, default=50_000)
    args = parser.parse_args()
    binaries = os.path.abspath(args.bin)
    rng = random.Random(11)
    with tempfile.TemporaryDirectory(prefix="quire-bench-web-apps-") as scratch:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            try:
                result = {"notebook": notebook_200(browser, binaries, scratch),
                          "foreign_note_offline": foreign_note_offline(browser, binaries, scratch, args.offline, rng),
                          "foreign_note_online": foreign_note_online(browser, binaries, scratch, args.entries, rng)}
            finally:
                browser.close()
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
