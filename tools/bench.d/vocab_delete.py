#!/usr/bin/env python3
"""Deleting a 20,000-entry Foreign Note collection (issue 16), against a release `quire` (SQLite):

1. the DELETE's answer time (what the user waits for: the collection and its entries are gone from
   every list at once);
2. the background purge: from the answer until the last entry row is gone from the database;
3. a search while the purge runs (the user keeps working).

    tools/bench.d/vocab_delete.py --bin .build/release [--entries 20000] [--rounds 3]

Prints one JSON object; BENCHMARKS.md quotes it.
"""
import argparse
import http.client
import json
import os
import sqlite3
import sys
import tempfile
import time

from benchlib import free_port, serving

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")


def request(port, method, path, body=None, token=None, content_type="application/json"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    headers = {"Content-Type": content_type}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    connection.request(method, path, body, headers)
    response = connection.getresponse()
    data = response.read()
    return response.status, (json.loads(data) if data and response.getheader("Content-Type", "").startswith("application/json") else data)


def one_round(port, database, entries, name):
    status, _ = request(port, "POST", "/api/v1/auth/register", json.dumps({"username": name, "password": "a good password"}))
    _, login = request(port, "POST", "/api/v1/auth/login", json.dumps({"username": name, "password": "a good password"}))
    token = login["access_token"]
    rows = ["word,definition,tags,collection"] + [f"w{i},meaning {i} of the word,t{i % 7},Big" for i in range(entries)]
    _, job = request(port, "POST", "/api/v1/vocabulary/imports?format=csv", "\n".join(rows).encode(), token, "text/csv")
    while True:
        _, state = request(port, "GET", f"/api/v1/vocabulary/imports/{job['id']}", token=token)
        if state["state"] != "running":
            break
        time.sleep(0.2)
    assert state["state"] == "succeeded" and state["imported"] == entries, state
    _, collections = request(port, "GET", "/api/v1/vocabulary/collections", token=token)
    collection = collections["items"][0]["id"]
    started = time.perf_counter()
    status, _ = request(port, "DELETE", f"/api/v1/vocabulary/collections/{collection}", token=token)
    answered = time.perf_counter() - started
    assert status == 204, status
    search_started = time.perf_counter()
    _, found = request(port, "GET", "/api/v1/vocabulary/search?q=w1", token=token)
    search = time.perf_counter() - search_started
    assert found["items"] == [], found
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    while db.execute("SELECT count(*) FROM records WHERE collection = 'vocab.entries' AND json_extract(data, '$.collection') = ?",
                     (collection,)).fetchone()[0]:
        time.sleep(0.05)
    purged = time.perf_counter() - started
    db.close()
    return answered, purged, search


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--entries", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-bench-vocab-delete-") as data:
        port = free_port()
        env = dict(os.environ, QUIRE_DATA=data)
        results = []
        with serving(os.path.abspath(args.bin), CONFIG, env, port):
            for index in range(args.rounds):
                results.append(one_round(port, os.path.join(data, "foreign-note.sqlite"), args.entries, f"bench{index}"))
    answered = sorted(r[0] for r in results)
    purged = sorted(r[1] for r in results)
    searches = sorted(r[2] for r in results)
    print(json.dumps({"entries": args.entries, "rounds": args.rounds,
                      "delete_answer_ms": [round(v * 1000, 1) for v in answered],
                      "purge_done_s": [round(v, 2) for v in purged],
                      "search_during_purge_ms": [round(v * 1000, 1) for v in searches]}))


if __name__ == "__main__":
    sys.exit(main())
