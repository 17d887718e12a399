#!/usr/bin/env python3
"""End-to-end acceptance of Napkin Notes against the real `quire` binary and the shipped config.

Runs the README's curl walk-through as code, then what only a real process can show: a SIGTERM
restart keeps everything in order, a kill -9 during a burst of creates loses no acknowledged note and
leaves none half-written, config mistakes exit 1 with file:line:column, and quire-auth works on the
same data. Prints one line per check and `acceptance: N passed, N failed` last.
"""
import argparse
import atexit
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conventions  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")
results = []


# Checks made on a scenario's own thread carry its label (two users running the same scenarios at once).
scenario = threading.local()


def check(name, condition, detail=""):
    results.append(bool(condition))
    label = getattr(scenario, "label", "")
    name = f"[{label}] {name}" if label else name
    print(("ok   " if condition else "FAIL ") + name + ("" if condition or not detail else f": {detail}"), flush=True)
    return condition


# Every server log of this run. When a check has failed, a log's warnings and errors are printed as
# its server stops (and at exit for any still unprinted): the logs go with the run's temporary directory.
server_logs = {}


def print_server_complaints(path):
    if all(results) or server_logs.get(path):
        return
    server_logs[path] = True
    try:
        with open(path, errors="replace") as log:
            lines = [line.rstrip() for line in log if " warning " in line or " error " in line or " critical " in line]
    except OSError:
        return
    if lines:
        print(f"--- warnings and errors in {path} (last 40 of {len(lines)}):", flush=True)
        for line in lines[-40:]:
            print("    " + line[:400], flush=True)


@atexit.register
def print_all_server_complaints():
    for path in list(server_logs):
        print_server_complaints(path)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    # Grace 0: a blob is deleted the moment nothing holds it, so the checks can see it go.
    blob_grace = "0"

    def __init__(self, binary, data, port, config=None):
        # CONFIG is read now, not when the class was defined: the other apps' scripts set it.
        self.binary, self.data, self.port, self.config = binary, data, port, config or CONFIG
        self.base = f"http://127.0.0.1:{port}"
        self.process = None
        self.log_path = os.path.join(data, "server.log")

    def start(self):
        env = dict(os.environ, QUIRE_PORT=str(self.port), QUIRE_DATA=self.data, QUIRE_BLOB_GRACE=self.blob_grace)
        env.pop("QUIRE_AUTH_SECRET", None)
        config = self.config
        if os.environ.get("QUIRE_ACCEPTANCE_BACKEND") == "postgres":
            config, env["QUIRE_DATABASE_URL"] = on_postgres(self.config, self.data)
        if os.environ.get("QUIRE_ACCEPTANCE_BUS") == "nats":
            config = on_nats(config, self.data)
        self.log = open(self.log_path, "a")
        server_logs.setdefault(self.log_path, False)
        self.process = subprocess.Popen([self.binary, "serve", "--config", config], env=env, cwd=ROOT,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}; see {self.log_path}")
            try:
                if call(self, "GET", "/health")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not answer /health within 60 s")

    def tool(self, config=None):
        """The config and environment a command-line tool uses to reach this server's data (its
        PostgreSQL schema too, when the acceptance runs there)."""
        config = config or self.config
        env = dict(os.environ, QUIRE_PORT=str(self.port), QUIRE_DATA=self.data)
        if os.environ.get("QUIRE_ACCEPTANCE_BACKEND") == "postgres":
            config, env["QUIRE_DATABASE_URL"] = on_postgres(config, self.data)
        return config, env

    def stop(self, sig=signal.SIGTERM):
        self.process.send_signal(sig)
        code = self.process.wait(timeout=30)
        self.log.close()
        print_server_complaints(self.log_path)
        return code


