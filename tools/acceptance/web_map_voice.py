#!/usr/bin/env python3
"""iRemember's map and recorded captions, Foreign Note's recorded pronunciation (issue 41), in a
real browser: Debian's Chromium at a phone's size (390×844, touch) with a fake microphone
(`--use-fake-device-for-media-stream`: a beep; `--use-fake-ui-for-media-stream`: allowed as a
person would), against the real server and the shipped configs (album: { map: true }, audio: {…}),
map tiles from a stub on loopback (web: map_tiles, as the Napkin walk does). Controls are found by
their labels.

iRemember: a photo with EXIF GPS (the Eiffel Tower) is on the map as a marker named by its place;
tapping it opens the place's photos, and tapping the photo opens it. Offline, after a reload, the
map screen still lists the place and opens its photos. On the photo, "Record the caption in your
voice" records ~2 s; after a reload the big Play button plays it (the <audio>'s duration > 1 s),
in the slideshow too; a second phone on the same account plays it; deleting asks first, Cancel
keeps it. Persistent storage: after the first photo the browser was asked once, and Settings says
what it answered. Foreign Note: "Record the pronunciation" on a word, played after a reload beside
the speaker button, on the server as Ogg Opus; exported to .apkg (Anki media) and imported into
another account with the same audio bytes. axe-core on each screen; screenshots in
.build/screenshots/mapvoice-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
    python3 tools/acceptance/web_map_voice.py --binary .build/debug/quire
"""
import argparse
import io
import json
import os
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iremember  # noqa: E402  (the album's harness: Server, make_config, jpeg)
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from web_napkin import TileStub  # noqa: E402  (map tiles on loopback)
from web_voice import FAKE_MICROPHONE, wait_for  # noqa: E402
from webwalk import accessible, settled, token_of  # noqa: E402

ROOT = napkin_notes.ROOT
FOREIGN_NOTE = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")
V = "/api/v1/vocabulary"
PHOTOS = "/api/v1/album/photos"
EIFFEL = (48.8584, 2.2945)
# Counts the asks for persistent storage (navigator.storage.persist), as the browser answers them.
COUNT_PERSIST = """(() => {
  window.__persistAsks = 0;
  const storage = navigator.storage;
  if (!storage || !storage.persist) return;
  const original = storage.persist.bind(storage);
  storage.persist = () => { window.__persistAsks += 1; return original(); };
})();"""


def shot(page, name):
    webwalk.shot(page, "mapvoice", name)


def player(page, scope):
    """The <audio> under `scope`: its duration once its metadata is read, and whether it plays."""
    return page.evaluate("""async (scope) => {
      const audio = document.querySelector(scope + ' audio');
      if (!audio) return null;
      for (let i = 0; i < 100 && !audio.src; i++) await new Promise((r) => setTimeout(r, 100));
      if (audio.readyState < 1) await new Promise((resolve) => {
        audio.addEventListener('loadedmetadata', resolve, { once: true });
        audio.addEventListener('error', resolve, { once: true });
        setTimeout(resolve, 10000);
      });
      let duration = audio.duration;
      if (duration === Infinity) {
        audio.currentTime = 1e9;
        await new Promise((r) => setTimeout(r, 500));
        duration = audio.duration;
        audio.currentTime = 0;
      }
      return { src: audio.src.slice(0, 5), duration, error: audio.error && audio.error.code };
    }""", scope)


def plays_on_tap(page, scope, name):
    """Taps the big Play button named `name` under `scope`: the <audio> then plays (muted)."""
    page.evaluate("scope => { const a = document.querySelector(scope + ' audio'); if (a) a.muted = true; }", scope)
    page.locator(scope).get_by_role("button", name=name).click()
    return page.evaluate("""async (scope) => {
      const audio = document.querySelector(scope + ' audio');
      for (let i = 0; i < 50 && audio && audio.currentTime < 0.2; i++) await new Promise((r) => setTimeout(r, 100));
      const played = audio ? audio.currentTime : 0;
      audio?.pause();
      return played;
    }""", scope)


def record(page, scope, button, seconds=2):
    """Taps the Record button by its label, waits `seconds` by the screen's clock, taps Stop."""
    page.locator(scope).get_by_role("button", name=button).click()
    page.wait_for_selector(f"{scope} .voice-elapsed")
    page.wait_for_function("([scope, s]) => document.querySelector(scope + ' .voice-elapsed')?.textContent === s",
                           arg=[scope, f"0:{seconds:02d}"], timeout=15_000)
    page.locator(scope).get_by_role("button", name="Stop").click()


