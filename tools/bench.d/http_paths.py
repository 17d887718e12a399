#!/usr/bin/env python3
"""Issue 42's two HTTP paths, each against its peer in the same run, on tools/bench's own app (SQLite,
WAL, synchronous=NORMAL; the notes' page cache off):

  health   GET  /health                         (8 connections: HTTP serving alone, the create's peer)
  create   POST /api/v1/notes                   (8 connections; a writer's notes grow through the run)
  edit     PATCH /api/v1/notes/<id>             (8 connections over 64 notes in turn, a new text each time, no key)
  edit_key the same edit, each with its own Idempotency-Key (the claim row it writes: its cost is
           edit_key ÷ edit)
  list     GET  /api/v1/notes?limit=100         (16 connections; a reader with 100 notes, page cache off)
  paced    the same list, 12 connections each waiting 10 ms (p99 at about 1,000 req/s)
  nginx    the same list's bytes as a static file (16 connections), the list's peer

With several --bin folders the builds alternate (A B A B ...), each round on a fresh server and
database, so an A/B shares the machine's load. Besides wrk's rate and latency, each run reports the
server's CPU per request (utime+stime from /proc/<pid>/stat over the wrk run ÷ requests), which the
other load on a shared machine disturbs far less. Prints each run as a JSON line, then a Markdown
table of medians with the ratios the issue asks for (create ÷ health, list ÷ nginx).

    tools/bench.d/http_paths.py [--bin .build/release ...] [--rounds 1] [--seconds 5] [--only create,list]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import bench_app_yaml, call, free_port, sign_up as signin, wrk

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEASURES = ["health", "create", "edit", "edit_key", "list", "paced", "nginx"]


def nginx_rate(body, seconds):
    work = tempfile.mkdtemp(prefix="http-paths-nginx-")
    port = free_port()
    os.makedirs(f"{work}/root/api/v1")
    with open(f"{work}/root/api/v1/notes", "wb") as f:
        f.write(body)
    os.chmod(work, 0o755)  # nginx's workers run as another user
    os.chmod(f"{work}/root/api/v1/notes", 0o644)
    with open(f"{work}/nginx.conf", "w") as f:
        f.write(f"""worker_processes auto;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  server {{ listen 127.0.0.1:{port}; root {work}/root; location / {{ default_type application/json; }} }}
}}
""")
    subprocess.run(["nginx", "-c", f"{work}/nginx.conf", "-p", work], check=True)
    try:
        time.sleep(0.5)
        return wrk(None, f"http://127.0.0.1:{port}/api/v1/notes", seconds, 16)
    finally:
        subprocess.run(["nginx", "-c", f"{work}/nginx.conf", "-p", work, "-s", "stop"])
        time.sleep(0.3)
        shutil.rmtree(work, ignore_errors=True)


def run(binaries, label, seconds, only):
    work = tempfile.mkdtemp(prefix=f"http-paths-{label}-")
    port = free_port()
    with open(f"{work}/app.yaml", "w") as f:
        f.write(bench_app_yaml(work, port, notes="notes: { list_cache_bytes: 0 }"))
    server = subprocess.Popen([os.path.join(binaries, "quire"), "serve", "--config", f"{work}/app.yaml", "--log-level", "warning"],
                              stdout=subprocess.DEVNULL, stderr=open(f"{work}/log", "w"))
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
        listed = subprocess.run(["curl", "-sf", f"{api}/notes?limit=100", "-H", f"authorization: Bearer {reader}"],
                                capture_output=True, check=True).stdout
        assert len(json.loads(listed)["items"]) == 100
        time.sleep(0.5)
        result = {"build": label, "list_bytes": len(listed)}
        pid = server.pid
        if "health" in only:
            result["health"] = wrk(pid, f"http://127.0.0.1:{port}/health", seconds, 8)
        if "create" in only:
            result["create"] = wrk(pid, f"{api}/notes", seconds, 8, WRK_METHOD="POST", WRK_TOKEN=writer,
                                   WRK_BODY='{"title":"bench","text":"a quick note"}')
        if "edit" in only:
            edited = ",".join(f"/api/v1/notes/{call(port, 'POST', '/api/v1/notes', {'title': f'edited {i}', 'text': 'first'}, writer)['id']}"
                              for i in range(64))
            result["edit"] = wrk(pid, f"{api}/notes", seconds, 8, WRK_METHOD="PATCH", WRK_TOKEN=writer, WRK_EDIT="1", WRK_PATHS=edited)
            result["edit_key"] = wrk(pid, f"{api}/notes", seconds, 8, WRK_METHOD="PATCH", WRK_TOKEN=writer, WRK_EDIT="1",
                                     WRK_PATHS=edited, WRK_IDEMPOTENCY="1")
        if "list" in only:
            result["list"] = wrk(pid, f"{api}/notes?limit=100", seconds, 16, WRK_TOKEN=reader)
            result["paced"] = wrk(pid, f"{api}/notes?limit=100", seconds, 12, WRK_TOKEN=reader, WRK_DELAY_MS="10")
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    if "list" in only:
        result["nginx"] = nginx_rate(listed, seconds)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", action="append", help="folder of a build's quire (repeat for an A/B)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--only", default="health,create,edit,list")
    args = parser.parse_args()
    bins = args.bin or [os.path.join(ROOT, ".build", "release")]
    labels = [chr(ord("A") + i) for i in range(len(bins))]
    only = set(args.only.split(","))
    runs = []
    for _ in range(args.rounds):
        for label, binaries in zip(labels, bins):
            result = run(binaries, label, args.seconds, only)
            runs.append(result)
            print(json.dumps(result), flush=True)
    print("\n| build | measure | req/s median (range) | p50 / p99 ms (median) | server CPU µs/req median (range) |")
    print("| --- | --- | --- | --- | --- |")
    med = lambda values: statistics.median(values) if values else float("nan")
    summary = {}
    for label, binaries in zip(labels, bins):
        mine = [r for r in runs if r["build"] == label]
        for m in MEASURES:
            rows = [r[m] for r in mine if m in r]
            if not rows:
                continue
            rates = [r["per_second"] for r in rows]
            cpus = [r["cpu_us"] for r in rows if "cpu_us" in r]
            summary[(label, m)] = med(rates)
            cpu = f"{med(cpus):,.0f} ({min(cpus):,.0f}–{max(cpus):,.0f})" if cpus else ""
            print(f"| {label} ({binaries}) | {m} | {med(rates):,.0f} ({min(rates):,.0f}–{max(rates):,.0f}) | "
                  f"{med([r['p50_ms'] for r in rows]):.2f} / {med([r['p99_ms'] for r in rows]):.2f} | {cpu} |")
        if (label, "create") in summary and (label, "health") in summary:
            print(f"| {label} | create ÷ health | {100 * summary[(label, 'create')] / summary[(label, 'health')]:.0f} % | | |")
        if (label, "edit_key") in summary and (label, "edit") in summary:
            print(f"| {label} | edit with a key ÷ without | {100 * summary[(label, 'edit_key')] / summary[(label, 'edit')]:.0f} % | | |")
        if (label, "list") in summary and (label, "nginx") in summary:
            print(f"| {label} | uncached list ÷ nginx | {100 * summary[(label, 'list')] / summary[(label, 'nginx')]:.0f} % | | |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
