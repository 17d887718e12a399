#!/usr/bin/env python3
"""The web client (issue 17), against a release `quire` serving Napkin Notes, in Debian's Chromium
driven by Playwright at a phone's size (390×844), on loopback:

1. first screen: bytes the phone downloads (compressed, as sent), first contentful paint and the
   moment the sign-in form can be used, with the CPU throttled 4× (DevTools Protocol
   `Emulation.setCPUThrottlingRate`); a cold load (no cache, no service worker), best of --rounds;
2. a list of 1,000 notes: opened and scrolled to the end; the longest task (PerformanceObserver
   `longtask`, none is reported under 50 ms);
3. the pen: 1,000 strokes drawn on the back, the time from each pointer event to the frame that
   paints it (p50, p95);
4. iRemember (config/apps/iremember.yaml): its first screen ("Get Started" usable), and an album of
   1,000 photos: the Album screen opened and scrolled to the end (long tasks), and how many
   thumbnails it fetched (only those near the screen are).

    tools/bench.d/web.py --bin .build/release [--rounds 3]

Prints one JSON object; BENCHMARKS.md quotes it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from playwright.sync_api import sync_playwright

from benchlib import free_port, serving

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")
IREMEMBER = os.path.join(ROOT, "config", "apps", "iremember.yaml")
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)


def api(base, method, path, body=None, token=None):
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        data = response.read()
        return json.loads(data) if data else None


def first_screen(browser, base, rounds, ready="quire-signin form #username"):
    results = []
    for _ in range(rounds):
        context = browser.new_context(**PHONE, service_workers="block")
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        sizes = {}
        cdp.on("Network.loadingFinished", lambda event: sizes.__setitem__(event["requestId"], event["encodedDataLength"]))
        started = time.perf_counter()
        page.goto(base + "/")
        page.wait_for_selector(ready)
        usable = (time.perf_counter() - started) * 1000
        paint = page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null")
        page.wait_for_timeout(300)
        results.append({"bytes": sum(sizes.values()), "requests": len(sizes), "fcp_ms": round(paint or 0, 1), "usable_ms": round(usable, 1)})
        context.close()
    best = min(results, key=lambda r: r["usable_ms"])
    return {"rounds": results, "best": best}


def sign_in(page, base, username):
    page.goto(base + "/")
    page.fill("#username", username)
    page.fill("#password", "a good password")
    page.click("button:has-text('Sign in')")
    page.wait_for_selector("notes-list h1")


def thousand_notes(browser, base):
    api(base, "POST", "/api/v1/auth/register", {"username": "bench-list", "password": "a good password"})
    token = api(base, "POST", "/api/v1/auth/login", {"username": "bench-list", "password": "a good password"})["access_token"]
    for index in range(1000):
        api(base, "POST", "/api/v1/notes", {"title": f"Note {index}", "text": "some words"}, token)
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.add_init_script("""
        window.__long = [];
        new PerformanceObserver(list => { for (const e of list.getEntries()) window.__long.push(e.duration); })
          .observe({type: 'longtask', buffered: true});
    """)
    sign_in(page, base, "bench-list")
    page.wait_for_function("() => document.querySelectorAll('li.note').length === 1000", timeout=120_000)
    page.evaluate("window.__long = []")
    for _ in range(40):
        page.mouse.wheel(0, 1200)
        page.wait_for_timeout(50)
    page.wait_for_timeout(500)
    long_tasks = page.evaluate("window.__long")
    opened = page.evaluate("performance.getEntriesByType('longtask').length")
    context.close()
    return {"notes": 1000, "long_tasks_while_scrolling": len(long_tasks), "longest_ms": round(max(long_tasks, default=0), 1),
            "long_tasks_total": opened}


def pen(browser, base):
    api(base, "POST", "/api/v1/auth/register", {"username": "bench-pen", "password": "a good password"})
    context = browser.new_context(**PHONE)
    page = context.new_page()
    sign_in(page, base, "bench-pen")
    page.click("text=New note")
    page.wait_for_selector("#note-title")
    page.click("text=Flip to draw")
    canvas = page.wait_for_selector("canvas.pad")
    page.evaluate("""() => {
        window.__lags = [];
        const canvas = document.querySelector('canvas.pad');
        canvas.addEventListener('pointermove', (e) => {
          const stamp = e.timeStamp;
          requestAnimationFrame(() => window.__lags.push(performance.now() - stamp));
        });
    }""")
    box = canvas.bounding_box()
    for stroke in range(1000):
        y = box["y"] + 20 + (stroke * 7) % int(box["height"] - 40)
        page.mouse.move(box["x"] + 20, y)
        page.mouse.down()
        for step in range(1, 6):
            page.mouse.move(box["x"] + 20 + step * 50, y + (step % 2) * 8)
        page.mouse.up()
    lags = page.evaluate("window.__lags")
    strokes = page.evaluate("document.querySelector('drawing-pad').drawing.strokes.length")
    context.close()
    ordered = sorted(lags)
    pick = lambda q: ordered[min(len(ordered) - 1, int(len(ordered) * q))]  # noqa: E731
    return {"strokes": strokes, "events": len(lags), "event_to_paint_ms": {"p50": round(pick(0.5), 1), "p95": round(pick(0.95), 1),
                                                                           "max": round(ordered[-1], 1)}}


def tiny_jpeg(data):
    path = os.path.join(data, "tiny.jpg")
    subprocess.run(["vips", "xyz", path + ".v", "64", "48"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1", "40", "--uchar"], check=True)
    with open(path, "rb") as handle:
        return handle.read()


def thousand_photos(browser, base, data):
    account = api(base, "POST", "/api/v1/auth/device")
    token = account["access_token"]
    body = tiny_jpeg(data)
    started = time.perf_counter()
    for index in range(1000):
        day = 1 + index % 28
        request = urllib.request.Request(f"{base}/api/v1/album/photos?source=library&takenAt=2026-{1 + index % 12:02d}-{day:02d}T10:{index % 60:02d}:00"
                                         f"&tags=t{index % 9}", data=body, method="POST")
        request.add_header("Content-Type", "image/jpeg")
        request.add_header("Authorization", f"Bearer {token}")
        urllib.request.urlopen(request, timeout=30).read()
    uploaded = time.perf_counter() - started
    context = browser.new_context(**PHONE)
    session = {"accessToken": token, "refreshToken": account["refresh_token"], "expiresAt": int(time.time() * 1000) + 800_000,
               "accountId": account["accountId"], "deviceSecret": account["deviceSecret"]}
    context.add_init_script(f"localStorage.setItem('quire.session', JSON.stringify({json.dumps(session)}));")
    context.add_init_script("""
        window.__long = [];
        new PerformanceObserver(list => { for (const e of list.getEntries()) window.__long.push(e.duration); })
          .observe({type: 'longtask', buffered: true});
    """)
    page = context.new_page()
    thumbs = []
    page.on("request", lambda r: thumbs.append(r.url) if r.url.endswith("/image/thumb") else None)
    page.goto(base + "/")
    page.wait_for_function("() => document.querySelector('album-home .lead')?.textContent.startsWith('1000 photos')", timeout=180_000)
    page.evaluate("window.__long = []")
    started = time.perf_counter()
    page.click(".tiles >> text=Album")
    page.wait_for_function("() => document.querySelectorAll('ul.grid li').length === 1000", timeout=60_000)
    opened = (time.perf_counter() - started) * 1000
    page.wait_for_timeout(500)
    fetched_first = len(thumbs)
    page.evaluate("window.__long = []")
    for _ in range(60):
        page.mouse.wheel(0, 1500)
        page.wait_for_timeout(50)
    page.wait_for_timeout(500)
    long_tasks = page.evaluate("window.__long")
    context.close()
    return {"photos": 1000, "upload_s": round(uploaded, 1), "album_opened_ms": round(opened, 1), "thumbnails_fetched_on_open": fetched_first,
            "thumbnails_fetched_after_scrolling_to_the_end": len(thumbs), "long_tasks_while_scrolling": len(long_tasks),
            "longest_ms": round(max(long_tasks, default=0), 1)}


def serving_app(binaries, config, measure):
    """`measure(browser, base, data)` against a release server of `config` with a data directory
    of its own, in Debian's Chromium."""
    with tempfile.TemporaryDirectory(prefix="quire-bench-web-") as data:
        port = free_port()
        env = dict(os.environ, QUIRE_DATA=data)
        with serving(os.path.abspath(binaries), config, env, port):
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
                try:
                    return measure(browser, f"http://127.0.0.1:{port}", data)
                finally:
                    browser.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    result = serving_app(args.bin, CONFIG, lambda browser, base, data: {
        "first_screen": first_screen(browser, base, args.rounds), "list": thousand_notes(browser, base), "pen": pen(browser, base)})
    result["iremember"] = serving_app(args.bin, IREMEMBER, lambda browser, base, data: {
        "first_screen": first_screen(browser, base, args.rounds, ready="quire-signin button.hero"),
        "album": thousand_photos(browser, base, data)})
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