def iremember_walk(browser, server, data, tiles):
    context, page = webwalk.phone(browser, server, init_script=COUNT_PERSIST, permissions=["microphone"])
    page.goto("/")
    page.click("text=Get Started")
    page.wait_for_selector("album-home")
    token = token_of(page)
    check("before any photo, the browser was not asked to keep the album", page.evaluate("window.__persistAsks") == 0)

    # A photo with EXIF GPS at the Eiffel Tower, chosen from the phone.
    path = os.path.join(data, "eiffel.jpg")
    with open(path, "wb") as handle:
        handle.write(iremember.jpeg(data, "eiffel-source.jpg", gps=EIFFEL, taken="2024:07:15 09:00:00", seed=40))
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Choose From Phone").click()
    chooser.value.set_files(path)
    page.wait_for_selector("album-markup #photo-notes", timeout=15_000)
    page.fill("#photo-notes", "Our trip to Paris")
    settled(page)
    photos = wait_for(page, lambda: call(server, "GET", PHOTOS, token=token)[1].get("items"))
    photo_id = photos[0]["id"]
    status, photo, _ = call(server, "GET", f"{PHOTOS}/{photo_id}", token=token)
    check("the photo is on the server with its EXIF location, named Paris",
          status == 200 and abs(photo["location"]["latitude"] - EIFFEL[0]) < 1e-3 and photo.get("place", {}).get("label", "").startswith("Paris"),
          (status, photo.get("location"), photo.get("place")))
    asks = page.evaluate("window.__persistAsks")
    kept = page.evaluate("localStorage.getItem('iremember.persistAsked')")
    check("after the first photo is saved the browser is asked once to keep the album (persistent storage)", asks == 1 and kept in ("granted", "denied"),
          (asks, kept))

    # The map: a marker named by the place, on tiles from the configured server.
    page.goto("/#/")
    page.wait_for_selector("album-home")
    page.get_by_role("link", name="Map").click()
    page.wait_for_selector("album-photo-map map-view .leaflet-marker-icon", timeout=15_000)
    page.wait_for_function("() => [...document.querySelectorAll('map-view img.leaflet-tile')].some(t => t.complete && t.naturalWidth === 256)",
                           timeout=15_000)
    alt = page.get_attribute("album-photo-map .leaflet-marker-icon", "alt") or ""
    check("the map shows the geotagged photo's place as one marker, on tiles from the configured server",
          page.locator("album-photo-map .leaflet-marker-icon").count() == 1 and alt.startswith("Paris") and "1 photo" in alt and tiles.count > 0,
          (alt, tiles.count, page.text_content("map-view .map-status")))
    check("the places are also listed under the map, as big links", page.get_by_role("link", name="Paris").count() >= 1,
          page.inner_text("album-photo-map main")[:300])
    accessible(page, "the map of photos")
    shot(page, "map")
    page.locator("album-photo-map").get_by_alt_text(alt).click()
    page.wait_for_selector("album-map-place ul.grid a.cell", timeout=10_000)
    check("tapping the marker opens the place's photos", page.locator("album-map-place ul.grid a.cell").count() == 1
          and "Paris" in page.inner_text("album-map-place h1"), page.inner_text("album-map-place main")[:200])
    accessible(page, "a place's photos")
    shot(page, "map-place")
    page.locator("album-map-place ul.grid a.cell").click()
    page.wait_for_selector("album-photo figure img", timeout=15_000)
    check("tapping the photo there opens it", page.evaluate("location.hash") == f"#/photo/{photo_id}", page.evaluate("location.hash"))

    # The recorded caption.
    scope = "album-photo recorded-voice"
    check("the photo offers “Record the caption in your voice”",
          page.locator("album-photo").get_by_role("button", name="Record the caption in your voice").count() == 1)
    record(page, scope, "Record the caption in your voice")
    page.wait_for_selector(f"{scope} audio", state="attached", timeout=20_000)
    settled(page)
    status, body, _ = call(server, "GET", f"{PHOTOS}/{photo_id}", token=token)
    check("the recorded caption is on the photo on the server, about 2 s long", status == 200 and 1500 <= (body.get("voiceMs") or 0) <= 4000,
          (status, body.get("voice"), body.get("voiceMs")))
    status, ogg, headers = call(server, "GET", f"{PHOTOS}/{photo_id}/voice", token=token)
    check("the server serves it as Ogg Opus", status == 200 and isinstance(ogg, bytes) and ogg[:4] == b"OggS" and b"OpusHead" in ogg[:100],
          (status, headers.get("Content-Type")))
    page.reload()
    page.wait_for_selector(f"{scope} audio", state="attached", timeout=20_000)
    state = player(page, scope)
    check("after a reload the recorded caption is there: its audio's duration > 1 s", state and state["duration"] and 1 < state["duration"] < 10, state)
    played = plays_on_tap(page, scope, "Play the recorded caption")
    check("the big “Play the recorded caption” button plays it", played > 0.2, played)
    sizes = page.eval_on_selector_all(f"{scope} button", "els => els.map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])")
    check("its buttons are big (at least 44×44 px)", sizes and all(w >= 44 and h >= 44 for w, h in sizes), sizes)
    accessible(page, "a photo with its recorded caption")
    page.locator(scope).scroll_into_view_if_needed()
    shot(page, "caption")

    # The slideshow plays it too.
    page.goto("/#/slideshow")
    page.wait_for_selector("album-slideshow .slide-voice audio", state="attached", timeout=15_000)
    state = player(page, "album-slideshow .slide-voice")
    check("the slideshow has the big Play button for the slide's recorded caption (duration > 1 s)",
          state and state["duration"] and state["duration"] > 1, state)
    box = page.locator("album-slideshow .slide-voice button").bounding_box()
    check("it fits the phone's width, its words not cut", box and box["x"] >= 0 and box["x"] + box["width"] <= 390
          and page.evaluate("""() => { const w = document.querySelector('album-slideshow .slide-voice .word').getBoundingClientRect();
            const b = document.querySelector('album-slideshow .slide-voice button').getBoundingClientRect();
            return w.left >= b.left && w.right <= b.right; }"""), box)
    played = plays_on_tap(page, "album-slideshow .slide-voice", "Play the recorded caption")
    check("tapped, it plays and holds the show on this photo (the show's button says Play)",
          played > 0.2 and page.locator("album-slideshow .controls").get_by_role("button", name="Play", exact=True).count() == 1, played)
    accessible(page, "the slideshow with a recorded caption")
    shot(page, "slideshow")

    # A second phone on the same account hears it.
    session = page.evaluate("localStorage.getItem('quire.session')")
    second, other = webwalk.phone(browser, server, init_script=f"localStorage.setItem('quire.session', {json.dumps(session)});")
    other.goto(f"/#/photo/{photo_id}")
    other.wait_for_selector(f"{scope} audio", state="attached", timeout=30_000)
    state = player(other, scope)
    check("a second phone on the account plays the recorded caption (duration > 1 s)", state and state["duration"] and state["duration"] > 1, state)
    second.close()

    # Deleting asks first; Cancel keeps it.
    page.goto(f"/#/photo/{photo_id}")
    page.wait_for_selector(f"{scope} audio", state="attached", timeout=20_000)
    page.locator(scope).get_by_role("button", name="Delete recorded caption").click()
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    check("Cancel keeps the recorded caption", page.locator(f"{scope} audio").count() == 1)
    page.locator(scope).get_by_role("button", name="Delete recorded caption").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    page.locator(scope).get_by_role("button", name="Record the caption in your voice").wait_for(timeout=10_000)
    settled(page)
    status, body, _ = call(server, "GET", f"{PHOTOS}/{photo_id}", token=token)
    gone = call(server, "GET", f"{PHOTOS}/{photo_id}/voice", token=token)[0]
    check("Delete (after the question) takes it off the photo and the server", status == 200 and not body.get("voice") and gone == 404, (body.get("voice"), gone))

    # Settings says whether the browser keeps the album.
    page.goto("/#/settings")
    page.wait_for_selector("#keeping-status")
    page.wait_for_function("() => !document.querySelector('#keeping-status').textContent.startsWith('Asking')")
    words = page.text_content("#keeping-status")
    check("Settings says whether the browser keeps the album on this phone", "keeps your album" in words or "may clear" in words, words)
    accessible(page, "Settings with persistent storage")
    shot(page, "settings")

    # Offline: the map screen still lists the place and opens its photos.
    page.goto("/#/map")
    page.wait_for_selector("album-photo-map .leaflet-marker-icon", timeout=15_000)
    context.set_offline(True)
    page.reload()
    page.wait_for_selector("album-photo-map", timeout=15_000)
    page.wait_for_function("() => document.querySelector('album-photo-map map-view .map-status')?.textContent", timeout=15_000)
    page.wait_for_timeout(1500)
    status_text = page.text_content("album-photo-map map-view .map-status")
    markers = page.locator("album-photo-map .leaflet-marker-icon").count()
    check("offline after a reload, the map still marks the place (Leaflet kept by the service worker) or says why in words",
          markers == 1 or "offline" in status_text or "internet" in status_text, (markers, status_text))
    shot(page, "map-offline")
    page.get_by_role("link", name="Paris").first.click()
    page.wait_for_selector("album-map-place ul.grid a.cell", timeout=10_000)
    check("offline, the place's link opens its photos", page.locator("album-map-place ul.grid a.cell").count() == 1)
    context.set_offline(False)
    context.close()


