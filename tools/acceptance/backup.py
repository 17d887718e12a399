#!/usr/bin/env python3
"""`quire backup` and `quire restore` on both backends (SQLite always; PostgreSQL when tools/test's
throwaway cluster is there): a backup taken while Napkin Notes runs, the storage wiped, the backup
restored, and the records and photos compared one by one with what they were.

Prints one line per check and `backup acceptance: N passed, N failed` last.
"""
import argparse
import glob
import hashlib
import os
import shutil
import subprocess
import time
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import call, check, free_port, results, sign_up  # noqa: E402


def photo(data, seed):
    path = os.path.join(data, f"photo-{seed}.jpg")
    subprocess.run(["vips", "xyz", path + ".v", "320", "240"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1", str(seed), "--uchar"], check=True)
    with open(path, "rb") as handle:
        return handle.read()


def snapshot(server, token):
    """Every note as the API answers it, and each photo's bytes."""
    _, listing, _ = call(server, "GET", "/api/v1/notes?limit=500", token=token)
    notes = {}
    for note in listing["items"]:
        status, _, _ = call(server, "GET", f"/api/v1/notes/{note['id']}", token=token)
        picture = None
        if note.get("photo"):
            _, picture, _ = call(server, "GET", f"/api/v1/notes/{note['id']}/photo", token=token)
            picture = hashlib.sha256(picture).hexdigest()
        notes[note["id"]] = (note, picture)
    return notes


def wipe(server, backend):
    if backend == "sqlite":
        for path in glob.glob(os.path.join(server.data, "napkin-notes.sqlite*")):
            os.remove(path)
    else:
        _, env = server.tool()
        url = env["QUIRE_DATABASE_URL"]
        schema = url.split("search_path=")[1]
        subprocess.run(["psql", "-q", os.environ["QUIRE_TEST_POSTGRES_URL"], "-c", f"DROP SCHEMA {schema} CASCADE"],
                       check=True, capture_output=True, env=dict(os.environ, PGSSLMODE="disable"))
    shutil.rmtree(os.path.join(server.data, "blobs"), ignore_errors=True)


def round_trip(binary, data, backend):
    napkin_notes.scenario.label = backend
    server = napkin_notes.Server(binary, data, free_port())
    server.start()
    token = sign_up(server, "backup-ann")
    for index in range(6):
        _, note, _ = call(server, "POST", "/api/v1/notes", {"title": f"note {index}", "text": f"words {index}"}, token)
        if index % 2 == 0:
            call(server, "PUT", f"/api/v1/notes/{note['id']}/photo", token=token, raw=photo(data, index * 20), content_type="image/jpeg")
    # Napkin reads the text in each photo as a job after the upload, which writes the note once
    # more (photoTextState reading → read): the snapshot waits for the server's own writes to end.
    deadline = time.time() + 60
    while time.time() < deadline:
        _, listing, _ = call(server, "GET", "/api/v1/notes?limit=500", token=token)
        if not any(note.get("photoTextState") == "reading" for note in listing["items"]):
            break
        time.sleep(0.2)
    before = snapshot(server, token)
    config, env = server.tool()
    out = os.path.join(data, "backup")
    run = subprocess.run([binary, "backup", "--config", config, out], capture_output=True, text=True, env=env, timeout=300)
    check("quire backup while the server runs", run.returncode == 0 and os.path.exists(os.path.join(out, "manifest.json")), run.stdout + run.stderr)
    again = subprocess.run([binary, "backup", "--config", config, out], capture_output=True, text=True, env=env, timeout=60)
    check("…never over an existing backup", again.returncode != 0 and "already exists" in again.stderr, again.stderr)
    call(server, "POST", "/api/v1/notes", {"title": "after the backup"}, token)
    server.stop()
    wipe(server, backend)
    run = subprocess.run([binary, "restore", "--config", config, out], capture_output=True, text=True, env=env, timeout=300)
    check("wiped, then quire restore", run.returncode == 0, run.stdout + run.stderr)
    server.start()
    _, login, _ = call(server, "POST", "/api/v1/auth/login", {"username": "backup-ann", "password": "correct horse battery"})
    after = snapshot(server, login["access_token"])
    check("the same notes, compared one by one (ids, versions, text, order), and the same photos, byte for byte",
          after == before and sum(1 for _, picture in after.values() if picture) == 3, (len(before), len(after)))
    check("…and nothing written after the backup", all(note["title"] != "after the backup" for note, _ in after.values()))
    server.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(napkin_notes.ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    backends = ["sqlite"] + (["postgres"] if "QUIRE_TEST_POSTGRES_URL" in os.environ else [])
    for backend in backends:
        if backend == "postgres":
            os.environ["QUIRE_ACCEPTANCE_BACKEND"] = "postgres"
        else:
            os.environ.pop("QUIRE_ACCEPTANCE_BACKEND", None)
        with tempfile.TemporaryDirectory(prefix=f"quire-backup-{backend}-") as data:
            try:
                round_trip(binary, data, backend)
            except Exception as error:  # noqa: BLE001 — a failed check with its reason; the next backend still runs
                check("backup run", False, repr(error))
    failed = results.count(False)
    print(f"backup acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
