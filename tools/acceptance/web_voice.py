#!/usr/bin/env python3
"""Napkin Notes' voice note in a real browser (the seed's "voice recording integration"): Debian's
Chromium at a phone's size with a fake microphone (`--use-fake-device-for-media-stream`, a beep;
`--use-fake-ui-for-media-stream`, the permission granted as a person would), against the real
server and the shipped config (config/apps/napkin-notes.yaml, its `audio:` line).

The microphone is asked for only on the tap; a ~2 s recording shows its elapsed time and Stop, is
on the note and on the server as Ogg Opus, plays after a reload (the <audio> element's duration is
over a second, and it plays) and offline once heard; recorded offline it waits in the outbox, plays from the phone, and
reaches the server once back online; deleted, it is gone from the note and the server. axe-core on
the note with its voice note.

Prints one line per check and `web acceptance: N passed, N failed` last.
    python3 tools/acceptance/web_voice.py --binary .build/debug/quire
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
import webwalk  # noqa: E402  (the browser: Chromium at a phone's size, axe, screenshots)
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import accessible, phone, token_of  # noqa: E402

ROOT = napkin_notes.ROOT
CONFIG = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")
FAKE_MICROPHONE = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream", "--autoplay-policy=no-user-gesture-required"]
# Counts the page's asks for the microphone (the permission prompt on a real phone).
COUNT_ASKS = """(() => {
  window.__microphoneAsks = 0;
  const md = navigator.mediaDevices;
  if (!md) return;
  const original = md.getUserMedia.bind(md);
  md.getUserMedia = (constraints) => { window.__microphoneAsks += 1; return original(constraints); };
})();"""


def server_note(server, token, note_id):
    _, body, _ = call(server, "GET", f"/api/v1/notes/{note_id}", token=token)
    return body


wait_for = webwalk.wait_for


def record(page, seconds):
    """Taps Record, waits `seconds` by the screen's own clock, taps Stop; answers what the clock showed."""
    page.click("note-voice button.record-voice")
    page.wait_for_selector("note-voice .voice-elapsed")
    page.wait_for_function("s => document.querySelector('note-voice .voice-elapsed')?.textContent === s",
                           arg=f"0:{seconds:02d}", timeout=15_000)
    shown = page.inner_text("note-voice .voice-recording")
    page.click("note-voice button.stop-voice")
    return shown


def player_state(page):
    """The note's <audio>: its duration once its metadata is read, and whether it plays."""
    return page.evaluate("""async () => {
      const audio = document.querySelector('note-voice audio');
      if (!audio) return null;
      for (let i = 0; i < 100 && !audio.src; i++) await new Promise((r) => setTimeout(r, 100));
      if (audio.readyState < 1) await new Promise((resolve) => {
        audio.addEventListener('loadedmetadata', resolve, { once: true });
        audio.addEventListener('error', resolve, { once: true });
        setTimeout(resolve, 10000);
      });
      let duration = audio.duration;
      if (duration === Infinity) {  // a stream whose length is found by seeking to its end
        audio.currentTime = 1e9;
        await new Promise((r) => setTimeout(r, 500));
        duration = audio.duration;
        audio.currentTime = 0;
      }
      audio.muted = true;
      let played = false;
      // play() on an element without a source never settles: bounded.
      const playing = audio.play().then(() => true, (e) => String(e));
      played = await Promise.race([playing, new Promise((r) => setTimeout(() => r("play() did not start in 5 s"), 5000))]);
      if (played === true) { await new Promise((r) => setTimeout(r, 600)); played = audio.currentTime > 0.2; audio.pause(); }
      return { src: audio.src.slice(0, 5), duration, played, error: audio.error && audio.error.code };
    }""")


