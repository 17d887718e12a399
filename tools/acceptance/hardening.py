#!/usr/bin/env python3
"""What outside testing found, kept found: each of the four apps' real binary, attacked as a
careless client and as an attacker would.

- Every numeric query parameter in docs/openapi.yaml gets huge, negative, fractional and
  non-numeric values: no answer is a 5xx and the server is still alive after each.
- Malformed chunked bodies (size `zz`, `-1`, eighteen f's), a 100 KB URL and a 1 MB header each
  get a 400 problem document, never a 500 or an empty body.
- An unknown share link asked for as JSON answers a JSON problem.
- iRemember: two users upload into the same month with the same tags, 200 times each, at once:
  every upload is a 201.
- `quire config check` refuses a billion-laughs file within a bounded memory and time, a short
  auth secret and a rendition media does not declare, each at file:line:column.

Prints one line per check and `hardening: N passed, N failed` last.
"""
import argparse
import concurrent.futures
import json
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402

ROOT = napkin_notes.ROOT
APPS = ["napkin-notes", "foreign-note", "iremember", "ar-notebook"]
HOSTILE_NUMBERS = ["1e19", "-1e19", "99999999999999999999", "-99999999999999999999", "-1", "0", "2.5", "-0.5", "abc",
                   "NaN", "inf", "-inf", "1e308", "0x10", "", "%00", "9" * 400]


class Server(napkin_notes.Server):
    def __init__(self, binary, data, port, config):
        super().__init__(binary, data, port)
        self.config = config

    def start(self):
        napkin_notes.CONFIG = self.config
        super().start()

    def alive(self):
        try:
            return self.process.poll() is None and call(self, "GET", "/health")[0] == 200
        except OSError:
            return False


def account(server, app, name):
    """A signed-in user of the app: a device account where the app offers one, else a password."""
    status, body, _ = call(server, "POST", "/api/v1/auth/register", {"username": name, "password": "correct horse battery"})
    if status == 201:
        status, body, _ = call(server, "POST", "/api/v1/auth/login", {"username": name, "password": "correct horse battery"})
        if status == 200:
            return body["access_token"]
    status, body, _ = call(server, "POST", "/api/v1/auth/device", {}, headers={"Idempotency-Key": f"k-{name}-{time.time()}"})
    if status == 201:
        return body["access_token"]
    raise RuntimeError(f"{app}: cannot make an account ({status} {body})")


def numeric_operations(spec, mounted):
    """(method, path, numeric query parameters, required query parameters) for every operation the app mounts."""
    components = spec.get("components", {}).get("parameters", {})

    def resolve(parameter):
        if "$ref" in parameter:
            return components.get(parameter["$ref"].rsplit("/", 1)[-1], {})
        return parameter

    for path, item in spec.get("paths", {}).items():
        shared = [resolve(p) for p in item.get("parameters", [])]
        for method, operation in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            parameters = shared + [resolve(p) for p in operation.get("parameters", [])]
            query = [p for p in parameters if p.get("in") == "query"]
            numeric = [p["name"] for p in query if p.get("schema", {}).get("type") in ("integer", "number")]
            numeric += ["{" + p["name"] + "}" for p in parameters
                        if p.get("in") == "path" and p.get("schema", {}).get("type") in ("integer", "number")]
            if not numeric:
                continue
            template = re.sub(r"\{[^}]+\}", "{}", path)
            if not any(re.sub(r"\{[^}]+\}", "{}", route) == template for route in mounted):
                continue
            required = {p["name"]: p for p in query if p.get("required")}
            yield method.upper(), path, numeric, required


