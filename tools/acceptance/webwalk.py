"""What every walk of the web client shares: Debian's Chromium driven by Playwright at a phone's
size (390×844, touch), axe-core on a screen, screenshots (into .build/screenshots/; `tools/screenshots`
refreshes the README's docs/screenshots/ on purpose), the sync
indicator, and a run that turns a crash into a failed check with the page it happened on.
"""
import argparse
import os
import sys
import tempfile
import time

from napkin_notes import ROOT, Server, check, free_port, results

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

# A test run leaves the tree as it found it: screenshots go under the build folder unless
# `tools/screenshots` asks for the README's own.
SHOTS = os.environ.get("QUIRE_SCREENSHOTS") or os.path.join(ROOT, ".build", "screenshots")
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True,
             user_agent="Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36")
AXE = Axe()
# Every page a walk opened; the newest is shown when the walk crashes.
PAGES = []


def chromium_path():
    for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.path.exists(path):
            return path
    raise RuntimeError("Debian's chromium is not installed; run tools/setup")


def accessible(page, screen):
    """axe-core on the page as it is: no serious or critical violation."""
    found = AXE.run(page)
    bad = [v for v in found.response["violations"] if v.get("impact") in ("serious", "critical")]
    check(f"axe: no serious or critical violation on {screen}", not bad,
          [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in bad])


def shot(page, app, name):
    os.makedirs(SHOTS, exist_ok=True)
    page.screenshot(path=os.path.join(SHOTS, f"{app}-{name}.png"))


def describe_failure(name="web-failure"):
    """What the newest open page showed when a walk failed: a screenshot in .build/<name>.png, and its
    address, text and connection printed (a walk may have closed the page it opened last)."""
    open_pages = [page for page in PAGES if not page.is_closed()]
    if not open_pages:
        return
    page = open_pages[-1]
    where = os.path.join(ROOT, ".build", f"{name}.png")
    try:
        page.screenshot(path=where)
        state = page.evaluate("() => ({ online: navigator.onLine, worker: Boolean(navigator.serviceWorker?.controller) })")
        print(f"  the page at the failure: {where}; {page.url}; {state}; its text: {page.inner_text('body')[:400]!r}")
    except Exception as shot_error:  # noqa: BLE001  (the walk's own error is the one to report)
        print(f"  no screenshot of the failure: {shot_error!r}")


def screen(page, app, name, file=None):
    """axe on the screen as it is, and its screenshot when `file` names one."""
    accessible(page, name)
    if file:
        shot(page, app, file)


def status_is(page, text, timeout=10_000):
    page.wait_for_function("t => document.querySelector('quire-status')?.textContent === t", arg=text, timeout=timeout)


def settled(page, timeout=20_000):
    """The indicator says every change is on the server."""
    status_is(page, "Saved", timeout)


def wait_for(page, predicate, tries=100):
    """`predicate()` true within tries × 100 ms; its last value."""
    value = predicate()
    for _ in range(tries):
        if value:
            return value
        page.wait_for_timeout(100)
        value = predicate()
    return value


def token_of(page):
    return page.evaluate("JSON.parse(localStorage.getItem('quire.session')).accessToken")


def sign_in(page, username, password="a good password", create=False):
    """The sign-in form filled: signing in, or with `create`, making the account."""
    page.wait_for_selector("quire-signin form")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("text=Create an account" if create else "button:has-text('Sign in')")


def phone(browser, server, init_script=None, **options):
    """A new phone (browser context) on the server, and its page."""
    context = browser.new_context(base_url=server.base, **PHONE, **options)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    PAGES.append(page)
    page.on("pageerror", lambda error: print("  page error:", error))
    return context, page


def run(server, walk, args=()):
    """Starts `server`, runs `walk(browser)` in Chromium (with extra command-line `args`), stops
    the server; prints the tally (and how long the walk took) and answers the exit code."""
    started = time.monotonic()
    server.start()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", *args])
            try:
                walk(browser)
            except Exception:
                # The newest page still open (a walk may have closed the one it opened last).
                describe_failure()
                raise
            finally:
                browser.close()
    except Exception as error:  # a crash of the harness is a failed check, with its reason
        check("web acceptance run", False, repr(error))
    finally:
        server.stop()
    failed = results.count(False)
    print(f"web acceptance: {len(results) - failed} passed, {failed} failed ({time.monotonic() - started:.0f} s)")
    return 1 if failed else 0


def main(walks, args=()):
    """A walk script's `main`: `--binary`, and `--only KEY,…` when it has several walks. Each walk
    `(key, app, walk)` runs against a server of its own on config/apps/<app>.yaml in a fresh folder,
    as `walk(browser, server)` (`server.data` is the folder), with Chromium's extra `args`. Exits
    with 1 when any check failed."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    keys = [key for key, _, _ in walks]
    if len(walks) > 1:
        parser.add_argument("--only", help="comma-separated: " + ",".join(keys))
    options = parser.parse_args()
    only = set((getattr(options, "only", None) or ",".join(keys)).split(","))
    code = 0
    for key, app, walk in walks:
        if key not in only:
            continue
        with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
            server = Server(os.path.abspath(options.binary), data, free_port(),
                            config=os.path.join(ROOT, "config", "apps", f"{app}.yaml"))
            code |= run(server, lambda browser, walk=walk, server=server: walk(browser, server), args)
    sys.exit(code)
