#!/usr/bin/env python3
"""Foreign Note at a million entries: import time, search-as-you-type latency in-process and over
HTTP, server memory — and plain sqlite3 FTS5 on the same rows and queries, as the floor.

The set is built from real dictionaries (Debian's dict-freedict-fra-eng and -deu-eng for words with
definitions, the wfrench, wngerman and wamerican word lists for the rest, two-word phrases of those
words to reach the count). Queries are what a typing user sends: 1, 2, 3 and 4 letters of a word,
and a whole word followed by the first letters of a second.

    tools/bench.d/vocab.py --bin .build/release [--entries 1000000] [--out DIR]

Prints one JSON object; tools/bench writes it into BENCHMARKS.md's table by hand.
"""
import argparse
import csv
import gzip
import http.client
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse

from benchlib import memory_mb, percentiles, serving, sign_in

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def b64(text):
    value = 0
    for ch in text:
        value = value * 64 + B64.index(ch)
    return value


def freedict(name):
    """(headword, definition) pairs of a dictd dictionary."""
    index = f"/usr/share/dictd/{name}.index"
    with gzip.open(f"/usr/share/dictd/{name}.dict.dz", "rb") as handle:
        data = handle.read()
    pairs = []
    with open(index, encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or parts[0].startswith("00-database"):
                continue
            body = data[b64(parts[1]):b64(parts[1]) + b64(parts[2])].decode("utf-8", "replace")
            lines = [l.strip() for l in body.split("\n")[1:] if l.strip()]
            if lines:
                pairs.append((parts[0], "; ".join(lines)[:300]))
    return pairs


def words(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return [w.strip() for w in handle if w.strip() and "'" not in w]


def build_rows(count, rng):
    english = words("/usr/share/dict/american-english")
    rows = []
    seen = set()

    def add(word, definition, collection):
        key = (word.lower(), collection)
        if key in seen or not word or len(word) > 200:
            return
        seen.add(key)
        tags = [f"t{min(49, int(rng.paretovariate(1.2)) - 1)}" for _ in range(rng.randint(0, 2))]
        rows.append((word, definition, " ".join(sorted(set(tags))), collection))

    for word, definition in freedict("freedict-fra-eng"):
        add(word, definition, "French")
    for word, definition in freedict("freedict-deu-eng"):
        add(word, definition, "German")
    for path, collection in [("/usr/share/dict/french", "French"), ("/usr/share/dict/ngerman", "German"),
                             ("/usr/share/dict/american-english", "English")]:
        for word in words(path):
            add(word, f"{collection.lower()} word; see {rng.choice(english)}, {rng.choice(english)}", collection)
    french, german = words("/usr/share/dict/french"), words("/usr/share/dict/ngerman")
    while len(rows) < count:
        pool, collection = (french, "French") if rng.random() < 0.5 else (german, "German")
        add(f"{rng.choice(pool)} {rng.choice(pool)}", f"phrase; like {rng.choice(english)} {rng.choice(english)}", collection)
    return rows[:count]


def queries(rows, rng, n=150):
    picked = [r[0] for r in rng.sample(rows, n * 4)]
    single = [w for w in picked if " " not in w and len(w) >= 4][:n]
    double = [w for w in picked if w.count(" ") == 1 and len(w.split(" ")[1]) >= 2][:n]
    result = []
    for word in single:
        for length in range(1, 5):
            result.append((f"prefix{length}", word[:length]))
    for phrase in double:
        first, second = phrase.split(" ")
        result.append(("2words", f"{first} {second[:2]}"))
    return result


def run_timed(command, env):
    """Runs a command; answers (seconds, peak RSS in MB, exit code, stdout, stderr).

    The peak is the child's own VmHWM, read from /proc while it runs: the rusage of a child forked
    from this (large) Python process counts the parent's pages it held before exec.
    """
    start = time.time()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True)
        peak_kb = 0
        while process.poll() is None:
            try:
                with open(f"/proc/{process.pid}/status") as status:
                    for line in status:
                        if line.startswith("VmHWM:"):
                            peak_kb = max(peak_kb, int(line.split()[1]))
            except (OSError, ValueError):
                pass
            time.sleep(0.2)
        seconds = time.time() - start
        out.seek(0)
        err.seek(0)
        return seconds, peak_kb / 1024, process.returncode, out.read(), err.read()


def fts_floor(rows, qs, scratch):
    path = os.path.join(scratch, "floor.sqlite")
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(word, definition, tokenize='unicode61 remove_diacritics 2')")
    start = time.time()
    with db:
        db.executemany("INSERT INTO f(word, definition) VALUES (?, ?)", ((r[0], r[1]) for r in rows))
    insert = time.time() - start
    samples = {}
    for label, query in qs:
        tokens = [t for t in "".join(c if c.isalnum() else " " for c in query).split() if t]
        if not tokens:
            continue
        match = " AND ".join(f'"{t}"' for t in tokens[:-1]) + (" AND " if len(tokens) > 1 else "") + f'"{tokens[-1]}" *'
        start = time.perf_counter()
        db.execute("SELECT rowid FROM f WHERE f MATCH ? ORDER BY rank LIMIT 20", (match,)).fetchall()
        samples.setdefault(label, []).append((time.perf_counter() - start) * 1000)
    db.close()
    return insert, {label: percentiles(s) for label, s in sorted(samples.items())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--out", default=None, help="Keep the data here (default: a temporary directory)")
    args = parser.parse_args()
    rng = random.Random(7)
    scratch = args.out or tempfile.mkdtemp(prefix="quire-vocab-bench-")
    os.makedirs(scratch, exist_ok=True)
    report = {"entries": args.entries}

    rows = build_rows(args.entries, rng)
    csv_path = os.path.join(scratch, "vocabulary.csv")
    with open(csv_path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["word", "definition", "tags", "collection"])
        writer.writerows(rows)
    report["csv_mb"] = round(os.path.getsize(csv_path) / 1e6, 1)
    qs = queries(rows, rng)
    query_path = os.path.join(scratch, "queries.tsv")
    with open(query_path, "w", encoding="utf-8") as handle:
        handle.writelines(f"{label}\t{query}\n" for label, query in qs)
    print(f"built {len(rows)} rows ({report['csv_mb']} MB CSV), {len(qs)} queries", file=sys.stderr)

    data = os.path.join(scratch, "data")
    env = dict(os.environ, QUIRE_DATA=data)
    subprocess.run([os.path.join(args.bin, "quire-auth"), "create-user", "--config", CONFIG, "bench"], env=env,
                   capture_output=True)
    seconds, rss, code, out, err = run_timed([os.path.join(args.bin, "quire-vocab"), "import", csv_path, "--config", CONFIG,
                                              "--user", "bench"], env)
    if code != 0:
        sys.exit(f"import failed: {err[-500:]}")
    report["import"] = {"seconds": round(seconds, 1), "rows_per_s": int(len(rows) / seconds), "peak_rss_mb": round(rss),
                        "summary": out.strip().splitlines()[-1]}
    report["database_mb"] = round(sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data)
                                      if f.startswith("foreign-note.sqlite")) / 1e6)
    print(f"import: {report['import']}", file=sys.stderr)

    _, _, code, out, err = run_timed([os.path.join(args.bin, "quire-bench"), "vocab", "--config", CONFIG, "--user", "bench",
                                      "--queries", query_path], env)
    if code != 0:
        sys.exit(f"quire-bench vocab failed: {err[-500:]}")
    report["in_process"] = json.loads(out)

    # Over HTTP, against the server on the same data.
    port = 18000 + rng.randint(0, 999)
    with serving(args.bin, CONFIG, env, port) as server:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        token = sign_in(args.bin, CONFIG, env, connection, "bench")
        samples = {}
        for round_ in range(4):
            for label, query in qs:
                start = time.perf_counter()
                connection.request("GET", "/api/v1/vocabulary/search?q=" + urllib.parse.quote(query),
                                   headers={"Authorization": "Bearer " + token})
                response = connection.getresponse()
                response.read()
                if round_ > 0:
                    samples.setdefault(label, []).append((time.perf_counter() - start) * 1000)
                if response.status != 200:
                    sys.exit(f"search {query!r}: {response.status}")
        report["http"] = {label: percentiles(s) for label, s in sorted(samples.items())}
        report["server_memory_mb"] = memory_mb(server.pid)

    insert, floor = fts_floor(rows, qs, scratch)
    report["sqlite3_fts5_floor"] = {"insert_seconds": round(insert, 1), "queries": floor}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