def hostile_numbers(server, app, token):
    with open(os.path.join(ROOT, "docs", "openapi.yaml")) as handle:
        spec = yaml.safe_load(handle)
    status, manifest, _ = call(server, "GET", "/api/v1/manifest")
    mounted = {route["path"] for plugin in manifest["plugins"] for route in plugin["routes"]}
    operations = list(numeric_operations(spec, mounted))
    sent, failures = 0, []
    for method, path, numeric, required in operations:
        for name in numeric:
            for value in HOSTILE_NUMBERS:
                query = {key: "1" for key in required}
                if name.startswith("{"):  # a path parameter: the value goes in the path, other parameters get 1
                    concrete = re.sub(r"\{[^}]+\}", lambda match: urllib.parse.quote(value, safe="") or "0" if match.group(0) == name else "1", path)
                else:
                    concrete = re.sub(r"\{[^}]+\}", "x1", path)
                    query[name] = value
                encoded = "&".join(f"{key}={val}" for key, val in query.items())
                body = {} if method in ("POST", "PUT", "PATCH") else None
                try:
                    status, answer, _ = call(server, method, f"{concrete}?{encoded}", body=body, token=token)
                except OSError as error:
                    failures.append(f"{method} {concrete} {name}={value[:20]}: {error}")
                    status = None
                sent += 1
                if status is not None and status >= 500:
                    failures.append(f"{method} {concrete} {name}={value[:20]}: {status} {str(answer)[:120]}")
                if not server.alive():
                    failures.append(f"{method} {concrete} {name}={value[:20]}: the server died")
                    return check(f"{app}: hostile numbers ({sent} requests)", False, "; ".join(failures[:5]))
    check(f"{app}: {sent} hostile numbers on {len(operations)} operations, no 5xx, still serving", not failures and operations,
          "; ".join(failures[:5]) or "no numeric parameters found")


def raw_exchange(server, request_bytes, timeout=10):
    """Sends raw bytes, reads the answer until the server closes; (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as sock:
        try:
            sock.sendall(request_bytes)
        except (BrokenPipeError, ConnectionResetError):
            pass
        chunks = []
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except (ConnectionResetError, socket.timeout):
            pass
    data = b"".join(chunks)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else None
    headers = {line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip() for line in lines[1:] if ":" in line}
    return status, headers, body


def is_problem(status, headers, body, code="bad_request"):
    try:
        document = json.loads(body)
    except ValueError:
        return False
    return status == 400 and headers.get("content-type", "").startswith("application/problem+json") and document.get("code") == code


def malformed_http(server, app, token, post_path):
    for size in (b"zz", b"-1", b"ffffffffffffffffff"):
        request = (f"POST {post_path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                   "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode() + size + b"\r\n{}\r\n0\r\n\r\n"
        status, headers, body = raw_exchange(server, request)
        check(f"{app}: a chunk size of {size.decode()} is a 400 problem", is_problem(status, headers, body), f"{status} {body[:120]!r}")
    long_url = f"GET /api/v1/manifest?{'a' * 100_000} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    status, headers, body = raw_exchange(server, long_url)
    check(f"{app}: a 100 KB URL is a 400 problem", is_problem(status, headers, body), f"{status} {body[:120]!r}")
    big_header = f"GET /api/v1/manifest HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {'b' * 1_000_000}\r\n\r\n".encode()
    status, headers, body = raw_exchange(server, big_header)
    check(f"{app}: a 1 MB header is a 400 problem", is_problem(status, headers, body), f"{status} {body[:120]!r}")
    check(f"{app}: still serving after malformed HTTP", server.alive())


def jpeg(path, seed):
    subprocess.run(["vips", "black", path + ".v", "64", "48"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1", str(seed), "--uchar"], check=True)
    with open(path, "rb") as handle:
        return handle.read()


def two_users_one_month(server, data):
    """Issue 14's acceptance: two users, the same month and tags, 200 uploads each at once."""
    photo = jpeg(os.path.join(data, "same-month.jpg"), 40)
    users = [account(server, "iremember", "alice"), account(server, "iremember", "bob")]
    per_user = 200

    def upload(index):
        token = users[index % 2]
        query = f"takenAt=2024-05-{index % 28 + 1:02d}T10:00&tags=beach,sunset"
        return call(server, "POST", f"/api/v1/album/photos?{query}", raw=photo, content_type="image/jpeg", token=token, timeout=60)[0]

    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(upload, range(per_user * 2)))
    created = statuses.count(201)
    check(f"iremember: two users, same month and tags, {per_user} uploads each at once: all 201", created == per_user * 2,
          f"{created} of {per_user * 2}; others {sorted(set(statuses))}")
    for name, token in zip(("alice", "bob"), users):
        status, body, _ = call(server, "GET", "/api/v1/album/tags", token=token)
        counts = sorted(item["count"] for item in body.get("items", body.get("tags", []))) if status == 200 else body
        check(f"iremember: {name}'s tag counters count only {name}'s photos", counts == [per_user, per_user], counts)