def foreign_note_walk(browser, server):
    context, page = webwalk.phone(browser, server, permissions=["microphone"])
    page.goto("/")
    webwalk.sign_in(page, "mapvoice-lea", "a good password", create=True)
    page.wait_for_selector("vocab-collections")
    page.get_by_role("button", name="New collection").click()
    page.fill("dialog #name-input", "Words")
    page.get_by_role("dialog").get_by_role("button", name="Save").click()
    page.wait_for_selector("vocab-collection h1:has-text('Words')")
    page.get_by_role("link", name="Add word").or_(page.get_by_role("button", name="Add word")).first.click()
    page.fill("#entry-word", "la pomme")
    page.fill("#entry-definitions", "apple")
    page.fill("#entry-languages", "fr")
    page.click("vocab-entry-form button:has-text('Save')")
    page.wait_for_selector("vocab-entry h1:has-text('la pomme')")
    settled(page)
    token = token_of(page)
    entry_id = wait_for(page, lambda: next((e["id"] for e in call(server, "GET", f"{V}/search?q=pomme", token=token)[1].get("items", [])
                                            if not e["id"].startswith("local:")), None))
    scope = "vocab-entry recorded-voice"
    record(page, scope, "Record the pronunciation")
    page.wait_for_selector(f"{scope} audio", state="attached", timeout=20_000)
    settled(page)
    status, entry, _ = call(server, "GET", f"{V}/entries/{entry_id}", token=token)
    check("the recorded pronunciation is on the word on the server, about 2 s long",
          status == 200 and 1500 <= (entry.get("pronunciationMs") or 0) <= 4000, (status, entry))
    status, ogg, _ = call(server, "GET", f"{V}/entries/{entry_id}/pronunciation", token=token)
    check("the server serves the pronunciation as Ogg Opus", status == 200 and isinstance(ogg, bytes) and ogg[:4] == b"OggS", status)
    page.reload()
    page.wait_for_selector(f"{scope} audio", state="attached", timeout=20_000)
    state = player(page, scope)
    check("after a reload the word has its recorded pronunciation (duration > 1 s)", state and state["duration"] and state["duration"] > 1, state)
    order = page.eval_on_selector_all("vocab-entry main > *", "els => els.map(e => e.tagName.toLowerCase() + (e.classList.contains('speak') ? '.speak' : ''))")
    check("its Play button is beside the speaker button, under the word", "button.speak" in order and order.index("recorded-voice") == order.index("button.speak") + 1, order)
    played = plays_on_tap(page, scope, "Play the recorded pronunciation")
    check("“Play the recorded pronunciation” plays it", played > 0.2, played)
    accessible(page, "a word with its recorded pronunciation")
    shot(page, "pronunciation")

    # .apkg: exported with its [sound:…] media, imported into another account, the same audio bytes.
    status, package, _ = call(server, "GET", f"{V}/export?format=apkg", token=token, timeout=30)
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        media = json.loads(archive.read("media"))
        held = {name: archive.read(number) for number, name in media.items()}
    check("the .apkg export carries the pronunciation as Anki media (the media map and the file, Ogg Opus)",
          status == 200 and len(held) == 1 and list(held.values())[0] == ogg, (status, media))
    other = napkin_notes.sign_up(server, "mapvoice-ben")
    status, job, _ = call(server, "POST", f"{V}/imports", token=other, raw=package, content_type="application/zip", timeout=30)
    for _ in range(100):
        if not job or job.get("state") != "running":
            break
        page.wait_for_timeout(100)
        job = call(server, "GET", f"{V}/imports/{job['id']}", token=other)[1]
    imported = next(iter(call(server, "GET", f"{V}/search?q=pomme", token=other)[1].get("items", [])), {})
    back = call(server, "GET", f"{V}/entries/{imported.get('id')}/pronunciation", token=other)
    check("imported into another account, the word is 'la pomme' with the same pronunciation bytes",
          job and job.get("state") == "succeeded" and imported.get("word") == "la pomme" and back[0] == 200 and back[1] == ogg,
          (job, imported.get("word"), back[0]))
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    tiles = TileStub()
    os.environ["QUIRE_MAP_TILES"] = tiles.origin + "/{z}/{x}/{y}.png"
    codes = []
    with tempfile.TemporaryDirectory(prefix="quire-web-mapvoice-") as data:
        server = iremember.Server(binary, data, free_port())
        server.config = iremember.make_config(data)
        codes.append(webwalk.run(server, lambda browser: iremember_walk(browser, server, data, tiles), args=FAKE_MICROPHONE))
    with tempfile.TemporaryDirectory(prefix="quire-web-mapvoice-fn-") as data:
        server = napkin_notes.Server(binary, data, free_port(), config=FOREIGN_NOTE)
        codes.append(webwalk.run(server, lambda browser: foreign_note_walk(browser, server), args=FAKE_MICROPHONE))
    sys.exit(1 if any(codes) else 0)


if __name__ == "__main__":
    main()
