#!/usr/bin/env python3
"""The web client in a real browser: AR Notebook on a phone (390×844, touch), Debian's Chromium
driven by Playwright, against the real server and the shipped config.

Walks the use cases a phone's browser can: signing in with the configured OpenID Connect provider
(UC-1: "Continue with Facebook", cancelled once, then allowed); sign-up and the welcome (FR3.2.2); opening gives a
default notebook (UC-3); a page from a template in a palette colour (UC-4); inserts typed, pasted
through the Clipboard API (141 characters: the server's refusal shown as its sentence) and a
picture from the gallery (UC-5/6/7); an item dragged past the page's edge and kept inside (UC-10);
undo (UC-9); pages turned by swiping and by buttons; the notebook turned round (the 360° view);
a page deleted after confirming (UC-8); shared read-only, the recipient's view without editing
controls (UC-11/12); pinned where the owner stands and found by someone walking near it (UC-13);
the battery through a replaced `navigator.getBattery` (UC-14: the blocking alert at 4 %, "I am
charging"); the camera through Chromium's fake capture device fed a dark frame and a daylight
frame (UC-15: the light judged); WebXR immersive-ar through a replaced `navigator.xr` whose session
draws into a real WebGL canvas (the light judged first, a wall refused, a tap lays the notebook on
the floor: the centre pixel drawn, Done ends it). Sync: the same user's second phone inserts and
adds a page before the one showing, and the first phone shows it within 5 s, on its page, with
what it was typing kept; the recipient of a shared notebook sees the owner's edit; the list follows
a notebook deleted elsewhere. Text written offline waits, said on screen, and goes on its page once
online; the paste refusal shows in view beside Paste; a notebook and a page reloaded at once show;
an 80-letter name, word and a web address leave every screen 390 px wide. Slots (FR3.2.6–7): a
two-slot page asks where, and a full page says so instead of stacking a third item. Items (UC-6):
a tap offers Change the text and Remove it (confirmed). Offline (UC-15, context.set_offline and a
reload): the notebook opens from IndexedDB; a page, text, an undo, a text change and a new
notebook made offline survive a reload and reach the server once, in order, the other phone
following; share says it needs the network; a notebook deleted elsewhere says so. Sideways
(844×390) with 50 pages: the page is not a thumbnail and its text stays in its boxes, quick taps
turn a page each, Go to page, the paste refusal in view. Drafts: text typed in “Write on the page”
and not saved comes back after a reload, until added or cancelled; the header keeps “AR Notebook”
whole at 390 px beside the offline badge. Covers (FR3.2.3): rename, restyle and cover text, online
and offline. Pictures on pages show offline once the notebook was opened online (IndexedDB).
Pins: a coordinate picker; a finder with edit rights moves and removes the pin. “Shared with me”
names the sharer. Battery without the Battery Status API: the screen says it cannot know, then the
alert follows device-monitor's level; “Sign out and close”. In the WebXR room, the overlay's
controls turn pages, write and undo, add a page, put a picture on it, change or remove an item
(asked there), recolour or delete the page, rename the notebook, pin it and show a share link,
online and offline. axe-core checks every screen; screenshots go to
.build/screenshots/ar-notebook-*.png (tools/screenshots: docs/screenshots/). `--only a,b` runs
the parts that stand alone (drafts_and_header, covers, pictures_offline, pins_for_finders,
battery_without_api, room_controls, room_actions).

Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ar_notebook  # noqa: E402  (the OpenID Connect test provider and its config)
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402  (the browser: Chromium at a phone's size, axe, screenshots)
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import token_of  # noqa: E402

ROOT = napkin_notes.ROOT
N = "/api/v1/notebooks"
HERE = {"latitude": 38.7223, "longitude": -9.1393, "accuracy": 10}
NEAR = {"latitude": 38.7224, "longitude": -9.1394, "accuracy": 10}
# The phone's battery, as the page sees it; the walk moves it with window.__battery(level, charging).
BATTERY = """(() => {
  const listeners = {};
  const state = { level: 0.8, charging: false, addEventListener(type, f) { (listeners[type] ||= []).push(f); } };
  window.__battery = (level, charging) => {
    state.level = level; state.charging = charging;
    for (const f of [...(listeners.levelchange || []), ...(listeners.chargingchange || [])]) f();
  };
  navigator.getBattery = () => Promise.resolve(state);
  navigator.share = async (data) => { window.__shared = data; };
})();"""

# A phone with WebXR `immersive-ar` and hit-test, as the page sees it: the session draws into a
# WebGL canvas shown full screen (the "camera"), 0.5 m above and 0.5 m back from the aim's point,
# looking at it. The walk moves the aim with window.__xr.aim("floor" | "wall" | null) and taps with
# window.__xr.select(); window.__xr.centre is the drawn pixel at the screen's centre after each frame.
ROOM_XR = """(() => {
  const state = { aim: null, options: null, ended: false, centre: null, frames: 0 };
  window.__xr = state;
  const perspective = (fov, aspect, near, far) => {
    const f = 1 / Math.tan(fov / 2), r = 1 / (near - far);
    return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * r, -1, 0, 0, 2 * far * near * r, 0];
  };
  // The inverse of a camera at (0, .5, .5) looking at the origin (pitched down 45°).
  const c = Math.SQRT1_2;
  const view = [1, 0, 0, 0, 0, c, c, 0, 0, -c, c, 0, 0, 0, -c, 1];
  const hits = { floor: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], wall: [1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, -1, 1] };
  let gl = null;
  window.XRWebGLLayer = class {
    constructor(session, context) {
      gl = context;
      const canvas = gl.canvas;
      canvas.width = innerWidth; canvas.height = innerHeight;
      canvas.style.cssText = "position:fixed;inset:0;width:100vw;height:100vh;z-index:40;background:linear-gradient(#c9c2b6,#8a8173)";
      document.body.append(canvas);
      this.framebuffer = null;
    }
    getViewport() { return { x: 0, y: 0, width: gl.canvas.width, height: gl.canvas.height }; }
  };
  // Chromium's own navigator.xr is a getter on the prototype: define ours on the instance.
  Object.defineProperty(navigator, "xr", { configurable: true, value: {
    isSessionSupported: async (mode) => mode === "immersive-ar",
    requestSession: async (mode, options) => {
      state.options = { mode, required: options.requiredFeatures, overlay: options.domOverlay?.root?.className };
      const session = new EventTarget();
      let live = true;
      session.updateRenderState = () => {};
      session.requestReferenceSpace = async (type) => ({ type });
      session.requestHitTestSource = async () => ({ cancel() {} });
      session.end = async () => { if (!live) return; live = false; state.ended = true; gl?.canvas.remove(); session.dispatchEvent(new Event("end")); };
      const frame = {
        session,
        getViewerPose: () => ({ transform: { position: { x: 0, y: 0.5, z: 0.5 } },
          views: [{ projectionMatrix: perspective(1.2, innerWidth / innerHeight, 0.05, 10), transform: { inverse: { matrix: view } } }] }),
        getHitTestResults: () => state.aim ? [{ getPose: () => ({ transform: { matrix: hits[state.aim] } }) }] : [],
      };
      session.requestAnimationFrame = (callback) => setTimeout(() => {
        if (!live) return;
        callback(performance.now(), frame);
        const pixel = new Uint8Array(4);
        gl.readPixels(gl.canvas.width >> 1, gl.canvas.height >> 1, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
        state.centre = Array.from(pixel);
        state.frames++;
      }, 30);
      state.select = () => session.dispatchEvent(new Event("select"));
      return session;
    },
  } });
})();"""

# 80 letters without a space, and a web address.
LONG_WORD = "Rindfleischetikettierungsueberwachungsaufgabenuebertragungsgesetzesbegruendungsnot"[:80]
LONG_URL = "https://example.org/" + "notes/" + "y" * 90
# Where a sentence with `text` in an element with role=alert is: in the viewport, not covered, and
# how far from the control named `near` (a button's text).
IN_VIEW = """([text, near]) => {
  const alert = [...document.querySelectorAll('[role=alert]')].find((e) => e.textContent.includes(text) && e.getClientRects().length);
  if (!alert) return null;
  const r = alert.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + Math.min(20, r.width / 2), r.top + Math.min(10, r.height / 2));
  const control = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === near);
  const c = control?.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: innerHeight, width: innerWidth,
           covered: !(hit && alert.contains(hit)), distance: c ? Math.max(0, r.top - c.bottom, c.top - r.bottom) : null };
}"""


def run_walk(name, walk, provider_set_up=None):
    """A walk's main on AR Notebook's shipped config with the OpenID Connect test provider: its
    --binary, a fresh data folder (quire-`name`-…), the provider (first given to
    `provider_set_up(provider)`, before the server starts); runs `walk(browser, server, provider)`
    and answers the exit code (the provider stopped after)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix=f"quire-{name}-") as data:
        provider = ar_notebook.Provider()
        if provider_set_up:
            provider_set_up(provider)
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=ar_notebook.make_config(data, provider))
        try:
            return webwalk.run(server, lambda browser: walk(browser, server, provider))
        finally:
            provider.close()


def appears(page, selector, timeout=5_000):
    """Whether `selector` is in the page within `timeout` ms (a check says what it means)."""
    try:
        page.wait_for_selector(selector, state="attached", timeout=timeout)
        return True
    except Exception:
        return False


def fits(page, what):
    """The screen is no wider than the phone: nothing to scroll sideways."""
    width = page.evaluate("document.documentElement.scrollWidth")
    check(f"{what} fits the phone's width ({width} ≤ 390 px)", width <= 390, width)


def shot(page, name):
    webwalk.shot(page, "ar-notebook", name)


def screen(page, name, file=None):
    webwalk.screen(page, "ar-notebook", name, file)


def frames(data):
    """One-frame Y4M videos for Chromium's fake camera: a dark room and daylight."""
    paths = {}
    for name, (y, u, v) in {"dark": (18, 128, 128), "daylight": (200, 124, 126)}.items():
        path = os.path.join(data, f"{name}.y4m")
        with open(path, "wb") as handle:
            handle.write(b"YUV4MPEG2 W320 H240 F30:1 Ip A1:1 C420jpeg\n")
            for _ in range(3):
                handle.write(b"FRAME\n" + bytes([y]) * (320 * 240) + bytes([u]) * (160 * 120) + bytes([v]) * (160 * 120))
        paths[name] = path
    return paths