def reused_idempotency_key(server, token):
    """A notebook insert replayed with its key counts once; the key reused for another insert says so."""
    base = "/api/v1/notebooks"
    status, notebook, _ = call(server, "POST", f"{base}/notebooks", {"name": "Keys"}, token=token)
    nb = notebook["id"]
    call(server, "POST", f"{base}/notebooks/{nb}/pages", {"template": "blank"}, token=token)
    key = {"Idempotency-Key": "hardening-key-1"}
    first, _, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "text", "text": "one"}, token=token, headers=key)
    replay, _, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "text", "text": "one"}, token=token, headers=key)
    status, other, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "text", "text": "two"}, token=token, headers=key)
    check("ar-notebook: an Idempotency-Key reused for a different insert is a 409 that says so, not 'kept changing'",
          first == 201 and replay in (200, 201) and status == 409 and "Idempotency-Key" in other.get("detail", "")
          and "kept changing" not in other.get("detail", ""), (first, replay, status, other))


def hostile_apkg(server, data, token):
    """An Anki package is the user's file: NULLs, text and huge numbers where Anki writes integers and text."""
    import sqlite3
    import zipfile
    database = os.path.join(data, "collection.anki2")
    with sqlite3.connect(database) as db:
        db.execute("CREATE TABLE col (decks)")
        db.execute("CREATE TABLE notes (id, tags, flds)")
        db.execute("CREATE TABLE cards (nid, did, ord)")
        db.execute("INSERT INTO col VALUES ('{\"1\": {\"name\": \"Deck\"}, \"x\": 5}')")
        db.executemany("INSERT INTO notes VALUES (?, ?, ?)", [
            (None, None, None), ("abc", 7, "word\x1fdefinition"), (1e30, "t", b"\xff\xfe\x1fx"), (1, "ok", "chat\x1fcat")])
        db.executemany("INSERT INTO cards VALUES (?, ?, ?)", [(None, None, 0), ("abc", 1e300, 0), (1, "deck", 0)])
    package = os.path.join(data, "hostile.apkg")
    with zipfile.ZipFile(package, "w") as archive:
        archive.write(database, "collection.anki2")
    with open(package, "rb") as handle:
        status, job, _ = call(server, "POST", "/api/v1/vocabulary/imports?format=apkg", raw=handle.read(), token=token,
                              content_type="application/zip")
    finished = None
    try:
        for _ in range(300 if status == 202 else 0):
            code, body, _ = call(server, "GET", f"/api/v1/vocabulary/imports/{job['id']}", token=token)
            if code == 200 and body.get("state") != "running":
                finished = body
                break
            time.sleep(0.1)
    except OSError as error:  # the server went away while importing
        finished = None
        job = repr(error)
    check("foreign-note: an .apkg with NULLs and wrong types where Anki writes numbers imports what it can, and the server lives",
          status == 202 and server.alive() and finished is not None and finished.get("imported", 0) >= 1, (status, job, finished))
    if not server.alive():
        return
    _, later, _ = call(server, "POST", "/api/v1/vocabulary/imports?format=apkg", raw=b"PK\x03\x04" + b"\x00" * 100, token=token,
                       content_type="application/zip")
    check("foreign-note: a damaged package's message names no library error", "NSCocoaErrorDomain" not in str(later) and "Error Domain" not in str(later), later)


