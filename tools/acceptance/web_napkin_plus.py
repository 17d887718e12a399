#!/usr/bin/env python3
"""The web client of Napkin Notes+ (config/apps/napkin-plus.yaml) in a real browser, on a phone
(390×844, touch): category chips that narrow the list, search as you type, a category and a
reminder set on a note, the note mailed (aiosmtpd on loopback, STARTTLS), a new note geotagged
where the phone is and found by "Written near here", and an Evernote export
imported from the list with its progress and its report. axe-core checks each screen; screenshots
go to docs/screenshots/napkin-plus-*.png.

    python3 tools/acceptance/web_napkin_plus.py --binary .build/debug/quire
"""
import argparse
import datetime
import email
import email.policy
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mail  # noqa: E402  (the SMTP server on loopback and its certificate)
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from webwalk import accessible, phone, token_of  # noqa: E402

CONFIG = os.path.join(napkin_notes.ROOT, "config", "apps", "napkin-plus.yaml")

ENEX = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE en-export SYSTEM "http://xml.evernote.com/pub/evernote-export3.dtd">
<en-export export-date="20260101T120000Z" application="Evernote" version="10.0">
<note><title>Recipe: pancakes</title><content><![CDATA[<?xml version="1.0" encoding="UTF-8"?><en-note><div>flour, milk, eggs</div><ul><li>mix</li><li>fry</li></ul></en-note>]]></content><created>20250301T080000Z</created><tag>Home</tag></note>
<note><title>Trip ideas</title><content><![CDATA[<en-note><div>Lisbon &amp; Porto</div></en-note>]]></content><created>20250302T080000Z</created><tag>Travel</tag></note>
<note><title>Broken</title><created>someday</created></note>
</en-export>
"""


def shot(page, name):
    webwalk.shot(page, "napkin-plus", name)


def titles(page):
    return page.eval_on_selector_all("ol.notes li.note .title", "els => els.map(e => e.textContent)")


def walk(browser, server, data, inbox):
    # The phone is at the Eiffel Tower and lets the site know, taking a second and a half to find
    # itself as phones do: the note's create is answered before the position comes, so the geotag
    # is queued for a note that already has its server id.
    slow_fix = """{
      const find = navigator.geolocation.getCurrentPosition.bind(navigator.geolocation);
      navigator.geolocation.getCurrentPosition = (ok, fail, options) => setTimeout(() => find(ok, fail, options), 1500);
    }"""
    context, page = phone(browser, server, init_script=slow_fix, geolocation={"latitude": 48.8584, "longitude": 2.2945, "accuracy": 20},
                          permissions=["geolocation"])
    page.goto("/")
    webwalk.sign_in(page, "web-plus", create=True)
    page.wait_for_selector("notes-list h1")
    token = token_of(page)
    for title, text, category in [("Groceries", "milk, eggs", "Home"), ("Meeting", "bring the groceries list", "Work"),
                                  ("Quarterly plan", "numbers", "Work")]:
        call(server, "POST", "/api/v1/notes", {"title": title, "text": text, "category": category}, token=token)
    page.wait_for_function("() => document.querySelectorAll('ol.notes li.note').length === 3", timeout=10_000)

    # Categories: chips with counts; one narrows the list.
    chips = page.eval_on_selector_all("ul.chips button", "els => els.map(e => e.textContent)")
    check("the list shows the categories in use, with counts, and 'Written near here'", chips == ["All", "Home (1)", "Work (2)", "Written near here"], chips)
    page.click("ul.chips >> text=Work (2)")
    page.wait_for_function("() => document.querySelectorAll('ol.notes li.note').length === 2")
    check("a category chip narrows the list to its notes, in the user's order", titles(page) == ["Meeting", "Quarterly plan"], titles(page))
    accessible(page, "the list, one category")
    shot(page, "categories")
    page.click("ul.chips >> text=All")

    # Search as you type: the server's index, titles before texts.
    page.fill("#notes-search", "grocer")
    page.wait_for_function("() => [...document.querySelectorAll('ol.notes li.note .title')].map(e => e.textContent).join() === 'Groceries,Meeting'",
                           timeout=5_000)
    check("search as you type: the title match first, then the text match", titles(page) == ["Groceries", "Meeting"], titles(page))
    accessible(page, "the list, searched")
    shot(page, "search")
    page.fill("#notes-search", "")

    # A note's category, reminder and mail.
    page.click("li.note >> text=Groceries")
    page.wait_for_selector("#note-category")
    check("the editor shows the note's category", page.input_value("#note-category") == "Home")
    page.fill("#note-category", "Errands")
    webwalk.settled(page)
    notes = {n["title"]: n for n in call(server, "GET", "/api/v1/notes", token=token)[1]["items"]}
    check("a category typed in the editor is saved", notes["Groceries"].get("category") == "Errands", notes["Groceries"])
    when = (datetime.datetime.now() + datetime.timedelta(days=2)).replace(hour=9, minute=30, second=0, microsecond=0)
    page.fill("#note-reminder", when.strftime("%Y-%m-%dT%H:%M"))
    page.click("text=Set reminder")
    page.wait_for_function("() => document.querySelector('#note-reminder-status')?.textContent.startsWith('You will be reminded')")
    reminders = call(server, "GET", "/api/v1/reminders", token=token)[1]["items"]
    expected = when.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M")
    check("Set reminder: the server keeps one pending reminder at the time picked",
          len(reminders) == 1 and reminders[0]["state"] == "pending" and reminders[0]["at"].startswith(expected)
          and reminders[0]["subject"] == f"notes/{notes['Groceries']['id']}", (reminders, expected))
    page.wait_for_selector("fieldset.reminder >> text=Move reminder", timeout=10_000)
    check("…and the block then offers to move or clear it", page.is_visible("fieldset.reminder >> text=Clear"))
    accessible(page, "the editor with category and reminder")
    shot(page, "editor")
    page.click("fieldset.reminder >> text=Clear")
    page.wait_for_selector("fieldset.reminder >> text=Set reminder", timeout=10_000)
    pending = [r for r in call(server, "GET", "/api/v1/reminders?state=pending", token=token)[1]["items"]]
    check("Clear cancels it on the server", pending == [] and page.text_content("#note-reminder-status") == "No reminder.",
          (pending, page.text_content("#note-reminder-status")))
    page.click("text=Email this note")
    page.fill("#email-to", "friend@example.org")
    page.click("dialog >> text=Send")
    page.wait_for_selector(".mail-status", timeout=30_000)
    status = page.text_content(".mail-status")
    deadline = time.time() + 10
    while not inbox and time.time() < deadline:
        time.sleep(0.1)
    subject = email.message_from_bytes(inbox[0][2], policy=email.policy.default)["subject"] if inbox else None
    check("Email this note: 'Sent to …' on the screen, and the message at the SMTP server",
          status == "Sent to friend@example.org." and subject == "Groceries", (status, subject))
    page.click("text=‹ Notes")

    # Where a note was written: a new note is geotagged from the phone's location, its editor names
    # the place, and "Written near here" finds it.
    page.click("text=New note")
    page.fill("#note-title", "Picnic")
    webwalk.settled(page)
    picnic = next(n for n in call(server, "GET", "/api/v1/notes", token=token)[1]["items"] if n["title"] == "Picnic")
    deadline = time.time() + 10
    status, tag = 0, None
    while time.time() < deadline and status != 200:
        status, tag, _ = call(server, "GET", f"/api/v1/geo/tags?subject=notes/{picnic['id']}", token=token)
        time.sleep(0.2)
    check("a new note is geotagged where the phone is", status == 200 and abs(tag["latitude"] - 48.8584) < 1e-6, (status, tag))
    page.click("text=‹ Notes")
    page.click("li.note >> text=Picnic")
    page.wait_for_selector("p.place:has-text('Paris')", timeout=10_000)
    check("its editor says where it was written", "Written near Paris" in page.text_content("p.place"), page.text_content("p.place"))
    page.click("text=‹ Notes")
    page.click("text=Written near here")
    page.wait_for_function("() => document.querySelectorAll('ol.notes li.note').length === 1")
    check("'Written near here' narrows the list to the notes written within a kilometre", titles(page) == ["Picnic"], titles(page))
    page.click("text=Written near here")
    page.wait_for_function("() => document.querySelectorAll('ol.notes li.note').length === 4")

    # Import an Evernote export from the list: progress, then the report.
    path = os.path.join(data, "Evernote.enex")
    with open(path, "w") as handle:
        handle.write(ENEX)
    page.set_input_files(".import input[type=file]", path)
    page.wait_for_selector(".import-progress >> text=Imported 2 notes", timeout=30_000)
    page.wait_for_function("() => document.querySelectorAll('ol.notes li.note').length === 6", timeout=10_000)
    report = page.text_content(".import-progress")
    check("Import: the report says what came in and which note had a problem", "Imported 2 notes from Evernote.enex" in report
          and "1 note with a problem" in report, report)
    check("…and the imported notes join the list after the user's", titles(page)[-2:] == ["Recipe: pancakes", "Trip ideas"], titles(page))
    page.click(".import-progress summary")
    accessible(page, "the list after an import")
    shot(page, "import")
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(napkin_notes.ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-plus-") as data:
        ca, cert, key = mail.certificate(data)
        inbox = []
        smtp_port = free_port()
        controller = mail.smtp_server(smtp_port, cert, key, inbox)
        os.environ.update(QUIRE_SMTP_HOST="127.0.0.1", QUIRE_SMTP_PORT=str(smtp_port), QUIRE_SMTP_USER=mail.USER,
                          QUIRE_SMTP_PASSWORD=mail.PASSWORD, QUIRE_SMTP_CA_FILE=ca)
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=CONFIG)
        try:
            code = webwalk.run(server, lambda browser: walk(browser, server, data, inbox))
        finally:
            controller.stop()
    sys.exit(code)


if __name__ == "__main__":
    main()
