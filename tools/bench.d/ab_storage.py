#!/usr/bin/env python3
"""A/B of two release builds of `quire` on the storage-heavy requests (issue 40's acceptance: the one
write pipeline must cost nothing measurable). Alternates the builds (A B A B ...), each run on a
fresh server and database with the shipped Napkin Notes app (SQLite; the notes' page cache off so a
list runs the query and renders the page), and measures with wrk (-t1, 8 connections):

  create   POST /api/v1/notes                       (a writer's notes grow through the run)
  list     GET  /api/v1/notes?limit=100             (a reader with 100 notes; page cache off)
  search   GET  /api/v1/notes/search?q=number%20fo  (every word, the last a prefix: 100 notes match)
  pull     GET  /api/v1/sync/changes?limit=100      (the reader's 100 notes, from the start)

For each: requests per second and the server's CPU per request (utime+stime from /proc/<pid>/stat
over the wrk run, divided by the requests answered), which the other load on a shared machine
disturbs far less than wall time. Prints each run as a JSON line and then a Markdown table of
medians and ranges.

    tools/bench.d/ab_storage.py --a /work/wt-A/.build/release --b /work/wt-B/.build/release \
        [--rounds 3] [--seconds 8]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import call, free_port, sign_up as signin, wrk

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")
WORKLOADS = ["create", "list", "search", "pull"]


def run(binaries, label, seconds):
    work = tempfile.mkdtemp(prefix=f"ab-{label}-")
    with open(CONFIG) as source:
        text = source.read()
    # The notes plugin's line, whatever else it switches on, with the page cache off.
    config = re.sub(r"^(  notes: \{ .*?) \}$", r"\1, list_cache_bytes: 0 }", text, count=1, flags=re.M)
    assert config != text, "napkin-notes.yaml's notes line changed: update ab_storage.py"
    path = os.path.join(work, "app.yaml")
    with open(path, "w") as target:
        target.write(config)
    port = free_port()
    env = dict(os.environ, QUIRE_PORT=str(port), QUIRE_DATA=work)
    server = subprocess.Popen([os.path.join(binaries, "quire"), "serve", "--config", path, "--log-level", "warning"],
                              env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "log"), "w"))
    try:
        for _ in range(300):
            try:
                call(port, "GET", "/health")
                break
            except (OSError, RuntimeError):
                time.sleep(0.1)
        reader, writer = signin(port, "reader"), signin(port, "writer")
        for i in range(100):
            call(port, "POST", "/api/v1/notes",
                 {"title": f"note {i}", "text": f"some text for note number {i}, a line or two long, as a quick note is"}, reader)
        api = f"http://127.0.0.1:{port}/api/v1"
        assert len(call(port, "GET", "/api/v1/notes?limit=100", token=reader)["items"]) == 100
        assert len(call(port, "GET", "/api/v1/notes/search?q=number%20fo&limit=100", token=reader)["items"]) == 100
        pulled = len(call(port, "GET", "/api/v1/sync/changes?limit=100", token=reader)["items"])
        assert pulled > 0, "the reader's feed is empty"
        time.sleep(1)
        result = {"build": label, "pulled_per_request": pulled,
                  "create": wrk(server.pid, f"{api}/notes", seconds, WRK_METHOD="POST", WRK_TOKEN=writer,
                                WRK_BODY='{"title":"bench","text":"a quick note"}'),
                  "list": wrk(server.pid, f"{api}/notes?limit=100", seconds, WRK_TOKEN=reader),
                  "search": wrk(server.pid, f"{api}/notes/search?q=number%20fo&limit=20", seconds, WRK_TOKEN=reader),
                  "pull": wrk(server.pid, f"{api}/sync/changes?limit=100", seconds, WRK_TOKEN=reader)}
        return result
    finally:
        server.terminate()
        server.wait(timeout=30)
        subprocess.run(["rm", "-rf", work])


def spread(values):
    m = statistics.median(values)
    return m, min(values), max(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", required=True, help="folder of build A's quire")
    parser.add_argument("--b", required=True, help="folder of build B's quire")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=8)
    args = parser.parse_args()
    runs = []
    for round_ in range(args.rounds):
        for label, binaries in (("A", args.a), ("B", args.b)):
            result = run(binaries, label, args.seconds)
            runs.append(result)
            print(json.dumps(result), flush=True)
    print("\n| workload | A req/s median (range) | B req/s median (range) | A CPU µs/req median (range) | B CPU µs/req median (range) | B/A CPU |")
    print("| --- | --- | --- | --- | --- | --- |")
    for w in WORKLOADS:
        cells, cpu = [], {}
        for label in "AB":
            m, lo, hi = spread([r[w]["per_second"] for r in runs if r["build"] == label])
            cells.append(f"{m:,.0f} ({lo:,.0f}–{hi:,.0f})")
        for label in "AB":
            m, lo, hi = spread([r[w]["cpu_us"] for r in runs if r["build"] == label])
            cpu[label] = m
            cells.append(f"{m:,.0f} ({lo:,.0f}–{hi:,.0f})")
        print(f"| {w} | " + " | ".join(cells) + f" | {cpu['B'] / cpu['A']:.2f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
