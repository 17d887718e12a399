#!/usr/bin/env python3
"""An operator's first day, as docs/operations.md tells it: what confused a newcomer.

- Scheduled backups to a folder that does not exist yet (the first backup makes it): the
  operator's restore points say "none kept yet", not that the folder is missing (it said, in red,
  "… is not there, or is not a folder: check that it exists" before any backup was due). After a
  backup, deleting the folder is said ("is not there any more (this server backed up to it before)").
- `quire restore` while the server runs is refused (it replaced the database under the server,
  which went on writing into the file set aside, beside a `-wal` of the other database).
- `quire serve` on a port another program holds says so with the port, what to do and a code
  (`[port_in_use]`), not NIO's `bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`.

  python3 tools/acceptance/operator_first_day.py [--binary .build/debug/quire]
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import ROOT, call, check, free_port, results, sign_up  # noqa: E402


def config_with_backup(work, folder):
    with open(os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")) as handle:
        text = handle.read()
    assert "\n  storage:\n" in text
    text = text.replace("\n  storage:\n", f"\n  storage:\n    backup: {{ every: 24h, to: [\"{folder}\"] }}\n", 1)
    path = os.path.join(work, "napkin.yaml")
    with open(path, "w") as handle:
        handle.write(text)
    return path


def restore_points(server, token):
    status, body, _ = call(server, "GET", "/api/v1/admin/backups/restore-points", token=token)
    if status != 200 or not isinstance(body, dict):
        raise RuntimeError(f"restore-points: {status} {body}")
    return body.get("items", []), body.get("unreadable", [])


def backups_first_run(binary, work):
    data = os.path.join(work, "data")
    os.makedirs(data)
    folder = os.path.join(work, "not-made-yet", "backups")
    config = config_with_backup(work, folder)
    server = napkin_notes.Server(binary, data, free_port(), config=config)
    server.start()
    try:
        token = sign_up(server, "opal")
        granted = subprocess.run([binary, "admin", "grant", "opal", "--config", config], cwd=ROOT, capture_output=True, text=True,
                                 env=dict(os.environ, QUIRE_DATA=data))
        check("quire admin grant makes the first user the operator", granted.returncode == 0, granted.stderr)
        items, unreadable = restore_points(server, token)
        check("before the first backup, a folder the backup will make is not reported as missing",
              items == [] and unreadable == [], unreadable)
        status, _, _ = call(server, "POST", "/api/v1/admin/backups", token=token)
        check("Back up now is accepted", status == 202, status)
        deadline = time.time() + 30
        while time.time() < deadline:
            _, body, _ = call(server, "GET", "/api/v1/admin/backups", token=token)
            if isinstance(body, dict) and not body.get("running"):
                break
            time.sleep(0.3)
        items, unreadable = restore_points(server, token)
        check("the first backup made the folder and is a restore point", len(items) == 1 and unreadable == [], (items, unreadable))
        if items:
            # quire restore while the server runs: refused, nothing changed (it replaced the file under the server).
            restore = subprocess.run([binary, "restore", "--config", config, "--from", items[0]["location"]], cwd=ROOT,
                                     capture_output=True, text=True, env=dict(os.environ, QUIRE_DATA=data))
            said = restore.stderr.strip().splitlines()[-1:] or [""]
            check("quire restore beside a running server is refused with [server_running], nothing changed",
                  restore.returncode == 1 and "[server_running]" in said[0] and "Stop the server" in said[0]
                  and not os.path.exists(os.path.join(data, "napkin-notes.sqlite.before-restore")), restore.stderr)
        storage_panel(server)
        shutil.rmtree(os.path.dirname(folder))
        items, unreadable = restore_points(server, token)
        reason = unreadable[0].get("reason", "") if unreadable else ""
        check("a folder deleted after a backup is said to be not there any more, with what to check",
              items == [] and [u.get("to") for u in unreadable] == [folder] and "not there any more" in reason and "mounted" in reason, unreadable)
    finally:
        server.stop()


def storage_panel(server):
    """The operator's Storage panel at phone size: the folder it names is the blob folder, said as such
    (it said "Data folder: …/data/blobs")."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        page.goto(server.base + "/")
        page.get_by_label("User name").fill("opal")
        page.get_by_label("Password").fill("correct horse battery")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_timeout(1500)
        page.goto(server.base + "/#/admin")
        page.get_by_text("Disk free").first.wait_for(timeout=20000)
        text = page.locator("main").inner_text() if page.locator("main").count() else page.locator("body").inner_text()
        browser.close()
    blobs = os.path.join(server.data, "blobs")
    check("the Storage panel says the photos and files are kept in the blob folder, not that it is the data folder",
          f"Photos and files are kept in {blobs}" in text and "Data folder:" not in text, text[:400])


def tool_errors(binary, work):
    """quire restore from a path that is not there, quire backup over a folder: what, what to do, a code."""
    env = dict(os.environ, QUIRE_DATA=os.path.join(work, "tools-data"))
    config = "config/apps/napkin-notes.yaml"
    missing = os.path.join(work, "no-such-backup")
    done = subprocess.run([binary, "restore", "--config", config, "--from", missing], cwd=ROOT, env=env, capture_output=True, text=True)
    check("quire restore --from a path that is not there says so, with [not_found]",
          done.returncode == 1 and f"There is no {missing}" in done.stderr and "[not_found]" in done.stderr, done.stderr)
    done = subprocess.run([binary, "backup", "--config", config, work], cwd=ROOT, env=env, capture_output=True, text=True)
    check("quire backup into a folder that exists says so, with [already_exists]",
          done.returncode == 1 and "already exists" in done.stderr and "[already_exists]" in done.stderr, done.stderr)


def port_in_use(binary, work):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        data = os.path.join(work, "busy")
        env = dict(os.environ, QUIRE_PORT=str(port), QUIRE_DATA=data)
        env.pop("QUIRE_HTTP_PORT", None)
        try:
            done = subprocess.run([binary, "serve", "--config", "config/apps/napkin-notes.yaml"], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=90)
        except subprocess.TimeoutExpired:
            check("quire serve on a port in use stops", False, "still running after 90 s")
            return
        last = [line for line in done.stderr.splitlines() + done.stdout.splitlines() if line.strip()]
        said = "\n".join(last[-3:])
        check("quire serve on a port in use exits 1 naming the port, what to do and [port_in_use]",
              done.returncode == 1 and f"127.0.0.1:{port}" in said and "QUIRE_PORT" in said and "[port_in_use]" in said
              and "errno" not in said, said)
    finally:
        holder.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    os.environ.pop("QUIRE_ACCEPTANCE_BACKEND", None)
    os.environ.pop("QUIRE_ACCEPTANCE_BUS", None)
    with tempfile.TemporaryDirectory(prefix="quire-operator-") as work:
        for step in (backups_first_run, tool_errors, port_in_use):
            try:
                step(binary, work)
            except Exception as error:  # noqa: BLE001 — a failed check with its reason; the next step still runs
                check(step.__name__, False, repr(error))
    failed = results.count(False)
    print(f"operator_first_day: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