def walk(browser, server):
    context, page = phone(browser, server, init_script=COUNT_ASKS, permissions=["microphone"])
    headers = page.request.get(server.base + "/").headers
    check("the page's Permissions-Policy lets our own origin use the microphone", "microphone=(self)" in headers.get("permissions-policy", ""),
          headers.get("permissions-policy"))
    policy = headers.get("content-security-policy", "")
    check("the page's CSP lets <audio> play a recording held on the phone (media-src blob:), and still no inline script",
          "media-src 'self' blob:;" in policy and "unsafe-inline" not in policy.split("style-src")[0], policy)
    page.goto("/")
    webwalk.sign_in(page, "voice-ada", create=True)
    page.wait_for_selector("notes-list h1")
    page.click("text=New note")
    page.wait_for_selector("note-editor #note-title")
    page.fill("#note-title", "Lecture")
    webwalk.settled(page)
    token = token_of(page)
    notes = wait_for(page, lambda: call(server, "GET", "/api/v1/notes?limit=10", token=token)[1]["items"])
    note_id = notes[0]["id"]

    check("the note offers “Record a voice note”", page.is_visible("note-voice button:has-text('Record a voice note')"))
    check("the microphone is not asked for before the tap", page.evaluate("window.__microphoneAsks") == 0,
          page.evaluate("window.__microphoneAsks"))
    shown = record(page, 2)
    check("recording shows the time recorded and Stop (the tap asked for the microphone once)",
          "0:02" in shown and page.evaluate("window.__microphoneAsks") == 1, (shown, page.evaluate("window.__microphoneAsks")))
    page.wait_for_selector("note-voice audio", timeout=20_000)
    webwalk.settled(page)
    note = wait_for(page, lambda: (lambda n: n if n.get("voice") else None)(server_note(server, token, note_id)))
    check("the recording is on the note on the server, about 2 s long", note and 1500 <= note.get("voiceMs", 0) <= 4000, note)
    status, body, headers = call(server, "GET", f"/api/v1/notes/{note_id}/voice", token=token)
    check("the server serves it as Ogg Opus", status == 200 and isinstance(body, bytes) and body[:4] == b"OggS"
          and b"OpusHead" in body[:100] and headers.get("Content-Type", "").startswith("audio/ogg"), (status, headers.get("Content-Type")))
    accessible(page, "a note with its voice note")
    webwalk.shot(page, "napkin", "voice-note")

    page.reload()
    page.wait_for_selector("note-voice audio", timeout=20_000)
    state = player_state(page)
    check("after a reload the note plays its recording: the audio element's duration > 1 s, and it plays",
          state and state["duration"] and state["duration"] > 1 and state["duration"] < 10 and state["played"] is True, state)

    # Offline: recorded again, it waits in the outbox, plays from the phone, and is sent once back online.
    # Chromium's fake microphone plays the same beep, so two recordings can be the same file (the
    # same SHA-256): the note's version, not its voice's hash, shows the new upload arrived.
    first_version = server_note(server, token, note_id)["version"]
    context.set_offline(True)
    page.reload()
    page.wait_for_selector("note-voice audio", timeout=20_000)
    kept = player_state(page)
    check("offline, after a reload, the recording heard once still plays (kept on the phone like the photo)",
          kept and kept["duration"] and kept["duration"] > 1 and kept["played"] is True, kept)
    record(page, 2)
    page.wait_for_selector("note-voice .voice-line:has-text('waiting to upload')", timeout=20_000)
    offline_state = player_state(page)
    check("recorded offline: “waiting to upload”, and it plays from the phone (duration > 1 s)",
          offline_state and offline_state["duration"] and offline_state["duration"] > 1, offline_state)
    page.reload()
    page.wait_for_selector("note-voice .voice-line:has-text('waiting to upload')", timeout=20_000)
    check("a reload offline keeps it waiting in the outbox", page.is_visible("note-voice audio")
          and page.evaluate("navigator.onLine") is False, page.inner_text("note-voice"))
    context.set_offline(False)
    again = wait_for(page, lambda: (lambda n: n if n.get("voice") and n["version"] > first_version else None)(server_note(server, token, note_id)), tries=300)
    check("back online, the recording made offline reaches the server (a new Ogg Opus file)", bool(again), again)
    webwalk.settled(page)
    page.wait_for_selector("note-voice .voice-line:not(:has-text('waiting'))", timeout=20_000)

    # Deleted, with a confirmation.
    page.click("note-voice button.delete-voice")
    page.wait_for_selector("dialog.confirm")
    page.click("dialog.confirm button.danger")
    page.wait_for_selector("note-voice button:has-text('Record a voice note')")
    webwalk.settled(page)
    gone = wait_for(page, lambda: (lambda n: n if "voice" not in n else None)(server_note(server, token, note_id)))
    status, _, _ = call(server, "GET", f"/api/v1/notes/{note_id}/voice", token=token)
    check("Delete voice note: gone from the note and the server (404)", bool(gone) and status == 404, (gone, status))
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-voice-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=CONFIG)
        code = webwalk.run(server, lambda browser: walk(browser, server), args=FAKE_MICROPHONE)
    sys.exit(code)


if __name__ == "__main__":
    main()
