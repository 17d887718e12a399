#!/usr/bin/env python3
"""iRemember at 100,000 photos: tag (+/-) and time-range searches and month and place folders over
HTTP, and radius queries over a million geotags in-process.

The album is made by `quire-bench album-seed` through the album plugin's own import: ten years of
times, 1-4 tags each from 2,000 with a Zipf spread, GPS around the 200 largest real cities (Zipf)
for nine photos in ten. The geotags are made by `quire-bench geo`: a million around the 2,000
largest cities (weighted by the square root of their population), spread over 1,000 users.

    tools/bench.d/album.py --bin .build/release [--photos 100000] [--geotags 1000000] [--out DIR] [--backend postgres]

With `--backend postgres` the records go to PostgreSQL (a throwaway cluster tools/postgres starts,
or QUIRE_DATABASE_URL; the geotags in a schema of their own).

Prints one JSON object; BENCHMARKS.md quotes it.
"""
import argparse
import http.client
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.parse

from benchlib import cluster_memory_mb, database, memory_mb, percentiles, serving, sign_in

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "iremember.yaml")
PG_CONFIG = os.path.join(ROOT, "config", "examples", "iremember.postgres.yaml")


def zipf_rank(rng, n):
    """A rank 0..n-1 drawn with weight 1/(rank+1)."""
    harmonic = sum(1 / (k + 1) for k in range(n))
    target, total = rng.random() * harmonic, 0.0
    for k in range(n):
        total += 1 / (k + 1)
        if total >= target:
            return k
    return n - 1


def time_range(rng):
    """A window of 1 day to 3 years (log-uniform) inside 2015-2024, to the minute."""
    first, last = time.mktime((2015, 1, 1, 0, 0, 0, 0, 0, -1)), time.mktime((2025, 1, 1, 0, 0, 0, 0, 0, -1))
    length = math.exp(rng.uniform(math.log(86400), math.log(3 * 365 * 86400)))
    start = rng.uniform(first, last - length)
    fmt = lambda t: time.strftime("%Y-%m-%dT%H:%M", time.localtime(t))
    return fmt(start), fmt(start + length)


def search_queries(rng, tags, count):
    """What people search: one or two tags to include, maybe one to leave out, a time range."""
    queries = []
    for _ in range(count):
        include = [tags[zipf_rank(rng, len(tags))]]
        if rng.random() < 0.3:
            include.append(tags[zipf_rank(rng, len(tags))])
        words = list(dict.fromkeys(include))
        if rng.random() < 0.5:
            words.append("-" + tags[zipf_rank(rng, len(tags))])
        start, end = time_range(rng)
        queries.append("/api/v1/album/photos?" + urllib.parse.urlencode({"tags": " ".join(words), "from": start, "to": end, "limit": 60}))
    return queries


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--photos", type=int, default=100_000)
    parser.add_argument("--geotags", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--out", default=None)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--reuse", action="store_true",
                        help="Measure the album and geotags an earlier run left in --out (and QUIRE_DATABASE_URL) without seeding again")
    args = parser.parse_args()
    if args.reuse and not args.out:
        sys.exit("--reuse needs --out: the directory of the earlier run")
    with database(args.backend) as (url, cluster):
        run(args, url, cluster)


def run(args, url, cluster):
    config = PG_CONFIG if url else CONFIG
    rng = random.Random(11)
    scratch = args.out or tempfile.mkdtemp(prefix="quire-album-bench-")
    os.makedirs(scratch, exist_ok=True)
    data = os.path.join(scratch, "data")
    env = dict(os.environ, QUIRE_DATA=data, QUIRE_BLOBS=os.path.join(data, "blobs"))
    if url:
        env["QUIRE_DATABASE_URL"] = url
    report = {"photos": args.photos, "geotags": args.geotags, "backend": args.backend}

    # The album, through the album plugin's import.
    image = os.path.join(scratch, "photo.jpg")
    subprocess.run(["vips", "xyz", image + ".v", "640", "480"], check=True)
    subprocess.run(["vips", "linear", image + ".v", image, "1", "0", "--uchar"], check=True)
    if args.reuse:
        report["seed"] = "reused"
    else:
        subprocess.run([os.path.join(args.bin, "quire-auth"), "create-user", "--config", config, "bench"], env=env, capture_output=True)
        seeded = subprocess.run([os.path.join(args.bin, "quire-bench"), "album-seed", "--config", config, "--user", "bench", "--image", image,
                                 "--photos", str(args.photos)], env=env, capture_output=True, text=True)
        if seeded.returncode != 0:
            sys.exit(f"album-seed failed: {seeded.stderr[-800:]}")
        report["seed"] = json.loads(seeded.stdout)

    port = 18000 + rng.randint(0, 999)
    with serving(args.bin, config, env, port) as server:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        token = sign_in(args.bin, config, env, connection, "bench")
        headers = {"Authorization": "Bearer " + token}

        def get(path):
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                sys.exit(f"GET {path}: {response.status} {body[:300]}")
            return json.loads(body)

        tags = [item["key"] for item in get("/api/v1/album/tags?limit=1000")["items"]]
        months = [item["key"] for item in get("/api/v1/album/folders/months")["items"]]
        places = [item["key"] for item in get("/api/v1/album/folders/places")["items"]]
        report["album"] = {"tags_used_top_1000": len(tags), "months": len(months), "places": len(places)}
        n = args.requests
        groups = {
            "tags_and_time": search_queries(rng, tags, n),
            "month_folders": ["/api/v1/album/folders/months"] * n,
            "place_folders": ["/api/v1/album/folders/places"] * n,
            "month_folder_photos": [f"/api/v1/album/folders/months/{rng.choice(months)}?limit=60" for _ in range(n)],
            "place_folder_photos": [f"/api/v1/album/folders/places/{places[zipf_rank(rng, len(places))]}?limit=60" for _ in range(n)],
            "tag_counts": ["/api/v1/album/tags"] * n,
        }
        results, returned = {}, {}
        for label, paths in groups.items():
            for path in paths[: max(1, n // 10)]:
                get(path)  # warm-up, not measured
            samples, items = [], 0
            for path in paths:
                start = time.perf_counter()
                body = get(path)
                samples.append((time.perf_counter() - start) * 1000)
                items += len(body.get("items", []))
            results[label] = percentiles(samples)
            returned[label] = round(items / len(paths), 1)
        report["http"] = results
        report["mean_items_returned"] = returned
        report["server_memory_mb"] = memory_mb(server.pid)
        if cluster:
            report["postgres_memory_mb"] = cluster_memory_mb(cluster)

    # A million geotags, in a data directory of their own.
    if args.geotags <= 0:
        print(json.dumps(report, indent=2))
        return
    geo_env = dict(env, QUIRE_DATA=os.path.join(scratch, "geo"), QUIRE_BLOBS=os.path.join(scratch, "geo", "blobs"))
    if url:
        geo_env["QUIRE_DATABASE_URL"] = url + ("&" if "?" in url else "?") + "search_path=geo"
    geo = subprocess.run([os.path.join(args.bin, "quire-bench"), "geo", "--config", config, "--geotags", "0" if args.reuse else str(args.geotags)],
                         env=geo_env, capture_output=True, text=True)
    if geo.returncode != 0:
        sys.exit(f"quire-bench geo failed: {geo.stderr[-800:]}")
    report["geo_in_process"] = json.loads(geo.stdout)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