def on_nats(config, data):
    """The same app with its plugins talking over NATS (QUIRE_TEST_NATS_URL, from tools/nats):
    `config` with a `bus:` section, in a subject prefix of this data directory's own. Answers the path."""
    with open(config) as handle:
        text = handle.read()
    prefix = "acc_" + hashlib.sha1(os.path.abspath(data).encode()).hexdigest()[:12]
    url = os.environ["QUIRE_TEST_NATS_URL"]
    bus = f"bus: {{ transport: nats, url: '{url}', subject_prefix: {prefix}, local_first: false }}\n"
    text, count = re.subn(r"^bus: [^\n]*\n", lambda _: bus, text, count=1, flags=re.M)
    if count != 1:
        text, count = re.subn(r"^(app: [^\n]*\n)", lambda m: m.group(1) + bus, text, count=1, flags=re.M)
    if count != 1:
        raise RuntimeError(f"{config}: no app: line to put the bus after")
    path = os.path.join(data, "on-nats-" + os.path.basename(config))
    with open(path, "w") as handle:
        handle.write(text)
    return path


def on_postgres(config, data):
    """The same app on PostgreSQL (QUIRE_TEST_POSTGRES_URL, from tools/postgres): `config` with its
    storage section's SQLite file replaced by the database, in a schema of this data directory's own
    (fresh for each server, kept across its restarts). Answers the config's path and the URL."""
    with open(config) as handle:
        text = handle.read()
    text, count = re.subn(r"    backend: sqlite\n    path: [^\n]*\n", "    backend: postgres\n    url: ${QUIRE_DATABASE_URL}\n", text)
    if count != 1:
        raise RuntimeError(f"{config}: no SQLite storage section to move to PostgreSQL")
    path = os.path.join(data, "on-postgres-" + os.path.basename(config))
    with open(path, "w") as handle:
        handle.write(text)
    schema = "acc_" + hashlib.sha1(os.path.abspath(data).encode()).hexdigest()[:16]
    base = os.environ["QUIRE_TEST_POSTGRES_URL"]
    return path, base + ("&" if "?" in base else "?") + f"sslmode=disable&search_path={schema}"


def call(server, method, path, body=None, token=None, headers=None, timeout=10, raw=None, content_type="application/octet-stream"):
    """One request; `body` is sent as JSON, `raw` as bytes. Answers (status, parsed JSON or bytes, headers)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(server.base + path, data=data, method=method)
    if raw is not None:
        request.add_header("Content-Type", content_type)
    elif data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = response.read()
            if not response.headers.get("Content-Type", "").startswith("application/json"):
                return response.status, answer, dict(response.headers)
            parsed = json.loads(answer) if answer else None
            conform(method, path, parsed, response.headers.get("Content-Type", ""))
            return response.status, parsed, dict(response.headers)
    except urllib.error.HTTPError as error:
        answer = error.read()
        try:
            parsed = json.loads(answer) if answer else None
            conform(method, path, parsed, error.headers.get("Content-Type", ""))
        except ValueError:
            parsed = answer
        return error.code, parsed, dict(error.headers)


def conform(method, path, body, content_type):
    """Every JSON body received follows the wire convention; a body that does not fails the run."""
    global bodies_checked
    bodies_checked += 1
    found = conventions.violations(body, content_type)
    if found:
        check(f"wire convention: {method} {path.split('?')[0]}", False, "; ".join(found[:3]))


bodies_checked = 0


def sign_up(server, username, password="correct horse battery"):
    call(server, "POST", "/api/v1/auth/register", {"username": username, "password": password})
    status, body, _ = call(server, "POST", "/api/v1/auth/login", {"username": username, "password": password})
    if status != 200:
        raise RuntimeError(f"login {username}: {status} {body}")
    return body["access_token"]


def device_account(server):
    """A password-less device account (iRemember's Get Started); answers its access token."""
    status, body, _ = call(server, "POST", "/api/v1/auth/device")
    if status != 201:
        raise RuntimeError(f"Get Started: {status} {body}")
    return body["access_token"]


def memory_of(pid):
    """VmRSS and VmHWM (the peak) of a process, in MB, from /proc/<pid>/status."""
    found = {}
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) / 1024
    return found


