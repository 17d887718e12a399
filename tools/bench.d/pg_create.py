#!/usr/bin/env python3
"""Napkin Notes' create on PostgreSQL against pgbench running the same statements, in one run (issue 42).

One node of tools/cluster (release binary, nginx in front, NATS, a tools/postgres server) takes
`POST /api/v1/notes` from wrk with 8 connections; then pgbench, with 8 connections to the same
server, runs a script of the statements a create issues (as the server's log shows them with
log_statement=all), on the same tables, with the same owner and the same note. Rounds alternate
Quire and pgbench. The round trips per create are counted from the server's log (log_statement=all
for a few creates, then off again), and the statements of one create are printed.

Three pgbench scripts: `transaction` (the position read, then BEGIN, the tombstone probe, the records
insert, the change log, COMMIT: what a create issued before issue 42) and `one_statement` (the
position read, then one statement doing the checks, the records and the change log), and
`insert_only` (that statement alone, with ids counting up: a create once the owner's last key is
known in memory). The ratio is
against the script whose round trips match the ones counted.

  python3 tools/bench.d/pg_create.py --bin .build/release [--seconds 10] [--rounds 3] [--connections 8]
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
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import cpu_seconds, request  # noqa: E402

NOTE = '{"date":"2026-11-26","drawing":null,"photo":null,"position":"z11","text":"a quick note","title":"bench"}'

POSITION = """SELECT collection, id, owner, version, created_at, updated_at, data::text FROM records
  WHERE collection = 'notes.notes' AND owner = :owner ORDER BY NULLIF(data #> '{position}', 'null'::jsonb) DESC NULLS LAST, id LIMIT 2;
"""

# What a create issued before issue 42 (server log of 66b4f9d), a statement per round trip.
TRANSACTION = r"""\set r random(1, 9000000000000000)
""" + POSITION + """BEGIN;
SELECT u.id, c.kind, c.version FROM unnest(ARRAY['pgb_' || :r]) AS u(id)
  CROSS JOIN LATERAL (SELECT kind, version FROM changes WHERE collection = 'notes.notes' AND record_id = u.id
                      ORDER BY sequence DESC LIMIT 1) AS c;
INSERT INTO records (collection, id, owner, version, created_at, updated_at, data)
  SELECT c, i, o, v::bigint, :at, :at, d::jsonb FROM unnest(ARRAY['notes.notes'], ARRAY['pgb_' || :r], ARRAY[:owner], ARRAY['1'], ARRAY[:note]) AS u(c, i, o, v, d)
  ON CONFLICT (collection, id) DO NOTHING RETURNING collection, id;
WITH taken AS (UPDATE log_meta SET value = value + 1 WHERE key = 'sequence' RETURNING value)
  INSERT INTO changes (sequence, owner, collection, record_id, kind, version, scope, at)
  SELECT taken.value - 1 + n, o, c, r, k, v::bigint, CASE WHEN h::boolean THEN s END, :at
  FROM taken, unnest(ARRAY[:owner], ARRAY['notes.notes'], ARRAY['pgb_' || :r], ARRAY['insert'], ARRAY['1'], ARRAY[''], ARRAY['f'])
  WITH ORDINALITY AS u(o, c, r, k, v, s, h, n)
  RETURNING sequence;
COMMIT;
"""

# What a create issues with PostgresRecordStore+OneStatement.swift.
ONE_STATEMENT = r"""\set r random(1, 9000000000000000)
""" + POSITION + """WITH fresh AS (SELECT true AND NOT EXISTS (SELECT 1 FROM unnest(ARRAY['notes.notes'], ARRAY['pgb_' || :r])
                AS t(c, i) CROSS JOIN LATERAL (SELECT kind FROM changes WHERE collection = t.c AND record_id = t.i
                                               ORDER BY sequence DESC LIMIT 1) AS last WHERE last.kind = 'delete') AS ok),
taken AS (UPDATE log_meta SET value = value + 1 WHERE key = 'sequence' AND (SELECT ok FROM fresh) RETURNING value),
written AS (INSERT INTO records (collection, id, owner, version, created_at, updated_at, data)
            SELECT c, i, o, v::bigint, :at, :at, d::jsonb FROM taken, unnest(ARRAY['notes.notes'], ARRAY['pgb_' || :r], ARRAY[:owner], ARRAY['1'], ARRAY[:note]) AS u(c, i, o, v, d))
INSERT INTO changes (sequence, owner, collection, record_id, kind, version, scope, at)
SELECT taken.value - 1 + n, o, c, r, k, v::bigint, CASE WHEN h::boolean THEN s END, :at
FROM taken, unnest(ARRAY[:owner], ARRAY['notes.notes'], ARRAY['pgb_' || :r], ARRAY['insert'], ARRAY['1'], ARRAY[''], ARRAY['f']) WITH ORDINALITY AS u(o, c, r, k, v, s, h, n)
RETURNING sequence;
"""

# The same statement without the position read, which a create no longer issues once the owner's
# last key is known (NoteLastPositions), and with ids that count up as a note's now do (the time first).
INSERT_ONLY = ONE_STATEMENT.replace(POSITION, "").replace("'pgb_' || :r", "'pgb_' || to_char(statement_timestamp(), 'YYYYMMDDHH24MISSUS') || :r")

SCRIPTS = {"transaction": (TRANSACTION, 6), "one_statement": (ONE_STATEMENT, 2), "insert_only": (INSERT_ONLY, 1)}


def context_switches(pid):
    """Voluntary and involuntary, summed over the process's threads."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as handle:
                for line in handle:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def psql(url, sql):
    return subprocess.run(["psql", url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          capture_output=True, text=True, check=True).stdout.strip()


def round_trips(url, log_path, base, token, creates=5):
    """Statements PostgreSQL executed per create (log_statement=all for a moment), and one create's statements."""
    psql(url, "ALTER SYSTEM SET log_statement = 'all'")
    psql(url, "SELECT pg_reload_conf()")
    time.sleep(0.5)
    with open(log_path, errors="replace") as handle:
        handle.seek(0, os.SEEK_END)
        start = handle.tell()
    for index in range(creates):
        request(base, "POST", "/api/v1/notes", {"title": f"counted {index}", "text": "a quick note"}, token)
    time.sleep(0.5)
    with open(log_path, errors="replace") as handle:
        handle.seek(start)
        lines = handle.read().splitlines()
    psql(url, "ALTER SYSTEM RESET log_statement")
    psql(url, "SELECT pg_reload_conf()")
    executed = [line.split("execute <unnamed>: ", 1)[1] for line in lines if "LOG:  execute " in line and "execute <unnamed>: " in line]
    per_create = len(executed) / creates
    statements, seen = [], 0
    for text in executed:
        statements.append(text[:90])
        seen += 1
        if text.startswith("COMMIT") or text.startswith("WITH fresh") or seen >= 8:
            break
    return per_create, statements


def wrk(url, seconds, connections, pid, token):
    before_cpu, before_cs = cpu_seconds([pid]), context_switches(pid)
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", os.path.join(ROOT, "tools", "bench.d", "report.lua"), url],
                         env=dict(os.environ, WRK_METHOD="POST", WRK_TOKEN=token, WRK_BODY='{"title":"bench","text":"a quick note"}'),
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    done = max(1, result["requests"])
    result["node_cpu_us_per_request"] = round((cpu_seconds([pid]) - before_cpu) / done * 1e6, 1)
    result["context_switches_per_request"] = round((context_switches(pid) - before_cs) / done, 1)
    return result


def pgbench(url, script, seconds, connections, owner, work):
    parts = urllib.parse.urlparse(url)
    path = os.path.join(work, "create.sql")
    with open(path, "w") as handle:
        handle.write(script)
    out = subprocess.run(["pgbench", "-n", "-M", "extended", "-c", str(connections), "-j", "1", "-T", str(seconds), "-f", path,
                          "-D", f"owner={owner}", "-D", f"note={NOTE}", "-D", f"at={time.time():.3f}",
                          "-h", parts.hostname, "-p", str(parts.port), "-U", parts.username, parts.path.lstrip("/")],
                         env=dict(os.environ, PGPASSWORD=urllib.parse.unquote(parts.password)), capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"pgbench failed: {out.stderr or out.stdout}")
    found = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out.stdout)
    failed = re.search(r"number of failed transactions: (\d+)", out.stdout)
    if not found:
        sys.exit(f"pgbench: no tps in its output:\n{out.stdout}")
    return {"per_second": round(float(found.group(1))), "failed": int(failed.group(1)) if failed else 0}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--port", type=int, default=18720)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-bench-pgcreate-") as work:
        env = dict(os.environ, QUIRE_CLUSTER_DIR=os.path.join(work, "cluster"))
        up = subprocess.run([os.path.join(ROOT, "tools", "cluster"), "up", "napkin-notes", "--nodes", "1", "--media-workers", "0",
                             "--port", str(args.port), "--bin", os.path.abspath(args.bin)], env=env, capture_output=True, text=True)
        if up.returncode != 0:
            sys.exit(f"tools/cluster up: {up.stderr}")
        try:
            with open(os.path.join(env["QUIRE_CLUSTER_DIR"], "state.json")) as handle:
                state = json.load(handle)
            pid = state["nodes"][0]["pid"]
            url = state["postgres"]["url"]
            base = f"http://127.0.0.1:{args.port}"
            request(base, "POST", "/api/v1/auth/register", {"username": "writer", "password": "bench password"})
            token = json.loads(request(base, "POST", "/api/v1/auth/login", {"username": "writer", "password": "bench password"}))["access_token"]
            for index in range(100):
                request(base, "POST", "/api/v1/notes", {"title": f"note {index}", "text": "a quick note"}, token)
            owner = psql(url, "SELECT owner FROM records WHERE collection = 'notes.notes' LIMIT 1")
            trips, statements = round_trips(url, os.path.join(state["postgres"]["dir"], "server.log"), base, token)
            quire, peers = [], {name: [] for name in SCRIPTS}
            for _ in range(args.rounds):
                quire.append(wrk(f"{base}/api/v1/notes", args.seconds, args.connections, pid, token))
                for name, (script, _) in SCRIPTS.items():
                    peers[name].append(pgbench(url, script, args.seconds, args.connections, owner, work))
        finally:
            subprocess.run([os.path.join(ROOT, "tools", "cluster"), "down"], env=env, capture_output=True)
    matching = min(SCRIPTS, key=lambda name: abs(SCRIPTS[name][1] - trips))
    rate = statistics.median(r["per_second"] for r in quire)
    peer = statistics.median(r["per_second"] for r in peers[matching])
    report = {
        "round_trips_per_create": trips, "statements_of_one_create": statements,
        "quire_creates_per_second": rate, "quire_runs": quire,
        "pgbench": {name: [r["per_second"] for r in runs] for name, runs in peers.items()},
        "pgbench_failed": {name: sum(r["failed"] for r in runs) for name, runs in peers.items()},
        "peer_script": matching, "pgbench_per_second": peer, "ratio": round(rate / peer, 3) if peer else None,
    }
    print(json.dumps(report, indent=2))
    print(f"create on PostgreSQL: Quire {rate:.0f}/s, pgbench ({matching}, same statements) {peer:.0f}/s: "
          f"{100 * rate / peer:.0f} % of pgbench; {trips:g} round trips per create", file=sys.stderr)


if __name__ == "__main__":
    main()
