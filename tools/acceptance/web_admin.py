#!/usr/bin/env python3
"""The operator's screen (`/#/admin`, the admin plugin) in a real browser on a phone (390×844,
touch), on Napkin Notes (config/apps/napkin-notes.yaml, its mail section on): `quire admin grant` makes an account the
operator; the operator signs in, sees the users with what each stores and the storage in all,
sees a failed import job (storage refused a note mid-way, so the import failed whole) and a
recent error with its request id, disables a user (who then cannot sign in, and whose session
ends) and deletes one (their account and notes gone, checked through
the API). A non-operator gets 404 from every admin route, the manifest does not list them, and
the client shows no Admin link. Then Foreign Note with scheduled backups to two folders: a
deleted collection's purge in the jobs panel (owner, name, entries deleted); Back up now, its
result in the panel (what was written where, how big) and the restore points (one per folder,
verified, with the command that restores it); the second folder replaced by a file, and the next
backup's failure said with what to do, the folder named as unreadable; the command the panel shows,
run with the server stopped, restores. Every admin answer is checked against its schema in
docs/openapi.yaml. axe-core checks each screen; screenshots go to
.build/screenshots/admin-*.png (tools/screenshots: docs/screenshots/).

    python3 tools/acceptance/web_admin.py --binary .build/debug/quire
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mail  # noqa: E402  (the shipped config with its mail section on)
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port, sign_up  # noqa: E402
from webwalk import accessible, phone, sign_in  # noqa: E402

PASSWORD = "correct horse battery"
# An Evernote export whose second note storage refuses mid-way: its text is 30,000 characters, under
# notes' 100,000, but each is a letter with twenty combining strokes (41 bytes), 1.2 MB in all, over
# storage's 1 MiB a record. The batch holding it is refused, so the import fails whole and is rolled
# back: not even the first note, read before it, stays.
HEAVY_CHARACTER = "x" + "\u0336" * 20
REFUSED_ENEX = ("""<?xml version="1.0" encoding="UTF-8"?>
<en-export export-date="20260101T120000Z" application="Evernote" version="10.0">
<note><title>First</title><content><![CDATA[<en-note><div>one</div></en-note>]]></content><created>20250301T080000Z</created></note>
<note><title>Too heavy</title><content><![CDATA[<en-note><div>""" + HEAVY_CHARACTER * 30000 + """</div></en-note>]]></content></note>
</en-export>
""")
ADMIN_ROUTES = [("GET", "/api/v1/admin/me"), ("GET", "/api/v1/admin/users"), ("GET", "/api/v1/admin/users/acc_x"),
                ("PUT", "/api/v1/admin/users/acc_x/quota"), ("POST", "/api/v1/admin/users/acc_x/disable"), ("POST", "/api/v1/admin/users/acc_x/enable"),
                ("DELETE", "/api/v1/admin/users/acc_x"), ("GET", "/api/v1/admin/storage"), ("GET", "/api/v1/admin/jobs"),
                ("GET", "/api/v1/admin/health"), ("GET", "/api/v1/admin/logs"), ("GET", "/api/v1/admin/backups"),
                ("POST", "/api/v1/admin/backups"), ("GET", "/api/v1/admin/backups/restore-points"),
                ("PUT", "/api/v1/admin/users"), ("GET", "/api/v1/admin/users?nonsense=1")]
FOREIGN_NOTE = os.path.join(napkin_notes.ROOT, "config", "apps", "foreign-note.yaml")


def spec_mismatches(server, token, method, path, template, expected=200):
    """Whether the answer a route gives (200, or `expected`) is what docs/openapi.yaml says of it:
    its status and what its schema refuses (empty when it conforms)."""
    import jsonschema
    import yaml
    with open(os.path.join(napkin_notes.ROOT, "docs", "openapi.yaml")) as handle:
        spec = yaml.safe_load(handle)
    schema = spec["paths"][template][method.lower()]["responses"][str(expected)]["content"]["application/json"]["schema"]
    status, body, _ = call(server, method, path, token=token)
    if status != expected:
        return [f"{method} {path} → {status}: {body}"]
    validator = jsonschema.Draft202012Validator({**schema, "components": spec["components"]},
                                                format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return [f"{method} {path}: {'/'.join(map(str, error.absolute_path))}: {error.message[:200]}" for error in validator.iter_errors(body)]


def shot(page, name):
    webwalk.shot(page, "admin", name)


def login(server, username):
    return call(server, "POST", "/api/v1/auth/login", {"username": username, "password": PASSWORD})


def failed_import(server, token):
    status, job, _ = call(server, "POST", "/api/v1/notes/imports?format=enex", token=token, raw=REFUSED_ENEX.encode(),
                          content_type="application/xml", timeout=30)
    if status != 202:
        check("an .enex with a note storage refuses is taken as a job (it fails later)", False, (status, job))
        return None
    deadline = time.time() + 30
    while time.time() < deadline:
        status, job, _ = call(server, "GET", f"/api/v1/notes/imports/{job['id']}", token=token)
        if job.get("state") != "running":
            break
        time.sleep(0.2)
    check("the import storage refused mid-way failed whole: state failed, saying it was rolled back",
          job.get("state") == "failed" and "rolled back" in (job.get("failure") or "") and job.get("imported") == 0,
          {key: job.get(key) for key in ("state", "failure", "imported", "notesRead")})
    status, notes, _ = call(server, "GET", "/api/v1/notes", token=token)
    titles = [note["title"] for note in notes.get("items", [])] if status == 200 else notes
    check("nothing of the failed import was kept, not even the note before the refused one", titles == ["Bob's shopping"], titles)
    return job


def with_quotas(path):
    """The config at `path` with the quotas plugin on (5 GB each by default), as an operator who limits storage."""
    with open(path) as handle:
        text = handle.read()
    with open(path, "w") as handle:
        handle.write(text.rstrip("\n") + "\n  quotas: { max_stored_bytes_per_user: 5368709120 }\n")
    return path


def quotas(page, server, operator, bob, bob_id):
    """Each user's quota beside what they store, and the operator changes bob's on the phone, by the labels."""
    bob_row = page.locator("quire-admin .admin-user", has_text="bob")
    text = bob_row.inner_text()
    check("bob's row says what he stores of his quota (… of 5.0 GB)", re.search(r"Stores [\d.]+ (bytes|KB|MB) of 5\.0 GB", text) is not None, text)
    meter = page.get_by_role("meter", name=re.compile(r"^bob's storage: .+ of 5\.0 GB"))
    check("a bar shows bob's storage against his quota, named for a screen reader", meter.count() == 1,
          page.locator("quire-admin meter").evaluate_all("ms => ms.map(m => m.getAttribute('aria-label'))"))
    page.get_by_role("button", name="Change the storage quota of bob").click()
    field = page.get_by_label("Storage quota for bob")
    field.fill("lots")
    page.get_by_role("button", name="Save quota").click()
    error = bob_row.get_by_role("alert")
    error.filter(has_text="is not a size").wait_for(timeout=5000)
    check("a quota that is not a size is refused on the phone, saying what to write", "such as 5 GB or 500 MB" in error.inner_text(),
          error.inner_text())
    field.fill("0")
    page.get_by_role("button", name="Save quota").click()
    page.wait_for_timeout(300)
    check("a quota of 0 is refused too", "is not a size" in error.inner_text(), error.inner_text())
    field.fill("2 TB")
    page.get_by_role("button", name="Save quota").click()
    page.wait_for_timeout(300)
    check("a quota over 1 TB is refused, saying the largest", "more than the largest quota, 1 TB" in error.inner_text(), error.inner_text())
    shot(page, "quota-error")
    status, problem, _ = call(server, "PUT", f"/api/v1/admin/users/{bob_id}/quota", {"maxStoredBytes": -5}, token=operator)
    check("PUT /admin/users/<bob>/quota with -5 → 422 invalid naming maxStoredBytes, saying what it takes",
          status == 422 and isinstance(problem, dict) and problem.get("code") == "invalid" and problem.get("field") == "maxStoredBytes"
          and "1 TiB" in problem.get("detail", ""), (status, problem))
    status, problem, _ = call(server, "PUT", f"/api/v1/admin/users/{bob_id}/quota", {"maxStoredBytes": "lots"}, token=operator)
    check("PUT /admin/users/<bob>/quota with a string → 400 naming maxStoredBytes", status == 400 and isinstance(problem, dict)
          and problem.get("field") == "maxStoredBytes", (status, problem))
    status, _, _ = call(server, "PUT", f"/api/v1/admin/users/{bob_id}/quota", {"maxStoredBytes": 1024}, token=bob)
    check("PUT /admin/users/<bob>/quota by bob himself → 404 (not an operator)", status == 404, status)
    field.fill("100 KB")
    page.get_by_role("button", name="Save quota").click()
    page.get_by_role("meter", name=re.compile(r"^bob's storage: .+ of 100 KB")).wait_for(timeout=10000)
    text = page.locator("quire-admin .admin-user", has_text="bob").inner_text()
    check("after Save quota, bob's row says … of 100 KB", "of 100 KB" in text, text)
    accessible(page, "the users with quotas")
    shot(page, "quota-set")
    status, user, _ = call(server, "GET", f"/api/v1/admin/users/{bob_id}", token=operator)
    check("GET /admin/users/<bob> says his quota is 100 KB", status == 200 and (user.get("quota") or {}).get("maxStoredBytes") == 102400,
          (status, user.get("quota") if isinstance(user, dict) else user))
    status, usage, _ = call(server, "GET", "/api/v1/quotas/usage", token=bob)
    check("bob's own usage says 100 KB too", status == 200 and usage.get("maxStoredBytes") == 102400, (status, usage))
    status, problem, _ = call(server, "POST", "/api/v1/notes", {"title": "big", "text": "x" * 150_000}, token=bob)
    check("bob's write past his new 100 KB quota → 507 insufficient_storage", status == 507
          and isinstance(problem, dict) and problem.get("code") == "insufficient_storage", (status, problem))
    status, quota, _ = call(server, "PUT", f"/api/v1/admin/users/{bob_id}/quota", {"maxStoredBytes": None}, token=operator)
    check("PUT quota null puts bob back to the app's 5 GB", status == 200 and quota.get("maxStoredBytes") == 5 << 30, (status, quota))


def walk(browser, server, binary):
    operator = sign_up(server, "opal", PASSWORD)
    bob = sign_up(server, "bob", PASSWORD)
    carol = sign_up(server, "carol", PASSWORD)
    config, env = server.tool()
    granted = subprocess.run([binary, "admin", "grant", "opal", "--config", config], env=env, capture_output=True, text=True,
                             cwd=napkin_notes.ROOT, timeout=60)
    check("quire admin grant opal → exit 0, says so", granted.returncode == 0 and "operator" in granted.stdout, granted.stdout + granted.stderr)
    missing = subprocess.run([binary, "admin", "grant", "nobody", "--config", config], env=env, capture_output=True, text=True,
                             cwd=napkin_notes.ROOT, timeout=60)
    check("quire admin grant of an unknown user → exit 3 with a sentence", missing.returncode == 3 and "no user" in missing.stderr, missing.stderr)

    # Bob's things: a note, a failed import; an email that the (closed) SMTP port refuses: a logged error with its request id.
    status, note, _ = call(server, "POST", "/api/v1/notes", {"title": "Bob's shopping", "text": "milk"}, token=bob)
    check("bob writes a note", status == 201, (status, note))
    bob_id = call(server, "GET", "/api/v1/auth/me", token=bob)[1]["accountId"]
    job = failed_import(server, bob)
    status, problem, headers = call(server, "POST", f"/api/v1/notes/{note['id']}/email", {"to": "bob@example.org"}, token=bob, timeout=30)
    request_id = headers.get("X-Request-Id") or headers.get("x-request-id")
    check("mail to a closed SMTP port → 5xx with a request id", status >= 500 and bool(request_id), (status, problem))

    # A non-operator, and nobody at all: every admin route is a 404 like a path that does not exist.
    for token, who in ((carol, "a signed-in non-operator"), (None, "no token"), ("not-a-token", "a bad token")):
        answers = [(method, path, call(server, method, path, token=token)) for method, path in ADMIN_ROUTES]
        wrong = [(method, path, status, body.get("code") if isinstance(body, dict) else body)
                 for method, path, (status, body, _) in answers
                 if status != 404 or not isinstance(body, dict) or body.get("code") != "route_not_found"]
        check(f"every admin route answers {who} 404 route_not_found", not wrong, wrong)
    _, manifest, _ = call(server, "GET", "/api/v1/manifest")
    listed = [route["path"] for plugin in manifest["plugins"] for route in plugin["routes"] if "/admin" in route["path"]]
    check("the manifest lists no admin route", not listed, listed)
    status, me, _ = call(server, "GET", "/api/v1/admin/me", token=operator)
    check("GET /admin/me → 200 for the operator", status == 200 and me.get("operator") is True, me)

    # Carol on a phone: no Admin link, and #/admin is the app's own screen.
    context, page = phone(browser, server)
    page.goto("/")
    sign_in(page, "carol", PASSWORD)
    page.wait_for_selector("header.bar")
    page.wait_for_timeout(500)
    check("a non-operator sees no Admin link", page.locator("header.bar a:has-text('Admin')").count() == 0)
    page.goto("/#/admin")
    page.wait_for_timeout(800)
    check("#/admin shows a non-operator no operator screen", page.locator("quire-admin").count() == 0)
    context.close()

    # The operator.
    context, page = phone(browser, server)
    page.goto("/")
    sign_in(page, "opal", PASSWORD)
    page.wait_for_selector("header.bar a:has-text('Admin')")
    check("the operator sees an Admin link", True)
    page.click("header.bar a:has-text('Admin')")
    page.wait_for_selector("quire-admin [data-account]")
    names = page.locator("quire-admin .admin-user strong").all_inner_texts()
    check("the users are listed: opal, bob, carol", {"opal", "bob", "carol"} <= set(names), names)
    bob_row = page.locator("quire-admin .admin-user", has_text="bob")
    check("bob's row says what bob stores", "Stores" in bob_row.inner_text() and "unknown" not in bob_row.inner_text(), bob_row.inner_text())
    page.wait_for_selector("#admin-storage ~ .admin-facts dl")
    storage_text = page.locator("#admin-storage ~ .admin-facts").inner_text()
    check("storage in all and the disk free are shown", "In all" in storage_text and "Disk free" in storage_text, storage_text)
    accessible(page, "the operator's users")
    shot(page, "users")
    quotas(page, server, operator, bob, bob_id)

    # The failed import and the recent error with its request id.
    status, jobs, _ = call(server, "GET", "/api/v1/admin/jobs?state=failed", token=operator)
    listed = [j for j in jobs.get("items", [])] if status == 200 else []
    check("the operator's API lists bob's failed import, with its owner and why",
          job is not None and any(j["id"] == job["id"] and j["state"] == "failed" and j["owner"] == bob_id and "rolled back" in j.get("failure", "")
                                  for j in listed), jobs)
    page.wait_for_function("() => !document.querySelector('#admin-jobs ~ div')?.textContent?.includes('Loading')")
    failed_rows = page.locator("#admin-jobs ~ div li.admin-job.failed")
    row_text = failed_rows.first.inner_text() if failed_rows.count() else page.locator("#admin-jobs ~ div").inner_text()
    check("the jobs panel shows bob's failed notes import: its format, 'failed', bob's id and why it failed",
          failed_rows.count() == 1 and all(part in row_text for part in ("Notes import (enex)", "failed", bob_id, "rolled back", "limited to")),
          row_text)
    page.locator("#admin-jobs").scroll_into_view_if_needed()
    shot(page, "jobs")
    page.wait_for_selector("quire-admin .admin-log")
    logs_text = page.locator("#admin-logs ~ div").inner_text()
    check("the mail's error is listed with its request id", bool(request_id) and request_id in logs_text, logs_text[:400])
    page.locator("#admin-logs").scroll_into_view_if_needed()
    accessible(page, "the operator's jobs, health and problems")
    shot(page, "problems")
    page.locator("#admin-health").scroll_into_view_if_needed()
    health_text = page.locator("#admin-health ~ div").inner_text()
    check("health: the database, the bus and the disk answer", all(word in health_text for word in ("Database", "Bus", "Disk")), health_text)
    backups_text = page.locator("#admin-backups ~ div").inner_text()
    check("backups say 'Not configured'", "Not configured" in backups_text, backups_text)
    shot(page, "health")

    # What the operator's API answers is what docs/openapi.yaml says it answers.
    for path, template in (("/api/v1/admin/me", None), ("/api/v1/admin/users", None), ("/api/v1/admin/users?q=bob&limit=1", "/api/v1/admin/users"),
                           (f"/api/v1/admin/users/{bob_id}", "/api/v1/admin/users/{id}"), ("/api/v1/admin/storage", None),
                           ("/api/v1/admin/jobs", None), ("/api/v1/admin/jobs?state=failed", "/api/v1/admin/jobs"), ("/api/v1/admin/health", None),
                           ("/api/v1/admin/logs", None), ("/api/v1/admin/backups", None)):
        wrong = spec_mismatches(server, operator, "GET", path, template or path)
        check(f"GET {path.replace(bob_id, '<bob>')} answers what docs/openapi.yaml says", not wrong, wrong[:3])

    # Disable carol: she is signed out and cannot sign in.
    page.locator("quire-admin .admin-user", has_text="carol").locator("button:has-text('Disable')").click()
    dialog = page.locator("dialog.confirm")
    check("disabling asks first and says nothing is deleted", "Nothing they stored is deleted" in dialog.inner_text(), dialog.inner_text())
    dialog.locator("button:has-text('Disable')").click()
    page.wait_for_selector("quire-admin .admin-user.disabled:has-text('carol')")
    status, _, _ = call(server, "GET", "/api/v1/auth/me", token=carol)
    check("carol's session ended at once (401)", status == 401, status)
    status, problem, _ = login(server, "carol")
    check("carol cannot sign in: 403 forbidden, saying to ask the operator", status == 403 and "operator" in problem.get("detail", ""), problem)

    # Delete bob: the confirmation says what is lost; then his account and notes are gone.
    page.locator("quire-admin .admin-user", has_text="bob").locator("button:has-text('Delete')").click()
    text = page.locator("dialog.confirm").inner_text()
    check("deleting asks first, saying what is lost and that it cannot be undone",
          "cannot be undone" in text and "everything they stored" in text and "signed out" in text, text)
    accessible(page, "the delete confirmation")
    shot(page, "delete")
    bob_id = call(server, "GET", "/api/v1/admin/users?q=bob", token=operator)[1]["items"][0]["accountId"]
    page.locator("dialog.confirm button:has-text('Delete user')").click()
    page.wait_for_function("() => ![...document.querySelectorAll('quire-admin .admin-user strong')].some(s => s.textContent === 'bob')")
    check("bob is gone from the list", True)
    status, _, _ = call(server, "GET", f"/api/v1/admin/users/{bob_id}", token=operator)
    check("GET /admin/users/<bob> → 404", status == 404, status)
    status, page_of, _ = call(server, "GET", "/api/v1/admin/users?q=bob", token=operator)
    check("no user bob is found", status == 200 and page_of["items"] == [], page_of)
    status, _, _ = login(server, "bob")
    check("bob cannot sign in (401: no such account)", status == 401, status)
    status, _, _ = call(server, "GET", "/api/v1/notes", token=bob)
    check("bob's old token reads nothing (401)", status == 401, status)
    status, jobs, _ = call(server, "GET", "/api/v1/admin/jobs?state=failed", token=operator)
    check("bob's import job went with him", status == 200 and all(j["owner"] != bob_id for j in jobs["items"]), jobs)
    # A new bob is a new person: nothing of the old one is his.
    new_bob = sign_up(server, "bob", PASSWORD)
    status, notes, _ = call(server, "GET", "/api/v1/notes", token=new_bob)
    check("a new account named bob sees none of the old bob's notes", status == 200 and notes["items"] == [], notes)
    # Enable carol and delete the new bob through the API: the answers are as documented.
    carol_id = call(server, "GET", "/api/v1/admin/users?q=carol", token=operator)[1]["items"][0]["accountId"]
    wrong = spec_mismatches(server, operator, "POST", f"/api/v1/admin/users/{carol_id}/enable", "/api/v1/admin/users/{id}/enable")
    check("POST /admin/users/<carol>/enable answers what docs/openapi.yaml says", not wrong, wrong[:3])
    status, _, _ = login(server, "carol")
    check("carol, enabled again, signs in", status == 200, status)
    new_bob_id = call(server, "GET", "/api/v1/auth/me", token=new_bob)[1]["accountId"]
    wrong = spec_mismatches(server, operator, "DELETE", f"/api/v1/admin/users/{new_bob_id}", "/api/v1/admin/users/{id}")
    check("DELETE /admin/users/<the new bob> answers what docs/openapi.yaml says", not wrong, wrong[:3])
    log = open(server.log_path).read()
    check("each admin action is logged with the operator's id",
          re.search(r"operator=acc_\S+.*account disabled", log) is not None and re.search(r"operator=acc_\S+.*account deleted", log) is not None)
    context.close()
    walk_backups(browser, binary)


def backup_config(work, destinations):
    """Foreign Note's YAML with `backup:` (every 24 h: only "Back up now" takes one in this walk,
    the last 10 kept) added to its storage section; answers its path."""
    with open(FOREIGN_NOTE) as handle:
        text = handle.read()
    line = f"    backup: {{ every: 24h, keep: {{ last: 10 }}, to: {json.dumps(destinations)} }}\n"
    assert "\n  storage:\n" in text
    path = os.path.join(work, "foreign-note.backups.yaml")
    with open(path, "w") as handle:
        handle.write(text.replace("\n  storage:\n", "\n  storage:\n" + line, 1))
    return path


def finished_run(page, previous=None, timeout=60_000):
    """Waits until the Backups panel shows a finished run (another than `previous`); answers its text."""
    page.wait_for_function("(previous) => { const run = document.querySelector('#admin-backup-run li.admin-run');"
                           " return run && !run.classList.contains('running') && run.dataset.name !== previous; }",
                           arg=previous, timeout=timeout)
    return page.locator("#admin-backup-run").inner_text()


def walk_backups(browser, binary):
    """Foreign Note with scheduled backups to two folders: a deleted collection's purge in the jobs
    panel; Back up now, its result and the restore points (verified, with the command, which
    restores for real); a destination gone bad, said with what to do."""
    napkin_notes.scenario.label = "backups"
    with tempfile.TemporaryDirectory(prefix="quire-web-admin-backups-") as work:
        good = os.path.join(work, "backups")
        usb_root = os.path.join(work, "usb")
        usb = os.path.join(usb_root, "backups")
        data = os.path.join(work, "data")
        os.makedirs(data)
        config = backup_config(work, [good, usb])
        server = napkin_notes.Server(binary, data, free_port(), config)
        server.start()
        try:
            operator = sign_up(server, "olga", PASSWORD)
            ada = sign_up(server, "ada", PASSWORD)
            tool_config, env = server.tool()
            granted = subprocess.run([binary, "admin", "grant", "olga", "--config", tool_config], env=env, capture_output=True, text=True,
                                     cwd=napkin_notes.ROOT, timeout=60)
            check("foreign-note: quire admin grant olga", granted.returncode == 0, granted.stderr)
            ada_id = call(server, "GET", "/api/v1/auth/me", token=ada)[1]["accountId"]
            # Ada deletes a collection of three words: its entries go in the background, a purge job.
            _, french, _ = call(server, "POST", "/api/v1/vocabulary/collections", {"name": "French"}, token=ada)
            for word in ("chat", "chien", "pain"):
                call(server, "POST", "/api/v1/vocabulary/entries", {"collection": french["id"], "word": word, "definitions": ["x"]}, token=ada)
            status, _, _ = call(server, "DELETE", f"/api/v1/vocabulary/collections/{french['id']}", token=ada)
            check("ada deletes the collection French (204)", status == 204, status)
            purge = None
            deadline = time.time() + 30
            while purge is None and time.time() < deadline:
                _, done, _ = call(server, "GET", "/api/v1/admin/jobs?state=succeeded", token=operator)
                purge = next((j for j in done.get("items", []) if j.get("kind") == "vocabulary.purge" and j.get("id") == french["id"]), None)
                if purge is None:
                    time.sleep(0.2)
            check("the operator's API lists the purge of French, done: its owner, name and the 3 entries it deleted",
                  purge is not None and purge["owner"] == ada_id and purge.get("collection") == "French" and purge.get("deleted") == 3, purge)
            wrong = spec_mismatches(server, operator, "GET", "/api/v1/admin/jobs?state=succeeded", "/api/v1/admin/jobs")
            check("GET /admin/jobs?state=succeeded (with a purge) answers what docs/openapi.yaml says", not wrong, wrong[:3])

            context, page = phone(browser, server)
            page.goto("/")
            sign_in(page, "olga", PASSWORD)
            page.wait_for_selector("header.bar a:has-text('Admin')")
            page.click("header.bar a:has-text('Admin')")
            page.wait_for_selector("#admin-jobs ~ div li.admin-job.vocabulary-purge")
            row = page.locator("#admin-jobs ~ div li.admin-job.vocabulary-purge").first.inner_text()
            check("the jobs panel shows the purge beside the imports: 'Deleted the collection “French”', succeeded, ada's id, '3 entries deleted'",
                  all(part in row for part in ("Deleted the collection “French”", "succeeded", ada_id, "3 entries deleted")), row)
            page.locator("#admin-jobs").scroll_into_view_if_needed()
            shot(page, "jobs-purge")

            # Back up now.
            page.wait_for_selector("#admin-backups ~ div button.admin-backup-now")
            page.wait_for_selector("#admin-backups ~ div .admin-points p")
            before = page.locator("#admin-backups ~ div").inner_text()
            check("before any backup: OK, 'none taken yet', and no restore point yet",
                  "none taken yet" in before and "No backup is kept yet" in before, before)
            page.click("#admin-backups ~ div button.admin-backup-now")
            text = finished_run(page)
            name = page.locator("#admin-backup-run li.admin-run").get_attribute("data-name")
            check("Back up now: the panel says what was written where and how big",
                  bool(name) and "done" in text and f"{good}/{name}" in text and f"{usb}/{name}" in text and " files" in text
                  and os.path.exists(os.path.join(good, name, "manifest.json")), text)
            page.wait_for_function("(name) => document.querySelectorAll('#admin-backups ~ div li.admin-point').length === 2", arg=name)
            points = page.locator("#admin-backups ~ div li.admin-point")
            texts = [points.nth(index).inner_text() for index in range(points.count())]
            check("the restore points: one in each folder, verified, with its size and the command that restores it",
                  len(texts) == 2 and all("verified" in t and "not verified" not in t and f"--from {folder}/{name}" in t and "quire restore --config" in t
                                          for t, folder in zip(sorted(texts, key=lambda t: usb in t), [good, usb])), texts)
            page.locator("#admin-backups").scroll_into_view_if_needed()
            accessible(page, "the Backups panel with a backup and its restore points")
            shot(page, "backups")
            page.locator("#admin-restore-points").scroll_into_view_if_needed()
            shot(page, "restore-points")
            status, started, _ = call(server, "POST", "/api/v1/admin/backups", token=operator)
            check("POST /admin/backups → 202, running", status == 202 and started.get("running") is True, (status, started))
            wrong = []
            deadline = time.time() + 60
            while time.time() < deadline:
                _, state, _ = call(server, "GET", "/api/v1/admin/backups", token=operator)
                if not state.get("running"):
                    break
                time.sleep(0.2)
            for path in ("/api/v1/admin/backups", "/api/v1/admin/backups/restore-points"):
                wrong += spec_mismatches(server, operator, "GET", path, path)
            check("GET /admin/backups and /admin/backups/restore-points answer what docs/openapi.yaml says", not wrong, wrong[:3])

            # The second folder goes bad (a file where it was): the next backup says so, and what to do.
            shutil.rmtree(usb_root)
            with open(usb_root, "w") as handle:
                handle.write("the USB disk is not mounted\n")
            page.reload()
            page.wait_for_selector("#admin-backup-run li.admin-run")
            previous = page.locator("#admin-backup-run li.admin-run").get_attribute("data-name")
            page.click("#admin-backups ~ div button.admin-backup-now")
            text = finished_run(page, previous)
            panel = page.locator("#admin-backups ~ div").inner_text()
            check("a destination that cannot be written: the run failed, the panel names it and what to do, and where it did arrive",
                  "failed" in text and f"could not be written to {usb}" in text and "check that the folder exists" in text
                  and "reached only some destinations" in text and f"{good}/" in text and "Failing" in panel, text)
            page.wait_for_function("(usb) => document.querySelector('#admin-backups ~ div .admin-points')?.textContent?.includes(usb + ':')", arg=usb)
            points_text = page.locator("#admin-backups ~ div .admin-points").inner_text()
            check("the restore points say the folder that cannot be read, with what to check",
                  f"{usb}: {usb} is not there" in points_text and "check that it exists" in points_text, points_text[-600:])
            page.locator("#admin-backup-run").scroll_into_view_if_needed()
            accessible(page, "the Backups panel with a failed destination")
            shot(page, "backup-failed")
            command = page.locator("#admin-backups ~ div li.admin-point .admin-command").first.inner_text()
            context.close()
        finally:
            server.stop()
        # The command the panel shows restores, for real.
        check("the panel's command starts with quire restore", command.startswith("quire restore --config "), command)
        run = subprocess.run([binary, *shlex.split(command)[1:]], env=env, capture_output=True, text=True, cwd=napkin_notes.ROOT, timeout=120)
        check("the restore point's command, run with the server stopped, restores it", run.returncode == 0 and "restored" in run.stdout,
              run.stdout + run.stderr)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(napkin_notes.ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="quire-web-admin-") as data:
        # Mail goes to a port nothing listens on: sending fails with a logged error.
        os.environ["QUIRE_SMTP_PORT"] = str(free_port())
        server = napkin_notes.Server(binary, data, free_port(), with_quotas(mail.with_mail(data)))
        return webwalk.run(server, lambda browser: walk(browser, server, binary))


if __name__ == "__main__":
    sys.exit(main())
