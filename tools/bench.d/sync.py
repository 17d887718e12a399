#!/usr/bin/env python3
"""Sync (issue 15), against a release `quire` serving Napkin Notes (SQLite):

1. propagation: 1,000 live WebSocket clients (10 users x 100 devices). One device of a user creates
   a note; every other device of that user is poked and pulls; the time from the write's answer to
   each device's pull holding the note. p50/p99 over all (writes x 99) deliveries; server memory
   per idle live connection;
2. catch-up: a device that missed 100,000 changes pulls them all (pages of 1,000): time and bytes;
3. cost: note creates and edits per second (wrk) with the sync plugin and storage history on, and
   with both off, same run.

    tools/bench.d/sync.py --bin .build/release [--writes 2000] [--changes 100000] [--seconds 10]

Prints one JSON object; BENCHMARKS.md quotes it.
"""
import argparse
import asyncio
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from websockets.asyncio.client import connect

from benchlib import call, free_port, memory_mb, percentiles, serving

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")


def write_config(path, sync, history):
    with open(CONFIG) as source:
        text = source.read()
    text = text.replace("  sync: {}", "  sync: { max_connections_per_user: 200 }" if sync else "")
    if not history:
        text = text.replace("    blob_grace_seconds: ${QUIRE_BLOB_GRACE:-600}", "    blob_grace_seconds: ${QUIRE_BLOB_GRACE:-600}\n    history: false")
    with open(path, "w") as target:
        target.write(text)


def sign_up(port, name):
    call(port, "POST", "/api/v1/auth/register", {"username": name, "password": "correct horse battery"})
    return call(port, "POST", "/api/v1/auth/login", {"username": name, "password": "correct horse battery"})["access_token"]