class Watch:
    """While a limits scenario runs: asks `health()` and, when given, `listing()` (each answers an
    HTTP status) every 100 ms on a thread of its own, noting each one's worst latency and every
    answer other than 200 (an OSError counts as one, by its repr). Used as a context manager."""

    def __init__(self, health, listing=None):
        self.health, self.listing = health, listing
        self.stop = threading.Event()
        self.health_worst, self.list_worst, self.rounds = 0.0, 0.0, 0
        self.health_failures, self.list_failures = [], []
        self.thread = threading.Thread(target=self.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        self.thread.join()

    @staticmethod
    def timed(probe):
        started = time.monotonic()
        try:
            status = probe()
        except OSError as error:
            status = repr(error)
        return status, time.monotonic() - started

    def run(self):
        while not self.stop.is_set():
            status, took = self.timed(self.health)
            self.health_worst = max(self.health_worst, took)
            if status != 200:
                self.health_failures.append(status)
            if self.listing:
                status, took = self.timed(self.listing)
                self.list_worst = max(self.list_worst, took)
                if status != 200:
                    self.list_failures.append(status)
            self.rounds += 1
            self.stop.wait(0.1)


def all_notes(server, token):
    notes, cursor = [], None
    while True:
        path = "/api/v1/notes?limit=500" + (f"&cursor={cursor}" if cursor else "")
        status, body, _ = call(server, "GET", path, token=token)
        if status != 200:
            raise RuntimeError(f"list: {status} {body}")
        notes += body["items"]
        cursor = body.get("nextCursor")
        if not cursor:
            return notes


def walkthrough(server):
    token = sign_up(server, "ada")
    ids = []
    for title in ["groceries", "lecture", "idea"]:
        status, note, headers = call(server, "POST", "/api/v1/notes", {"title": title, "text": f"about {title}"}, token)
        check(f"create '{title}' → 201", status == 201, status)
        ids.append(note["id"])
    status, _, _ = call(server, "POST", f"/api/v1/notes/{ids[2]}/move", {"before": ids[0]}, token)
    check("move 'idea' before 'groceries'", status == 200, status)
    status, note, _ = call(server, "PATCH", f"/api/v1/notes/{ids[1]}", {"text": "room 101"}, token)
    check("edit 'lecture'", status == 200 and note["text"] == "room 101", (status, note))
    status, _, _ = call(server, "DELETE", f"/api/v1/notes/{ids[0]}", token=token)
    check("delete 'groceries' → 204", status == 204, status)
    titles = [n["title"] for n in all_notes(server, token)]
    check("list is [idea, lecture]", titles == ["idea", "lecture"], titles)

    other = sign_up(server, "bob")
    denied = [call(server, m, p, b, other)[0] for m, p, b in [
        ("GET", f"/api/v1/notes/{ids[1]}", None), ("PATCH", f"/api/v1/notes/{ids[1]}", {"title": "x"}),
        ("DELETE", f"/api/v1/notes/{ids[1]}", None), ("POST", f"/api/v1/notes/{ids[1]}/move", {"after": ids[2]})]]
    check("another user gets 404 on every route", denied == [404, 404, 404, 404], denied)
    check("no token → 401", call(server, "GET", "/api/v1/notes")[0] == 401)
    check("bad token → 401", call(server, "GET", "/api/v1/notes", token="forged.token.value")[0] == 401)
    status, problem, headers = call(server, "POST", "/api/v1/notes", {"title": 42}, token)
    check("bad body → 400 problem+json", status == 400 and headers.get("Content-Type") == "application/problem+json"
          and problem.get("type") == "urn:quire:problem:bad_request", (status, problem))
    status, problem, _ = call(server, "GET", "/api/v1/notes?q=milk", token=token)
    check("GET /notes?q=milk does not silently list everything: 400 naming 'q' (search comes with the 'beyond' issue)",
          status == 400 and problem.get("field") == "q", (status, problem))
    return token, titles


def blob_files(data):
    """Every blob file under the data directory, and what is left in its temp directory."""
    root = os.path.join(data, "blobs")
    found = set()
    for directory, _, files in os.walk(root):
        if os.path.basename(directory) != ".tmp":
            found.update(files)
    temp = os.path.join(root, ".tmp")
    return found, (os.listdir(temp) if os.path.isdir(temp) else [])


def image_size(server, tool, payload, name):
    """(format, width, height) as `quire-media info` reads `payload`."""
    path = os.path.join(server.data, name)
    with open(path, "wb") as handle:
        handle.write(payload)
    info = subprocess.run([tool, "info", path], capture_output=True, text=True)
    if info.returncode != 0:
        return None
    parsed = json.loads(info.stdout)
    return parsed["format"], parsed["width"], parsed["height"]


def photos_and_drawings(server, token, binary):
    """The issue's acceptance walk: note, photo, 44x44 thumbnail, drawing, render, clear, replace."""
    media = os.path.join(os.path.dirname(binary), "quire-media")
    first, second = os.path.join(server.data, "first.jpg"), os.path.join(server.data, "second.webp")
    for path, seed in [(first, "0"), (second, "90")]:
        subprocess.run(["vips", "xyz", path + ".v", "1600", "1200"], check=True)
        subprocess.run(["vips", "linear", path + ".v", path, "1", seed, "--uchar"], check=True)
    status, note, _ = call(server, "POST", "/api/v1/notes", {"title": "napkin"}, token)
    note_id = note["id"]
    with open(first, "rb") as handle:
        first_bytes = handle.read()
    status, note, _ = call(server, "PUT", f"/api/v1/notes/{note_id}/photo", token=token, raw=first_bytes, content_type="image/jpeg")
    check("attach a photo → 200, the note names its blob", status == 200 and note.get("photo"), (status, note))
    first_sha = note.get("photo") if isinstance(note, dict) else None
    status, thumbnail, headers = call(server, "GET", f"/api/v1/notes/{note_id}/photo/list", token=token)
    check("the list thumbnail is a 44x44 JPEG", status == 200 and image_size(server, media, thumbnail, "thumb.jpg") == ("jpeg", 44, 44),
          (status, headers.get("Content-Type")))
    status, display, headers = call(server, "GET", f"/api/v1/notes/{note_id}/photo/display", token=token)
    check("the display rendition is WebP within 1280x1280", status == 200 and image_size(server, media, display, "display.webp") == ("webp", 1280, 960),
          (status, headers.get("Content-Type")))
    status, original, _ = call(server, "GET", f"/api/v1/notes/{note_id}/photo", token=token)
    check("the original comes back byte for byte", status == 200 and original == first_bytes)
    drawing = {"strokes": [{"color": "#1e90ff", "width": 0.02, "points": [{"x": 0.1 + i / 50, "y": 0.5 + (i % 5) / 40, "pressure": 0.6}
                                                                          for i in range(40)]}],
               "texts": [{"text": "call mum", "x": 0.1, "y": 0.2}]}
    status, note, _ = call(server, "PUT", f"/api/v1/notes/{note_id}/drawing", drawing, token)
    check("draw on the back → 200", status == 200 and note.get("drawing"), (status, note))
    drawing_sha = note.get("drawing") if isinstance(note, dict) else None
    status, loaded, _ = call(server, "GET", f"/api/v1/notes/{note_id}/drawing", token=token)
    check("…and it loads back", status == 200 and loaded.get("texts", [{}])[0].get("text") == "call mum", loaded)
    status, png, _ = call(server, "GET", f"/api/v1/notes/{note_id}/drawing/image", token=token)
    check("render it: a 1024x768 PNG", status == 200 and image_size(server, media, png, "drawing.png") == ("png", 1024, 768), status)
    status, note, _ = call(server, "DELETE", f"/api/v1/notes/{note_id}/drawing", token=token)
    status, loaded, _ = call(server, "GET", f"/api/v1/notes/{note_id}/drawing", token=token)
    check("clear it: the drawing is empty", loaded == {"strokes": [], "texts": []}, loaded)
    check("…and its blob is deleted", drawing_sha not in blob_files(server.data)[0])
    with open(second, "rb") as handle:
        second_bytes = handle.read()
    status, note, _ = call(server, "PUT", f"/api/v1/notes/{note_id}/photo", token=token, raw=second_bytes, content_type="image/webp")
    check("replace the photo → 200", status == 200 and note.get("photo") != first_sha, (status, note))
    blobs, temp = blob_files(server.data)
    check("the old photo's blob is gone once unused", first_sha and first_sha not in blobs, first_sha)
    check("…and no temp file is left", not temp, temp)
    return note_id


def damaged_uploads(server, token, note_id):
    """At least 200 damaged images through the HTTP upload: each a 4xx with a sentence; the server
    never falls over; nothing is left behind."""
    import damaged_images
    work = os.path.join(server.data, "corpus")
    os.makedirs(work, exist_ok=True)
    started = time.time()
    cases = damaged_images.cached_corpus(work)
    print(f"     made (or found in .build) {len(cases)} damaged images in {time.time() - started:.0f} s", flush=True)
    before, _ = blob_files(server.data)
    wrong = []
    for index, (name, payload, kind) in enumerate(cases):
        status, problem, headers = call(server, "PUT", f"/api/v1/notes/{note_id}/photo", token=token, raw=payload,
                                        content_type="image/jpeg", timeout=60)
        detail = problem.get("detail", "") if isinstance(problem, dict) else ""
        if not (400 <= status < 500 and headers.get("Content-Type") == "application/problem+json" and len(detail) > 20):
            wrong.append((name, kind, status, detail[:80]))
        if index % 50 == 49:
            print(f"     … {index + 1}/{len(cases)} uploaded", flush=True)
    check(f"{len(cases)} damaged images ({', '.join(sorted({k for _, _, k in cases}))}) → each a 4xx problem with a sentence",
          len(cases) >= 200 and not wrong, wrong[:5])
    check("…the server is still up", server.process.poll() is None and call(server, "GET", "/health")[0] == 200)
    after, temp = blob_files(server.data)
    check("…no blob and no temp file left behind", after == before and not temp, (sorted(after - before)[:3], temp))
    status, note, _ = call(server, "GET", f"/api/v1/notes/{note_id}", token=token)
    check("…and the note still has its good photo", status == 200 and note.get("photo") in after, note)

    silent = damaged_images.silent_flips(work)
    statuses = []
    for name, payload in silent:
        statuses.append(call(server, "PUT", f"/api/v1/notes/{note_id}/photo", token=token, raw=payload, timeout=60)[0])
    check(f"{len(silent)} bit flips that still decode (valid images to any decoder) → 200 or 4xx, never 5xx",
          silent and all(s == 200 or 400 <= s < 500 for s in statuses), statuses)


def media_info_matches_exiftool(binary, data):
    """`quire-media info` prints the GPS and time taken exiftool wrote, as exiftool reads them back."""
    media = os.path.join(os.path.dirname(binary), "quire-media")
    photo = os.path.join(data, "gps.jpg")
    subprocess.run(["vips", "xyz", photo + ".v", "64", "48"], check=True)
    subprocess.run(["vips", "cast", photo + ".v", photo, "uchar"], check=True)
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-DateTimeOriginal=2023:07:14 18:30:05", "-OffsetTimeOriginal=-04:00",
                    "-GPSLatitude=40.689247", "-GPSLatitudeRef=N", "-GPSLongitude=74.044502", "-GPSLongitudeRef=W",
                    "-GPSAltitude=93", "-GPSAltitudeRef=0", "-Make=Quire", "-Model=Acceptance", photo], check=True)
    truth = json.loads(subprocess.run(["exiftool", "-j", "-n", "-GPSLatitude", "-GPSLongitude", "-GPSAltitude",
                                       "-DateTimeOriginal", "-OffsetTimeOriginal", photo], capture_output=True, text=True).stdout)[0]
    info = subprocess.run([media, "info", photo], capture_output=True, text=True)
    parsed = json.loads(info.stdout) if info.returncode == 0 else {}
    gps = parsed.get("gps") or {}
    taken = truth["DateTimeOriginal"].replace(":", "-", 2).replace(" ", "T") + truth["OffsetTimeOriginal"]
    same = (abs(gps.get("latitude", 0) - truth["GPSLatitude"]) < 1e-6 and abs(gps.get("longitude", 0) - truth["GPSLongitude"]) < 1e-6
            and abs(gps.get("altitude", 0) - truth["GPSAltitude"]) < 1e-6 and parsed.get("taken_at") == taken)
    check("quire-media info prints the GPS and time taken exiftool reads back", same, (parsed, truth))
    refused = subprocess.run([media, "info", os.path.join(ROOT, "README.md")], capture_output=True, text=True)
    check("quire-media info on a non-image → exit 3 with a message", refused.returncode == 3 and "quire-media:" in refused.stderr,
          (refused.returncode, refused.stderr))