def picture(data):
    path = os.path.join(data, "leaf.jpg")
    subprocess.run(["vips", "xyz", path + ".v", "300", "200"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1", "30", "--uchar"], check=True)
    return path


def phone(browser, server, where=HERE, xr=False):
    """A new phone (context, page): its battery replaced, and with `xr`, WebXR too (ROOM_XR)."""
    return webwalk.phone(browser, server, init_script=BATTERY + ROOM_XR if xr else BATTERY, geolocation=where,
                         permissions=["geolocation", "clipboard-read", "clipboard-write", "camera"])


# The owner's first notebook, once known (other notebooks come and go during the walk).
MAIN = {}


def notebook_of(server, token):
    if token not in MAIN:
        _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
        MAIN[token] = listing["items"][0]["id"]
    _, content, _ = call(server, "GET", f"{N}/notebooks/{MAIN[token]}", token=token)
    return content


def sign_up(page, user):
    page.goto("/")
    webwalk.sign_in(page, user, create=True)


def open_notebook(page, user):
    """Signs `user` in on a phone that has not seen them (the welcome shows once per phone), to their notebook."""
    page.goto("/")
    webwalk.sign_in(page, user)
    page.wait_for_selector("nb-welcome h1, nb-notebooks h1, nb-book")
    if page.is_visible("nb-welcome h1"):
        page.click("text=Open my notebook")
    elif page.is_visible("nb-notebooks h1"):  # an account with notebooks opens on them on a new phone
        page.click("nb-notebooks a.big-link")
    page.wait_for_selector("nb-book .stage")


def where(page):
    return page.text_content(".turn-row .where")


def at_page(page, label, timeout=30_000, start=False):
    """Waits until the turn row says `label` (“Page 1 of 1”), or with `start`, begins with it (“Cover”)."""
    test = "l => document.querySelector('.turn-row .where')?.textContent" + (".startsWith(l)" if start else " === l")
    page.wait_for_function(test, arg=label, timeout=timeout)


def add_page(page, label, timeout=30_000):
    """New page with the dialog's first layout and colour, until the turn row says `label`."""
    page.click("nb-book button:has-text('New page')")
    page.click("dialog button:has-text('OK')")
    at_page(page, label, timeout)


def new_phone(browser, server, user, first_page=True, xr=False):
    """A new phone on which `user` signs up and opens their default notebook at its cover; with
    `first_page`, a page added (New page's first choices) and shown; with `xr`, WebXR replaced.
    Answers (context, page, the access token)."""
    context, page = phone(browser, server, xr=xr)
    sign_up(page, user)
    page.wait_for_selector("nb-welcome")
    page.click("text=Open my notebook")
    page.wait_for_selector("nb-book .sheet.cover")
    token = token_of(page)
    if first_page:
        add_page(page, "Page 1 of 1")
    return context, page, token


def second_phone(browser, server, user):
    """`user`'s second phone, signed in, open at page 1 of their notebook. Answers (context, page)."""
    context, other = phone(browser, server)
    open_notebook(other, user)
    if where(other).startswith("Cover"):
        other.click("[aria-label='Next page']")
        at_page(other, "Page 1 of 1")
    return context, other


def picture_then_cover_dialog(page):
    """A picture put on a new page 1, then back at the cover its "Cover and name" opened: whether
    it offers that picture as the cover."""
    add_page(page, "Page 1 of 1")
    with tempfile.TemporaryDirectory(prefix="quire-web-ar-cover-") as data:
        with page.expect_file_chooser() as chooser:
            page.click("nb-book button:has-text('Picture')")
        chooser.value.set_files(picture(data))
        page.wait_for_selector(".sheet .item-image img", timeout=15_000)
    webwalk.settled(page)
    page.click("[aria-label='Previous page']")
    at_page(page, "Cover", start=True)
    page.click("nb-book button:has-text('Cover and name')")
    return appears(page, "dialog label:has-text('The picture on page 1') input", 3_000)


def first_notebook_id(server, token):
    _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
    return listing["items"][0]["id"]


def place_in_room(page):
    """In the room (WebXR replaced): the aim on the floor, then a tap lays the notebook there."""
    page.evaluate("window.__xr.aim = 'floor'")
    page.wait_for_function("() => document.querySelector('.xr-hint').textContent === 'Tap to put the notebook here.'")
    page.evaluate("window.__xr.select()")
    page.wait_for_function("() => document.querySelector('.xr-hint').textContent.startsWith('Here it is')")


def provider_sign_in(browser, server, provider):
    """UC-1 in the browser: the provider's button shows because the YAML configures one; cancelling
    there says so; allowing signs in to a new account linked to the provider."""
    context, page = phone(browser, server)
    page.goto("/")
    page.wait_for_selector("button.provider")
    label = page.text_content("button.provider")
    check("the sign-in screen offers the configured provider (UC-1)", label == "Continue with Facebook", label)
    screen(page, "sign-in", "signin")
    page.click("button.provider")
    page.wait_for_selector("#deny")
    asked = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))
    check("the provider is asked for an ID token for this app, back to this page, with a nonce and a state",
          asked.get("response_type") == "id_token" and asked.get("client_id") == ar_notebook.AUDIENCE
          and asked.get("redirect_uri") == server.base + "/" and len(asked.get("nonce", "")) >= 20 and len(asked.get("state", "")) >= 16, asked)
    page.click("#deny")
    # The sentence and the provider's button on one drawn screen (a screen still being drawn under
    # load failed a bare is_visible once, with the sentence already there).
    back = page.wait_for_function("""() => document.querySelector('#signin-error')?.textContent.includes('cancelled')
        && document.querySelector('button.provider')?.getClientRects().length > 0""", timeout=10000)
    check("cancelling at the provider comes back to sign-in with a sentence, and the address is clean",
          bool(back) and "#" not in page.url and page.is_visible("button.provider"), page.url)
    page.click("button.provider")
    page.click("#allow")
    page.wait_for_selector("nb-welcome")
    _, me, _ = call(server, "GET", "/api/v1/auth/me", token=token_of(page))
    check("allowing signs in: a new account, linked to the provider, greeted by the welcome", me.get("kind") == "external"
          and "#" not in page.url.rstrip("#/") and provider.authorized[-1]["allow"] == "1", (me, page.url))
    context.close()


def owner_walk(page, server, data):
    sign_up(page, "web-ann")
    page.wait_for_selector("nb-welcome h1")  # after "Opening…", which asks whether the account has notebooks
    check("sign-up shows the welcome and instructions (FR3.2.2)", page.is_visible("text=Welcome to AR Notebook"))
    screen(page, "the welcome", "welcome")
    fits(page, "the welcome")
    page.click("text=Open my notebook")
    page.wait_for_selector("nb-book .sheet.cover")
    token = token_of(page)
    content = notebook_of(server, token)
    check("opening gives a new default notebook, its cover shown (UC-3)", content["notebook"]["name"] == "My notebook"
          and where(page).startswith("Cover"), content["notebook"])
    screen(page, "the cover", "cover")

    page.click("nb-book button:has-text('New page')")
    page.check("dialog input[value='two-slots']")
    page.check("dialog input[value='mint']")
    page.click("dialog button:has-text('OK')")
    at_page(page, "Page 1 of 1")
    content = notebook_of(server, token)
    check("a new page from the two-slot template in mint (UC-4)", [(p["template"], p["background"]) for p in content["pages"]] == [("two-slots", "mint")],
          content["pages"])

    # FR3.2.6–7: a page from a template asks which slot; the bottom one chosen, the text goes there.
    page.click("nb-book button:has-text('Write')")
    asked = appears(page, "dialog:has-text('Where on the page')", 3_000)
    if asked:
        screen(page, "the slot choice")
        page.check("dialog label:has-text('Bottom') input")
        page.click("dialog button:has-text('OK')")
    page.fill("#nb-text", "Cells are small")
    page.click("dialog button:has-text('Add')")
    page.wait_for_selector(".sheet .item-text:has-text('Cells are small')")
    slots = [i.get("slot") for i in notebook_of(server, token)["pages"][0]["items"]]
    check("writing on a two-slot page asks which slot; “Bottom” puts the text in the bottom slot (FR3.2.6–7)", asked and slots == [1], slots)
    page.evaluate("navigator.clipboard.writeText('x'.repeat(141))")
    page.click("nb-book button:has-text('Paste')")
    _, problem, _ = call(server, "POST", f"{N}/notebooks/{content['notebook']['id']}/pages/1/items", {"kind": "clipboard", "text": "x" * 141}, token=token)
    try:
        page.wait_for_function("t => [...document.querySelectorAll('[role=alert]')].some(e => e.textContent.includes(t))", arg=problem["detail"], timeout=10_000)
    except Exception:
        pass  # the checks below say what was there
    where_said = page.evaluate(IN_VIEW, [problem["detail"], "Paste"])
    check("pasting 141 characters shows the server's refusal as its sentence (UC-5)", where_said is not None, (problem, page.inner_text("body")[:300]))
    check("…where the user is looking: in view, not covered, beside the Paste button (role=alert)",
          where_said is not None and 0 <= where_said["top"] and where_said["bottom"] <= where_said["height"] and where_said["right"] <= where_said["width"]
          and not where_said["covered"] and where_said["distance"] is not None and where_said["distance"] < 200, where_said)
    shot(page, "refused")
    if page.is_visible("nb-book .nb-said button:has-text('OK')"):
        page.click("nb-book .nb-said button:has-text('OK')")
    elif page.is_visible(".notice button"):
        page.click(".notice button")
    page.evaluate("navigator.clipboard.writeText('Mitochondria')")
    page.click("nb-book button:has-text('Paste')")
    page.wait_for_selector(".sheet .item-clipboard:has-text('Mitochondria')")
    items = notebook_of(server, token)["pages"][0]["items"]
    check("typed and pasted are on the page, each in a slot of the template (UC-6/7)",
          [(i["kind"], i.get("slot")) for i in items] == [("text", 1), ("clipboard", 0)], items)
    # Both slots hold an item: a third is not stacked over them; the page says so beside its controls.
    page.click("nb-book button:has-text('Picture')")
    full = appears(page, "nb-book .nb-said:has-text('is full')", 3_000)
    said = page.evaluate(IN_VIEW, ["is full", "Picture"])
    check("a full page says so, in view beside Picture, and adds nothing (FR3.2.7)",
          full and said is not None and not said["covered"] and 0 <= said["top"] and said["bottom"] <= said["height"]
          and len(notebook_of(server, token)["pages"][0]["items"]) == 2, (said, page.inner_text("nb-book .nb-said") if full else None))
    shot(page, "full-page")
    page.click("nb-book .nb-said button:has-text('OK')")

    page.click("nb-book button:has-text('Undo')")
    page.wait_for_function("() => !document.querySelector('.sheet .item-clipboard')")
    check("undo takes the last insert (the paste) away (UC-9)", [i["kind"] for i in notebook_of(server, token)["pages"][0]["items"]] == ["text"])
    with page.expect_file_chooser() as chooser:
        page.click("nb-book button:has-text('Picture')")
    chooser.value.set_files(picture(data))
    page.wait_for_selector(".sheet .item-image img", timeout=15_000)
    items = notebook_of(server, token)["pages"][0]["items"]
    check("a picture from the gallery goes in the slot left free (UC-7)", [(i["kind"], i.get("slot")) for i in items] == [("text", 1), ("image", 0)], items)
    screen(page, "a page with items", "page")

    # Drag the text far past the bottom edge: the server keeps it inside the page.
    page.evaluate("window.scrollTo(0, 0)")
    top = page.evaluate("document.querySelector('.sheet .item-text').style.top")
    box = page.locator(".sheet .item-text").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 300, steps=6)
    page.mouse.up()
    page.wait_for_function("t => document.querySelector('.sheet .item-text')?.style.top !== t", arg=top)
    page.wait_for_timeout(500)
    moved = next(i for i in notebook_of(server, token)["pages"][0]["items"] if i["kind"] == "text")
    shown = page.evaluate("document.querySelector('.sheet .item-text').style.top")
    check("an item dragged past the edge moves, and stays inside the page where the server put it (UC-10)",
          moved["frame"]["y"] > items[0]["frame"]["y"] and moved["frame"]["y"] + moved["frame"]["height"] <= 800
          and abs(float(shown.rstrip("%")) - moved["frame"]["y"] / 8) < 0.01, (moved["frame"], shown))
    items_edited(page, server, token)

    # Turning: a swipe right goes back to the cover, the button forward; a second page, swiped to.
    page.evaluate("window.scrollTo(0, 0)")
    stage = stage_box(page)
    y = stage["y"] + stage["height"] / 2
    page.mouse.move(stage["x"] + 20, y)
    page.mouse.down()
    page.mouse.move(stage["x"] + 220, y, steps=5)
    page.mouse.up()
    at_page(page, "Cover", start=True)
    page.click("[aria-label='Next page']")
    at_page(page, "Page 1 of 1")
    add_page(page, "Page 2 of 2")
    page.click("[aria-label='Previous page']")
    at_page(page, "Page 1 of 2")
    stage = stage_box(page)
    page.mouse.move(stage["x"] + stage["width"] - 10, y)
    page.mouse.down()
    page.mouse.move(stage["x"] + stage["width"] - 210, y, steps=5)
    page.mouse.up()
    at_page(page, "Page 2 of 2")
    check("pages turn by swiping and by the arrows", True)

    page.fill("#turn", "180")
    page.dispatch_event("#turn", "input")
    turned = page.evaluate("getComputedStyle(document.querySelector('.book')).getPropertyValue('--turn').trim()")
    check("the slider turns the notebook round (the 360° view)", turned == "180deg", turned)
    shot(page, "turned")
    page.fill("#turn", "0")
    page.dispatch_event("#turn", "input")

    # Page 1 (its slots taken) goes; the blank page 2 becomes page 1.
    page.click("[aria-label='Previous page']")
    at_page(page, "Page 1 of 2")
    page.click("nb-book button:has-text('Delete page')")
    page.wait_for_selector("dialog.confirm")
    question = page.text_content("dialog.confirm p")
    page.click("dialog.confirm button.danger")
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent.endsWith('of 1')")
    check("deleting a page asks first, saying what goes, then deletes it (UC-8)", "Delete page 1" in question
          and len(notebook_of(server, token)["pages"]) == 1, question)
    if "Page 1" not in where(page):
        page.click("[aria-label='Next page']")
        at_page(page, "Page 1 of 1")
    return token