def share_json_404(server):
    status, body, headers = call(server, "GET", "/api/v1/share-link/s/no-such-token", headers={"Accept": "application/json"})
    content_type = headers.get("Content-Type", "") if hasattr(headers, "get") else ""
    check("iremember: an unknown share link asked as JSON answers a JSON problem",
          status == 404 and content_type.startswith("application/problem+json"), f"{status} {content_type}")


def config_check(binary, data):
    def run(text, name):
        path = os.path.join(data, name)
        with open(path, "w") as handle:
            handle.write(text)

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        started = time.monotonic()
        try:
            done = subprocess.run([binary, "config", "check", path], capture_output=True, text=True, timeout=60,
                                  preexec_fn=limit, cwd=data)
        except subprocess.TimeoutExpired:
            return None, "timed out after 60 s", time.monotonic() - started
        return done.returncode, done.stdout + done.stderr, time.monotonic() - started

    bomb = "app: bomb\nplugins:\n  storage: {}\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for level in range(1, 10):
        bomb += f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]\n"
    code, output, seconds = run(bomb, "bomb.yaml")
    check(f"config check: a billion-laughs file is refused in {seconds:.1f} s under 2 GB, at file:line:column",
          code == 1 and re.search(r"bomb\.yaml:\d+:\d+: .*expands to more than", output), f"exit {code}: {output[:200]}")

    with open(os.path.join(ROOT, "config", "apps", "iremember.yaml")) as handle:
        shipped = handle.read()
    short = shipped.replace("secret: ${QUIRE_AUTH_SECRET:-}", "secret: short")
    code, output, _ = run(short, "short-secret.yaml")
    check("config check: a short auth.secret is refused at its line and column",
          code == 1 and re.search(r"short-secret\.yaml:\d+:\d+: plugins\.auth\.secret: must be at least 32", output), f"exit {code}: {output[:200]}")
    missing = shipped.replace("    rendition: share\n", "    rendition: sharre\n")
    code, output, _ = run(missing, "rendition.yaml")
    check("config check: share-link naming a rendition media does not declare is refused at its position",
          code == 1 and re.search(r"rendition\.yaml:\d+:\d+: plugins\.share-link\.rendition: names the rendition \"sharre\"", output),
          f"exit {code}: {output[:200]}")
    control = shipped.replace("app: iremember", "app: irem\x1b]0;pwned\x07ember")
    code, output, _ = run(control, "control.yaml")
    check("config check: a control character is located and never echoed raw",
          code == 1 and "\x1b" not in output and "\x07" not in output and re.search(r"control\.yaml:\d+:\d+:", output)
          and "control.yaml:1:1:" not in output, f"exit {code}: {output[:200]!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)
    post_paths = {"napkin-notes": "/api/v1/notes", "foreign-note": "/api/v1/vocabulary/collections",
                  "iremember": "/api/v1/album/photos/import", "ar-notebook": "/api/v1/notebooks"}
    for app in APPS:
        with tempfile.TemporaryDirectory(prefix=f"quire-hardening-{app}-") as data:
            server = Server(binary, data, free_port(), os.path.join(ROOT, "config", "apps", f"{app}.yaml"))
            server.start()
            try:
                token = account(server, app, "mallory")
                hostile_numbers(server, app, token)
                malformed_http(server, app, token, post_paths[app])
                if app == "foreign-note":
                    hostile_apkg(server, data, token)
                if app == "ar-notebook":
                    reused_idempotency_key(server, token)
                if app == "iremember":
                    share_json_404(server)
                    two_users_one_month(server, data)
            finally:
                check(f"{app}: stops cleanly", server.stop() == 0)
    with tempfile.TemporaryDirectory(prefix="quire-hardening-config-") as data:
        config_check(binary, data)
    passed, failed = results_count()
    print(f"hardening: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def results_count():
    return sum(napkin_notes.results), len(napkin_notes.results) - sum(napkin_notes.results)


if __name__ == "__main__":
    main()
