#!/usr/bin/env python3
"""AR Notebook over HTTP, against the shipped config (SQLite):

1. open a notebook of 200 pages with two items each (GET /notebooks/notebooks/ID: every page and item);
2. an insert + undo cycle (keyboard text on page 1, then undo);
3. the nearby-pinned-notebooks query (POST /notebooks/nearby) over 100,000 pins made by 10 users
   around 50 places, probing points near random pins.

    tools/bench.d/notebook.py --bin .build/release [--pins 100000] [--samples 2000]

Prints one JSON object; BENCHMARKS.md quotes it.
"""
import argparse
import http.client
import json
import os
import random
import sys
import tempfile
import threading
import time

from benchlib import memory_mb, percentiles, serving

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "ar-notebook.yaml")


class Client:
    def __init__(self, port, token=None):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.token = token

    def call(self, method, path, body=None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        self.connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:300]!r}")
        return json.loads(data) if data else None

    def timed(self, method, path, body=None):
        start = time.perf_counter()
        answer = self.call(method, path, body)
        return (time.perf_counter() - start) * 1000, answer


def user(port, name):
    client = Client(port)
    client.call("POST", "/api/v1/auth/register", {"username": name, "password": "a bench password"})
    client.token = client.call("POST", "/api/v1/auth/login", {"username": name, "password": "a bench password"})["access_token"]
    return client


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--pins", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(7)
    port = 20000 + os.getpid() % 10000
    result = {}
    with tempfile.TemporaryDirectory(prefix="quire-bench-notebook-") as data:
        env = dict(os.environ, QUIRE_DATA=data)
        env.pop("QUIRE_AUTH_SECRET", None)
        with serving(args.bin, CONFIG, env, port) as server:
            owner = user(port, "benchowner")
            nb = owner.call("POST", "/api/v1/notebooks/notebooks", {"name": "Big", "cover": "colors"})["id"]
            for number in range(1, 201):
                owner.call("POST", f"/api/v1/notebooks/notebooks/{nb}/pages", {"template": "two-slots"})
                for slot in (0, 1):
                    owner.call("POST", f"/api/v1/notebooks/notebooks/{nb}/pages/{number}/items", {"kind": "text", "text": f"p{number}s{slot}", "slot": slot})
            samples = [owner.timed("GET", f"/api/v1/notebooks/notebooks/{nb}")[0] for _ in range(args.samples // 4)]
            result["open_200_pages_400_items"] = percentiles(samples)
            owner.call("POST", f"/api/v1/notebooks/notebooks/{nb}/pages", {"template": "blank"})
            cycles = []
            for i in range(args.samples):
                a, _ = owner.timed("POST", f"/api/v1/notebooks/notebooks/{nb}/pages/201/items", {"kind": "text", "text": f"cycle {i}"})
                b, _ = owner.timed("POST", f"/api/v1/notebooks/notebooks/{nb}/undo")
                cycles.append(a + b)
            result["insert_plus_undo_cycle"] = percentiles(cycles)

            places = [(rng.uniform(-50, 60), rng.uniform(-120, 140)) for _ in range(50)]
            pins = []
            lock = threading.Lock()
            started = time.time()

            def seed(worker):
                client = user(port, f"benchpinner{worker}")
                local = random.Random(worker)
                for _ in range(args.pins // 10):
                    lat, lon = local.choice(places)
                    lat, lon = lat + local.gauss(0, 0.05), lon + local.gauss(0, 0.05)
                    created = client.call("POST", "/api/v1/notebooks/notebooks", {"name": "pin"})
                    client.call("PUT", f"/api/v1/notebooks/notebooks/{created['id']}/pin", {"latitude": lat, "longitude": lon, "allowEdits": False})
                    with lock:
                        pins.append((lat, lon))

            threads = [threading.Thread(target=seed, args=(worker,)) for worker in range(10)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            result["seed_pins_seconds"] = round(time.time() - started, 1)
            result["pins"] = len(pins)
            finder = user(port, "benchfinder")
            found, near = [], []
            for _ in range(args.samples):
                lat, lon = rng.choice(pins)
                elapsed, answer = finder.timed("POST", "/api/v1/notebooks/nearby", {"latitude": lat + rng.gauss(0, 0.0003), "longitude": lon})
                near.append(elapsed)
                found.append(len(answer["notebooks"]))
            result["nearby_over_pins"] = percentiles(near)
            result["nearby_found_mean"] = round(sum(found) / len(found), 2)
            result["server_memory_mb"] = memory_mb(server.pid)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