def items_edited(page, server, token):
    """UC-6 "Update text": a tap on an item offers to change its text or remove it; removing asks first."""
    page.click("nb-book .sheet [aria-label='Text: Cells are small']")
    offered = appears(page, "dialog:has-text('Change the text')", 3_000)
    if offered:
        screen(page, "an item's choices")
        page.check("dialog label:has-text('Change the text') input")
        page.click("dialog button:has-text('OK')")
        page.fill("#nb-text", "Cells are very small")
        page.click("dialog button:has-text('Save')")
        page.wait_for_selector(".sheet .item-text:has-text('Cells are very small')", timeout=5_000)
    texts = [i.get("text") for i in notebook_of(server, token)["pages"][0]["items"]]
    check("a tap on a text item offers “Change the text”; the new text is on the page and on the server (UC-6)",
          offered and "Cells are very small" in texts, texts)
    removed = False
    page.click("nb-book .sheet [aria-label='A picture']")
    if appears(page, "dialog:has-text('Remove it')", 3_000):
        page.check("dialog label:has-text('Remove it') input")
        page.click("dialog button:has-text('OK')")
        page.wait_for_selector("dialog.confirm")
        question = page.text_content("dialog.confirm p")
        page.click("dialog.confirm button:has-text('Cancel')")
        kept = len(notebook_of(server, token)["pages"][0]["items"]) == 2
        page.click("nb-book .sheet [aria-label='A picture']")
        page.check("dialog label:has-text('Remove it') input")
        page.click("dialog button:has-text('OK')")
        page.click("dialog.confirm button:has-text('Remove')")
        page.wait_for_selector(".sheet .item-image", state="detached", timeout=5_000)
        kinds = [i["kind"] for i in notebook_of(server, token)["pages"][0]["items"]]
        removed = kept and "Remove this picture" in question and kinds == ["text"]
        check("removing one item asks first (Cancel keeps it), then removes only it (UC-6)", removed, (question, kinds))
    else:
        check("removing one item asks first (Cancel keeps it), then removes only it (UC-6)", False, "no item choices")


def write_text(page, text):
    page.click("nb-book button:has-text('Write')")
    if appears(page, "dialog:has-text('Where on the page')", 1_000):
        page.click("dialog button:has-text('OK')")
    page.fill("#nb-text", text)
    page.click("dialog button:has-text('Add')")
    page.wait_for_selector(f".sheet .item-text:has-text('{text}')", timeout=5_000)


def change_text(page, was, text):
    page.click(f"nb-book .sheet [aria-label='Text: {was}']")
    page.check("dialog label:has-text('Change the text') input")
    page.click("dialog button:has-text('OK')")
    page.fill("#nb-text", text)
    page.click("dialog button:has-text('Save')")


def shows_text(page, text, timeout=5_000):
    """Whether the sheet shows a text item whose text is exactly `text`, within `timeout` ms."""
    try:
        page.wait_for_function(f"() => [...document.querySelectorAll('.sheet .item-text')].some((e) => e.innerText.trim() === {text!r})", timeout=timeout)
        return True
    except Exception:
        return False


def undo_after_change(browser, server):
    """FR3.2.12 as a person expects it: Undo after “Change the text” puts the text back as it was
    (it does not remove the item), and Undo shows and says the page it changed."""
    context, page, token = new_phone(browser, server, "web-undo")
    write_text(page, "First note on page 1")
    change_text(page, "First note on page 1", "First note on page 1, corrected")
    page.wait_for_selector(".sheet .item-text:has-text('corrected')", timeout=5_000)
    page.click("nb-book button:has-text('Undo')")
    back = shows_text(page, "First note on page 1")
    nid = first_notebook_id(server, token)
    _, content, _ = call(server, "GET", f"{N}/notebooks/{nid}", token=token)
    texts = [i.get("text") for p in content["pages"] for i in p["items"]]
    check("Undo after “Change the text” puts the earlier text back; the item stays (FR3.2.12)",
          back and texts == ["First note on page 1"], (texts, page.inner_text("nb-book .stage")[:200]))
    # A text added on page 2, then a change on page 1: Undo takes back the change on page 1, in view.
    add_page(page, "Page 2 of 2")
    write_text(page, "A note on page 2")
    page.click("[aria-label='Previous page']")
    at_page(page, "Page 1 of 2")
    change_text(page, "First note on page 1", "Page 1, changed")
    page.wait_for_selector(".sheet .item-text:has-text('Page 1, changed')", timeout=5_000)
    page.click("nb-book button:has-text('Undo')")
    back = shows_text(page, "First note on page 1")
    try:
        page.wait_for_function("() => (document.getElementById('announcer')?.textContent ?? '').startsWith('Undone')", timeout=3_000)
    except Exception:
        pass  # the check says what was said
    said = page.evaluate("() => document.getElementById('announcer')?.textContent ?? ''")
    _, content, _ = call(server, "GET", f"{N}/notebooks/{nid}", token=token)
    texts = [[i.get("text") for i in p["items"]] for p in content["pages"]]
    check("…a change on page 1 after an insert on page 2: Undo puts page 1's text back, in view, and page 2's text stays",
          back and where(page) == "Page 1 of 2" and texts == [["First note on page 1"], ["A note on page 2"]] and "page 1" in said,
          (texts, where(page), said))
    shot(page, "undo-after-change")
    # Nothing left to undo: the button says so by being off.
    check("…and then Undo is off (once)", page.is_disabled("nb-book button:has-text('Undo')"))
    # An insert on page 2, then Undo from page 1: the phone turns to page 2, where it was taken away, and says so.
    page.click("[aria-label='Next page']")
    at_page(page, "Page 2 of 2")
    write_text(page, "Added last")
    page.click("[aria-label='Previous page']")
    at_page(page, "Page 1 of 2")
    page.evaluate("() => { const a = document.getElementById('announcer'); if (a) a.textContent = ''; }")
    page.click("nb-book button:has-text('Undo')")
    try:
        page.wait_for_function("() => (document.getElementById('announcer')?.textContent ?? '').startsWith('Undone')", timeout=3_000)
        at_page(page, "Page 2 of 2", 3_000)
    except Exception:
        pass  # the check says where it was and what was said
    said = page.evaluate("() => document.getElementById('announcer')?.textContent ?? ''")
    _, content, _ = call(server, "GET", f"{N}/notebooks/{nid}", token=token)
    texts = [[i.get("text") for i in p["items"]] for p in content["pages"]]
    check("…Undo of an insert on another page turns to that page and says which (not out of sight)",
          where(page) == "Page 2 of 2" and "page 2" in said and texts == [["First note on page 1"], ["A note on page 2"]], (where(page), said, texts))
    context.close()


def two_phones_one_text(browser, server):
    """Two phones change the same text: the later save is told what it replaced, with a way to
    bring it back (not silently overwritten); a text removed on one phone while the other was
    changing it: said in words (no ids), with “Keep my text as a new text”."""
    context, page, token = new_phone(browser, server, "web-twotext")
    write_text(page, "Lisbon")
    second, other = second_phone(browser, server, "web-twotext")
    # B's dialog is open with the old text while A saves.
    other.click("nb-book .sheet [aria-label='Text: Lisbon']")
    other.check("dialog label:has-text('Change the text') input")
    other.click("dialog button:has-text('OK')")
    other.fill("#nb-text", "Lisbon. B: LX Factory")
    change_text(page, "Lisbon", "Lisbon. A: Fado in Alfama")
    page.wait_for_selector(".sheet .item-text:has-text('Fado')", timeout=5_000)
    other.click("dialog button:has-text('Save')")
    told = appears(other, "nb-book .nb-said:has-text('another device')", 5_000)
    said = other.inner_text("nb-book .nb-said") if told else other.inner_text("nb-book")[-300:]
    check("two phones change one text: the later save is told what it replaced (A's words), not silently",
          told and "Fado in Alfama" in said and other.is_visible("nb-book button:has-text('Bring back theirs')"), said)
    if told:
        shot(other, "changed-on-another-device")
        other.click("nb-book button:has-text('Bring back theirs')")
        offered = other.input_value("#nb-text") if appears(other, "#nb-text", 3_000) else ""
        check("…“Bring back theirs” opens the text with A's words and B's, to keep both",
              "Fado in Alfama" in offered and "LX Factory" in offered, offered)
        if offered:
            other.click("dialog button:has-text('Save')")
    # A removes the text while B is changing it.
    nid = first_notebook_id(server, token)
    _, content, _ = call(server, "GET", f"{N}/notebooks/{nid}", token=token)
    item = content["pages"][0]["items"][0]
    other.wait_for_timeout(500)
    other.click("nb-book .sheet .item-text")
    other.check("dialog label:has-text('Change the text') input")
    other.click("dialog button:has-text('OK')")
    other.fill("#nb-text", "B's last words")
    call(server, "DELETE", f"{N}/notebooks/{nid}/items/{item['id']}", token=token)
    other.click("dialog button:has-text('Save')")
    appears(other, "nb-book .nb-said:has-text('removed')", 5_000)
    said = other.inner_text("nb-book .nb-said")
    check("…a text removed on the other phone meanwhile: said in words, without its id, with “Keep my text as a new text”",
          "removed" in said and "'it" not in said and other.is_visible("nb-book button:has-text('Keep my text as a new text')"), said)
    if other.is_visible("nb-book button:has-text('Keep my text as a new text')"):
        other.click("nb-book button:has-text('Keep my text as a new text')")
        if appears(other, "dialog:has-text('Where on the page')", 1_000):
            other.click("dialog button:has-text('OK')")
        kept = other.input_value("#nb-text") if appears(other, "#nb-text", 3_000) else ""
        if kept:
            other.click("dialog button:has-text('Add')")
            shows_text(other, "B's last words")
        _, content, _ = call(server, "GET", f"{N}/notebooks/{nid}", token=token)
        texts = [i.get("text") for p in content["pages"] for i in p["items"]]
        check("…and it goes on the page as a new text", texts == ["B's last words"], (kept, texts))
    second.close()
    context.close()


def one_box_page(browser, server):
    """FR3.2.15: the one-box template holds any one item, text or picture; the New page dialog
    says so (it promised “One picture”, then a text filled it), and a full page says what it holds."""
    context, page, _ = new_phone(browser, server, "web-onebox", first_page=False)
    page.click("nb-book button:has-text('New page')")
    labels = page.evaluate("() => [...document.querySelectorAll('dialog input[name=template]')].map((i) => [i.value, i.closest('label').textContent.trim()])")
    named = dict(labels)
    check("New page names the one-box layout for what it holds, text or picture (FR3.2.15), not “One picture”",
          "text or picture" in named.get("one-slot", "") and all("picture" not in l or "text" in l for l in named.values()), labels)
    page.check("dialog input[value='one-slot']")
    page.click("dialog button:has-text('OK')")
    at_page(page, "Page 1 of 1")
    write_text(page, "Fills the box")
    page.click("nb-book button:has-text('Picture')")
    said = page.inner_text("nb-book .nb-said") if appears(page, "nb-book .nb-said:has-text('full')", 3_000) else ""
    check("…then Picture on the full page says its box holds one item, text or picture, and offers a new page",
          "one item, text or picture" in said and page.is_visible("nb-book .nb-said button:has-text('New page')"), said)
    context.close()


