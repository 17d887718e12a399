"""What the HTTP benchmarks share: a served app on a free port, a signed-in user, percentiles, the
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
