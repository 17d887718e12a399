#!/usr/bin/env python3
"""Imports under their limits (issue 38, item 1, and the bounded job queue), against the real `quire`
binary: an app of notes and vocabulary made at run time (the two plugins that import), one job queue.

The amplifying files are made at run time, streamed to disk, never committed:
- an Anki `.apkg` whose one note has a huge back field (one letter repeated: the zip makes it a few
  hundred KB), beside good notes;
- a CSV with one huge cell beside good rows (CSV has no compression: it is uploaded as it is);
- a CSV of one huge line (no line end at all);
- a Google Keep Takeout zip whose one note's text is huge (deflated, a few hundred KB).
Sizes are scaled (`--field-mb`, 32 MB by default) so that the run takes well under a minute, while
every huge field is still hundreds of times over the 64 KB cap.

Six imports at once by two users (three each), while a checker asks `/health` every 100 ms and a
third user signs in and lists their collections. Checked:
- `/health` answers in under 1 s throughout, and every request of the third user is answered (200);
- each import ends `succeeded` with a problem in words for the oversized field (its row, its size,
  the cap; no Swift type names) and every good row imported: nothing lost;
- the server's peak RSS (VmHWM in /proc/<pid>/status) stays under `--max-rss-mb` (printed).
Then the queue's bound: imports past `server.jobs.max_jobs_per_user` are refused with 429 and a
Retry-After before their body is read.

Prints one line per check and `limits_imports acceptance: N passed, N failed` last.

    python3 tools/acceptance/limits_imports.py --binary .build/debug/quire
    python3 tools/acceptance/limits_imports.py --binary .build/debug/quire --field-mb 100   # the issue's sizes (slower)
"""
import argparse
import concurrent.futures
import json
import os
import re
import sqlite3
import sys
import tempfile
import threading
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
from napkin_notes import call, check, free_port, results, sign_up  # noqa: E402

MB = 1 << 20
GOOD_ROWS = 50
# Swift's own words in a message: a type's name with its initializer, an error's description.
SWIFT_WORDS = re.compile(r"[A-Z][A-Za-z]+\(\)|Error\(|BusError|TooLarge|NSError|Swift\.")

CONFIG = """app: limits-imports
server: {{ host: 127.0.0.1, port: "${{QUIRE_PORT:-8080}}"{jobs} }}
bus: {{ transport: in-process }}
plugins:
  storage:
    backend: sqlite
    path: ${{QUIRE_DATA:-./data}}/limits.sqlite
    blobs: ${{QUIRE_DATA:-./data}}/blobs
    blob_grace_seconds: ${{QUIRE_BLOB_GRACE:-600}}
  auth:
    methods: [password]
    secret_file: ${{QUIRE_DATA:-./data}}/limits.auth-secret
  media: {{ max_upload_bytes: 10485760 }}
  drawing: {{ width: 1024, height: 768 }}
  notes: {{}}
  vocabulary: {{ max_import_bytes: 1073741824 }}
"""


class Server(napkin_notes.Server):
    blob_grace = "600"


def status_of(pid):
    """VmRSS and VmHWM of a process, in MB."""
    found = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key = line.split(":")[0]
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(line.split()[1]) / 1024
    return found


def repeated(out, letter, size):
    """Writes `size` bytes of one letter, a megabyte at a time."""
    block = letter * MB
    while size > 0:
        out.write(block[:min(size, MB)])
        size -= MB