def burst(server, token, seconds, stop_signal):
    """Creates notes from six threads for `seconds`, then sends `stop_signal` to the server while
    they keep writing. Returns {id: title} of every create that was acknowledged with 2xx."""
    acknowledged = {}
    lock = threading.Lock()
    stop = threading.Event()

    def writer(worker):
        sequence = 0
        while not stop.is_set():
            title = f"burst-{worker}-{sequence}"
            sequence += 1
            try:
                status, note, _ = call(server, "POST", "/api/v1/notes", {"title": title, "text": title * 3}, token, timeout=5)
            except OSError:
                return
            if 200 <= status < 300:
                with lock:
                    acknowledged[note["id"]] = title

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    server.process.send_signal(stop_signal)
    code = server.process.wait(timeout=30)
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    server.log.close()
    return acknowledged, code


def stop_during_burst(server, token):
    acknowledged, code = burst(server, token, 1.0, signal.SIGTERM)
    check(f"SIGTERM during a burst of creates → exit 0 ({len(acknowledged)} acknowledged)", code == 0 and acknowledged, code)
    server.start()
    stored = {n["id"] for n in all_notes(server, token)}
    lost = [i for i in acknowledged if i not in stored]
    check("…every acknowledged note is there after restart", not lost, f"{len(lost)} lost")


