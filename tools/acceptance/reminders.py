#!/usr/bin/env python3
"""Reminders with the real binary (config/apps/napkin-notes.yaml): a reminder set on a note for one
minute ahead, the server restarted in between, fires once at its time. The device's live
connection gets one alert; the reminder is fired in the list and the feed; a second restart does
not fire it again.

    python3 tools/acceptance/reminders.py --binary .build/debug/quire
"""
import argparse
import datetime
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import call, check, free_port, results, sign_up  # noqa: E402

CONFIG = os.path.join(napkin_notes.ROOT, "config", "apps", "napkin-notes.yaml")


def alerts(port, token, seconds):
    """The reminder alerts a live connection receives within `seconds`."""
    from websockets.sync.client import connect
    received = []
    with connect(f"ws://127.0.0.1:{port}/api/v1/sync/live", open_timeout=5) as live:
        live.send(json.dumps({"type": "auth", "token": token}))
        ready = json.loads(live.recv(timeout=5))
        if ready.get("type") != "ready":
            raise RuntimeError(f"live connection not ready: {ready}")
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                message = json.loads(live.recv(timeout=max(0.05, deadline - time.monotonic())))
            except TimeoutError:
                break
            if message.get("type") == "alert" and message.get("kind") == "reminders.due":
                received.append((time.time(), message))
                deadline = min(deadline, time.monotonic() + 5)  # a few seconds more: a second alert would be a defect
    return received


def in_the_browser(server, token, note):
    """The phone client open when a reminder fires: it says so (and notifies, when allowed)."""
    import webwalk
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=webwalk.chromium_path(), args=["--no-sandbox"])
        try:
            _, page = webwalk.phone(browser, server)
            page.goto("/")
            webwalk.sign_in(page, "rita", "correct horse battery")
            page.wait_for_selector("quire-status")
            at = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
            call(server, "PUT", "/api/v1/reminders", {"subject": f"notes/{note}", "at": at, "title": "Cake is ready"}, token=token)
            page.wait_for_selector(".notice:has-text('Reminder: Cake is ready')", timeout=20_000)
            check("the open phone client shows the reminder when it fires", True)
            webwalk.screen(page, "napkin", "a reminder", "reminder")
        finally:
            browser.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(napkin_notes.ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-reminders-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=CONFIG)
        try:
            server.start()
            token = sign_up(server, "rita")
            status, note, _ = call(server, "POST", "/api/v1/notes", {"title": "Take the cake out"}, token=token)
            check("a note to be reminded of", status == 201, (status, note))
            due = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(seconds=60)
            at = due.strftime("%Y-%m-%dT%H:%M:%SZ")
            status, reminder, _ = call(server, "PUT", "/api/v1/reminders",
                                       {"subject": f"notes/{note['id']}", "at": at, "title": "Take the cake out"}, token=token)
            check("a reminder one minute ahead → pending", status == 200 and reminder["state"] == "pending", (status, reminder))
            check("the server stops cleanly with it pending", server.stop() == 0)
            server.start()
            got = alerts(server.port, token, 100)
            first = got[0][0] if got else None
            check("after a restart in between, it fires once, at its time, to the live connection",
                  len(got) == 1 and due.timestamp() - 1 <= first <= due.timestamp() + 10
                  and json.loads(json.dumps(got[0][1]["data"]))["subject"] == f"notes/{note['id']}",
                  [(round(t - due.timestamp(), 1), m) for t, m in got])
            _, listed, _ = call(server, "GET", "/api/v1/reminders", token=token)
            fired = listed["items"][0] if listed.get("items") else {}
            check("…the list says fired, and when", fired.get("state") == "fired" and fired.get("firedAt"), listed)
            _, feed, _ = call(server, "GET", "/api/v1/sync/changes?limit=100", token=token)
            shown = [i["record"] for i in feed["items"] if i["kind"] == "reminders.reminder"]
            check("…and the feed carries it fired, for a device that was offline", [r["state"] for r in shown] == ["fired"], shown)
            server.stop()
            server.start()
            again = alerts(server.port, token, 5)
            _, listed, _ = call(server, "GET", "/api/v1/reminders", token=token)
            check("another restart does not fire it again", again == [] and listed["items"][0]["firedAt"] == fired.get("firedAt"), (again, listed))
            in_the_browser(server, token, note["id"])
            server.stop()
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("reminders run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
    failed = results.count(False)
    print(f"reminders acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