def make_apkg(path, field_bytes, scratch):
    """An Anki schema-11 package: GOOD_ROWS notes of a basic note type, and at position 3 one whose
    back is `field_bytes` of one letter (streamed into SQLite with zeroblob and incremental writes)."""
    database = os.path.join(scratch, "collection.anki2")
    if os.path.exists(database):
        os.remove(database)
    db = sqlite3.connect(database)
    db.executescript("""
        CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null, ver integer not null,
            dty integer not null, usn integer not null, ls integer not null, conf text not null, models text not null, decks text not null,
            dconf text not null, tags text not null);
        CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null, usn integer not null,
            tags text not null, flds text not null, sfld integer not null, csum integer not null, flags integer not null, data text not null);
        CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, mod integer not null,
            usn integer not null, type integer not null, queue integer not null, due integer not null, ivl integer not null,
            factor integer not null, reps integer not null, lapses integer not null, left integer not null, odue integer not null,
            odid integer not null, flags integer not null, data text not null);
    """)
    models = {"1": {"id": 1, "name": "Basic", "flds": [{"name": "Front", "ord": 0}, {"name": "Back", "ord": 1}]}}
    decks = {"1": {"id": 1, "name": "Default"}, "2": {"id": 2, "name": "Amplified"}}
    db.execute("INSERT INTO col VALUES (1, 1700000000, 0, 0, 11, 0, 0, 0, '{}', ?, ?, '{}', '{}')", (json.dumps(models), json.dumps(decks)))
    huge_at = 3
    for n in range(1, GOOD_ROWS + 2):
        if n == huge_at:
            # The field separator and the word first, then the back written in place, a megabyte at a time.
            head = b"huge\x1f"
            db.execute("INSERT INTO notes VALUES (?, ?, 1, 0, -1, '', zeroblob(?), 0, 0, 0, '')", (n, f"g{n}", len(head) + field_bytes))
            blob = db.blobopen("notes", "flds", n)
            blob.write(head)
            left = field_bytes
            while left > 0:
                blob.write(b"z" * min(left, MB))
                left -= MB
            blob.close()
        else:
            db.execute("INSERT INTO notes VALUES (?, ?, 1, 0, -1, ' t ', ?, 0, 0, 0, '')", (n, f"g{n}", f"word{n}\x1fmeaning {n}"))
        db.execute("INSERT INTO cards VALUES (?, ?, 2, 0, 0, -1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')", (n, n, n))
    db.commit()
    db.close()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.write(database, "collection.anki2")
        archive.writestr("media", "{}")
    os.remove(database)
    return GOOD_ROWS


def make_csv(path, field_bytes):
    """A header, good rows, and at row 4 (counting the header) a definition of `field_bytes`."""
    with open(path, "wb") as out:
        out.write(b"word,definition,tags\n")
        for n in range(1, GOOD_ROWS + 1):
            if n == 3:
                out.write(b'huge,"')
                repeated(out, b"y", field_bytes)
                out.write(b'",big\n')
            out.write(f"csvword{n},meaning {n},t\n".encode())
    return GOOD_ROWS


def make_one_line_csv(path, field_bytes):
    """One line, no line end: a word and a definition of `field_bytes`."""
    with open(path, "wb") as out:
        out.write(b"lonely,")
        repeated(out, b"x", field_bytes)
    return 0


def make_keep(path, field_bytes, scratch):
    """A Takeout zip of GOOD_ROWS Keep notes and one whose text is `field_bytes` (deflated as it is written)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for n in range(1, GOOD_ROWS + 1):
            note = {"title": f"Keep {n}", "textContent": f"text {n}", "isTrashed": False, "userEditedTimestampUsec": 1700000000000000}
            archive.writestr(f"Takeout/Keep/note{n:03d}.json", json.dumps(note))
        with archive.open("Takeout/Keep/huge.json", "w", force_zip64=True) as out:
            out.write(b'{"title": "Huge", "isTrashed": false, "textContent": "')
            repeated(out, b"k", field_bytes)
            out.write(b'"}')
    return GOOD_ROWS


def post_import(server, token, path, route, content_type):
    """Streams the file as the body (http.client reads it from disk)."""
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    with open(path, "rb") as body:
        connection.request("POST", route, body=body, headers={
            "Authorization": f"Bearer {token}", "Content-Type": content_type, "Content-Length": str(os.path.getsize(path))})
        response = connection.getresponse()
        text = response.read()
        headers = dict(response.getheaders())
    connection.close()
    try:
        answer = json.loads(text or b"{}")
    except ValueError:
        answer = {"raw": text[:200].decode(errors="replace")}
    return response.status, answer, headers


def wait_for(server, token, location, deadline):
    job = {}
    while time.time() < deadline:
        status, job, _ = call(server, "GET", location, token=token, timeout=10)
        if status == 200 and job.get("state") != "running":
            return job
        time.sleep(0.25)
    return job


class Watch:
    """`/health` every 100 ms and a third user's sign-in and list every 250 ms, while the imports run."""

    def __init__(self, server, token):
        self.server, self.token = server, token
        self.stop = threading.Event()
        self.health = []
        self.other = []
        self.threads = [threading.Thread(target=self.ask_health, daemon=True), threading.Thread(target=self.ask_other, daemon=True)]

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)

    def ask_health(self):
        while not self.stop.is_set():
            started = time.time()
            try:
                status = call(self.server, "GET", "/health", timeout=10)[0]
            except OSError:
                status = 0
            self.health.append((time.time() - started, status))
            self.stop.wait(0.1)

    def ask_other(self):
        turn = 0
        while not self.stop.is_set():
            started = time.time()
            try:
                if turn % 4 == 0:
                    status = call(self.server, "POST", "/api/v1/auth/login", {"username": "carol", "password": "correct horse battery"},
                                  timeout=10)[0]
                else:
                    status = call(self.server, "GET", "/api/v1/vocabulary/collections", token=self.token, timeout=10)[0]
            except OSError:
                status = 0
            self.other.append((time.time() - started, status))
            turn += 1
            self.stop.wait(0.25)