class HTTP:
    """One keep-alive HTTP/1.1 connection on asyncio streams: enough for GET and POST of JSON."""

    def __init__(self, port, token):
        self.port, self.token = port, token
        self.reader = self.writer = None

    async def request(self, method, path, body=None):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        payload = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {self.token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n")
        self.writer.write(head.encode() + payload)
        status_line = await self.reader.readline()
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data = await self.reader.readexactly(length)
        status = int(status_line.split()[1])
        if status >= 300:
            raise RuntimeError(f"{method} {path}: {status} {data[:200]!r}")
        return data


class Device:
    def __init__(self, port, token, user):
        self.port, self.token, self.user = port, token, user
        self.http = HTTP(port, token)
        self.cursor = None
        self.poked = asyncio.Event()
        self.seen = set()

    async def pull(self):
        while True:
            query = f"?after={self.cursor}" if self.cursor else ""
            page = json.loads(await self.http.request("GET", "/api/v1/sync/changes" + query))
            for entry in page["items"]:
                if not entry["deleted"]:
                    self.seen.add(entry["record"]["title"])
            self.cursor = page["nextCursor"]
            if not page["hasMore"]:
                return

    async def live(self, ready):
        async with connect(f"ws://127.0.0.1:{self.port}/api/v1/sync/live", ping_interval=None) as socket_:
            await socket_.send(json.dumps({"type": "auth", "token": self.token}))
            await socket_.recv()
            ready.release()
            async for _ in socket_:
                self.poked.set()


async def propagation(port, server_pid, users, devices_per_user, writes):
    tokens = [sign_up(port, f"sync-bench-{u}") for u in range(users)]
    devices = [[Device(port, tokens[u], u) for _ in range(devices_per_user)] for u in range(users)]
    everyone = [d for group in devices for d in group]
    before = memory_mb(server_pid)["now"]
    ready = asyncio.Semaphore(0)
    tasks = [asyncio.create_task(d.live(ready)) for d in everyone]
    for _ in everyone:
        await asyncio.wait_for(ready.acquire(), 60)
    await asyncio.sleep(1)
    after = memory_mb(server_pid)["now"]
    for d in everyone:
        await d.pull()
    latencies = []
    # Writes go one at a time: each user has at most one note on its way to their devices.
    current = {}

    async def follow(device):
        while True:
            await device.poked.wait()
            device.poked.clear()
            await device.pull()
            now = time.perf_counter()
            note, answered = current.get(device.user, (None, 0))
            if device is devices[device.user][0]:
                continue  # the writer's own device
            if note in device.seen and (id(device), note) not in delivered:
                delivered.add((id(device), note))
                latencies.append((now - answered) * 1000)

    delivered = set()
    followers = [asyncio.create_task(follow(d)) for d in everyone]
    start = time.perf_counter()
    for w in range(writes):
        user = w % users
        writer = devices[user][0]
        # Timed from the moment the write is sent: the write itself counts.
        title = f"w{w}"
        current[user] = (title, time.perf_counter())
        await writer.http.request("POST", "/api/v1/notes", {"title": title})
        others = devices[user][1:]
        deadline = time.perf_counter() + 10
        while not all(title in d.seen for d in others) and time.perf_counter() < deadline:
            await asyncio.sleep(0.001)
    elapsed = time.perf_counter() - start
    for task in followers + tasks:
        task.cancel()
    expected = writes * (devices_per_user - 1)
    return {"clients": len(everyone), "writes": writes, "deliveries": len(latencies), "expected_deliveries": expected,
            "write_to_pull": percentiles(latencies), "seconds": round(elapsed, 1),
            "server_mb_before_connections": before, "server_mb_with_connections": after,
            "kb_per_connection": round((after - before) * 1024 / len(everyone), 1), "missing": expected - len(latencies)}


def catch_up(port, changes):
    token = sign_up(port, "sync-catch-up")
    made = [0]

    def writer(count):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"Content-Type": "application/json", "Authorization": "Bearer " + token}
        for i in range(count):
            connection.request("POST", "/api/v1/notes", json.dumps({"title": f"c{i}", "text": "missed while offline"}), headers)
            response = connection.getresponse()
            response.read()
            if response.status != 201:
                raise RuntimeError(f"create: {response.status}")
            made[0] += 1

    threads = [threading.Thread(target=writer, args=(changes // 8,)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    cursor, received, total_bytes, pages = None, 0, 0, 0
    start = time.perf_counter()
    while True:
        query = "?limit=1000" + (f"&after={cursor}" if cursor else "")
        connection.request("GET", "/api/v1/sync/changes" + query, headers={"Authorization": "Bearer " + token})
        response = connection.getresponse()
        data = response.read()
        total_bytes += len(data)
        page = json.loads(data)
        received += len(page["items"])
        pages += 1
        cursor = page["nextCursor"]
        if not page["hasMore"]:
            break
    seconds = time.perf_counter() - start
    return {"changes": made[0], "received": received, "pages": pages, "seconds": round(seconds, 2),
            "mb": round(total_bytes / 1e6, 1), "changes_per_second": round(received / seconds)}


def wrk(port, token, path, method, body, seconds, script):
    env = dict(os.environ, WRK_METHOD=method, WRK_TOKEN=token, WRK_BODY=body)
    out = subprocess.run(["wrk", "-t1", "-c8", f"-d{seconds}s", "-s", script, f"http://127.0.0.1:{port}{path}"], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def cost(binaries, workdir, seconds, rounds):
    script = os.path.join(ROOT, "tools", "bench.d", "report.lua")
    results = {}
    for label, sync, history in (("sync and history on", True, True), ("sync and history off", False, False)) * rounds:
        data = tempfile.mkdtemp(dir=workdir)
        config = os.path.join(data, "app.yaml")
        write_config(config, sync, history)
        port = free_port()
        env = dict(os.environ, QUIRE_DATA=data, QUIRE_AUTH_SECRET="bench-secret-0123456789-0123456789-0123456789")
        with serving(binaries, config, env, port):
            token = sign_up(port, "cost")
            note = call(port, "POST", "/api/v1/notes", {"title": "edited"}, token)
            creates = wrk(port, token, "/api/v1/notes", "POST", '{"title":"bench","text":"a quick note"}', seconds, script)
            edits = wrk(port, token, f"/api/v1/notes/{note['id']}", "PATCH", '{"text":"edited again"}', seconds, script)
        entry = results.setdefault(label, {"creates_per_second": [], "edits_per_second": []})
        entry["creates_per_second"].append(creates["per_second"])
        entry["edits_per_second"].append(edits["per_second"])
    on, off = results["sync and history on"], results["sync and history off"]
    best = lambda values: sorted(values)[len(values) // 2]  # the median run
    return {"runs": results,
            "creates_ratio_on_over_off (medians)": round(best(on["creates_per_second"]) / best(off["creates_per_second"]), 3),
            "edits_ratio_on_over_off (medians)": round(best(on["edits_per_second"]) / best(off["edits_per_second"]), 3)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--devices", type=int, default=100)
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--changes", type=int, default=100_000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2, help="on/off alternations in the cost part")
    parser.add_argument("--only", choices=["cost"], help="run only this part")
    args = parser.parse_args()
    report = {}
    with tempfile.TemporaryDirectory(prefix="quire-sync-bench-") as workdir:
        if args.only == "cost":
            report["cost"] = cost(args.bin, workdir, args.seconds, args.rounds)
            json.dump(report, sys.stdout, indent=2)
            print()
            return
        data = os.path.join(workdir, "live")
        os.makedirs(data)
        config = os.path.join(workdir, "live.yaml")
        write_config(config, sync=True, history=True)
        port = free_port()
        env = dict(os.environ, QUIRE_DATA=data, QUIRE_AUTH_SECRET="bench-secret-0123456789-0123456789-0123456789")
        with serving(args.bin, config, env, port) as server:
            report["propagation"] = asyncio.run(propagation(port, server.pid, args.users, args.devices, args.writes))
            report["catch_up"] = catch_up(port, args.changes)
        report["cost"] = cost(args.bin, workdir, args.seconds, args.rounds)
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
