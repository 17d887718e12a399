#!/usr/bin/env python3
"""A phone on the LAN (README, "Put it on your phones"): iRemember served by the real `quire` binary with
the local CA (`QUIRE_LOCAL_CA=true`, what `tools/run iremember --lan` sets) on an address of a network
namespace of the test's own (tls.py's make_netns; 127.0.0.1 when namespaces cannot be made, said so),
opened in Debian's Chromium as a phone: 390×844, touch, mobile, 2× pixels, the server's key trusted by
its SPKI hash, a fake camera, camera and geolocation granted.

Checks: the page is a secure context over HTTP/2; the app is installable (Chromium's own verdict over
CDP, Page.getInstallabilityErrors, and the manifest it found) and its service worker controls the page;
“Get Started” opens the album; “Take With Camera” asks the camera for a photo (iRemember's camera is an
`<input type=file capture>`: a JPEG made by vips is given to the file chooser; the fake camera flags are
there for a getUserMedia client) and the photo reaches the server (read back with the page's own token),
placed by the phone's geolocation; offline,
a reload still shows the album with the photo, a photo taken offline waits (“Waiting to upload”) and
stays waiting across a reload; back online it reaches the server once (the album's create keeps the upload's
Idempotency-Key: a retried upload is not stored twice). A screenshot of the offline
album goes to .build/phone-on-lan-offline.png.

Prints one line per check and `phone on LAN: N passed, N failed` last; exits 1 on a failure.
"""
import argparse
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tls  # noqa: E402  (Server, make_netns, delete_netns, spki_hash, request, check)
from tls import ROOT, check, results  # noqa: E402

CONFIG = os.path.join(ROOT, "config", "apps", "iremember.yaml")
PHONE = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2)
HERE = {"latitude": 51.5007, "longitude": -0.1246, "accuracy": 20}
SHOT = os.path.join(ROOT, ".build", "phone-on-lan-offline.png")


