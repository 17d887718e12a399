#!/usr/bin/env python3
"""Scheduled backups (`storage.backup`), off-site copies through rclone, and `quire restore --from`.

For each of the four apps (a test copy of its YAML with `backup: {every: 2s, …}`): records and
photos made through the API while `quire serve` runs; a scheduled backup taken after them reaches a
local folder and an S3 bucket (moto's server on 127.0.0.1, through rclone); the server stopped,
its data folder deleted, restored from the S3 copy, and every record (each user's `quire export`)
and every blob file compared with what they were. On Napkin Notes also: a damaged backup refused
with the file named and nothing changed; retention (keep last/daily/weekly/monthly) over backups
dated back 70 days (a fake clock: their names are their times); a backup missed while the server
was down and a destination that cannot be written, each a warning in the log and counted on
/metrics; the operator's restore points (the S3 copies verified, with their quire restore
command) and Back up now; `quire migrate --plan` changes nothing.

Prints one line per check and `backups: N passed, N failed` last; exits 1 on a failure.
"""
import argparse
import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import ROOT, call, check, free_port, results, sign_up  # noqa: E402

APPS = ["napkin-notes", "foreign-note", "iremember", "ar-notebook"]
METRICS_TOKEN = "backups-acceptance-metrics-token"


def photo(folder, seed):
    path = os.path.join(folder, f"photo-{seed}.jpg")
    subprocess.run(["vips", "xyz", path + ".v", "64", "48"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1", str(seed), "--uchar"], check=True)
    with open(path, "rb") as handle:
        return handle.read()


class Moto:
    """moto's S3 server on loopback, and an rclone config that points at it."""

    def __init__(self, folder):
        self.port = free_port()
        self.log = open(os.path.join(folder, "moto.log"), "w")
        self.process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self.config = os.path.join(folder, "rclone.conf")
        with open(self.config, "w") as handle:
            handle.write(f"[moto]\ntype = s3\nprovider = Other\nenv_auth = false\naccess_key_id = test\nsecret_access_key = test\n"
                         f"endpoint = http://127.0.0.1:{self.port}\nregion = us-east-1\nforce_path_style = true\n")
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.rclone("mkdir", "moto:quire-backups").returncode == 0:
                return
            time.sleep(0.3)
        raise RuntimeError("moto's S3 server did not start")

    def rclone(self, *arguments):
        return subprocess.run(["rclone", "--config", self.config, *arguments], capture_output=True, text=True, timeout=60)

    def backups(self, app):
        listed = self.rclone("lsf", "--dirs-only", f"moto:quire-backups/{app}")
        return sorted(line.rstrip("/") for line in listed.stdout.split() if line.endswith("Z/"))

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


def test_config(app, data, backups, moto, extra_to=()):
    """The shipped YAML with `backup:` added to its storage section; answers its path."""
    with open(os.path.join(ROOT, "config", "apps", f"{app}.yaml")) as handle:
        text = handle.read()
    destinations = [backups, f"rclone:moto:quire-backups/{app}", *extra_to]
    line = (f"    backup: {{ every: 2s, keep: {{ last: 3, daily: 7, weekly: 4, monthly: 6 }}, "
            f"to: {json.dumps(destinations)}, rclone_config: {moto.config} }}\n")
    assert "\n  storage:\n" in text
    text = text.replace("\n  storage:\n", "\n  storage:\n" + line, 1)
    path = os.path.join(os.path.dirname(data), f"{app}.backups.yaml")
    with open(path, "w") as handle:
        handle.write(text)
    return path


def make_records(app, server, folder):
    """Records and blobs through the app's own API; answers the users made."""
    if app == "napkin-notes":
        token = sign_up(server, "bk-ann")
        for index in range(4):
            _, note, _ = call(server, "POST", "/api/v1/notes", {"title": f"note {index}", "text": f"words {index}"}, token)
            if index % 2 == 0:
                call(server, "PUT", f"/api/v1/notes/{note['id']}/photo", token=token, raw=photo(folder, index * 30 + 5),
                     content_type="image/jpeg")
        return ["bk-ann"]
    if app == "foreign-note":
        token = sign_up(server, "bk-fox")
        base = "/api/v1/vocabulary"
        collection = call(server, "POST", f"{base}/collections", {"name": "French"}, token=token)[1]["id"]
        for word, meaning in [("chat", "cat"), ("chien", "dog"), ("pain", "bread")]:
            status, _, _ = call(server, "POST", f"{base}/entries", {"collection": collection, "word": word,
                                                                    "definitions": [meaning]}, token=token)
            if status != 201:
                raise RuntimeError(f"entry {word}: {status}")
        return ["bk-fox"]
    if app == "iremember":
        token = sign_up(server, "bk-ida")
        for seed in (11, 77):
            status, _, _ = call(server, "POST", "/api/v1/album/photos", raw=photo(folder, seed), token=token, content_type="image/jpeg")
            if status != 201:
                raise RuntimeError(f"photo upload: {status}")
        return ["bk-ida"]
    token = sign_up(server, "bk-art")
    base = "/api/v1/notebooks"
    status, notebook, _ = call(server, "POST", f"{base}/notebooks", {"name": "Trip", "cover": "text", "coverText": "Lisbon"}, token=token)
    if status != 201:
        raise RuntimeError(f"notebook: {status} {notebook}")
    call(server, "POST", f"{base}/notebooks/{notebook['id']}/pages", {"template": "blank", "background": "mint"}, token=token)
    return ["bk-art"]


def exported(binary, config, env, user, folder):
    """Everything of one user as `quire export` reads it from storage: each record and file."""
    out = os.path.join(folder, f"export-{user}-{time.time_ns()}.zip")
    run = subprocess.run([binary, "export", "--config", config, "--user", user, out], capture_output=True, text=True, env=env, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(f"quire export: {run.stderr}")
    with zipfile.ZipFile(out) as archive:
        return {name: archive.read(name) for name in archive.namelist() if name != "manifest.json"}


def blob_files(data):
    found = {}
    for folder, _, names in os.walk(os.path.join(data, "blobs")):
        for name in names:
            if len(name) == 64:
                with open(os.path.join(folder, name), "rb") as handle:
                    found[name] = hashlib.sha256(handle.read()).hexdigest()
    return found


def backup_names(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith("Z") and os.path.exists(os.path.join(folder, name, "manifest.json"))) \
        if os.path.isdir(folder) else []


def wait_for_backup(moto, app, backups, after, timeout=40):
    """The name of a backup taken after `after` (UTC) that is both in the folder and in S3."""
    stamp = after.strftime("%Y-%m-%dT%H%M%SZ")
    deadline = time.time() + timeout
    while time.time() < deadline:
        local = [name for name in backup_names(backups) if name > stamp]
        remote = set(moto.backups(app))
        both = [name for name in local if name in remote]
        if both:
            return both[-1]
        time.sleep(0.5)
    return None


def metrics(server):
    status, body, _ = call(server, "GET", "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    return body.decode() if status == 200 else ""


def metric_value(text, name):
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and not line.startswith("#"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def fake_history(backups, now):
    """Backups dated back 70 days (a manifest only): what retention sees, as if the clock had run."""
    names = []
    for days in range(1, 71):
        for hour in (6, 18):
            stamp = (now - datetime.timedelta(days=days)).replace(hour=hour, minute=0, second=0, microsecond=0)
            name = stamp.strftime("%Y-%m-%dT%H%M%SZ")
            os.makedirs(os.path.join(backups, name))
            with open(os.path.join(backups, name, "manifest.json"), "w") as handle:
                json.dump({"format": 2, "backend": "sqlite", "records": "records.sqlite", "files": {}}, handle)
            names.append(name)
    return names


def expected_kept(names, last, daily, weekly, monthly):
    """restic's `forget --keep-last/daily/weekly/monthly`, written out again here."""
    dated = sorted(names, reverse=True)
    stamps = {name: datetime.datetime.strptime(name, "%Y-%m-%dT%H%M%SZ") for name in dated}
    kept = set(dated[:max(last, 1)])
    for count, bucket in [(daily, lambda d: d.date()), (weekly, lambda d: tuple(d.isocalendar())[:2]), (monthly, lambda d: (d.year, d.month))]:
        seen = []
        for name in dated:
            key = bucket(stamps[name])
            if seen and seen[-1] == key:
                continue
            seen.append(key)
            if len(seen) > count:
                break
            kept.add(name)
    return kept


def hard_linked(backups, fakes):
    """Whether the newest backup's unchanged blobs are the previous backup's files, hard-linked, and
    which two were compared. The two newest are read when asked: a backup is taken every 2 s and
    pruned to the last 3, so one named earlier may be gone (a fresh-clone CI run, on a loaded
    machine, met a pruned one); a pair pruned while being read is read again."""
    for _ in range(10):
        real = [n for n in backup_names(backups) if n not in fakes]
        if len(real) >= 2:
            older, newer = real[-2], real[-1]
            try:
                with open(os.path.join(backups, older, "manifest.json")) as handle:
                    files = json.load(handle)["files"]
                shared = [key for key in files if key.startswith("blobs/") and os.path.exists(os.path.join(backups, newer, key))]
                return (bool(shared) and all(os.stat(os.path.join(backups, newer, key)).st_ino == os.stat(os.path.join(backups, older, key)).st_ino
                                             for key in shared)), (older, newer)
            except FileNotFoundError:
                pass
        time.sleep(0.5)
    return False, None


def round_trip(binary, work, moto, app):
    napkin_notes.scenario.label = app
    data = os.path.join(work, app, "data")
    os.makedirs(data)
    backups = os.path.join(work, app, "backups")
    napkin = app == "napkin-notes"
    fakes = []
    extra = []
    if napkin:
        os.makedirs(backups)
        fakes = fake_history(backups, datetime.datetime.now(datetime.timezone.utc))
        blocker = os.path.join(work, app, "not-a-folder")
        with open(blocker, "w") as handle:
            handle.write("a file where a backup folder should be\n")
        extra = [os.path.join(blocker, "backups")]
    config = test_config(app, data, backups, moto, extra)
    os.environ["QUIRE_METRICS_TOKEN"] = METRICS_TOKEN
    server = napkin_notes.Server(binary, data, free_port(), config=config)
    server.start()
    users = make_records(app, server, os.path.join(work, app))
    wrote = datetime.datetime.now(datetime.timezone.utc)
    time.sleep(1.1)
    name = wait_for_backup(moto, app, backups, wrote)
    check(f"{app}: a scheduled backup taken after the writes, in the folder and in S3 (rclone, moto)", name is not None, backup_names(backups))
    if name:
        with open(os.path.join(backups, name, "manifest.json")) as handle:
            manifest = json.load(handle)
        check(f"{app}: its manifest lists every file with its SHA-256",
              manifest["records"] in manifest["files"] and all(len(sum_) == 64 for sum_ in manifest["files"].values())
              and len(manifest["files"]) == manifest["blobs"] + 1, manifest.get("files"))
    tool_config, env = server.tool()
    before = {user: exported(binary, tool_config, env, user, os.path.join(work, app)) for user in users}
    blobs_before = blob_files(data)
    if napkin:
        taken = datetime.datetime.strptime(name, "%Y-%m-%dT%H%M%SZ")
        second = wait_for_backup(moto, app, backups, taken)
        linked, pair = hard_linked(backups, fakes) if second else (False, None)
        check("napkin-notes: blobs are incremental: the next backup's unchanged blobs are the same files, hard-linked", linked, (name, second, pair))
        with open(server.log_path) as handle:
            log = handle.read()
        check("napkin-notes: the backup missed while the server was down is a warning in the log",
              "missed: the newest backup is from" in log, log[-2000:])
        check("napkin-notes: the destination that cannot be written is a warning saying what failed and what to do",
              f"could not be written to {extra[0]}" in log and "check that the folder exists, is writable" in log, log[-2000:])
        text = metrics(server)
        check("napkin-notes: /metrics counts the failed destination and the missed backup",
              metric_value(text, "quire_backup_destination_failures") >= 1 and metric_value(text, "quire_backup_missed") >= 1
              and metric_value(text, 'quire_backup_runs{outcome="failed"}') >= 1,
              [line for line in text.splitlines() if "backup" in line])
        # The operator's Backups panel reads the same status.
        granted = subprocess.run([binary, "admin", "grant", "bk-ann", "--config", tool_config], capture_output=True, text=True, env=env, timeout=60)
        _, login, _ = call(server, "POST", "/api/v1/auth/login", {"username": "bk-ann", "password": "correct horse battery"})
        _, panel, _ = call(server, "GET", "/api/v1/admin/backups", token=(login or {}).get("access_token"))
        check("napkin-notes: the operator's Backups panel says the backups are failing, why, and where they go",
              granted.returncode == 0 and isinstance(panel, dict) and panel.get("status") == "failing"
              and "could not be written" in panel.get("detail", "") and backups in panel.get("destination", ""),
              (granted.stderr, panel))
        # The restore points: the S3 copies too, each verified (its verified.json went up with it), with a command that names the rclone config.
        token = (login or {}).get("access_token")

        def remote_points():
            """The server's S3 restore points, and the names S3 held just before and after it listed.
            A backup is taken every 2 s and pruned to the last 3 meanwhile, so a listing that crossed
            an upload or a prune is read again (it failed once in a fresh-clone CI)."""
            listed_before, remote_before = set(backup_names(backups)), set(moto.backups(app))
            _, points, _ = call(server, "GET", "/api/v1/admin/backups/restore-points?limit=200", token=token)
            listed_after, remote_after = set(backup_names(backups)), set(moto.backups(app))
            items = points.get("items", []) if isinstance(points, dict) else []
            return points, items, [p for p in items if p.get("kind") == "rclone"], remote_before | remote_after, listed_before, listed_after

        def remote_ok(remote, remote_names):
            return (bool(remote) and {p["name"] for p in remote} <= remote_names
                    and all(p["verified"] and p.get("bytes", 0) > 0 and p["location"] == f"rclone:moto:quire-backups/{app}/{p['name']}"
                            and p["restoreCommand"].endswith(f"--from {p['location']} --rclone-config {moto.config}") for p in remote))

        # A listing can also catch a copy mid-upload (its verified.json not up yet): read again then too.
        for _ in range(8):
            points, items, remote, remote_names, listed_before, listed_after = remote_points()
            if remote_ok(remote, remote_names):
                break
            time.sleep(0.5)
        check("napkin-notes: the restore points list the S3 backups: verified, sized, with a quire restore command naming the rclone config",
              remote_ok(remote, remote_names),
              ([(p.get("name"), p.get("verified"), p.get("bytes"), p.get("location"), p.get("restoreCommand")) for p in remote], sorted(remote_names)))
        folder_points = [p for p in items if p.get("kind") == "folder" and p.get("to") == backups]
        check("napkin-notes: the folder's restore points are its backups, the ones taken before verification was noted marked not verified",
              # (a scheduled backup every 2 s may land, and prune, while the list is read)
              listed_before & listed_after <= {p["name"] for p in folder_points} <= listed_before | listed_after
              and any(p["name"] in fakes for p in folder_points)
              and all(p["verified"] == (p["name"] not in fakes) for p in folder_points),
              sorted((p["name"], p["verified"]) for p in folder_points)[-4:])
        unreadable = points.get("unreadable", []) if isinstance(points, dict) else []
        check("napkin-notes: the destination that cannot be written is named as unreadable, with what to check",
              [u.get("to") for u in unreadable] == [extra[0]] and "check that it exists" in unreadable[0].get("reason", ""), unreadable)
        # Back up now: one more, beside the schedule, with what it wrote where.
        status, started, _ = call(server, "POST", "/api/v1/admin/backups", token=token)
        check("napkin-notes: Back up now → 202 (or 409 while a scheduled one runs)", status in (202, 409), (status, started))
        present = set(backup_names(backups))
        kept = expected_kept(fakes + [n for n in present if n not in fakes], 3, 7, 4, 6)
        expected = {n for n in kept if n in fakes}
        check("napkin-notes: pruned by keep {last: 3, daily: 7, weekly: 4, monthly: 6} over 70 days of backups",
              {n for n in present if n in fakes} == expected and len(present - set(fakes)) <= 4,
              (sorted(present), sorted(expected)))
    server.stop()
    if napkin:
        damaged = os.path.join(work, app, "damaged")
        # The newest real backup, read once the server is stopped: the first one (`name`) may have
        # been pruned to the last 3 meanwhile (a backup every 2 s; on a loaded machine it was).
        newest = [n for n in backup_names(backups) if n not in fakes][-1]
        shutil.copytree(os.path.join(backups, newest), damaged)
        victim = sorted(key for key in json.load(open(os.path.join(damaged, "manifest.json")))["files"] if key.startswith("blobs/"))[0]
        os.chmod(os.path.join(damaged, victim), 0o644)
        with open(os.path.join(damaged, victim), "r+b") as handle:
            handle.seek(10)
            handle.write(b"\x00corrupt\x00")
        database = os.path.join(data, "napkin-notes.sqlite")
        with open(database, "rb") as handle:
            untouched = hashlib.sha256(handle.read()).hexdigest()
        run = subprocess.run([binary, "restore", "--config", tool_config, "--from", damaged], capture_output=True, text=True, env=env, timeout=60)
        with open(database, "rb") as handle:
            same = hashlib.sha256(handle.read()).hexdigest() == untouched
        check("napkin-notes: a damaged backup is refused, naming the file, and nothing is changed",
              run.returncode == 1 and victim in run.stderr and "damaged" in run.stderr and same, run.stderr)
        run = subprocess.run([binary, "migrate", "--config", tool_config, "--plan"], capture_output=True, text=True, env=env, timeout=60)
        check("napkin-notes: quire migrate --plan says the schema is up to date", run.returncode == 0 and "up to date" in run.stdout,
              run.stdout + run.stderr)
    shutil.rmtree(data)
    run = subprocess.run([binary, "restore", "--config", tool_config, "--from", f"rclone:moto:quire-backups/{app}", "--rclone-config", moto.config],
                         capture_output=True, text=True, env=env, timeout=120)
    check(f"{app}: data folder deleted, restored from the S3 copy (checksums checked first)", run.returncode == 0, run.stdout + run.stderr)
    check(f"{app}: every blob file back, byte for byte", blob_files(data) == blobs_before, (len(blobs_before), len(blob_files(data))))
    after = {user: exported(binary, tool_config, env, user, os.path.join(work, app)) for user in users}
    check(f"{app}: every record and file of every user equal (quire export before and after)",
          after == before and all(before.values()), {user: len(files) for user, files in before.items()})
    server.start()
    if app == "napkin-notes":
        _, login, _ = call(server, "POST", "/api/v1/auth/login", {"username": "bk-ann", "password": "correct horse battery"})
        _, listing, _ = call(server, "GET", "/api/v1/notes?limit=50", token=login.get("access_token"))
        check("napkin-notes: the restored server signs the user in and lists the four notes", len(listing.get("items", [])) == 4, listing)
    server.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    parser.add_argument("--app", action="append", help="only these apps (default: all four)")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    os.environ.pop("QUIRE_ACCEPTANCE_BACKEND", None)
    # moto speaks plain HTTP; a CA bundle for AWS in the environment makes rclone's S3 client refuse to start.
    os.environ.pop("AWS_CA_BUNDLE", None)
    with tempfile.TemporaryDirectory(prefix="quire-backups-") as work:
        moto = Moto(work)
        try:
            for app in args.app or APPS:
                try:
                    round_trip(binary, work, moto, app)
                except Exception as error:  # noqa: BLE001 — a failed check with its reason; the next app still runs
                    check(f"{app}: backup round trip", False, repr(error))
        finally:
            moto.stop()
    failed = results.count(False)
    print(f"backups: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
