#!/usr/bin/env python3
"""Peak memory of a running `quire serve` while 8 clients upload a 24-megapixel photo at once.

usage: upload_rss.py BASE_URL TOKEN PID PHOTO [--clients 8] [--rounds 3]
Prints one JSON object: resident memory before (VmRSS), peak over the run (VmHWM: the kernel's
high-water mark of the process), wall time per round, and the statuses seen.
"""
import argparse
import json
import threading
import time
import urllib.error
import urllib.request


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("token")
    parser.add_argument("pid", type=int)
    parser.add_argument("photo")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
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