def offline_change_meets_another(browser, server):
    """A phone changes a text offline while another changes it online: back online, the first is
    merged (its item's version sent as If-Match) and told what it replaced, with “Bring back theirs”
    (web_ar_conflicts.py follows it through)."""
    context, page, token = new_phone(browser, server, "web-offtext")
    write_text(page, "Porto")
    webwalk.settled(page)
    go_offline(page)
    change_text(page, "Porto", "Porto. A: Ribeira")
    page.wait_for_selector(".sheet .item-text:has-text('Ribeira')", timeout=5_000)
    nid = first_notebook_id(server, token)
    _, content, _ = call(server, "GET", f"{N}/notebooks/{nid}", token=token)
    item = content["pages"][0]["items"][0]
    call(server, "PATCH", f"{N}/notebooks/{nid}/items/{item['id']}", {"text": "Porto. B: Livraria Lello"}, token=token)
    go_online(page)
    told = appears(page, ".notice.replaced:has-text('Livraria Lello')", 8_000)
    check("a text changed offline while another phone changed it: back online the phone says what its change replaced, with “Bring back theirs”",
          told and page.is_visible(".notice.replaced button:has-text('Bring back theirs')"),
          page.inner_text("body")[:300])
    context.close()


def follows_sync(browser, server, page, token):
    """The same user on a second phone: what it adds shows on the first, open at its page, within
    moments and without a reload; what the first is typing stays, and it stays on its page."""
    check("(the first phone shows page 1)", where(page) == "Page 1 of 1", where(page))
    second, other = second_phone(browser, server, "web-ann")
    # The first phone is typing when the other's edit arrives.
    page.click("nb-book button:has-text('Write')")
    page.fill("#nb-text", "Typed on the first phone")
    other.click("nb-book button:has-text('Write')")
    other.fill("#nb-text", "From the other phone")
    other.click("dialog button:has-text('Add')")
    other.wait_for_selector(".sheet .item-text:has-text('From the other phone')")
    seen = appears(page, ".sheet .item-text:has-text('From the other phone')")
    check("an open notebook shows another phone's insert within 5 s, without a reload", seen, page.inner_text("nb-book .stage"))
    typed = page.evaluate("[document.querySelector('#nb-text')?.value, document.activeElement?.id]")
    check("…and what the user was typing meanwhile stays, with the focus", typed == ["Typed on the first phone", "nb-text"], typed)
    page.click("dialog button:has-text('Add')")
    page.wait_for_selector(".sheet .item-text:has-text('Typed on the first phone')")
    check("…both ways", appears(other, ".sheet .item-text:has-text('Typed on the first phone')"))

    # The other phone adds a page before the one the first phone shows: the first stays on its page.
    other.click("[aria-label='Previous page']")
    at_page(other, "Cover", start=True)
    add_page(other, "Page 1 of 2")
    try:
        at_page(page, "Page 2 of 2", 5_000)
    except Exception:
        pass  # the check below says where it was
    check("a page added before the one showing: the first phone stays on its page (now page 2 of 2)",
          where(page) == "Page 2 of 2" and page.is_visible(".sheet .item-text:has-text('From the other phone')"), where(page))
    second.close()


def offline_text(page, server, token):
    """Text written offline is not thrown away: it waits, said so on the screen, and goes on the page once online."""
    page.context.set_offline(True)
    page.evaluate("window.dispatchEvent(new Event('offline'))")
    page.click("nb-book button:has-text('Write')")
    page.fill("#nb-text", "Written on the train")
    page.click("dialog button:has-text('Add')")
    page.wait_for_timeout(1_000)
    kept = page.inner_text("nb-book")
    check("offline, text written on a page is kept and shown as waiting for the network, not thrown away",
          "Written on the train" in kept and "Waiting for the network" in kept, kept[-400:])
    shot(page, "offline")
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    try:
        webwalk.settled(page)
        page.wait_for_selector(".nb-waiting", state="detached", timeout=5_000)
    except Exception:
        pass  # the check below says what is on the server
    items = [i.get("text") for p in notebook_of(server, token)["pages"] for i in p["items"]]
    check("back online, it goes on the page, once", items.count("Written on the train") == 1 and page.is_visible(".sheet .item-text:has-text('Written on the train')")
          and not page.is_visible(".nb-waiting"), (items, where(page), page.inner_text("nb-book")[:300]))


def header_fits(page, what):
    """The header's app name is whole (not cut to “AR Not…”) and the header no wider than the phone."""
    name = page.evaluate("""() => { const n = document.querySelector('header.bar .app-name');
      const tops = [...document.querySelectorAll('header.bar > *')].filter((e) => e.getClientRects().length).map((e) => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; });
      return { text: n.textContent, whole: n.scrollWidth <= n.clientWidth, right: document.querySelector('header.bar').getBoundingClientRect().right,
               lines: new Set(tops.map(Math.round)).size }; }""")
    check(f"{what}: the header's name “{name['text']}” is whole, on one line with the badge and Sign out, within 390 px",
          name["whole"] and name["right"] <= 390 and name["lines"] == 1, name)


def drafts_and_header(browser, server):
    """Nothing typed is lost: “Write on the page” typed and not saved comes back after a reload
    (kept on the phone), until it is added or cancelled. The header says “AR Notebook” whole at
    390 px while the offline badge shows."""
    context, page, _ = new_phone(browser, server, "web-drafty")
    page.click("nb-book button:has-text('Write')")
    page.fill("#nb-text", "Half a thought about cells")
    page.reload()
    back = appears(page, "dialog:has-text('Write on the page') #nb-text", 8_000)
    value = page.evaluate("() => document.querySelector('#nb-text')?.value ?? null") if back else None
    check("typed in “Write on the page” and not saved: after a reload the dialog is back with the text, on its page",
          value == "Half a thought about cells" and where(page) == "Page 1 of 1", (value, where(page) if page.is_visible(".turn-row") else None))
    if back:
        screen(page, "a draft given back", "draft")
        page.click("dialog button:has-text('Add')")
        page.wait_for_selector(".sheet .item-text:has-text('Half a thought about cells')")
        page.reload()
        page.wait_for_selector("nb-book .stage")
        again = appears(page, "dialog #nb-text", 2_000)
        check("…once added, a reload does not bring it back", not again)
        page.click("nb-book button:has-text('Write')")
        page.fill("#nb-text", "Thrown away")
        page.click("dialog button:has-text('Cancel')")
        page.reload()
        page.wait_for_selector("nb-book .stage")
        check("…and cancelled, neither", not appears(page, "dialog #nb-text", 2_000))
    go_offline(page)
    page.click("nb-book button:has-text('Write')")
    page.fill("#nb-text", "On the train")
    page.click("dialog button:has-text('Add')")
    page.wait_for_function("() => document.querySelector('quire-status')?.textContent === 'Offline · 1 waiting'")
    header_fits(page, "offline with a change waiting")
    shot(page, "header-offline")
    go_online(page)
    webwalk.settled(page)
    context.close()


def covers(browser, server):
    """FR3.2.3 on the phone: on the cover, “Cover and name” renames the notebook, restyles its cover
    and sets the cover's text; the cover shows it and the server has it. Offline, the change waits
    and is shown at once."""
    context, page, token = new_phone(browser, server, "web-covers", first_page=False)
    asked = appears(page, "nb-book button:has-text('Cover and name')", 3_000)
    if asked:
        page.click("nb-book button:has-text('Cover and name')")
        page.fill("#nb-cover-name", "Field notes")
        page.check("dialog input[value='text']")
        page.fill("#nb-cover-text", "Birds of Lisbon")
        screen(page, "the cover dialog", "cover-dialog")
        page.click("dialog button:has-text('Save')")
        page.wait_for_selector(".sheet.cover-text .cover-title:has-text('Birds of Lisbon')", timeout=8_000)
    _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
    first = listing["items"][0]
    check("on the cover, “Cover and name” renames, restyles and sets the cover's text; the cover shows it (FR3.2.3)",
          asked and (first["name"], first["cover"], first.get("coverText")) == ("Field notes", "text", "Birds of Lisbon")
          and page.is_visible(".sheet.cover-text .cover-title:has-text('Birds of Lisbon')"), first)
    if asked:
        screen(page, "a restyled cover", "cover-restyled")
        go_offline(page)
        page.click("nb-book button:has-text('Cover and name')")
        page.check("dialog input[value='colors']")
        page.fill("#nb-cover-text", "")
        page.click("dialog button:has-text('Save')")
        shown = appears(page, ".sheet.cover-colors .cover-title:has-text('Field notes')", 5_000)
        go_online(page)
        try:
            webwalk.settled(page)
        except Exception:
            pass  # the check below says what the server has
        _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
        first = listing["items"][0]
        check("…offline the new cover shows at once and reaches the server once online (the name shown again, its text cleared)",
              shown and (first["cover"], first.get("coverText")) == ("colors", None), first)
        # The image cover: one of the notebook's own pictures.
        offered = picture_then_cover_dialog(page)
        if offered:
            page.check("dialog label:has-text('The picture on page 1') input")
            page.click("dialog button:has-text('Save')")
            try:
                page.wait_for_function("() => document.querySelector('.sheet.cover .cover-picture')?.naturalWidth > 0", timeout=8_000)
            except Exception:
                pass  # the check below says what shows
        else:
            page.click("dialog button:has-text('Cancel')")
        _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
        first = listing["items"][0]
        shows = page.evaluate("() => document.querySelector('.sheet.cover .cover-picture')?.naturalWidth > 0")
        check("an image cover from one of the notebook's pictures: chosen in “Cover and name”, kept by the server, shown on the cover (FR3.2.3)",
              offered and first["cover"] == "image" and bool(first.get("coverItem")) and shows, (first, shows))
        if offered:
            screen(page, "an image cover", "cover-image")
    context.close()


def pictures_offline(browser, server):
    """UC-15: a notebook opened once online keeps its pictures on the phone (IndexedDB): offline and
    reloaded, its page shows the picture, not “it shows when the phone is online”."""
    context, page, _ = new_phone(browser, server, "web-pix")
    with tempfile.TemporaryDirectory(prefix="quire-web-ar-pix-") as data:
        with page.expect_file_chooser() as chooser:
            page.click("nb-book button:has-text('Picture')")
        chooser.value.set_files(picture(data))
        page.wait_for_selector(".sheet .item-image img", timeout=15_000)
    webwalk.settled(page)
    # Opened once online (a fresh start: nothing of the picture left in the page's memory) …
    page.reload()
    page.wait_for_selector(".sheet .item-image img", timeout=15_000)
    page.wait_for_timeout(1_000)
    # … then offline.
    go_offline(page)
    page.reload()
    page.wait_for_selector("nb-book .stage", timeout=15_000)
    try:
        page.wait_for_function("() => document.querySelector('.sheet .item-image img')?.naturalWidth > 0", timeout=8_000)
        shown = True
    except Exception:
        shown = False
    check("offline, a page opened before online shows its picture, kept on the phone (UC-15)", shown, page.inner_text("nb-book .stage")[:200])
    if shown:
        shot(page, "picture-offline")
    go_online(page)
    context.close()


def go_offline(page):
    page.context.set_offline(True)
    page.evaluate("window.dispatchEvent(new Event('offline'))")


def go_online(page):
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")