def entries(server, token):
    """Every entry word of the user's vocabulary."""
    words = []
    for collection in call(server, "GET", "/api/v1/vocabulary/collections?limit=1000", token=token)[1]["items"]:
        cursor = ""
        while True:
            page = call(server, "GET", f"/api/v1/vocabulary/collections/{collection['id']}/entries?limit=1000{cursor}", token=token)[1]
            words += [item["word"] for item in page["items"]]
            if not page.get("nextCursor"):
                break
            cursor = "&cursor=" + page["nextCursor"]
    return words


def note_titles(server, token):
    titles, cursor = [], ""
    while True:
        page = call(server, "GET", f"/api/v1/notes?limit=500{cursor}", token=token)[1]
        titles += [item["title"] for item in page["items"]]
        if not page.get("nextCursor"):
            return titles
        cursor = "&cursor=" + page["nextCursor"]


def problems_of(job):
    return job.get("errors", []) + job.get("problems", [])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(napkin_notes.ROOT, ".build", "debug", "quire"))
    parser.add_argument("--field-mb", type=int, default=32, help="size of each oversized field (the issue's: 100 and 200)")
    parser.add_argument("--max-rss-mb", type=float, default=300, help="the server's peak RSS must stay under this")
    parser.add_argument("--timeout", type=float, default=120, help="seconds the six imports may take")
    parser.add_argument("--no-bound", action="store_true", help="skip the queue's bound and its setting (for a binary from before it)")
    args = parser.parse_args()
    field = args.field_mb * MB
    with tempfile.TemporaryDirectory(prefix="quire-limits-imports-") as data:
        started = time.time()
        files = {
            "apkg": (os.path.join(data, "amplified.apkg"), make_apkg(os.path.join(data, "amplified.apkg"), field, data)),
            "csv": (os.path.join(data, "cell.csv"), make_csv(os.path.join(data, "cell.csv"), field)),
            "line": (os.path.join(data, "line.csv"), make_one_line_csv(os.path.join(data, "line.csv"), field)),
            "keep": (os.path.join(data, "takeout.zip"), make_keep(os.path.join(data, "takeout.zip"), field, data)),
        }
        sizes = ", ".join(f"{name} {os.path.getsize(path) / 1e3:,.0f} KB" for name, (path, _) in files.items())
        print(f"   made the files in {time.time() - started:.1f} s, each with a {args.field_mb} MB field: {sizes}")
        config = os.path.join(data, "limits-imports.yaml")
        with open(config, "w") as out:
            # --no-bound: a binary from before the job queue, which knows no server.jobs.
            out.write(CONFIG.format(jobs="" if args.no_bound else ", jobs: { workers: 2, max_jobs: 16, max_jobs_per_user: 4 }"))
        server = Server(os.path.abspath(args.binary), data, free_port(), config=config)
        server.start()
        try:
            alice, bob, carol = sign_up(server, "alice"), sign_up(server, "bob"), sign_up(server, "carol")
            base = status_of(server.process.pid)
            print(f"   the server before the imports: RSS {base['VmRSS']:.0f} MB, peak {base['VmHWM']:.0f} MB")
            routes = {"apkg": ("/api/v1/vocabulary/imports?format=apkg&collection=Anki", "application/zip"),
                      "csv": ("/api/v1/vocabulary/imports?format=csv&collection=Cells", "text/csv"),
                      "line": ("/api/v1/vocabulary/imports?format=csv&collection=Line", "text/csv"),
                      "keep": ("/api/v1/notes/imports?format=keep", "application/zip")}
            plan = [("alice", alice, "apkg"), ("alice", alice, "csv"), ("alice", alice, "line"),
                    ("bob", bob, "apkg"), ("bob", bob, "csv"), ("bob", bob, "keep")]
            begun = time.time()
            with Watch(server, carol) as watch:
                with concurrent.futures.ThreadPoolExecutor(len(plan)) as pool:
                    posted = list(pool.map(lambda item: post_import(server, item[1], files[item[2]][0], *routes[item[2]]), plan))
                accepted = [(who, token, kind, answer[2].get("Location") or answer[2].get("location"))
                            for (who, token, kind), answer in zip(plan, posted) if answer[0] == 202]
                check("the six imports at once are accepted (202 with a job)", len(accepted) == len(plan),
                      [(kind, answer[0], answer[1]) for (_, _, kind), answer in zip(plan, posted)])
                deadline = begun + args.timeout
                with concurrent.futures.ThreadPoolExecutor(len(accepted) or 1) as pool:
                    jobs = list(pool.map(lambda item: wait_for(server, item[1], item[3], deadline), accepted))
            seconds = time.time() - begun
            peak = status_of(server.process.pid)
            for (who, _, kind, _), job in zip(accepted, jobs):
                problems = problems_of(job)
                oversized = [p for p in problems if "may be at most 64 KB" in p.get("message", "")
                             or "the most a Keep note may be" in p.get("message", "")]
                good = files[kind][1]
                imported = job.get("imported")
                check(f"{who}'s {kind} import ends succeeded, {good} good rows imported, the oversized field reported in words",
                      job.get("state") == "succeeded" and imported == good and len(oversized) == 1
                      and (kind == "keep" or f"is {args.field_mb} MB" in oversized[0]["message"]),
                      json.dumps({k: job.get(k) for k in ("state", "imported", "failure", "errors", "problems")})[:500])
                check(f"{who}'s {kind} import's problems name no Swift type", not any(SWIFT_WORDS.search(p.get("message", "")) for p in problems),
                      [p.get("message") for p in problems])
                if oversized:
                    print(f"   {who} {kind}: {oversized[0].get('row', oversized[0].get('note'))}: {oversized[0]['message']}")
            slowest = max((latency for latency, _ in watch.health), default=0)
            check(f"/health answers in under 1 s throughout ({len(watch.health)} asked, slowest {slowest * 1000:.0f} ms)",
                  watch.health and slowest < 1 and all(status == 200 for _, status in watch.health))
            other = [status for _, status in watch.other]
            other_slowest = max((latency for latency, _ in watch.other), default=0)
            check(f"the other user's sign-ins and lists are all answered 200 ({len(other)}, slowest {other_slowest * 1000:.0f} ms)",
                  other and all(status == 200 for status in other), other[-10:])
            # Nothing lost: every good row is there, once.
            for who, token in (("alice", alice), ("bob", bob)):
                words = entries(server, token)
                expected = {f"word{n}" for n in range(1, GOOD_ROWS + 2) if n != 3} | {f"csvword{n}" for n in range(1, GOOD_ROWS + 1)}
                check(f"{who}'s vocabulary holds every good row once and nothing of the oversized ones ({len(words)} entries)",
                      sorted(words) == sorted(expected), sorted(set(words) ^ expected)[:10])
            titles = note_titles(server, bob)
            check(f"bob's Keep notes are all there but the oversized one ({len(titles)})",
                  sorted(titles) == sorted(f"Keep {n}" for n in range(1, GOOD_ROWS + 1)), titles[:5])
            print(f"   six imports in {seconds:.1f} s; server peak RSS {peak['VmHWM']:.0f} MB (before {base['VmHWM']:.0f} MB), "
                  f"RSS after {peak['VmRSS']:.0f} MB")
            check(f"the server's peak RSS stays under {args.max_rss_mb:.0f} MB ({peak['VmHWM']:.0f} MB)", peak["VmHWM"] < args.max_rss_mb)
            if not args.no_bound:
                bound(server, files)
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("limits_imports acceptance run", False, repr(error))
        finally:
            if server.process and server.process.poll() is None:
                server.stop()
    failed = results.count(False)
    print(f"limits_imports acceptance: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


def bound(server, files):
    """max_jobs_per_user is 4: a user's imports past it are refused with 429 and Retry-After before
    their body is read; the others run to the end."""
    token = sign_up(server, "dave")
    path = files["csv"][0]
    route, kind = "/api/v1/vocabulary/imports?format=csv&collection=Bound", "text/csv"
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: post_import(server, token, path, route, kind), range(8)))
    statuses = sorted(status for status, _, _ in answers)
    refused = [(answer, headers) for status, answer, headers in answers if status == 429]
    accepted = [headers.get("Location") or headers.get("location") for status, _, headers in answers if status == 202]
    check(f"eight imports at once by one user: some past their share are refused with 429 ({statuses})",
          len(refused) >= 1 and len(accepted) + len(refused) == 8 and len(accepted) >= 4)
    check("…each refusal says why in words, with a Retry-After",
          all(headers.get("Retry-After") and answer.get("code") == "rate_limited" and "at once" in answer.get("detail", "")
              for answer, headers in refused), refused[:1])
    jobs = [wait_for(server, token, location, time.time() + 120) for location in accepted]
    check("…and the accepted ones all end succeeded", all(job.get("state") == "succeeded" for job in jobs),
          [job.get("state") for job in jobs])


if __name__ == "__main__":
    sys.exit(main())
