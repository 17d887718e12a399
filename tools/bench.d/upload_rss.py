#!/usr/bin/env python3
"""Peak memory of a running `quire serve` while 8 (or --concurrent N) clients upload a 24-megapixel photo at once.

usage: upload_rss.py BASE_URL TOKEN PID PHOTO [--concurrent 8] [--rounds 3]
       upload_rss.py --binary .build/release/quire [--concurrent 32] [--rounds 3] [--photo FILE]
The second form starts its own server, on tools/bench's configuration (SQLite, Napkin's notes and
media with its two renditions, the default memory budget), and signs a user in; the photo defaults
to tools/bench's 24 MP one (.build/bench-photos, made by tools/bench.d/photos.sh).
Prints one JSON object: resident memory before (VmRSS), peak over the run (VmHWM: the kernel's
high-water mark of the process), wall time per round, and the statuses seen.
"""
import argparse
import json
import os
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

from benchlib import bench_app_yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for pid {pid}")


def request(base, token, method, path, body=None, content_type="application/json"):
    req = urllib.request.Request(base + path, data=body, method=method)
    req.add_header("Authorization", "Bearer " + token)
    if body is not None:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=120) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def serve(binary, work):
    """`quire serve` on tools/bench's configuration in `work`: its process, API base and a user's token."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = os.path.join(work, "app.yaml")
    with open(config, "w") as handle:
        handle.write(bench_app_yaml(work, port))
    log = open(os.path.join(work, "quire.log"), "w")
    server = subprocess.Popen([binary, "serve", "--config", config, "--log-level", "warning"], stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}/api/v1"
    for _ in range(150):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                break
        except OSError:
            time.sleep(0.2)
    account = json.dumps({"username": "uploader", "password": "bench password"}).encode()
    for path in ("/auth/register", "/auth/login"):
        req = urllib.request.Request(base + path, data=account, method="POST", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as response:
            answer = json.loads(response.read())
    return server, base, answer["access_token"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base", nargs="?")
    parser.add_argument("token", nargs="?")
    parser.add_argument("pid", type=int, nargs="?")
    parser.add_argument("photo", nargs="?")
    parser.add_argument("--concurrent", "--clients", dest="clients", type=int, default=8, help="uploads at once")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--binary", help="start this quire on tools/bench's configuration instead of using a running one")
    parser.add_argument("--photo", dest="photo_option", default=os.path.join(ROOT, ".build", "bench-photos", "astronaut_6000x4000.jpg"))
    args = parser.parse_args()
    if args.binary:
        with tempfile.TemporaryDirectory(prefix="quire-upload-rss-") as work:
            server, args.base, args.token = serve(os.path.abspath(args.binary), work)
            args.pid, args.photo = server.pid, args.photo or args.photo_option
            try:
                measure(args)
            finally:
                server.terminate()
                server.wait(30)
    elif None in (args.base, args.token, args.pid, args.photo):
        parser.error("BASE_URL TOKEN PID PHOTO, or --binary")
    else:
        measure(args)


def measure(args):
    with open(args.photo, "rb") as handle:
        photo = handle.read()
    notes = []
    for index in range(args.clients):
        status, body = request(args.base, args.token, "POST", "/notes", json.dumps({"title": f"upload {index}"}).encode())
        notes.append(json.loads(body)["id"])
    before = status_kb(args.pid, "VmRSS")
    before_peak = status_kb(args.pid, "VmHWM")
    statuses, rounds = [], []
    for round_index in range(args.rounds):
        # A different last byte each round (after the JPEG's end marker, ignored by decoders), so
        # every round is new content: decoded, verified and stored again, not found in place.
        payload = photo + bytes([round_index])
        barrier = threading.Barrier(args.clients)
        seen = []

        def upload(note):
            barrier.wait()
            seen.append(request(args.base, args.token, "PUT", f"/notes/{note}/photo", payload, "image/jpeg")[0])

        threads = [threading.Thread(target=upload, args=(note,)) for note in notes]
        started = time.time()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        rounds.append(time.time() - started)
        statuses += seen
    print(json.dumps({
        "clients": args.clients, "photo_bytes": len(photo), "rss_before_mb": before / 1024, "peak_before_mb": before_peak / 1024,
        "peak_mb": status_kb(args.pid, "VmHWM") / 1024, "rss_after_mb": status_kb(args.pid, "VmRSS") / 1024,
        "round_seconds": min(rounds), "statuses": sorted(set(statuses)), "uploads": len(statuses),
    }))


if __name__ == "__main__":
    main()