def kill_during_burst(server, token, binary):
    acknowledged, _ = burst(server, token, 2.0, signal.SIGKILL)
    check(f"burst wrote notes before kill -9 ({len(acknowledged)} acknowledged)", len(acknowledged) > 20, len(acknowledged))
    server.start()
    stored = {n["id"]: n for n in all_notes(server, token)}
    lost = [i for i in acknowledged if i not in stored]
    check("after kill -9 every acknowledged note is there", not lost, f"{len(lost)} lost")
    bad = [n for n in stored.values() if n["title"].startswith("burst-") and n["text"] != n["title"] * 3]
    check("no note is half-written", not bad, bad[:3])


def config_check(binary, data):
    status = subprocess.run([binary, "config", "check", CONFIG], capture_output=True, text=True,
                            env=dict(os.environ, QUIRE_DATA=data))
    check("quire config check on the shipped config → exit 0", status.returncode == 0, status.stderr)
    bad = os.path.join(data, "bad.yaml")
    with open(bad, "w") as handle:
        handle.write("app: napkin\nserver: { port: 99999 }\nplugins:\n  storage: {}\n  media: {}\n  drawing: {}\n  notes: {}\n  wings: {}\n")
    status = subprocess.run([binary, "config", "check", bad], capture_output=True, text=True)
    lines = status.stderr.strip().splitlines()
    check("a bad config → exit 1", status.returncode == 1, status.returncode)
    check("…with one file:line:column line per mistake", len(lines) == 3 and all(l.startswith(bad + ":") for l in lines), lines)


