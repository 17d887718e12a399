#!/usr/bin/env python3
"""Napkin Notes: a reminder set offline is kept on the phone and set once it is online. "Set
reminder" offline answered "You are offline; this is kept and sent when the network is back." but
nothing was kept: online again the server had no reminder, and a reload showed "No reminder." Now
it is kept on the phone (reminder-kept.js), said so, survives a reload, and is sent once online.

Prints one line per check and `web acceptance: N passed, N failed` last.

    python3 tools/acceptance/web_reminder_offline.py --binary .build/debug/quire
"""
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webwalk  # noqa: E402
from napkin_notes import call, check  # noqa: E402
from web_no_lost_work import new_note, new_user  # noqa: E402


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
    check("set offline, the phone says the reminder is kept on it until it is online",
          "kept on this phone" in said and "You will be reminded" in said, said)
    page.reload()
    page.wait_for_selector("#note-reminder-status")
    said = page.locator("#note-reminder-status").inner_text()
    check("reloaded offline, it is still kept, at the time picked",
          "kept on this phone" in said and page.get_by_label("Reminder time").input_value() == when, said)
    context.set_offline(False)
    on_server = webwalk.wait_for(page, lambda: call(server, "GET", "/api/v1/reminders", token=token)[1].get("items", []), tries=100)
    expected = datetime.datetime.strptime(when, "%Y-%m-%dT%H:%M").astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M")
    check("online again, the server has that reminder, pending, at the time picked",
          len(on_server or []) == 1 and on_server[0]["state"] == "pending" and on_server[0]["at"].startswith(expected), (on_server, expected))
    shown = webwalk.wait_for(page, lambda: (lambda t: t.startswith("You will be reminded") and "kept" not in t)(page.locator("#note-reminder-status").inner_text()))
    webwalk.shot(page, "napkin", "reminder-offline")
    check("and the note says it plainly: 'You will be reminded …' with Move reminder", shown
          and page.get_by_role("button", name="Move reminder").count() == 1, page.locator("#note-reminder-status").inner_text())
    context.close()


def main():
    webwalk.main([("napkin", "napkin-notes", reminder_offline)])


if __name__ == "__main__":
    main()