def offline_notebook(browser, server, page, token):
    """UC-15: the notebook kept on the phone from the sync feed. Offline and reloaded, it opens at
    its page; a page added, text written and undone offline wait in the outbox, survive a reload,
    and reach the server once, in order, back online; the other phone sees them. A notebook made
    offline is on the list and opens; only share and pin say they need the network."""
    notebook_id = notebook_of(server, token)["notebook"]["id"]
    second, other = phone(browser, server)
    open_notebook(other, "web-ann")
    go_offline(page)
    page.reload()
    opened = appears(page, "nb-book .stage", 10_000)
    seen = opened and page.is_visible(".sheet .item-text:has-text('From the other phone')")
    check("offline, a reload opens the notebook from the phone (IndexedDB), at its page with its items (UC-15)",
          seen and where(page) == "Page 2 of 2", page.inner_text("nb-book")[:300])
    shot(page, "offline-reloaded")
    if not opened:
        go_online(page)
        second.close()
        return
    add_page(page, "Page 3 of 3", 5_000)
    for text in ("Kept offline", "Taken back offline"):
        page.click("nb-book button:has-text('Write')")
        page.fill("#nb-text", text)
        page.click("dialog button:has-text('Add')")
        page.wait_for_selector(f".sheet .item-text:has-text('{text}')", timeout=5_000)
    page.click("nb-book button:has-text('Undo')")
    page.wait_for_selector(".sheet .item-text:has-text('Taken back offline')", state="detached", timeout=5_000)
    # An item of the server's, changed offline: its text.
    page.click("[aria-label='Previous page']")
    at_page(page, "Page 2 of 3")
    page.wait_for_selector(".sheet .item-text:has-text('Written on the train')")
    page.click("nb-book .sheet [aria-label='Text: Written on the train']")
    page.check("dialog label:has-text('Change the text') input")
    page.click("dialog button:has-text('OK')")
    page.fill("#nb-text", "Written on the train, changed offline")
    page.click("dialog button:has-text('Save')")
    page.wait_for_selector(".sheet .item-text.pending:has-text('changed offline')", timeout=5_000)
    page.click("[aria-label='Next page']")
    page.wait_for_selector(".sheet:not(.turning-next) .item-text:has-text('Kept offline')")
    page.reload()
    page.wait_for_selector("nb-book .stage", timeout=10_000)
    kept = page.is_visible(".sheet .item-text:has-text('Kept offline')") and not page.is_visible(".sheet .item-text:has-text('Taken back offline')")
    check("offline, a new page, text written and undone: shown at once, and still so after a reload (the outbox)",
          kept and where(page) == "Page 3 of 3" and "Waiting for the network" in page.inner_text("nb-book"), page.inner_text("nb-book")[:400])
    shot(page, "offline-written")
    page.click("nb-book button:has-text('Share')")
    needs = appears(page, "dialog:has-text('needs the internet')", 5_000)
    check("offline, Share says it needs the network", needs, page.inner_text("body")[:300])
    page.click("dialog button:has-text('Close')") if needs else None
    # A notebook made offline: on the list, opened, written in.
    page.goto("/#/notebooks")
    page.wait_for_selector("nb-notebooks .big-link")
    page.click("nb-notebooks button:has-text('New notebook')")
    page.fill("#nb-text", "Made on the train")
    page.click("dialog button:has-text('Add')")
    page.click("dialog button:has-text('OK')")
    made = appears(page, "nb-book h1:has-text('Made on the train')", 5_000)
    if made:
        page.click("nb-book button:has-text('New page')")
        page.click("dialog button:has-text('OK')")
        page.click("nb-book button:has-text('Write')")
        page.fill("#nb-text", "First words")
        page.click("dialog button:has-text('Add')")
        made = appears(page, ".sheet .item-text:has-text('First words')", 5_000)
    check("offline, a new notebook is made, opened and written in", made, page.inner_text("body")[:300])
    go_online(page)
    page.wait_for_function("() => document.querySelector('quire-status')?.textContent === 'Saved'", timeout=20_000)
    content = notebook_of_id(server, token, notebook_id)
    texts = [[i.get("text") for i in p["items"]] for p in content["pages"]]
    _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
    train = next((n for n in listing["items"] if n["name"] == "Made on the train"), None)
    train_texts = [i.get("text") for p in notebook_of_id(server, token, train["id"])["pages"] for i in p["items"]] if train else None
    check("back online, the server has them once, in order: page 3 with “Kept offline”, the undone text gone, the text changed, "
          "the new notebook with its page",
          len(content["pages"]) == 3 and texts[2] == ["Kept offline"] and "Written on the train, changed offline" in texts[1]
          and train_texts == ["First words"], (texts, train_texts))
    page.goto(f"/#/n/{notebook_id}")
    page.wait_for_selector("nb-book .stage")
    # The other phone, open on this notebook all along, has followed.
    try:
        other.wait_for_function("() => /of 3$|· 3 pages$/.test(document.querySelector('.turn-row .where')?.textContent)", timeout=5_000)
    except Exception:
        pass  # the check below says where it was
    check("…and the other phone, open on the notebook, follows without a reload", where(other).endswith(("of 3", "· 3 pages")), where(other))
    second.close()
    if train:
        _, asked, _ = call(server, "DELETE", f"{N}/notebooks/{train['id']}", token=token)
        call(server, "DELETE", f"{N}/notebooks/{train['id']}?confirm={urllib.parse.quote(asked.get('confirm', ''))}", token=token)


def notebook_of_id(server, token, notebook_id):
    _, content, _ = call(server, "GET", f"{N}/notebooks/{notebook_id}", token=token)
    return content


def opened_offline(page, server, token):
    """A notebook opened offline that is not on the phone (made on the server meanwhile) says so
    truthfully (nothing waits), and opens by itself once online."""
    main_id = notebook_of(server, token)["notebook"]["id"]
    page.evaluate("location.hash = '#/notebooks'")
    page.wait_for_selector("nb-notebooks")
    go_offline(page)
    page.wait_for_selector("quire-status[data-state=offline]")
    _, made, _ = call(server, "POST", f"{N}/notebooks", {"name": "Made elsewhere"}, token=token)
    notebook_id = made["id"]
    page.evaluate(f"location.hash = '#/n/{notebook_id}'")
    page.wait_for_selector("nb-book main p.warning, nb-book main p.error, nb-book .stage", timeout=10_000)
    said = page.inner_text("nb-book")
    check("a notebook opened offline that is not on the phone says so, not that something is kept to send",
          "not on this phone yet" in said and "opens when the phone is online" in said and "kept and sent" not in said, said)
    page.screenshot(path=os.path.join(ROOT, ".build", "ar-notebook-opened-offline.png"))
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    try:
        page.wait_for_selector("nb-book .stage", timeout=10_000)
    except Exception:
        pass  # the check below says what is shown
    check("…and opens by itself once the network is back, without a reload",
          page.is_visible("nb-book .stage") and "not on this phone yet" not in page.inner_text("nb-book"), page.inner_text("nb-book")[:300])
    _, asked, _ = call(server, "DELETE", f"{N}/notebooks/{notebook_id}", token=token)
    call(server, "DELETE", f"{N}/notebooks/{notebook_id}?confirm={urllib.parse.quote(asked.get('confirm', ''))}", token=token)
    try:
        page.wait_for_selector("nb-book:has-text('no longer here')", timeout=5_000)
        gone = True
    except Exception:
        gone = False  # the check below says what is shown
    check("a notebook open on the phone and deleted elsewhere says it is no longer here", gone, page.inner_text("nb-book")[:200])
    page.goto(f"/#/n/{main_id}")
    page.wait_for_selector("nb-book .stage")


def fifty_pages_landscape(browser, server, token):
    """Walked gaps: a 50-page notebook on a phone held sideways (844×390): the page as tall as the
    screen allows with its text inside its boxes, quick taps each turn a page, a page chosen
    directly, and the paste refusal in view."""
    _, made, _ = call(server, "POST", f"{N}/notebooks", {"name": "Fifty pages"}, token=token)
    nid = made["id"]
    for _ in range(50):
        call(server, "POST", f"{N}/notebooks/{nid}/pages", {"template": "blank"}, token=token)
    call(server, "POST", f"{N}/notebooks/{nid}/pages/1/items", {"kind": "text", "text": "A long sentence on the first page that wraps over several lines of its box"},
         token=token)
    context = browser.new_context(base_url=server.base, **{**webwalk.PHONE, "viewport": {"width": 844, "height": 390}},
                                  permissions=["clipboard-read", "clipboard-write"])
    context.add_init_script(BATTERY)
    sideways = context.new_page()
    webwalk.PAGES.append(sideways)
    sideways.goto("/")
    webwalk.sign_in(sideways, "web-ann")
    sideways.wait_for_selector("nb-book .stage, nb-welcome h1, nb-notebooks h1")  # a new phone of an account with notebooks opens on them
    sideways.goto(f"/#/n/{nid}")
    at_page(sideways, "Cover · 50", start=True)
    sideways.click("[aria-label='Next page']")
    at_page(sideways, "Page 1 of 50")
    sideways.wait_for_selector(".sheet.page .item-text")
    size = sideways.evaluate("""() => { const s = document.querySelector('.sheet').getBoundingClientRect();
      const spill = [...document.querySelectorAll('.sheet .item span')].some((e) => e.scrollHeight > e.parentElement.clientHeight + 1);
      return { width: Math.round(s.width), height: Math.round(s.height), bottom: Math.round(s.bottom), spill, scroll: document.documentElement.scrollWidth }; }""")
    check("sideways (844×390), the page is as tall as the screen allows, not a thumbnail, its text inside its box",
          size["width"] >= 200 and size["bottom"] <= 390 and not size["spill"] and size["scroll"] <= 844, size)
    shot(sideways, "landscape")
    sideways.evaluate("window.scrollTo(0, 0)")
    for _ in range(3):
        sideways.click("[aria-label='Next page']", delay=0)
    try:
        sideways.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent === 'Page 4 of 50'"
                                   " && !document.querySelector('.sheet.turning-next')", timeout=3_000)
    except Exception:
        pass  # the check below says where it stopped
    sideways.wait_for_timeout(300)
    check("three quick taps on › during the page-turn animation turn three pages (none dropped)", where(sideways) == "Page 4 of 50", where(sideways))
    jumped = False
    if sideways.query_selector("select#nb-jump"):
        sideways.get_by_label("Go to page").select_option(label="Page 42")
        try:
            at_page(sideways, "Page 42 of 50", 3_000)
            jumped = True
        except Exception:
            pass  # the check below says where it was
    check("“Go to page” goes straight to page 42 of 50", jumped, where(sideways))
    sideways.get_by_label("Go to page").select_option(label="Page 1") if jumped else None
    at_page(sideways, "Page 1 of 50", 3_000)
    sideways.evaluate("navigator.clipboard.writeText('q'.repeat(141))")
    sideways.click("nb-book button:has-text('Paste')")
    try:
        sideways.wait_for_function("() => document.querySelector('nb-book .nb-said')?.textContent.includes('at most 140')", timeout=5_000)
    except Exception:
        pass  # the check below says what was there
    said = sideways.evaluate(IN_VIEW, ["at most 140", "Paste"])
    check("sideways, the paste refusal is in view, beside Paste, not behind the header",
          said is not None and not said["covered"] and said["top"] >= 0 and said["bottom"] <= said["height"] and said["distance"] is not None
          and said["distance"] < 200, said)
    shot(sideways, "landscape-refused")
    screen(sideways, "the notebook sideways")
    context.close()
    quick_turns(browser, server, token, nid)
    _, asked, _ = call(server, "DELETE", f"{N}/notebooks/{nid}", token=token)
    call(server, "DELETE", f"{N}/notebooks/{nid}?confirm={urllib.parse.quote(asked.get('confirm', ''))}", token=token)


# Samples, every frame, whether the label, “Go to page” and the arrows name the same page; what disagreed is kept.
IN_STEP = """() => {
  window.__outOfStep = []; window.__stopSampling = false;
  const look = () => {
    const said = document.querySelector('.turn-row .where')?.textContent ?? '';
    const chosen = document.querySelector('#nb-jump')?.value;
    const next = document.querySelector("[aria-label='Next page']")?.disabled;
    const back = document.querySelector("[aria-label='Previous page']")?.disabled;
    const m = said.match(/^Page (\\d+) of (\\d+)/);
    const at = said.startsWith('Cover') ? 0 : m ? Number(m[1]) : -1;
    const count = m ? Number(m[2]) : Number((said.match(/(\\d+) page/) || [])[1]);
    if (String(at) !== chosen || next !== (at >= count) || back !== (at === 0)) window.__outOfStep.push([said, chosen, next, back]);
    if (!window.__stopSampling) requestAnimationFrame(look);
  };
  look();
}"""