def export_user(server, binary):
    """`quire export`: one user's notes, photos and drawings in a zip, and nobody else's."""
    ann = sign_up(server, "export-ann")
    bob = sign_up(server, "export-bob")
    path = os.path.join(server.data, "leaf.jpg")
    subprocess.run(["vips", "xyz", path + ".v", "200", "150"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1", "40", "--uchar"], check=True)
    with open(path, "rb") as handle:
        photo = handle.read()
    _, first, _ = call(server, "POST", "/api/v1/notes", {"title": "ann's leaf", "text": "from the park"}, ann)
    call(server, "PUT", f"/api/v1/notes/{first['id']}/photo", token=ann, raw=photo, content_type="image/jpeg")
    call(server, "POST", "/api/v1/notes", {"title": "ann's list"}, ann)
    _, gone, _ = call(server, "POST", "/api/v1/notes", {"title": "ann's deleted"}, ann)
    call(server, "DELETE", f"/api/v1/notes/{gone['id']}", token=ann)
    _, bobs, _ = call(server, "POST", "/api/v1/notes", {"title": "bob's secret"}, bob)
    config, env = server.tool()
    out = os.path.join(server.data, "ann.zip")
    run = subprocess.run([binary, "export", "--config", config, "--user", "export-ann", out], capture_output=True, text=True, env=env, timeout=120)
    check("quire export writes the user's zip, with progress on stderr", run.returncode == 0 and "records" in run.stderr, run.stdout + run.stderr)
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        notes = [json.loads(archive.read(n)) for n in names if n.startswith("records/notes.notes/")]
        manifest = json.loads(archive.read("manifest.json"))
        everything = b"".join(archive.read(n) for n in names)
        photos = [n for n in names if n.startswith("files/") and archive.read(n) == photo]
    check("…every note of hers, as stored, and not the deleted one", sorted(n["data"]["title"] for n in notes) == ["ann's leaf", "ann's list"], notes)
    check("…her photo's original as a file", len(photos) == 1 and photos[0].endswith(".jpg"), [n for n in names if n.startswith("files/")])
    check("…nothing of anyone else's, and no credentials", bobs["id"].encode() not in everything and b"bob's secret" not in everything
          and not any(n.startswith("records/auth.") for n in names) and b"passwordHash" not in everything, names)
    check("…and a manifest that says what is in it", manifest["records"] == len([n for n in names if n.startswith("records/")])
          and manifest["user"] == "export-ann" and manifest["files"] >= 1, manifest)
    again = subprocess.run([binary, "export", "--config", config, "--user", "export-ann", out], capture_output=True, text=True, env=env, timeout=60)
    check("…and an existing file is never overwritten", again.returncode != 0 and "already exists" in again.stderr, again.stderr)


def quire_auth(server, binary):
    tool = os.path.join(os.path.dirname(binary), "quire-auth")
    config, env = server.tool()
    created = subprocess.run([tool, "create-user", "--config", config, "carol", "--password-stdin"],
                             input="carols password\n", capture_output=True, text=True, env=env)
    check("quire-auth create-user (while the server runs)", created.returncode == 0, created.stderr)
    status, body, _ = call(server, "POST", "/api/v1/auth/login", {"username": "carol", "password": "carols password"})
    check("…the new user signs in", status == 200, status)
    revoked = subprocess.run([tool, "revoke-sessions", "--config", config, "carol"], capture_output=True, text=True, env=env)
    check("quire-auth revoke-sessions", revoked.returncode == 0 and "revoked 1" in revoked.stdout, revoked.stdout + revoked.stderr)
    check("…her token no longer works", call(server, "GET", "/api/v1/notes", token=body["access_token"])[0] == 401)
    missing = subprocess.run([tool, "reset-password", "--config", config, "nobody"], capture_output=True, text=True, env=env)
    check("quire-auth reset-password of an unknown user → exit 3", missing.returncode == 3, missing.returncode)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="quire-acceptance-") as data:
        server = Server(binary, data, free_port())
        try:
            server.start()
            token, titles = walkthrough(server)
            note_id = photos_and_drawings(server, token, binary)
            damaged_uploads(server, token, note_id)
            titles = [n["title"] for n in all_notes(server, token)]
            code = server.stop(signal.SIGTERM)
            check("SIGTERM → clean exit 0", code == 0, code)
            with open(server.log_path) as log:
                check("…and the database closed cleanly", "Storage closed cleanly" in log.read())
            server.start()
            after = [n["title"] for n in all_notes(server, token)]
            check("after restart: same notes, same order (old token still valid)", after == titles, after)
            quire_auth(server, binary)
            export_user(server, binary)
            stop_during_burst(server, token)
            kill_during_burst(server, token, binary)
            server.stop()
            config_check(binary, data)
            media_info_matches_exiftool(binary, data)
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("acceptance run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
    failed = results.count(False)
    print(f"acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
