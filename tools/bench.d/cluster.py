#!/usr/bin/env python3
"""Napkin Notes through nginx to one node and to two (tools/cluster, release binaries): list 100 notes
(the list cache on, and off), create a note, and `/health` (the floor: a route that does nothing),
with wrk; req/s, p99, and the app nodes' CPU per request (on two cores the scaling shows there more
than in req/s). The peer: the same nginx serving
the same list bytes as a static file, and that file through an nginx proxy set up as the cluster's
(the ceiling for any upstream on these cores). Prints one JSON object.

  python3 tools/bench.d/cluster.py --bin .build/release [--seconds 10]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TICKS = os.sysconf("SC_CLK_TCK")


def request(base, method, path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    if data:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=10) as response:
        return response.read()


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / TICKS


def children(pid):
    """nginx's workers: the processes whose parent is its master."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except OSError:
                pass
    return found


def wrk(url, seconds, connections, pids, nginx=None, **env):
    workers = children(nginx) if nginx else []
    before, before_nginx = cpu_seconds(pids), cpu_seconds(workers)
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", os.path.join(ROOT, "tools", "bench.d", "report.lua"), url],
                         env=dict(os.environ, **env), capture_output=True, text=True, check=True)
    used, used_nginx = cpu_seconds(pids) - before, cpu_seconds(workers) - before_nginx
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if pids:
        result["node_cpu_us_per_request"] = round(used / max(1, result["requests"]) * 1e6, 1)
    if workers:
        result["nginx_cpu_us_per_request"] = round(used_nginx / max(1, result["requests"]) * 1e6, 1)
    return result


def run(bin_dir, nodes, cache, seconds, work):
    env = dict(os.environ, QUIRE_CLUSTER_DIR=os.path.join(work, f"c{nodes}{cache}"))
    port = 18600 + nodes * 10 + (0 if cache else 5)
    extra = [] if cache else ["--env", "QUIRE_LIST_CACHE_BYTES=0"]
    up = subprocess.run([os.path.join(ROOT, "tools", "cluster"), "up", "napkin-notes", "--nodes", str(nodes), "--port", str(port), "--bin", bin_dir, *extra],
                        env=env, capture_output=True, text=True)
    if up.returncode != 0:
        sys.exit(f"tools/cluster up: {up.stderr}")
    try:
        with open(os.path.join(env["QUIRE_CLUSTER_DIR"], "state.json")) as handle:
            state = json.load(handle)
        pids = [node["pid"] for node in state["nodes"]]
        proxy = state["nginx"]["pid"]
        base = f"http://127.0.0.1:{port}"
        tokens = []
        for name in ("reader", "writer"):
            request(base, "POST", "/api/v1/auth/register", {"username": name, "password": "bench password"})
            tokens.append(json.loads(request(base, "POST", "/api/v1/auth/login", {"username": name, "password": "bench password"}))["access_token"])
        reader, writer = tokens
        for index in range(100):
            request(base, "POST", "/api/v1/notes", {"title": f"note {index}", "text": f"some text for note number {index}, a line or two long"}, reader)
        listed = request(base, "GET", "/api/v1/notes?limit=100", token=reader)
        result = {"list": wrk(f"{base}/api/v1/notes?limit=100", seconds, 16, pids, proxy, WRK_TOKEN=reader)}
        if cache:
            # The floor: a route that does nothing (no token, no storage), through the same proxy.
            result["health"] = wrk(f"{base}/health", seconds, 16, pids, proxy)
            result["create"] = wrk(f"{base}/api/v1/notes", seconds, 8, pids, proxy, WRK_METHOD="POST", WRK_TOKEN=writer,
                                   WRK_BODY='{"title":"bench","text":"a quick note"}')
        return result, listed, state
    finally:
        subprocess.run([os.path.join(ROOT, "tools", "cluster"), "down"], env=env, capture_output=True)


def static_peer(listed, seconds, work):
    root = os.path.join(work, "static")
    os.makedirs(os.path.join(root, "api", "v1"))
    # nginx's workers run as another user: they must be able to read the file.
    os.chmod(work, 0o755)
    for directory in (root, os.path.join(root, "api"), os.path.join(root, "api", "v1")):
        os.chmod(directory, 0o755)
    with open(os.path.join(root, "api", "v1", "notes"), "wb") as handle:
        handle.write(listed)
    port = 18690
    conf = os.path.join(work, "static.conf")
    # Two servers in one nginx of one worker: the file itself, and the same file through a proxy
    # set up as tools/cluster's is (HTTP/1.1, kept-alive upstream connections). The second is the
    # ceiling of any app behind that proxy on these cores: an upstream that costs nothing.
    with open(conf, "w") as handle:
        handle.write(f"""worker_processes 1; pid {work}/static.pid; error_log {work}/static-error.log;
events {{ worker_connections 1024; }}
http {{ access_log off;
  server {{ listen 127.0.0.1:{port}; root {root}; location / {{ default_type application/json; }} }}
  upstream file {{ server 127.0.0.1:{port}; keepalive 64; }}
  server {{ listen 127.0.0.1:{port + 1};
    location / {{ proxy_pass http://file; proxy_http_version 1.1; proxy_set_header Connection ""; }} }}
}}
""")
    subprocess.run(["nginx", "-c", conf, "-p", work], check=True)
    time.sleep(0.3)
    try:
        with open(os.path.join(work, "static.pid")) as handle:
            pid = int(handle.read())
        results = {}
        for name, at in (("file", port), ("proxied_file", port + 1)):
            results[name] = wrk(f"http://127.0.0.1:{at}/api/v1/notes", seconds, 16, [], pid)
            if results[name]["non_2xx"]:
                sys.exit(f"nginx's static file ({name}): {results[name]['non_2xx']} answers not 2xx; see {work}/static-error.log")
        return results
    finally:
        subprocess.run(["nginx", "-c", conf, "-p", work, "-s", "stop"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    bin_dir = os.path.abspath(args.bin)
    with tempfile.TemporaryDirectory(prefix="quire-bench-cluster-") as work:
        report = {}
        listed = None
        for nodes in (1, 2):
            cached, listed, _ = run(bin_dir, nodes, True, args.seconds, work)
            uncached, _, _ = run(bin_dir, nodes, False, args.seconds, work)
            report[f"{nodes}_node"] = {"list_cached": cached["list"], "create": cached["create"], "list_uncached": uncached["list"],
                                       "health": cached["health"]}
        peers = static_peer(listed, args.seconds, work)
        report["nginx_static_list"] = peers["file"]
        # nginx through nginx: what the proxy in front leaves for any upstream on these cores.
        report["nginx_proxied_static_list"] = peers["proxied_file"]
        report["list_bytes"] = len(listed)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