def stage_box(page):
    """The stage's box once it is drawn: a sync (the notebook's record changed: a move is undoable now)
    may draw it again just then, and a box asked of the stage going away is None."""
    return webwalk.wait_for(page, lambda: page.locator("nb-book .stage").bounding_box(), tries=50)


def swipe(page, left, at=None):
    """A finger's quick swipe across the page, from `at` (x, y) or else the stage's edge: left turns forward, right back."""
    stage = stage_box(page)
    x, y = at or (stage["x"] + stage["width"] - 10 if left else stage["x"] + 10, stage["y"] + stage["height"] - 12)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + (-80 if left else 80), y, steps=3)
    page.mouse.up()


def settled_at(page, label):
    try:
        page.wait_for_function("l => document.querySelector('.turn-row .where')?.textContent === l"
                               " && !document.querySelector('.sheet.turning-next, .sheet.turning-back')", arg=label, timeout=3_000)
    except Exception:
        pass  # the check says where it stopped
    page.wait_for_timeout(600)
    return where(page)


def quick_turns(browser, server, token, nid):
    """Walked gaps at 390×844: quick swipes each turn a page like quick taps do (also where the finger
    lands on a text on the page turning away: that is not a drag), and while quick taps turn pages the
    label, “Go to page” and the arrows always name the same page."""
    for number in range(2, 8):
        call(server, "POST", f"{N}/notebooks/{nid}/pages/{number}/items", {"kind": "text", "text": f"Words on page {number} " * 6}, token=token)
    context, page = phone(browser, server)
    page.goto("/")
    webwalk.sign_in(page, "web-ann")
    page.wait_for_selector("nb-book .stage, nb-welcome h1, nb-notebooks h1")  # a new phone of an account with notebooks opens on them
    page.goto(f"/#/n/{nid}")
    at_page(page, "Cover · 50", start=True)
    page.click("[aria-label='Next page']")
    at_page(page, "Page 1 of 50")
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_selector(".sheet .item-text")
    box = page.locator(".sheet .item-text").first.bounding_box()
    text = (box["x"] + min(box["width"] / 3, 100), box["y"] + box["height"] / 2)
    # The first swipe starts beside the text (on it, a finger at rest moves the text); the next ones
    # come quickly, as soon as the page before has turned, where the new page's text is: within the
    # phone's 400 ms (QUICK_SWIPE_MS). With a fixed 150 ms pause on top of the polling, a loaded
    # machine (a build beside the walk) took longer, and the finger on the text was a drag.
    def quick(left, at):
        page.wait_for_function("() => !document.querySelector('.sheet.turning-next, .sheet.turning-back')", polling=20)
        swipe(page, left=left, at=at)
    swipe(page, left=True)
    for _ in range(2):
        quick(True, text)
    at = settled_at(page, "Page 4 of 50")
    check("from page 1, three quick swipes left turn three pages, to page 4 (none dropped, none a drag of the text)", at == "Page 4 of 50", at)
    right = (box["x"] + 10, text[1])
    swipe(page, left=False)
    for _ in range(3):
        quick(False, right)
    at = settled_at(page, "Cover · 50 pages")
    check("from page 4, four quick swipes right go back to the cover", at == "Cover · 50 pages", at)
    page.click("[aria-label='Next page']")
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent === 'Page 1 of 50'"
                           " && !document.querySelector('.sheet.turning-next')")
    page.evaluate(IN_STEP)
    for _ in range(5):
        page.click("[aria-label='Next page']", delay=0)
    at = settled_at(page, "Page 6 of 50")
    page.evaluate("window.__stopSampling = true")
    apart = page.evaluate("window.__outOfStep")
    check("five quick taps on › reach page 6, and meanwhile the label, “Go to page” and the arrows always name the same page",
          at == "Page 6 of 50" and apart == [], (at, apart[:5]))
    context.close()


def long_names(page, server, token):
    """A notebook with an 80-letter name, made and reloaded at once; an 80-letter word and a web address on its page."""
    page.goto("/#/notebooks")
    page.wait_for_selector("nb-notebooks .big-link")
    page.click("nb-notebooks button:has-text('New notebook')")
    page.fill("#nb-text", LONG_WORD)
    page.click("dialog button:has-text('Add')")
    page.click("dialog button:has-text('OK')")
    page.wait_for_selector(f"nb-book h1:has-text('{LONG_WORD}')")
    fits(page, "the cover of a notebook with an 80-letter name")
    add_page(page, "Page 1 of 1")
    page.reload()
    try:
        at_page(page, "Page 1 of 1", 10_000)
    except Exception:
        pass  # the check below says what was there
    check("a notebook and a page made, then reloaded at once: the notebook shows at its page, not an error",
          page.is_visible(f"nb-book h1:has-text('{LONG_WORD}')") and not page.is_visible("nb-book [role=alert]"), page.inner_text("nb-book")[:200])
    page.click("nb-book button:has-text('Write')")
    page.fill("#nb-text", f"{LONG_WORD} {LONG_URL}")
    page.click("dialog button:has-text('Add')")
    page.wait_for_selector(f".sheet .item-text:has-text('{LONG_WORD}')")
    page.evaluate(f"navigator.clipboard.writeText('{LONG_URL}')")
    page.click("nb-book button:has-text('Paste')")
    page.wait_for_selector(".sheet .item-clipboard")
    fits(page, "a page with an 80-letter word and a web address")
    page.evaluate("navigator.clipboard.writeText('z'.repeat(141))")
    page.click("nb-book button:has-text('Paste')")
    page.wait_for_timeout(1_000)
    fits(page, "the paste refusal")
    page.goto("/#/notebooks")
    page.wait_for_selector(f"nb-notebooks .big-link:has-text('{LONG_WORD}')")
    fits(page, "My notebooks with an 80-letter name")
    _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
    long_id = next(n["id"] for n in listing["items"] if n["name"] == LONG_WORD)
    status, asked, _ = call(server, "DELETE", f"{N}/notebooks/{long_id}", token=token)
    call(server, "DELETE", f"{N}/notebooks/{long_id}?confirm={urllib.parse.quote(asked.get('confirm', ''))}", token=token)
    try:
        page.wait_for_selector(f"nb-notebooks .big-link:has-text('{LONG_WORD}')", state="detached", timeout=5_000)
        gone = True
    except Exception:
        gone = False  # the check below says so
    check("the notebooks list follows sync: a notebook deleted elsewhere goes from it without a reload", gone and status == 428, status)


def pin_where_i_am(page):
    """The pin's picker: “Use where I am” fills the place in, “Pin it” pins."""
    page.click("nb-book button:has-text('Pin here')")
    page.wait_for_selector("dialog #nb-pin-latitude")
    filled = "() => document.querySelector('#nb-pin-latitude')?.value !== ''"
    try:
        page.wait_for_function(filled, timeout=10_000)
    except Exception:
        # The phone's position did not answer in time (a loaded machine): asked again, as a person
        # would tap “Use where I am”, else typed where the owner stands.
        page.click("dialog button:has-text('Use where I am')")
        try:
            page.wait_for_function(filled, timeout=10_000)
        except Exception:
            print("  (the position did not answer; the owner's place typed in the picker)")
            page.fill("#nb-pin-latitude", str(HERE["latitude"]))
            page.fill("#nb-pin-longitude", str(HERE["longitude"]))
    page.click("dialog button:has-text('Pin it')")
    page.wait_for_selector("nb-book button:has-text('Pinned here')")


def share_and_pin(browser, server, page, token):
    pin_where_i_am(page)
    content = notebook_of(server, token)
    check("the notebook is pinned where its owner stands (UC-13)", abs(content["notebook"]["pin"]["latitude"] - HERE["latitude"]) < 1e-6, content["notebook"])
    page.click("nb-book button:has-text('Share')")
    page.wait_for_function("() => window.__shared !== undefined")
    link = page.evaluate("window.__shared.url")
    check("Share hands the share sheet a link into the app (UC-11)", "/#/accept/" in link, link)

    second, reader = phone(browser, server, where=NEAR)
    sign_up(reader, "web-bea")
    reader.wait_for_selector("nb-welcome")
    reader.click("text=Open my notebook")
    reader.wait_for_selector("nb-book")
    reader.wait_for_selector(".nearby-bar", timeout=15_000)
    banner = reader.text_content(".nearby-bar")
    check("walking near the pinned notebook shows it (watchPosition → nearby, UC-13)", "My notebook" in banner and "m from you" in banner, banner)
    reader.goto(link.replace(server.base, ""))
    reader.wait_for_selector("nb-book .warning")
    controls = reader.eval_on_selector_all(".nb-actions button", "els => els.map(e => e.textContent)")
    check("the recipient's view is read-only: no editing controls (UC-12)",
          not any(c in controls for c in ("New page", "Write", "Paste", "Picture", "Undo", "Delete page", "Share")), controls)
    screen(reader, "the read-only view", "shared")
    # The owner writes on the page it shows; the reader has the same page open.
    shown = where(page).split(" of ")[0]
    while not where(reader).startswith(shown + " of"):
        before = where(reader)
        reader.click("[aria-label='Next page']")
        reader.wait_for_function("b => document.querySelector('.turn-row .where')?.textContent !== b", arg=before)
    page.click("nb-book button:has-text('Write')")
    page.fill("#nb-text", "For Bea")
    page.click("dialog button:has-text('Add')")
    seen = appears(reader, ".sheet .item-text:has-text('For Bea')")
    check("the recipient's open notebook shows the owner's edit within 5 s, without a reload", seen, where(reader))
    reader.goto("/#/notebooks")
    named = appears(reader, "nb-notebooks [aria-label='Shared with me'] :text('from web-ann')", 8_000)
    check("“Shared with me” names who shared it (the owner's name from the server)", named,
          reader.inner_text("nb-notebooks")[:300] if reader.is_visible("nb-notebooks") else None)
    screen(reader, "my notebooks with one shared with me", "shared-with-me")
    second.close()
    shared_link_signed_out(browser, server, link)


