#!/usr/bin/env python3
"""Scheduled backups and safe upgrades on PostgreSQL (tools/postgres's throwaway cluster, QUIRE_TEST_POSTGRES_URL).

Napkin Notes on a schema of its own, with `storage.backup: {every: 2s}` to a folder: a scheduled
backup taken after notes were written holds `records.pgdump` and a manifest whose SHA-256s match;
`quire restore --from` that folder into a fresh schema brings back every note and photo (compared
through the API) and leaves the schema it was taken from as it was (a note written there after the
backup stays); restored again over that schema, what was written there since is replaced.

Upgrades: a database one schema version behind (its newest row in `quire_migrations` deleted) makes
`quire serve` exit 1 with a sentence saying to run `quire backup` first; `quire migrate --plan` says
what would change and changes nothing; after `quire backup` it migrates and serves, and again with
`storage.migrate_without_backup: true` and no backup; a database at a version newer than the binary
knows is refused by `serve` and `migrate` with a sentence.

Prints one line per check and `backups_postgres: N passed, N failed` last; exits 1 on a failure.
"""
import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import ROOT, call, check, free_port, results, sign_up  # noqa: E402

PASSWORD = "correct horse battery"


def test_config(folder, storage_lines):
    """Napkin Notes' shipped YAML with `storage_lines` added to its storage section; answers its path."""
    with open(os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")) as handle:
        text = handle.read()
    assert "\n  storage:\n" in text
    text = text.replace("\n  storage:\n", "\n  storage:\n" + "".join(f"    {line}\n" for line in storage_lines), 1)
    path = os.path.join(folder, f"napkin-notes.{len(os.listdir(folder))}.yaml")
    with open(path, "w") as handle:
        handle.write(text)
    return path


def psql(sql):
    """One statement in the throwaway cluster's database; answers its rows as text."""
    run = subprocess.run(["psql", "-q", "-At", "-v", "ON_ERROR_STOP=1", os.environ["QUIRE_TEST_POSTGRES_URL"], "-c", sql],
                         capture_output=True, text=True, env=dict(os.environ, PGSSLMODE="disable"), timeout=30)
    if run.returncode != 0:
        raise RuntimeError(f"psql {sql!r}: {run.stderr.strip()}")
    return run.stdout.strip()


def schema_of(server):
    _, env = server.tool()
    return env["QUIRE_DATABASE_URL"].split("search_path=")[1]


def version(schema):
    return int(psql(f"SELECT coalesce(max(version), 0) FROM {schema}.quire_migrations") or 0)


def quire(binary, *arguments, env, timeout=60):
    return subprocess.run([binary, *arguments], capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)


def serve_refused(server, timeout=30):
    """`quire serve` on `server`'s config and schema, expected to stop by itself: (exit code, what it printed)."""
    config, env = server.tool()
    env = dict(env, QUIRE_BLOB_GRACE="0")
    env.pop("QUIRE_AUTH_SECRET", None)
    try:
        run = subprocess.run([server.binary, "serve", "--config", config], capture_output=True, text=True, env=env,
                             timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired as expired:
        return None, f"still running after {timeout} s: {expired.stdout!r} {expired.stderr!r}"
    return run.returncode, run.stdout + run.stderr


def snapshot(server, username):
    """Every note of `username` as the API answers it, and each photo's SHA-256."""
    _, login, _ = call(server, "POST", "/api/v1/auth/login", {"username": username, "password": PASSWORD})
    token = login["access_token"]
    notes = {}
    for note in napkin_notes.all_notes(server, token):
        _, full, _ = call(server, "GET", f"/api/v1/notes/{note['id']}", token=token)
        picture = None
        if note.get("photo"):
            _, picture, _ = call(server, "GET", f"/api/v1/notes/{note['id']}/photo", token=token)
            picture = hashlib.sha256(picture).hexdigest()
        notes[note["id"]] = (full, picture)
    return notes


def photo(folder, seed):
    path = os.path.join(folder, f"photo-{seed}.jpg")
    subprocess.run(["vips", "xyz", path + ".v", "64", "48"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1", str(seed), "--uchar"], check=True)
    with open(path, "rb") as handle:
        return handle.read()


def backup_names(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith("Z") and os.path.exists(os.path.join(folder, name, "manifest.json"))) \
        if os.path.isdir(folder) else []


def place(work, name):
    folder = os.path.join(work, name)
    os.makedirs(os.path.join(folder, "data"))
    return folder, os.path.join(folder, "data")


def scheduled_backup_and_restore(binary, work):
    napkin_notes.scenario.label = "scheduled"
    folder, data = place(work, "original")
    backups = os.path.join(folder, "backups")
    config = test_config(folder, [f"backup: {{ every: 2s, keep: {{ last: 3 }}, to: [{json.dumps(backups)}] }}"])
    server = napkin_notes.Server(binary, data, free_port(), config=config)
    server.start()
    token = sign_up(server, "pg-ann", PASSWORD)
    for index in range(5):
        _, note, _ = call(server, "POST", "/api/v1/notes", {"title": f"note {index}", "text": f"words {index}"}, token)
        if index % 2 == 0:
            call(server, "PUT", f"/api/v1/notes/{note['id']}/photo", token=token, raw=photo(folder, index * 30 + 5), content_type="image/jpeg")
    call(server, "POST", f"/api/v1/notes/{note['id']}/move", {"before": napkin_notes.all_notes(server, token)[0]["id"]}, token)
    before = snapshot(server, "pg-ann")
    wrote = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H%M%SZ")
    name = None
    deadline = time.time() + 20
    while time.time() < deadline and not name:
        newer = [n for n in backup_names(backups) if n > wrote]
        name = newer[-1] if newer else None
        time.sleep(0.3)
    check("a scheduled backup (every: 2s) on PostgreSQL, taken after the writes", name is not None, backup_names(backups))
    source = schema_of(server)
    if not name:
        server.stop()
        return
    # Written after that backup: the schema it was taken from must keep it through a restore elsewhere.
    call(server, "POST", "/api/v1/notes", {"title": "after the backup"}, token)
    server.stop()
    taken = os.path.join(backups, name)
    with open(os.path.join(taken, "manifest.json")) as handle:
        manifest = json.load(handle)
    files = manifest.get("files", {})
    sums_match = all(hashlib.sha256(open(os.path.join(taken, key), "rb").read()).hexdigest() == value for key, value in files.items())
    check("…it holds records.pgdump and a manifest with every file's SHA-256, each matching",
          manifest.get("backend") == "postgres" and manifest.get("records") == "records.pgdump" and "records.pgdump" in files
          and os.path.getsize(os.path.join(taken, "records.pgdump")) > 0 and manifest.get("blobs", 0) >= 3
          and len(files) == manifest["blobs"] + 1 and sums_match, manifest)
    original_notes = psql(f"SELECT count(*) FROM {source}.records WHERE collection = 'notes.notes'")

    folder, data = place(work, "restored")
    server = napkin_notes.Server(binary, data, free_port(), config=test_config(folder, []))
    tool_config, env = server.tool()
    run = quire(binary, "restore", "--config", tool_config, "--from", taken, env=env, timeout=120)
    check("quire restore --from that backup into a fresh schema", run.returncode == 0, run.stdout + run.stderr)
    server.start()
    after = snapshot(server, "pg-ann")
    check("…every note back, compared through the API (ids, versions, text, order), and every photo byte for byte",
          after == before and len(after) == 5 and sum(1 for _, picture in after.values() if picture) == 3, (len(before), len(after)))
    _, login, _ = call(server, "POST", "/api/v1/auth/login", {"username": "pg-ann", "password": PASSWORD})
    call(server, "POST", "/api/v1/notes", {"title": "written in the restored schema"}, login["access_token"])
    server.stop()
    check("…and the schema the backup was taken from is left as it was (6 notes, one written after the backup)",
          psql(f"SELECT count(*) FROM {source}.records WHERE collection = 'notes.notes'") == original_notes == "6", (source, original_notes))
    run = quire(binary, "restore", "--config", tool_config, "--from", backups, env=env, timeout=120)
    server.start()
    again = snapshot(server, "pg-ann")
    server.stop()
    check("quire restore again over that schema (now holding a note of its own), from the folder (the newest backup): the backup's notes, only",
          run.returncode == 0 and len(again) >= 5 and all(note["title"] != "written in the restored schema" for note, _ in again.values())
          and set(before) <= set(again), (run.stdout + run.stderr, sorted(note["title"] for note, _ in again.values())))


def upgrades(binary, work):
    napkin_notes.scenario.label = "upgrade"
    folder, data = place(work, "upgrade")
    plain = test_config(folder, [])
    server = napkin_notes.Server(binary, data, free_port(), config=plain)
    server.start()
    token = sign_up(server, "pg-old", PASSWORD)
    call(server, "POST", "/api/v1/notes", {"title": "written by the older Quire"}, token)
    server.stop()
    schema = schema_of(server)
    latest = version(schema)
    older = latest - 1
    check(f"a new schema is made at this build's version (v{latest})", latest >= 2, latest)
    # The older database: its newest migration not applied yet, and no backup remembered.
    psql(f"DELETE FROM {schema}.quire_migrations WHERE version = {latest}; DROP TABLE IF EXISTS {schema}.quire_backups")
    code, said = serve_refused(server)
    check(f"quire serve on a v{older} database without a recent backup → exit 1, saying to run quire backup first",
          code == 1 and "quire: storage: The PostgreSQL database" in said and "no quire backup was taken in the last 24 hours" in said and "quire backup --config" in said
          and "migrate_without_backup" in said, (code, said[-800:]))
    check("…and nothing was migrated", version(schema) == older, version(schema))

    config, env = server.tool()
    run = quire(binary, "migrate", "--config", config, "--plan", env=env)
    check("quire migrate --plan says what would change (versions, the migration, the backup it needs)",
          run.returncode == 0 and f"schema v{older}" in run.stdout and f"to v{latest}" in run.stdout and f"v{latest}:" in run.stdout
          and "quire backup" in run.stdout, run.stdout + run.stderr)
    check("…and changes nothing (the version stays)", version(schema) == older, version(schema))

    out = os.path.join(folder, "before-upgrade")
    run = quire(binary, "backup", "--config", config, out, env=env, timeout=120)
    check("quire backup of the older database", run.returncode == 0 and os.path.exists(os.path.join(out, "manifest.json")),
          run.stdout + run.stderr)
    try:
        server.start()
        status, listing, _ = call(server, "GET", "/api/v1/notes", token=token)
        served = status == 200 and [n["title"] for n in listing["items"]] == ["written by the older Quire"]
        server.stop()
    except RuntimeError as error:
        served = repr(error)
    check(f"…then quire serve migrates it to v{latest} and serves its notes", served is True and version(schema) == latest,
          (served, version(schema)))

    psql(f"DELETE FROM {schema}.quire_migrations WHERE version = {latest}; DROP TABLE IF EXISTS {schema}.quire_backups")
    server.config = test_config(folder, ["migrate_without_backup: true"])
    try:
        server.start()
        status, listing, _ = call(server, "GET", "/api/v1/notes", token=token)
        served = status == 200 and len(listing["items"]) == 1
        server.stop()
    except RuntimeError as error:
        served = repr(error)
    check(f"a v{older} database with storage.migrate_without_backup: true and no backup: migrated and served",
          served is True and version(schema) == latest, (served, version(schema)))

    psql(f"INSERT INTO {schema}.quire_migrations (version, name) VALUES ({latest + 1}, 'from a newer Quire')")
    server.config = plain
    code, said = serve_refused(server)
    check(f"quire serve on a database at v{latest + 1} (newer than this build) → exit 1, saying to run the newer Quire or restore a backup",
          code == 1 and "quire: storage: The database" in said and "written by a newer Quire" in said and f"v{latest + 1}" in said and "quire restore" in said, (code, said[-800:]))
    config, env = server.tool()
    run = quire(binary, "migrate", "--config", config, "--plan", env=env)
    check("…quire migrate --plan says the same, exit 1", run.returncode == 1 and "written by a newer Quire" in run.stdout + run.stderr,
          (run.returncode, run.stdout + run.stderr))
    check("…and nothing was changed", version(schema) == latest + 1 and psql(f"SELECT count(*) FROM {schema}.records WHERE collection = 'notes.notes'") == "1",
          version(schema))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    if "QUIRE_TEST_POSTGRES_URL" not in os.environ:
        check("a PostgreSQL to test on", False, 'none: run eval "$(tools/postgres start)" first (QUIRE_TEST_POSTGRES_URL)')
    else:
        os.environ["QUIRE_ACCEPTANCE_BACKEND"] = "postgres"
        with tempfile.TemporaryDirectory(prefix="quire-backups-pg-") as work:
            for part in (scheduled_backup_and_restore, upgrades):
                try:
                    part(binary, work)
                except Exception as error:  # noqa: BLE001 — a failed check with its reason; the next part still runs
                    check(part.__name__, False, repr(error))
    failed = results.count(False)
    print(f"backups_postgres: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