def jpeg(folder, name, seed):
    """A real 320×240 JPEG made by vips (a different shade for each seed)."""
    path = os.path.join(folder, name)
    subprocess.run(["vips", "xyz", path + ".v", "320", "240"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1", str(seed), "--uchar"], check=True)
    return path


def photos_on_server(server, token, context):
    status, body = tls.request(server, "GET", "/api/v1/album/photos?limit=100", token=token, context=context)
    return body.get("items", []) if status == 200 and isinstance(body, dict) else None


def wait_for(condition, timeout):
    """Polls `condition` until it answers something true or `timeout` seconds pass; answers its last answer."""
    deadline = time.time() + timeout
    while True:
        answer = condition()
        if answer or time.time() > deadline:
            return answer
        time.sleep(0.25)


def take_photo(page, path):
    """(Home →) Take With Camera → the photo given to the chooser → mark-up → Done; answers the input's capture."""
    if page.locator("album-home").count() == 0:
        page.get_by_role("link", name="‹ Home").click()
    page.wait_for_selector("album-home", timeout=15_000)
    with page.expect_file_chooser(timeout=15_000) as chooser:
        page.get_by_role("button", name="Take With Camera").click()
    capture = chooser.value.element.get_attribute("capture")
    chooser.value.set_files(path)
    page.wait_for_selector("album-markup drawing-pad .stage img", timeout=20_000)
    page.get_by_role("button", name="Done").first.click()
    page.wait_for_selector("album-photo", timeout=20_000)
    return capture


def status_text(page):
    return page.evaluate("document.querySelector('quire-status')?.textContent ?? ''")


def pending_cells(page):
    """The album's cells that say, on the photo, that they wait to upload."""
    return page.evaluate("""() => [...document.querySelectorAll('ul.grid .cell')]
        .filter(c => getComputedStyle(c, '::after').content.includes('Waiting to upload')).length""")


def phone_on_lan(binary, work):
    from playwright.sync_api import sync_playwright

    made = tls.make_netns()
    if made is None:
        print("note: network namespaces cannot be made here (no CAP_NET_ADMIN?); the phone opens 127.0.0.1 over HTTPS", flush=True)
    name, outside, address = made or (None, None, "127.0.0.1")
    data = os.path.join(work, "phone")
    os.makedirs(data)
    server = tls.Server(binary, data, {"QUIRE_LOCAL_CA": "true"}, host=address, netns=name, config=CONFIG)
    insecure = ssl.create_default_context()
    insecure.check_hostname, insecure.verify_mode = False, ssl.CERT_NONE
    first, second = jpeg(work, "first.jpg", 1), jpeg(work, "offline.jpg", 2)
    try:
        server.start(insecure)
        spki = tls.spki_hash(os.path.join(data, "tls", "server.crt"))
        with sync_playwright() as playwright:
            # A profile on disk, not an incognito context: Chromium never offers to install from incognito.
            context = playwright.chromium.launch_persistent_context(
                os.path.join(work, "profile"), executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                args=["--no-sandbox", f"--ignore-certificate-errors-spki-list={spki}",
                      "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"],
                **PHONE, permissions=["camera", "geolocation"], geolocation=HERE)
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            origin = f"https://{address}:{server.port}"
            page.goto(origin + "/", wait_until="load", timeout=60_000)
            page.wait_for_selector("quire-signin", timeout=30_000)
            check(f"a phone-sized Chromium opens {origin}/ (iRemember) as a secure context",
                  page.evaluate("window.isSecureContext") is True and page.title() == "iRemember", page.title())
            protocol = page.evaluate("performance.getEntriesByType('navigation')[0].nextHopProtocol")
            check("…over HTTP/2", protocol == "h2", protocol)

            page.get_by_role("button", name="Get Started").click()
            page.wait_for_selector("album-home", timeout=30_000)
            check("“Get Started” opens the album, nothing to type", page.get_by_role("button", name="Take With Camera").is_visible())

            scope = page.evaluate("""() => Promise.race([
                navigator.serviceWorker.ready.then(r => r.scope),
                new Promise(resolve => setTimeout(() => resolve(null), 30000))])""")
            if scope and not page.evaluate("!!navigator.serviceWorker.controller"):
                page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
            check("the service worker is ready and controls the page",
                  scope == origin + "/" and page.evaluate("!!navigator.serviceWorker.controller"), f"{scope}; {errors[-5:]}")

            cdp = context.new_cdp_session(page)
            manifest = cdp.send("Page.getAppManifest")
            installability = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
            try:
                served = json.loads(manifest.get("data") or "{}")
            except ValueError:
                served = {}
            check("Chromium finds the web app manifest at /manifest.webmanifest, without errors",
                  manifest.get("url") == origin + "/manifest.webmanifest" and not manifest.get("errors"),
                  (manifest.get("url"), manifest.get("errors")))
            check("…named iRemember, starting at /, standalone, with a 192 and a 512 px icon",
                  served.get("name") == "iRemember" and served.get("start_url") in ("/", origin + "/") and served.get("display") == "standalone"
                  and {"192x192", "512x512"} <= {icon.get("sizes") for icon in served.get("icons") or []},
                  {k: served.get(k) for k in ("name", "start_url", "display", "icons")})
            check("Chromium judges the app installable (Page.getInstallabilityErrors: none)", installability == [], installability)

            # The live camera (AR Notebook's view and lighting check use it): a secure origin on the
            # LAN may open it; Chromium's fake device stands in for the lens.
            camera = page.evaluate("""() => navigator.mediaDevices.getUserMedia({video: true}).then(stream => {
                const track = stream.getVideoTracks()[0]; const state = [track.readyState, track.getSettings().width > 0];
                stream.getTracks().forEach(t => t.stop()); return state; }, error => String(error))""")
            check("the camera opens from the LAN address (getUserMedia, a live video track)", camera == ["live", True], camera)

            capture = take_photo(page, first)
            check("“Take With Camera” asks the phone's camera for a photo (capture=environment)", capture == "environment", capture)
            token = page.evaluate("JSON.parse(localStorage.getItem('quire.session')).accessToken")
            online = wait_for(lambda: photos_on_server(server, token, insecure), 20)
            check("the photo reaches the server (read back with the page's own token)", online and len(online) == 1, online)
            status, photo = tls.request(server, "GET", f"/api/v1/album/photos/{online[0]['id']}", token=token, context=insecure) if online else (0, {})
            where = (photo.get("location") or {}) if status == 200 and isinstance(photo, dict) else {}
            check("…placed by the phone's geolocation (the JPEG has no GPS)", abs(where.get("latitude", 0) - HERE["latitude"]) < 0.01
                  and abs(where.get("longitude", 0) - HERE["longitude"]) < 0.01, (status, where))

            page.wait_for_function("() => document.querySelector('quire-status')?.textContent === 'Saved'", timeout=20_000)
            page.get_by_role("link", name="‹ Album").click()
            # The thumbnail shown once online: the phone keeps it, so the album shows it offline.
            page.wait_for_selector("album-browse ul.grid a.cell img", timeout=20_000)
            context.set_offline(True)
            page.reload(wait_until="load", timeout=30_000)
            page.wait_for_selector("album-browse ul.grid a.cell img", timeout=20_000)
            check("offline, a reload still opens the album with the photo in it",
                  page.locator("ul.grid a.cell").count() == 1, page.locator("ul.grid a.cell").count())
            page.wait_for_function("() => document.querySelector('quire-status')?.textContent.startsWith('Offline')", timeout=15_000)
            reach = page.evaluate("() => fetch('/api/v1/album/photos').then(() => 'reached', () => 'unreachable')")
            check("…served by the service worker: the server is out of reach and the phone says Offline",
                  reach == "unreachable" and status_text(page) == "Offline", (reach, status_text(page)))

            take_photo(page, second)
            page.wait_for_function("() => document.querySelector('quire-status')?.textContent.startsWith('Offline')", timeout=10_000)
            check("a photo taken offline: the phone says one change waits", status_text(page) == "Offline · 1 waiting", status_text(page))
            page.get_by_role("link", name="‹ Album").click()
            page.wait_for_selector("ul.grid .cell.pending", timeout=15_000)
            check("…and the album shows it “Waiting to upload”, beside the first",
                  page.locator("ul.grid a.cell").count() == 2 and pending_cells(page) == 1, (page.locator("ul.grid a.cell").count(), pending_cells(page)))
            page.reload(wait_until="load", timeout=30_000)
            page.wait_for_selector("ul.grid .cell.pending img", timeout=20_000)
            page.screenshot(path=SHOT)
            check("…still there, still waiting, after a reload offline",
                  page.locator("ul.grid a.cell").count() == 2 and pending_cells(page) == 1, (page.locator("ul.grid a.cell").count(), pending_cells(page)))
            check("…and not on the server yet", len(photos_on_server(server, token, insecure) or []) == 1)

            context.set_offline(False)
            page.evaluate("window.dispatchEvent(new Event('online'))")
            page.wait_for_function("() => document.querySelector('quire-status')?.textContent === 'Saved'", timeout=30_000)
            after = wait_for(lambda: (lambda items: items if items and len(items) >= 2 else None)(photos_on_server(server, token, insecure)), 15)
            # Once: an upload cancelled mid-request and sent again keeps its Idempotency-Key, and the
            # album answers the photo the first one made.
            check("back online: the photo taken offline reaches the server, once", after is not None and len(after) == 2, after)
            page.wait_for_function("() => document.querySelectorAll('ul.grid .cell.pending').length === 0", timeout=15_000)
            check("…and the album no longer says it waits", pending_cells(page) == 0)
            context.close()
    finally:
        server.stop()
        if made:
            tls.delete_netns(name, outside)
            gone = name not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
            check("the test's network namespace and veth pair are deleted", gone)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="quire-phone-") as work:
        try:
            phone_on_lan(os.path.abspath(args.binary), work)
        except Exception as error:  # noqa: BLE001 - a crash is a failed run, said plainly
            check("the run completes", False, f"{type(error).__name__}: {error}")
    passed = sum(results)
    print(f"phone on LAN: {passed} passed, {len(results) - passed} failed ({time.time() - started:.0f} s)", flush=True)
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()