def pins_for_finders(browser, server):
    """FR3.2.17, UC-13: the owner pins a notebook at a place typed in the picker, allowing edits;
    someone walking near it opens it, moves the pin and removes it."""
    context, page, token = new_phone(browser, server, "web-pia", first_page=False)
    page.click("nb-book button:has-text('Pin here')")
    picked = appears(page, "dialog #nb-pin-latitude", 3_000)
    if picked:
        page.wait_for_function("() => document.querySelector('#nb-pin-latitude')?.value !== ''", timeout=15_000)
        page.fill("#nb-pin-latitude", "38.72241")
        page.fill("#nb-pin-longitude", "-9.13941")
        page.check("#nb-pin-edits")
        screen(page, "the pin's picker", "pin-picker")
        page.click("dialog button:has-text('Pin it')")
        page.wait_for_selector("nb-book button:has-text('Pinned here')")
    content = notebook_of(server, token)
    pin = content["notebook"].get("pin") or {}
    check("the owner pins the notebook at a place typed in the picker, allowing finders to edit (FR3.2.17)",
          picked and abs(pin.get("latitude", 0) - 38.72241) < 1e-6 and abs(pin.get("longitude", 0) + 9.13941) < 1e-6 and pin.get("allowEdits") is True, pin)
    nid = content["notebook"]["id"]
    finder_context, finder = phone(browser, server, where=NEAR)
    sign_up(finder, "web-finn")
    finder.wait_for_selector("nb-welcome")
    finder.click("text=Open my notebook")
    finder.wait_for_selector("nb-book")
    finder.wait_for_selector(".nearby-bar", timeout=15_000)
    finder.click(".nearby-bar a:has-text('Open')")
    finder.wait_for_function("() => document.querySelector('nb-book h1')?.textContent === 'My notebook' && !!document.querySelector('nb-book .stage')")
    movable = appears(finder, "nb-book button:has-text('Pinned here')", 5_000)
    if movable:
        finder.click("nb-book button:has-text('Pinned here')")
        finder.wait_for_selector("dialog #nb-pin-latitude")
        finder.fill("#nb-pin-latitude", "38.72250")
        finder.click("dialog button:has-text('Pin it')")
        finder.wait_for_selector("dialog", state="detached")
        finder.wait_for_timeout(500)
    _, moved, _ = call(server, "GET", f"{N}/notebooks/{nid}", token=token)
    pin = moved["notebook"].get("pin") or {}
    check("someone who found it pinned for editing moves its pin (their answer kept, what the owner allowed kept)",
          movable and abs(pin.get("latitude", 0) - 38.7225) < 1e-6 and pin.get("allowEdits") is True, (pin, finder.inner_text("nb-book")[:300]))
    # On a page of the owner's, the finder writes but cannot delete the page (walk11: one wiped the owner's texts).
    added = call(server, "POST", f"{N}/notebooks/{nid}/pages", {"template": "blank"}, token=token)
    finder.reload()
    finder.wait_for_selector("nb-book [aria-label='Next page']:not([disabled])", timeout=10_000)
    finder.click("nb-book [aria-label='Next page']")
    on_page = appears(finder, "nb-book button:has-text('Write')", 10_000)
    check("…on the owner's page the finder may Write, and is offered no Delete page (its delete cannot be undone: the owner's)",
          on_page and finder.locator("nb-book button:has-text('Delete page')").count() == 0, (added[:2], finder.inner_text("nb-book")[:300]))
    if on_page:
        finder.click("nb-book button:has-text('Write')")
        finder.wait_for_selector("dialog[open] #nb-text")
        finder.fill("#nb-text", "Left by a finder")
        finder.click("dialog button:has-text('Add')")
    shown = appears(finder, "nb-book .item[aria-label^='Text: Left by a finder']", 10_000)
    check("…and the text the finder writes there shows on its page (walk12: it stayed an empty box, not in its feed)",
          shown, finder.inner_text("nb-book")[:300])
    finder.click("nb-book [aria-label='Previous page']")
    finder.wait_for_timeout(800)
    removed = False
    if movable:
        finder.click("nb-book button:has-text('Pinned here')")
        finder.click("dialog button:has-text('Remove the pin')")
        finder.click("dialog.confirm button:has-text('Remove the pin')")
        finder.wait_for_timeout(1_000)
        _, after, _ = call(server, "GET", f"{N}/notebooks/{nid}", token=token)
        removed = after["notebook"].get("pin") is None
    check("…and removes it, after confirming", removed)
    finder_context.close()
    context.close()


def shared_link_signed_out(browser, server, link):
    """Walked gap: a shared link opened while signed out says what it is before asking to sign in,
    and opens the notebook once signed in."""
    context, page = phone(browser, server, where=NEAR)
    page.goto(link.replace(server.base, ""))
    page.wait_for_selector("quire-signin form")
    said = page.inner_text("quire-signin")
    check("a shared link opened signed out says someone shared a notebook, and to sign in or sign up to read it",
          "shared a notebook with you" in said and "Sign in" in said and "create an account" in said, said[:300])
    screen(page, "signing in for a shared notebook")
    webwalk.sign_in(page, "web-bea")
    try:
        page.wait_for_selector("nb-book .warning", timeout=10_000)
        opened = True
    except Exception:
        opened = False
    check("…and once signed in, the shared notebook opens", opened, page.inner_text("body")[:300])
    context.close()


def battery(page):
    page.evaluate("window.__battery(0.04, false)")
    page.wait_for_selector("dialog.battery")
    page.keyboard.press("Escape")
    check("at 4 % the low-battery alert blocks, and Escape does not close it (UC-14)", page.is_visible("dialog.battery"))
    screen(page, "the battery alert", "battery")
    page.click("dialog.battery button:has-text('I am charging')")
    page.wait_for_function("() => document.querySelector('dialog.battery .error')?.textContent.length > 0")
    said = page.text_content("dialog.battery .error")
    check("“I am charging” before the phone is: the server's sentence", len(said) > 10, said)
    page.evaluate("window.__battery(0.04, true)")
    page.wait_for_selector("dialog.battery", state="detached", timeout=10_000)
    check("charging: the alert goes", True)


# A browser without the Battery Status API (Safari, Firefox).
NO_BATTERY = "(() => { delete Navigator.prototype.getBattery; delete navigator.getBattery; })();"


def battery_without_api(browser, server):
    """UC-14 where the browser does not tell the battery level: the screen says plainly it cannot
    know; once device-monitor holds a level for the account (reported where the platform gives
    it), the alert follows it. The alert's other way out: “Sign out and close”."""
    context, page = webwalk.phone(browser, server, init_script=NO_BATTERY, geolocation=HERE, permissions=["geolocation"])
    sign_up(page, "web-nobattery")
    page.wait_for_selector("nb-welcome")
    said = appears(page, "header.bar .notices :text('cannot warn you')", 8_000)
    check("without the Battery Status API, the screen says it cannot know the battery level (UC-14)", said,
          page.inner_text("header.bar")[:300])
    token = token_of(page)
    status, answer, _ = call(server, "POST", "/api/v1/device-monitor/battery", {"level": 4, "unit": "percent", "state": "unplugged"}, token=token)
    page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    shown = appears(page, "dialog.battery", 8_000)
    check("…and once device-monitor holds a level of 4 % for the account, the blocking alert shows, driven by it",
          status == 200 and shown and "4 %" in (page.text_content("dialog.battery") or ""), (status, answer))
    if shown:
        screen(page, "the battery alert without the API", "battery-no-api")
        page.click("dialog.battery button:has-text('Sign out and close')")
        try:
            page.wait_for_selector("quire-signin form", timeout=8_000)
        except Exception:
            pass  # the check below says where it is
        out = page.is_closed() or page.is_visible("quire-signin form")
        after, _, _ = call(server, "GET", f"{N}/notebooks", token=token)
        check("“Sign out and close” in the alert signs out (the session ends on the server) and leaves the app",
              out and after == 401 and not page.is_visible("dialog.battery"), (after, None if page.is_closed() else page.inner_text("body")[:200]))
    else:
        check("“Sign out and close” in the alert signs out (the session ends on the server) and leaves the app", False, "no alert")
    context.close()


def camera(page, expect_warning, name):
    page.click("nb-book button:has-text('View in your room')")
    page.wait_for_selector(".stage.over-camera video.camera")
    page.wait_for_selector("p.light", timeout=15_000)
    verdict = page.get_attribute("p.light", "class")
    text = page.text_content("p.light")
    check(f"a {name} camera frame is judged before placing: {'a warning' if expect_warning else 'no warning'} (UC-15)",
          ("warning" in verdict) == expect_warning, (verdict, text))
    if expect_warning:
        screen(page, "the camera view", "camera")
    # The button says which way it goes now, and that it is on (it kept "View in your room": walk7).
    toggle = page.get_by_role("button", name="Back to the screen")
    check(f"…over the {name} camera, the button says “Back to the screen” and is pressed",
          toggle.count() == 1 and toggle.get_attribute("aria-pressed") == "true", page.locator("nb-book .nb-actions").inner_text()[:200])
    (toggle if toggle.count() else page.locator("nb-book button:has-text('View in your room')")).click()
    page.wait_for_selector(".stage:not(.over-camera)")
    check(f"…and back on the screen it says “View in your room” again, not pressed",
          page.get_by_role("button", name="View in your room").get_attribute("aria-pressed") == "false")


def room_with_xr(browser, server):
    """Where the browser offers WebXR immersive-ar: the light judged first, then a ring where the aim
    meets a horizontal surface (a wall refused), a tap puts the notebook there, Done ends it."""
    context, page = phone(browser, server, xr=True)
    open_notebook(page, "web-ann")
    page.click("nb-book button:has-text('View in your room')")
    page.wait_for_selector(".xr-overlay .xr-hint")
    options = page.evaluate("window.__xr.options")
    check("the room view asks for immersive-ar with hit-test, the hint and Done as its DOM overlay",
          options == {"mode": "immersive-ar", "required": ["hit-test"], "overlay": "xr-overlay"}, options)
    check("the light was judged from a camera frame before placing (UC-15)", page.is_visible("p.light.warning"))
    page.evaluate("window.__xr.aim = 'wall'")
    page.wait_for_function("() => document.querySelector('.xr-hint').textContent.startsWith('That is not flat')")
    check("a wall is not somewhere to lay the notebook: the hint says so", True)
    page.evaluate("window.__xr.aim = 'floor'")
    page.wait_for_function("() => document.querySelector('.xr-hint').textContent === 'Tap to put the notebook here.'")
    before = page.evaluate("(async () => { const n = window.__xr.frames; while (window.__xr.frames < n + 2) await new Promise(r => setTimeout(r, 20)); return window.__xr.centre; })()")
    page.evaluate("window.__xr.select()")
    page.wait_for_function("() => document.querySelector('.xr-hint').textContent.startsWith('Here it is')")
    page.wait_for_function("() => window.__xr.centre?.[3] === 255")
    after = page.evaluate("window.__xr.centre")
    check("a tap puts the notebook on the surface: drawn where the ring was (the centre pixel, empty before)",
          before[3] == 0 and after[3] == 255, (before, after))
    screen(page, "in the room (WebXR)", "room")
    page.click(".xr-overlay button:has-text('Done')")
    page.wait_for_selector(".xr-overlay", state="detached")
    check("Done ends the session and comes back to the notebook on the screen", page.evaluate("window.__xr.ended") and page.is_visible("nb-book .stage"))
    context.close()


def room_controls(browser, server):
    """The single view (design 2.1.3): in the WebXR room, the DOM overlay's controls turn pages,
    write on the page and undo, without leaving AR (WebXR replaced as in room_with_xr)."""
    context, page, token = new_phone(browser, server, "web-roomy", xr=True)
    page.click("[aria-label='Previous page']")
    at_page(page, "Cover", start=True)
    nid = first_notebook_id(server, token)
    page.click("nb-book button:has-text('View in your room')")
    page.wait_for_selector(".xr-overlay .xr-hint")
    place_in_room(page)
    controls = appears(page, ".xr-overlay [aria-label='Next page']", 2_000)
    turned = written = undone = False
    if controls:
        page.click(".xr-overlay [aria-label='Next page']")
        try:
            page.wait_for_function("() => document.querySelector('.xr-overlay .where')?.textContent === 'Page 1 of 1'", timeout=5_000)
            turned = True
        except Exception:
            pass
        screen(page, "the room's controls", "room-controls")
        page.fill("#xr-text", "Seen from the room")
        page.click(".xr-overlay button:has-text('Write')")
        page.wait_for_timeout(1_500)
        items = [i.get("text") for p in notebook_of_id(server, token, nid)["pages"] for i in p["items"]]
        written = items == ["Seen from the room"] and page.is_visible(".xr-overlay")
        page.click(".xr-overlay button:has-text('Undo')")
        page.wait_for_timeout(1_500)
        undone = [i for p in notebook_of_id(server, token, nid)["pages"] for i in p["items"]] == [] and page.is_visible(".xr-overlay")
    check("in the room, the overlay's › turns to page 1, its label following (without leaving AR)", controls and turned,
          page.text_content(".xr-overlay") if page.is_visible(".xr-overlay") else None)
    check("…text written in the overlay goes on the page, still in the room", written)
    check("…and its Undo takes it away, still in the room", undone)
    page.click(".xr-overlay button:has-text('Done')")
    page.wait_for_selector(".xr-overlay", state="detached")
    context.close()


def in_the_room(page, server, token, nid, pages=None):
    """Whether the room's overlay still shows (the session not ended) and, with `pages`, the
    server's notebook has that many pages; answers the server's notebook."""
    content = notebook_of_id(server, token, nid)
    return page.is_visible(".xr-overlay") and not page.evaluate("window.__xr.ended") and (pages is None or len(content["pages"]) == pages), content


def until(test, timeout=8.0):
    """`test()` until it answers something true, for up to `timeout` s; its last answer."""
    end = time.monotonic() + timeout
    answer = test()
    while not answer and time.monotonic() < end:
        time.sleep(0.25)
        answer = test()
    return answer


