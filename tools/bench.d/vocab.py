#!/usr/bin/env python3
"""Foreign Note at a million entries: import time, search-as-you-type latency in-process and over
HTTP, server memory — and plain sqlite3 FTS5 on the same rows and queries, as the floor.

The set is built from real dictionaries (Debian's dict-freedict-fra-eng and -deu-eng for words with
definitions, the wfrench, wngerman and wamerican word lists for the rest, two-word phrases of those
words to reach the count). Queries are what a typing user sends: 1, 2, 3 and 4 letters of a word,
and a whole word followed by the first letters of a second.

    tools/bench.d/vocab.py --bin .build/release [--entries 1000000] [--out DIR] [--backend postgres]

With `--backend postgres` the records go to PostgreSQL (a throwaway cluster tools/postgres starts,
or QUIRE_DATABASE_URL), and the floor is `psql` running the statements Quire runs for each query.

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

from benchlib import PG_SETTINGS, cluster_memory_mb, database, memory_mb, percentiles, serving, sign_in

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")
PG_CONFIG = os.path.join(ROOT, "config", "examples", "foreign-note.postgres.yaml")
LIMIT = 21  # what the search route asks storage for: a page of 20 and one to know there is more
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


def lexeme(word):
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def fold_tokens(query):
    """The query's folded words, as Quire's SearchText makes them for these (Latin-script) queries."""
    import unicodedata
    folded = "".join(c for c in unicodedata.normalize("NFKD", query.lower().replace("ß", "ss")) if not unicodedata.combining(c))
    return [t for t in "".join(c if c.isalnum() else " " for c in folded).split() if t]


def psql_floor(url, qs, owner):
    """psql running, for each query, the statements Quire's PostgreSQL search runs: the key range
    (step 1), then the word matches in the key and in the whole entry (steps 2 and 3) while fewer
    than a page were found. Times are psql's `\\timing` (the server's work and the loopback trip)."""
    scope = f"s.collection = 'vocab.entries' AND s.owner = '{owner}'"
    lines = ["\\pset pager off", "\\timing on"]
    plan = []
    for index, (label, query) in enumerate(qs):
        tokens = fold_tokens(query)
        if not tokens:
            continue
        key = " ".join(tokens).replace("'", "''")
        lines.append(f"\\echo @@ {index} 1")
        lines.append(f"SELECT r.id, r.data::text, s.key FROM (SELECT s.collection, s.id, s.key FROM search_rows s "
                     f"WHERE {scope} AND s.key >= '{key}' AND s.key < ('{key}' || chr(1114111)) COLLATE \"C\" ORDER BY s.key, s.id LIMIT {LIMIT}) s "
                     f"JOIN records r ON r.collection = s.collection AND r.id = s.id COLLATE \"default\" ORDER BY s.key, s.id;")
        for step in (2, 3):
            # As Quire: every word is a lexeme as it is (hund), a word of the key once more marked
            # (=hund); a last word of two or three letters is its own lexeme (^ha), longer ones a
            # prefix (hab:*). Step 2 asks the key (marked), step 3 any field (as it is).
            words = []
            for position, token in enumerate(tokens):
                word, suffix = token, ""
                if position == len(tokens) - 1:
                    word, suffix = ("^" + token, "") if len(token) in (2, 3) else (token, ":*")
                words.append(lexeme(("=" if step == 2 else "") + word) + suffix)
            tsquery = " & ".join(words).replace("'", "''")
            lines.append(f"\\echo @@ {index} {step}")
            lines.append(f"SELECT s.id, s.size FROM search_rows s WHERE {scope} AND s.terms @@ '{tsquery}'::tsquery LIMIT 300;")
        plan.append((index, label))
    script = "\n".join(lines) + "\n"
    out = subprocess.run(["psql", "-X", "-At", "-q", url], input=script, capture_output=True, text=True, check=True).stdout
    steps = {}
    current, rows = None, 0
    for line in out.splitlines():
        if line.startswith("@@ "):
            _, index, step = line.split()
            current, rows = (int(index), int(step)), 0
        elif line.startswith("Time: ") and current:
            steps[current] = (rows, float(line.split()[1]))
        elif current:
            rows += 1
    samples = {}
    for index, label in plan:
        found, total = 0, 0.0
        for step in (1, 2, 3):
            if found >= LIMIT and step > 1:
                break
            count, ms = steps.get((index, step), (0, 0.0))
            found += count
            total += ms
        samples.setdefault(label, []).append(total)
    return {label: percentiles(v) for label, v in sorted(samples.items())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--out", default=None, help="Keep the data here (default: a temporary directory)")
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--pg-defaults", action="store_true",
                        help="Run the throwaway PostgreSQL cluster on its defaults alone (not benchlib.PG_SETTINGS)")
    args = parser.parse_args()
    args.pg_settings = [] if args.pg_defaults else PG_SETTINGS
    with database(args.backend, args.pg_settings) as (url, cluster):
        run(args, url, cluster)


def run(args, url, cluster):
    config = PG_CONFIG if args.backend == "postgres" else CONFIG
    rng = random.Random(7)
    scratch = args.out or tempfile.mkdtemp(prefix="quire-vocab-bench-")
    os.makedirs(scratch, exist_ok=True)
    report = {"entries": args.entries, "backend": args.backend}
    if args.backend == "postgres":
        report["postgres_settings"] = args.pg_settings

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
    env = dict(os.environ, QUIRE_DATA=data, QUIRE_BLOBS=os.path.join(data, "blobs"))
    if url:
        env["QUIRE_DATABASE_URL"] = url
    subprocess.run([os.path.join(args.bin, "quire-auth"), "create-user", "--config", config, "bench"], env=env,
                   capture_output=True)
    seconds, rss, code, out, err = run_timed([os.path.join(args.bin, "quire-vocab"), "import", csv_path, "--config", config,
                                              "--user", "bench"], env)
    if code != 0:
        sys.exit(f"import failed: {err[-500:]}")
    report["import"] = {"seconds": round(seconds, 1), "rows_per_s": int(len(rows) / seconds), "peak_rss_mb": round(rss),
                        "summary": out.strip().splitlines()[-1]}
    if url:
        size = subprocess.run(["psql", "-X", "-At", url, "-c", "SELECT pg_database_size(current_database())"],
                              capture_output=True, text=True, check=True).stdout
        report["database_mb"] = round(int(size) / 1e6)
    else:
        report["database_mb"] = round(sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data)
                                          if f.startswith("foreign-note.sqlite")) / 1e6)
    print(f"import: {report['import']}", file=sys.stderr)

    _, _, code, out, err = run_timed([os.path.join(args.bin, "quire-bench"), "vocab", "--config", config, "--user", "bench",
                                      "--queries", query_path], env)
    if code != 0:
        sys.exit(f"quire-bench vocab failed: {err[-500:]}")
    report["in_process"] = json.loads(out)

    # Over HTTP, against the server on the same data.
    port = 18000 + rng.randint(0, 999)
    with serving(args.bin, config, env, port) as server:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        token = sign_in(args.bin, config, env, connection, "bench")
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
        if cluster:
            report["postgres_memory_mb"] = cluster_memory_mb(cluster)

    if url:
        owner = subprocess.run(["psql", "-X", "-At", url, "-c", "SELECT DISTINCT owner FROM records WHERE collection = 'vocab.entries' LIMIT 1"],
                               capture_output=True, text=True, check=True).stdout.strip()
        psql_floor(url, qs, owner)  # warm, as the HTTP rounds were
        report["psql_floor"] = psql_floor(url, qs, owner)
    else:
        insert, floor = fts_floor(rows, qs, scratch)
        report["sqlite3_fts5_floor"] = {"insert_seconds": round(insert, 1), "queries": floor}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
