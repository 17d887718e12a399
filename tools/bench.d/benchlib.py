"""What the HTTP benchmarks share: a served app on a free port, a JSON call, a signed-in user, percentiles, the
server's memory."""
import contextlib
import http.client
import json
import os
import socket
import subprocess
import time


def free_port():
    """A free port on loopback for a server started next."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, token=None):
    """One JSON request to the server on `port` (a new connection), as `token` if given: the
    decoded answer, or None if empty; a RuntimeError naming the request if the status is 300 or more."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    connection.request(method, path, None if body is None else json.dumps(body), headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    if response.status >= 300:
        raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
    return json.loads(data) if data else None

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.lua")
TICKS = os.sysconf("SC_CLK_TCK")

# tools/bench's own app: Napkin's notes over SQLite, the media renditions, drawings.
BENCH_APP_YAML = """app: bench
server: {{ host: 127.0.0.1, port: {port} }}
plugins:
  storage: {{ backend: sqlite, path: {work}/bench.sqlite, blobs: {work}/blobs }}
  auth: {{ bcrypt_cost: 4, secret_file: {work}/secret }}
  media:
    max_upload_bytes: 33554432
    renditions: [{{ name: list, width: 44, height: 44, fit: cover }}, {{ name: display, width: 1280, height: 1280, format: webp }}]
  drawing: {{}}
  {notes}
"""


def bench_app_yaml(work, port, notes="notes: {}"):
    """tools/bench's configuration, its data in `work`, served on `port`; `notes` its notes line."""
    return BENCH_APP_YAML.format(work=work, port=port, notes=notes)


def sign_up(port, name):
    """A new user `name` on the server on `port`: its access token."""
    call(port, "POST", "/api/v1/auth/register", {"username": name, "password": "bench password"})
    return call(port, "POST", "/api/v1/auth/login", {"username": name, "password": "bench password"})["access_token"]


def cpu_seconds(pid):
    """The process's CPU time so far (utime + stime, /proc/<pid>/stat fields 14 and 15), in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def wrk(pid, url, seconds, connections=8, **env):
    """wrk -t1 on `url` with report.lua (`env` its WRK_* settings): its JSON report, with `cpu_us`,
    the server's CPU per request, when `pid` is given. A non-2xx answer or socket error fails."""
    before = cpu_seconds(pid) if pid else 0
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", REPORT, url], env=dict(os.environ, **env),
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    if result["non_2xx"] or result["socket_errors"]:
        raise RuntimeError(f"{url}: {result}")
    if pid:
        result["cpu_us"] = round(1e6 * (cpu_seconds(pid) - before) / result["requests"], 1)
    return result


def percentiles(samples):
    samples = sorted(samples)
    pick = lambda p: samples[min(len(samples) - 1, int(len(samples) * p))]
    return {"n": len(samples), "p50_ms": round(pick(0.5), 3), "p99_ms": round(pick(0.99), 3), "max_ms": round(samples[-1], 3)}


@contextlib.contextmanager
def serving(binaries, config, env, port):
    """`quire serve` on `port` until the block ends; answers the process once /health answers."""
    server = subprocess.Popen([os.path.join(binaries, "quire"), "serve", "--config", config], env=dict(env, QUIRE_PORT=str(port)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                probe.request("GET", "/health")
                if probe.getresponse().status == 200:
                    break
            except OSError:
                time.sleep(0.1)
        yield server
    finally:
        server.terminate()
        server.wait(timeout=30)


def sign_in(binaries, config, env, connection, username):
    """An access token for `username`, whose password quire-auth resets to a new one."""
    reset = subprocess.run([os.path.join(binaries, "quire-auth"), "reset-password", "--config", config, username], env=env,
                           capture_output=True, text=True)
    password = next(line.split(": ", 1)[1] for line in reset.stdout.splitlines() if line.startswith("password: "))
    connection.request("POST", "/api/v1/auth/login", json.dumps({"username": username, "password": password}),
                       {"Content-Type": "application/json"})
    return json.loads(connection.getresponse().read())["access_token"]


def memory_mb(pid):
    """Resident memory of a process, in MB: peak and now, and now split into the process's own
    (anonymous) memory and pages of mapped files (SQLite's memory-mapped database: page cache the
    kernel can reclaim)."""
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status)
    mb = lambda key: round(int(fields[key].split()[0]) / 1024)
    return {"peak": mb("VmHWM"), "now": mb("VmRSS"), "now_anonymous": mb("RssAnon"), "now_mapped_files": mb("RssFile")}


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cluster_memory_mb(data_dir):
    """Resident memory of every process of the PostgreSQL cluster whose data directory is `data_dir`."""
    try:
        with open(os.path.join(data_dir, "data", "postmaster.pid")) as pid_file:
            postmaster = int(pid_file.readline())
    except (OSError, ValueError):
        return None
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/status") as status:
                fields = dict(line.split(":", 1) for line in status)
            if int(pid) == postmaster or int(fields.get("PPid", "0").strip()) == postmaster:
                total += int(fields["VmRSS"].split()[0])
        except (OSError, KeyError, ValueError):
            continue
    return round(total / 1024)


# The throwaway cluster's settings beyond PostgreSQL's defaults: the WAL may grow to 4 GB between
# checkpoints, as PostgreSQL's manual advises for bulk loads ("Populating a Database"); at the 1 GB
# default a million-entry import checkpoints every 11 seconds and rewrites whole pages after each.
PG_SETTINGS = ["max_wal_size=4GB"]


@contextlib.contextmanager
def database(backend, settings=None):
    """The database URL for the run: none for SQLite; for PostgreSQL QUIRE_DATABASE_URL or a
    throwaway cluster started here (with `settings`, PG_SETTINGS unless given) and stopped after."""
    if backend == "sqlite":
        yield None, None
        return
    if os.environ.get("QUIRE_DATABASE_URL"):
        yield os.environ["QUIRE_DATABASE_URL"], None
        return
    settings = PG_SETTINGS if settings is None else settings
    started = subprocess.run([os.path.join(ROOT, "tools", "postgres"), "start", *settings],
                             capture_output=True, text=True, check=True).stdout
    values = dict(part.split("=", 1) for part in started.replace("export ", "").split())
    url, directory = values["QUIRE_TEST_POSTGRES_URL"].strip("'"), values["QUIRE_PG_DIR"].strip("'")
    try:
        yield url, directory
    finally:
        subprocess.run([os.path.join(ROOT, "tools", "postgres"), "stop", directory], capture_output=True)