def room_actions(browser, server):
    """The single view (design 2.1.3), the rest of it: in the WebXR room, the overlay adds a page of
    the chosen layout and colour, puts a picture on the page (the file chooser opens from the
    overlay), changes an item's text, removes an item after asking there, recolours the page, shows
    a read-only link to copy, and deletes a page after the server's question asked there; offline,
    a page added there waits in the outbox and reaches the server once online. Each still in the
    room, each on the server; the cover's and the pin's own dialogs show inside the overlay (WebXR
    replaced as in room_with_xr)."""
    context, page, token = new_phone(browser, server, "web-roomer", first_page=False, xr=True)
    nid = first_notebook_id(server, token)

    def kinds():
        """What the server's notebook holds, its items' kinds in order."""
        return [i["kind"] for p in notebook_of_id(server, token, nid)["pages"] for i in p["items"]]
    page.click("nb-book button:has-text('View in your room')")
    page.wait_for_selector(".xr-overlay .xr-hint")
    place_in_room(page)
    overlay = ".xr-overlay"
    # The notebook's own dialogs show inside the overlay: Cover and name, and the pin's picker.
    named = pinned = False
    if appears(page, f"{overlay} button:has-text('Cover and name')", 2_000):
        page.click(f"{overlay} button:has-text('Cover and name')")
        if appears(page, f"{overlay} dialog #nb-cover-name", 2_000):
            page.fill(f"{overlay} dialog #nb-cover-name", "Room notes")
            page.click(f"{overlay} dialog button:has-text('Save')")
            named = until(lambda: notebook_of_id(server, token, nid)["notebook"]["name"] == "Room notes")
    still, content = in_the_room(page, server, token, nid)
    check("in the room, Cover and name opens its dialog in the overlay and renames the notebook, still in the room (on the server)",
          named and still, content["notebook"]["name"])
    page.click(f"{overlay} button:has-text('Pin…')")
    if appears(page, f"{overlay} dialog #nb-pin-latitude", 2_000):
        page.wait_for_function("() => document.querySelector('#nb-pin-latitude').value !== ''", timeout=5_000)
        page.click(f"{overlay} dialog button:has-text('Pin it')")
        pinned = until(lambda: notebook_of_id(server, token, nid)["notebook"].get("pin"))
    still, _ = in_the_room(page, server, token, nid)
    check("…Pin… opens the pin's picker in the overlay and pins the notebook where the phone is, still in the room (on the server)",
          bool(pinned) and abs(pinned["latitude"] - HERE["latitude"]) < 1e-5 and still, pinned)
    added = appears(page, f"{overlay} button:has-text('New page')", 2_000)
    colour = None
    if added:
        page.click(f"{overlay} button:has-text('New page')")
        page.check(f"{overlay} input[name=template][value='two-slots']")
        colour = page.eval_on_selector_all(f"{overlay} input[name=background]", "els => els.map((e) => e.value)")[-1]
        page.check(f"{overlay} input[name=background][value='{colour}']")
        screen(page, "a new page chosen in the room", "room-new-page")
        page.click(f"{overlay} button:has-text('Add page')")
        added = appears(page, f"{overlay} .where:text-is('Page 1 of 1')", 5_000)
    still, content = in_the_room(page, server, token, nid, pages=1)
    made = content["pages"][0] if content["pages"] else {}
    check("in the room, New page in the overlay adds a page of the layout and colour chosen there, still in the room (on the server)",
          added and still and (made.get("template"), made.get("background")) == ("two-slots", colour), (colour, made))

    with tempfile.TemporaryDirectory(prefix="quire-web-ar-room-") as data:
        leaf = picture(data)
        chose = False
        try:
            with page.expect_file_chooser(timeout=3_000) as chooser:
                page.click(f"{overlay} button:has-text('Picture')")
            chooser.value.set_files(leaf)
            chose = True
        except Exception:
            pass
        appears(page, f"{overlay} .xr-hint:text-is('The picture is on the page.')", 8_000)
        put = until(kinds)
        still, _ = in_the_room(page, server, token, nid)
        check("…Picture in the overlay opens the file chooser (camera or gallery) and the picture goes on the page, still in the room (on the server)",
              chose and put == ["image"] and still, put)

    page.fill("#xr-text", "Written in the room")
    page.click(f"{overlay} button:has-text('Write')")
    appears(page, f"{overlay} .xr-hint:text-is('Written on the page.')", 8_000)
    until(lambda: len(kinds()) == 2)
    page.click(f"{overlay} button:has-text('Change text…')")
    page.click(f"{overlay} .xr-panel button:has-text('Written in the room')")
    offered = page.input_value("#xr-change") if appears(page, "#xr-change", 2_000) else ""
    page.fill("#xr-change", "Kept from the room")
    page.click(f"{overlay} .xr-panel button:has-text('Save')")
    appears(page, f"{overlay} .xr-hint:text-is('Changed.')", 8_000)
    texts = until(lambda: [i.get("text") for p in notebook_of_id(server, token, nid)["pages"] for i in p["items"] if i.get("text") == "Kept from the room"])
    still, _ = in_the_room(page, server, token, nid)
    check("…Change text… in the overlay offers the item's text and saves the new one, still in the room (on the server)",
          offered == "Written in the room" and texts == ["Kept from the room"] and still, (offered, texts))
    page.click(f"{overlay} button:has-text('Remove…')")
    page.click(f"{overlay} .xr-panel button:has-text('Kept from the room')")
    asked = page.text_content(f"{overlay} .xr-question") if appears(page, f"{overlay} .xr-question", 2_000) else ""
    page.click(f"{overlay} .xr-panel button:has-text('Keep it')")
    page.wait_for_timeout(500)
    kept = sorted(kinds())
    page.click(f"{overlay} button:has-text('Remove…')")
    page.click(f"{overlay} .xr-panel button:has-text('Kept from the room')")
    screen(page, "removing an item in the room", "room-remove")
    page.click(f"{overlay} .xr-panel button.danger:has-text('Remove')")
    appears(page, f"{overlay} .xr-hint:text-is('Removed.')", 8_000)
    until(lambda: kinds() == ["image"])
    left = kinds()
    still, _ = in_the_room(page, server, token, nid)
    check("…Remove… asks in the overlay (Keep it keeps the item), then removes it from the server, still in the room",
          "Kept from the room" in asked and "Undo cannot bring it back" in asked and kept == ["image", "text"] and left == ["image"] and still,
          (asked, kept, left))

    page.click(f"{overlay} button:has-text('Colour')")
    other_colour = page.eval_on_selector_all(f"{overlay} input[name=background]:not(:checked)", "els => els.map((e) => e.value)")[0]
    page.check(f"{overlay} input[name=background][value='{other_colour}']")
    page.click(f"{overlay} .xr-panel button:has-text('Save colour')")
    appears(page, f"{overlay} .xr-hint:text-is(\"The page's colour is changed.\")", 8_000)
    coloured = until(lambda: notebook_of_id(server, token, nid)["pages"][0]["background"] == other_colour)
    still, _ = in_the_room(page, server, token, nid)
    check("…Colour in the overlay changes the page's colour, still in the room (on the server)", coloured and still,
          (other_colour, notebook_of_id(server, token, nid)["pages"][0]["background"]))

    page.click(f"{overlay} button:has-text('Share')")
    link = page.input_value("#xr-share-link") if appears(page, "#xr-share-link", 5_000) else ""
    page.click(f"{overlay} .xr-panel button:has-text('Copy link')")
    page.wait_for_timeout(300)
    copied = page.evaluate("navigator.clipboard.readText()")
    guest = napkin_notes.sign_up(server, "web-roomguest")
    status, accepted, _ = call(server, "POST", f"{N}/shared", {"token": urllib.parse.unquote(link.split("/#/accept/")[-1])}, token=guest) if link else (0, {}, None)
    still, _ = in_the_room(page, server, token, nid)
    check("…Share shows a read-only link in the overlay and Copy link copies it; another account opens it read-only, still in the room",
          "/#/accept/" in link and copied == link and status == 200 and accepted["notebook"]["id"] == nid
          and accepted["notebook"]["access"] == "read" and still and page.evaluate("window.__shared") is None, (link, copied, status, accepted))
    page.click(f"{overlay} .xr-panel button:has-text('Close')")

    go_offline(page)
    page.click(f"{overlay} button:has-text('New page')")
    page.click(f"{overlay} button:has-text('Add page')")
    waits = appears(page, f"{overlay} .xr-hint:has-text('No network')", 5_000)
    hint = page.text_content(f"{overlay} .xr-hint")
    still, _ = in_the_room(page, server, token, nid, pages=1)
    go_online(page)
    reached = until(lambda: len(notebook_of_id(server, token, nid)["pages"]) == 2, 15)
    check("…offline, New page in the overlay waits in the outbox (said there) and reaches the server once online, still in the room",
          waits and still and reached and page.is_visible(overlay), hint)

    webwalk.settled(page)
    page.click(f"{overlay} button:has-text('Delete page')")
    question = page.text_content(f"{overlay} .xr-question") if appears(page, f"{overlay} .xr-question", 5_000) else ""
    page.click(f"{overlay} .xr-panel button:has-text('Keep it')")
    page.wait_for_timeout(500)
    kept_pages = len(notebook_of_id(server, token, nid)["pages"])
    page.click(f"{overlay} button:has-text('Delete page')")
    page.click(f"{overlay} .xr-panel button.danger:has-text('Delete')")
    deleted = until(lambda: len(notebook_of_id(server, token, nid)["pages"]) == 1)
    still, _ = in_the_room(page, server, token, nid, pages=1)
    check("…Delete page asks the server's question in the overlay (Keep it keeps the page), then deletes it, still in the room",
          "Delete page 2" in question and kept_pages == 2 and deleted and still, (question, kept_pages))
    page.click(f"{overlay} button:has-text('Done')")
    page.wait_for_selector(overlay, state="detached")
    context.close()


def notebooks_screen(page, server, token):
    page.goto("/#/notebooks")
    page.wait_for_selector("nb-notebooks .big-link")
    screen(page, "my notebooks", "notebooks")
    page.click("nb-notebooks button.danger >> nth=0")
    page.wait_for_selector("dialog.confirm")
    page.click("dialog.confirm button.danger")
    page.wait_for_function("() => !document.querySelector('nb-notebooks button.danger')")
    _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
    check("a notebook is deleted after its confirmation (UC-8)", listing["items"] == [], listing)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    parser.add_argument("--only", help="run only these parts that stand alone (comma-separated function names), while working on them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-ar-") as data:
        provider = ar_notebook.Provider()
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=ar_notebook.make_config(data, provider))
        videos = frames(data)

        def walk(browser):
            if args.only:
                for name in args.only.split(","):
                    globals()[name](browser, server)
                return
            provider_sign_in(browser, server, provider)
            context, page = phone(browser, server)
            token = owner_walk(page, server, data)
            follows_sync(browser, server, page, token)
            offline_text(page, server, token)
            drafts_and_header(browser, server)
            undo_after_change(browser, server)
            two_phones_one_text(browser, server)
            one_box_page(browser, server)
            offline_change_meets_another(browser, server)
            covers(browser, server)
            pictures_offline(browser, server)
            offline_notebook(browser, server, page, token)
            opened_offline(page, server, token)
            fifty_pages_landscape(browser, server, token)
            share_and_pin(browser, server, page, token)
            pins_for_finders(browser, server)
            battery(page)
            battery_without_api(browser, server)
            camera(page, True, "dark")
            room_with_xr(browser, server)
            room_controls(browser, server)
            room_actions(browser, server)
            # A second browser whose camera sees daylight.
            daylight = browser.browser_type.launch(executable_path=webwalk.chromium_path(), args=[
                "--no-sandbox", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                f"--use-file-for-fake-video-capture={videos['daylight']}"])
            try:
                _, other = phone(daylight, server)
                open_notebook(other, "web-ann")
                camera(other, False, "daylight")
            finally:
                daylight.close()
            long_names(page, server, token)
            notebooks_screen(page, server, token)
        code = webwalk.run(server, walk, args=["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                                               f"--use-file-for-fake-video-capture={videos['dark']}"])
    sys.exit(code)


if __name__ == "__main__":
    main()
