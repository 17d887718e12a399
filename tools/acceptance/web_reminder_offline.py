#!/usr/bin/env python3
"""Napkin Notes: a reminder set offline is never said to be kept when it is not. "Set reminder"
offline answered "You are offline; this is kept and sent when the network is back." but nothing
was kept: online again the server had no reminder, and a reload showed "No reminder." Now the
phone says the reminder was not set and to set it again online (the time picked stays in the box).

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_reminder_offline.py --binary .build/debug/quire
"""
import argparse
import datetime
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from web_no_lost_work import new_note, new_user  # noqa: E402

ROOT = napkin_notes.ROOT
NAPKIN = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")


def reminder_offline(browser, server):
    context, page = new_user(browser, server, "reminded")
    token = webwalk.token_of(page)
    new_note(page, "Dentist")
    context.set_offline(True)
    when = (datetime.datetime.now() + datetime.timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    page.get_by_label("Reminder time").fill(when)
    page.get_by_role("button", name="Set reminder").click()
    page.wait_for_timeout(500)
    said = page.locator("#note-reminder-status").inner_text()
    context.set_offline(False)
    page.wait_for_timeout(5_000)
    on_server = call(server, "GET", "/api/v1/reminders", token=token)[1].get("items", [])
    webwalk.shot(page, "napkin", "reminder-offline")
    check("a reminder set offline is on the server once online, or the phone says it was not set",
          on_server or ("not set" in said and "kept" not in said), (said, on_server))
    check("the time picked stays in the box to set again", page.get_by_label("Reminder time").input_value() == when)
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    binary = os.path.abspath(parser.parse_args().binary)
    with tempfile.TemporaryDirectory(prefix="quire-web-") as data:
        server = napkin_notes.Server(binary, data, free_port(), config=NAPKIN)
        sys.exit(webwalk.run(server, lambda browser: reminder_offline(browser, server)))


if __name__ == "__main__":
    main()
