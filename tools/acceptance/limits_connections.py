#!/usr/bin/env python3
"""Timeouts and connection bounds (issue 38, item 3), against the real `quire` binary serving
Napkin Notes under a service's usual open-file limit (1,024, set with prlimit), with short
timeouts in its config (`request_head_timeout: 2s`, `body_min_rate: 1000`, `body_rate_grace: 2s`,
`idle_timeout: 3s`, `websocket_handshake_timeout: 2s`) so that the run takes about half a minute.

Each scenario runs while a checker asks `/health` every 100 ms (from its own loopback address)
and a signed-in user lists their notes (from another):

- 1,100 idle TCP connections from 11 addresses (no byte, no sign-in), each reopened when the server
  closes it, for 8 s: no silent connection is held past the head timeout (and a margin).
- 200 heads sent a byte a second: each is closed by the head timeout though bytes keep coming.
- 60 signed-in bodies at 10 bytes/s are cut off after the grace; a 60 KB note sent at 20 KB/s
  meanwhile (longer than the grace and the head timeout) is created.
- 400 connections from one address: at most `max_connections_per_address` are served, the others
  are refused at once (503 with Retry-After, or closed).
- A kept-alive connection answers a second request within `idle_timeout` and is closed after it.
- The sync WebSocket opened and signed in at the start is still live at the end (a ping answered,
  a poke for a new note).
- `/health` answers 200 in under 1 s throughout; the signed-in user's list answers 200 throughout.

It prints the server's limit line, each scenario's worst `/health` latency and the server's peak
RSS (VmHWM). With `--baseline` it runs only the idle flood on the shipped config (a binary from
before the timeouts has none of the settings) and prints what it measured, checking nothing.

Prints one line per check and `limits_connections acceptance: N passed, N failed` last.

    tools/acceptance/limits_connections.py --binary .build/debug/quire
"""
import argparse
import errno
import http.client
import json
import os
import resource
import selectors
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from websockets.sync.client import connect as websocket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
from napkin_notes import Watch, check, free_port, memory_of, results, sign_up  # noqa: E402

ROOT = napkin_notes.ROOT
SHIPPED = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")
OPEN_FILES = 1024
HEAD_TIMEOUT = 2.0
BODY_GRACE = 2.0
IDLE_TIMEOUT = 3.0
SETTINGS = {"request_head_timeout": "2s", "body_min_rate": "1000", "body_rate_grace": "2s", "idle_timeout": "3s",
            "websocket_handshake_timeout": "2s"}
# What the server derives from 1,024 files: a quarter kept for the database, files and NATS.
MAX_CONNECTIONS, PER_ADDRESS = 768, 96
# How late a timeout may act on a loaded two-core machine and still count as on time.
SLACK = 1.5
CHECKER, USER = "127.0.0.2", "127.0.0.3"


def limited(binary, data):
    """A wrapper that starts `binary` under the open-file limit (the pid stays quire's: exec)."""
    path = os.path.join(data, "quire-limited")
    prlimit = shutil.which("prlimit")
    with open(path, "w") as handle:
        if prlimit:
            handle.write(f'#!/bin/sh\nexec {prlimit} --nofile={OPEN_FILES}:{OPEN_FILES} {shlex.quote(binary)} "$@"\n')
        else:
            handle.write(f'#!/bin/sh\nulimit -n {OPEN_FILES} && exec {shlex.quote(binary)} "$@"\n')
    os.chmod(path, 0o755)
    return path


def short_timeouts(data):
    """The shipped config with the short timeouts added to its one-line `server:` entry."""
    with open(SHIPPED) as handle:
        lines = handle.read().splitlines(True)
    index = next(i for i, line in enumerate(lines) if line.startswith("server:"))
    line = lines[index].rstrip("\n").rstrip()
    if not line.endswith("}"):
        raise RuntimeError(f"{SHIPPED}: the server entry is not on one line")
    lines[index] = line[:-1].rstrip() + ", " + ", ".join(f"{key}: {value}" for key, value in SETTINGS.items()) + " }\n"
    path = os.path.join(data, "napkin-notes.yaml")
    with open(path, "w") as handle:
        handle.writelines(lines)
    return path


def request(port, method, path, source, token=None, body=None, timeout=5):
    """One request on its own connection from `source`. Answers (status, bytes, headers)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        headers = {"Authorization": "Bearer " + token} if token else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        return response.status, response.read(), dict(response.getheaders())
    finally:
        connection.close()


class HeldByServer:
    """How long the server holds each connection, from its side: `ss` lists the listening port's
    established sockets every half second, and those with quire's descriptor are the server's (the
    rest wait in the kernel's accept queue, which the server has not seen). None without `ss`."""

    def __init__(self, port, pid, peers):
        self.port, self.pid, self.peers = port, pid, peers
        self.since, self.longest_run = {}, 0.0

    def sample(self):
        if not shutil.which("ss"):
            return
        try:
            listing = subprocess.run(["ss", "-Htnp", "state", "established", f"( sport = :{self.port} )"], capture_output=True,
                                     text=True, timeout=5).stdout
        except (OSError, subprocess.SubprocessError):
            return
        now = time.monotonic()
        seen = {fields[3] for fields in (line.split() for line in listing.splitlines())
                if len(fields) >= 4 and fields[3].startswith(self.peers) and f"pid={self.pid}," in " ".join(fields[4:])}
        # A peer address and port missing from a sample is a connection gone (one reusing the port is another).
        self.since = {key: self.since.get(key, now) for key in seen}
        self.longest_run = max([self.longest_run] + [now - start for start in self.since.values()])

    def longest(self):
        return self.longest_run if shutil.which("ss") else None


def open_files(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def watch(port, token):
    """/health and, with a token, the user's list every 100 ms from addresses of their own."""
    listing = (lambda: request(port, "GET", "/api/v1/notes?limit=5", USER, token=token, timeout=5)[0]) if token else None
    return Watch(lambda: request(port, "GET", "/health", CHECKER, timeout=5)[0], listing)


def report(checker, scenario):
    print(f"     {scenario}: /health worst {checker.health_worst * 1000:.0f} ms over {checker.rounds} rounds"
          + (f"; the user's list worst {checker.list_worst * 1000:.0f} ms" if checker.listing else ""), flush=True)
    check(f"{scenario}: /health answered 200 throughout", not checker.health_failures, checker.health_failures[:3])
    check(f"{scenario}: /health under 1 s throughout", checker.health_worst < 1.0, f"{checker.health_worst:.2f} s")
    if checker.listing:
        check(f"{scenario}: a signed-in user's list answered 200 throughout", not checker.list_failures, checker.list_failures[:3])


class Flood:
    """Many raw connections from `addresses`, each optionally sending `prefix` then `drip` a byte at
    a time every `every` seconds, reopened `reopen` seconds after the server closes it (None: not).
    Notes how long the server let each live, and what it answered."""

    def __init__(self, port, addresses, count, prefix=b"", drip=b"", every=1.0, reopen=None):
        self.port, self.addresses, self.count = port, addresses, count
        self.prefix, self.drip, self.every, self.reopen = prefix, drip, every, reopen
        self.selector = selectors.DefaultSelector()
        # socket -> [connected at (None until then), next drip at, bytes dripped, answer, address, connected]
        self.live = {}
        # For each connection the server closed: how long it lived after connecting, and what it was sent.
        self.lifetimes, self.answers, self.failed_opens = [], [], 0
        self.pending = []  # (reopen at, address)

    def open(self, address):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind((address, 0))
            code = sock.connect_ex(("127.0.0.1", self.port))
            if code not in (0, errno.EINPROGRESS):
                raise OSError(code, os.strerror(code))
        except OSError:
            sock.close()
            self.failed_opens += 1
            return
        self.live[sock] = [None, 0.0, 0, b"", address, False]
        self.selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE)

    def start(self):
        for index in range(self.count):
            self.open(self.addresses[index % len(self.addresses)])

    def closed(self, sock):
        connected, _, _, answer, address, _ = self.live.pop(sock)
        self.selector.unregister(sock)
        sock.close()
        if connected is not None:
            self.lifetimes.append(time.monotonic() - connected)
            self.answers.append(answer)
        else:
            self.failed_opens += 1
        if self.reopen is not None:
            self.pending.append((time.monotonic() + self.reopen, address))

    def run(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and (self.live or self.pending):
            now = time.monotonic()
            for at, address in [item for item in self.pending if item[0] <= now]:
                self.pending.remove((at, address))
                self.open(address)
            for key, events in self.selector.select(timeout=0.05):
                sock = key.fileobj
                state = self.live.get(sock)
                if state is None:
                    continue
                if events & selectors.EVENT_WRITE and not state[5]:
                    if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                        self.closed(sock)
                        continue
                    state[5] = True  # connected
                    state[0] = state[1] = time.monotonic()
                    self.selector.modify(sock, selectors.EVENT_READ)
                    if self.prefix:
                        self.send(sock, self.prefix)
                if events & selectors.EVENT_READ:
                    try:
                        data = sock.recv(4096)
                    except OSError:
                        data = b""
                    if data:
                        state[3] += data
                    else:
                        self.closed(sock)
            if self.drip:
                now = time.monotonic()
                for sock, state in list(self.live.items()):
                    if state[5] and now >= state[1] + self.every and state[2] < len(self.drip):
                        state[1] = now
                        self.send(sock, self.drip[state[2]:state[2] + 1])
                        if sock in self.live:
                            state[2] += 1

    def send(self, sock, data):
        try:
            sock.send(data)
        except OSError:
            self.closed(sock)

    def held(self):
        """How long the connections still open have been connected."""
        now = time.monotonic()
        return [now - state[0] for state in self.live.values() if state[0] is not None]

    def connecting(self):
        """Connections whose handshake has not completed (the kernel's accept queue is full: the server has not seen them)."""
        return sum(1 for state in self.live.values() if state[0] is None)

    def close(self):
        for sock in list(self.live):
            self.selector.unregister(sock)
            sock.close()
        self.live.clear()
        self.selector.close()


def idle_flood(server, token, seconds=8.0, strict=True):
    addresses = [f"127.0.1.{index}" for index in range(1, 12)]
    pid = server.process.pid
    held_by_server = HeldByServer(server.port, pid, "127.0.1.")
    with watch(server.port, token) as checker:
        flood = Flood(server.port, addresses, 1100, reopen=0.5)
        flood.start()
        most_files = 0
        for _ in range(int(seconds / 0.5)):
            flood.run(0.5)
            most_files = max(most_files, open_files(pid))
            held_by_server.sample()
        flood.close()
    longest = held_by_server.longest()
    print(f"     1,100 idle connections from 11 addresses for {seconds:.0f} s: {len(flood.lifetimes)} closed by the server "
          f"(each reopened half a second later), {flood.failed_opens} failed to open; the longest the server held one "
          + (f"{longest:.1f} s" if longest is not None else "(no ss)") + f"; the server's open files at most {most_files}", flush=True)
    if not strict:
        print(f"     /health worst {checker.health_worst * 1000:.0f} ms over {checker.rounds} rounds, "
              f"{len(checker.health_failures)} failed ({checker.health_failures[:3]})", flush=True)
        return
    # `ss` is sampled every half second (and takes a while itself under the flood): a second more.
    check("idle flood: no silent connection is held past request_head_timeout",
          longest is None or longest < HEAD_TIMEOUT + SLACK + 1.0, f"{longest} s")
    check(f"idle flood: the server's open files stay under its limit ({OPEN_FILES})", most_files < OPEN_FILES, most_files)
    report(checker, "idle flood")


def slow_headers(server, token):
    addresses = [f"127.0.3.{index}" for index in range(1, 5)]
    prefix = b"GET /health HTTP/1.1\r\nHost: quire\r\nX-Slow: "
    with watch(server.port, token) as checker:
        flood = Flood(server.port, addresses, 200, prefix=prefix, drip=b"a" * 30, every=1.0)
        flood.start()
        flood.run(HEAD_TIMEOUT + SLACK + 2)
        held = flood.held()
        flood.close()
    longest = max(flood.lifetimes + held, default=0)
    print(f"     200 heads at a byte a second: {len(flood.lifetimes)} closed by the server, the longest held {longest:.1f} s", flush=True)
    check("slow heads: each is closed by request_head_timeout though bytes keep coming",
          not held and longest < HEAD_TIMEOUT + SLACK, f"{len(held)} still open, longest {longest:.1f} s")
    check("slow heads: none is answered as if complete", not any(answer.startswith(b"HTTP/1.1 200") for answer in flood.answers))
    report(checker, "slow heads")


def good_upload(port, token, outcome):
    """A 60 KB note sent at about 20 KB/s (3 s: longer than the grace and the head timeout)."""
    body = json.dumps({"title": "sent slowly but steadily", "text": "steady " * 8500}).encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.4", 0))
    started = time.monotonic()
    try:
        sock.sendall(f"POST /api/v1/notes HTTP/1.1\r\nHost: quire\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode())
        for offset in range(0, len(body), 2000):
            sock.sendall(body[offset:offset + 2000])
            time.sleep(0.1)
        answer = b""
        while True:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
        outcome["status"] = answer[:12].decode(errors="replace")
    except OSError as error:
        outcome["status"] = repr(error)
    finally:
        outcome["seconds"] = time.monotonic() - started
        sock.close()


def slow_bodies(server, token, attacker, writer):
    addresses = ["127.0.4.1", "127.0.4.2"]
    prefix = (f"POST /api/v1/notes HTTP/1.1\r\nHost: quire\r\nAuthorization: Bearer {attacker}\r\nContent-Type: application/json\r\n"
              "Content-Length: 50000\r\n\r\n{\"title\": \"").encode()
    outcome = {}
    with watch(server.port, token) as checker:
        steady = threading.Thread(target=good_upload, args=(server.port, writer, outcome))
        steady.start()
        flood = Flood(server.port, addresses, 60, prefix=prefix, drip=b"a" * 200, every=0.1)
        flood.start()
        flood.run(BODY_GRACE + SLACK + 2)
        held = flood.held()
        flood.close()
        steady.join()
    longest = max(flood.lifetimes + held, default=0)
    print(f"     60 bodies at 10 bytes/s: {len(flood.lifetimes)} cut off, the longest held {longest:.1f} s; "
          f"a 60 KB note at 20 KB/s took {outcome.get('seconds', 0):.1f} s", flush=True)
    check("slow bodies: each is cut off after body_rate_grace", not held and longest < BODY_GRACE + SLACK + 0.5,
          f"{len(held)} still open, longest {longest:.1f} s")
    check("slow bodies: none became a note", not any(b" 201 " in answer[:16] for answer in flood.answers))
    check("a note sent at a good rate for longer than the grace is created (201)", outcome.get("status") == "HTTP/1.1 201",
          outcome)
    report(checker, "slow bodies")


def one_address(server, token):
    with watch(server.port, token) as checker:
        flood = Flood(server.port, ["127.0.5.1"], 400)
        flood.start()
        flood.run(1.0)  # connected; the refused ones are answered and closed at once
        # A request on each connection still open, kept alive: those served stay open (idle_timeout),
        # so any that the server accepts meanwhile from the same address is refused.
        for sock, state in list(flood.live.items()):
            if state[5]:
                flood.send(sock, b"GET /health HTTP/1.1\r\nHost: quire\r\n\r\n")
        flood.run(1.5)
        open_answers = [state[3] for state in flood.live.values()]
        flood.close()
    served = sum(1 for answer in open_answers + flood.answers if answer.startswith(b"HTTP/1.1 200"))
    unanswered = sum(1 for answer in open_answers if not answer)
    refused = [(answer, lived) for answer, lived in zip(flood.answers, flood.lifetimes) if not answer.startswith(b"HTTP/1.1 200")]
    with_503 = [answer for answer, _ in refused if answer.startswith(b"HTTP/1.1 503")]
    slowest = max((lived for _, lived in refused), default=0)
    print(f"     400 connections from one address: {served} served at once, {len(refused)} refused ({len(with_503)} with a 503), "
          f"the slowest refusal {slowest * 1000:.0f} ms after connecting, {unanswered} unanswered, {flood.failed_opens} failed to connect",
          flush=True)
    check(f"one address: at most max_connections_per_address ({PER_ADDRESS}) served at once", 0 < served <= PER_ADDRESS, served)
    check("one address: every other connection was refused", served + len(refused) + flood.failed_opens == 400 and not unanswered,
          (served, len(refused), flood.failed_opens, unanswered))
    check("one address: each refusal came at once (under 1 s)", slowest < 1.0, f"{slowest:.2f} s")
    check("one address: a refusal says 503 with Retry-After",
          with_503 and all(b"Retry-After: " in answer for answer in with_503), len(with_503))
    report(checker, "one address")


def keep_alive(port, outcome):
    """Two requests on one kept-alive connection, then silence: closed after idle_timeout."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.6", 0))
    try:
        connection.request("GET", "/health")
        first = connection.getresponse()
        first.read()
        time.sleep(1.0)
        connection.request("GET", "/health")
        second = connection.getresponse()
        second.read()
        outcome["statuses"] = (first.status, second.status)
        started = time.monotonic()
        sock = connection.sock
        sock.settimeout(IDLE_TIMEOUT + 5)
        outcome["eof"] = sock.recv(1) == b""
        outcome["closed after"] = time.monotonic() - started
    except OSError as error:
        outcome["error"] = repr(error)
    finally:
        connection.close()


def live_connection(port, token):
    live = websocket(f"ws://127.0.0.1:{port}/api/v1/sync/live", open_timeout=5)
    live.send(json.dumps({"type": "auth", "token": token}))
    ready = json.loads(live.recv(timeout=5))
    return live, ready


def scenarios(server):
    token = sign_up(server, "limits-user")
    pid = server.process.pid
    with open(f"/proc/{pid}/limits") as handle:
        line = next((row for row in handle if row.startswith("Max open files")), "")
    check(f"the server runs under an open-file limit of {OPEN_FILES}", line.split()[3:5] == [str(OPEN_FILES)] * 2, line.strip())
    with open(server.log_path) as handle:
        logged = [row.strip() for row in handle if "Open files:" in row]
    print("     server: " + (logged[0][logged[0].index("Open files:"):] if logged else "(no limit line)"), flush=True)
    check("the server logs its open-file limit and connection bounds in one line",
          len(logged) == 1 and f"up to {MAX_CONNECTIONS} connections, {PER_ADDRESS} per address" in logged[0], logged)

    live, ready = live_connection(server.port, token)
    check("the sync WebSocket opens and signs in", ready == {"type": "ready"}, ready)
    opened = time.monotonic()

    idle_flood(server, token)
    alive = {}
    keeper = threading.Thread(target=keep_alive, args=(server.port, alive))
    keeper.start()
    slow_headers(server, token)
    keeper.join()
    check("a kept-alive connection answers a second request within idle_timeout", alive.get("statuses") == (200, 200), alive)
    check("a kept-alive connection is closed idle_timeout after its last answer",
          alive.get("eof") and IDLE_TIMEOUT - 0.5 <= alive.get("closed after", 0) < IDLE_TIMEOUT + SLACK, alive)
    slow_bodies(server, token, sign_up(server, "limits-attacker"), sign_up(server, "limits-writer"))
    one_address(server, token)

    pong = live.ping()
    check(f"the sync WebSocket is still live after {time.monotonic() - opened:.0f} s (a ping answered)", pong.wait(5))
    status, _, _ = request(server.port, "POST", "/api/v1/notes", USER, token=token, body={"title": "after the floods", "text": "x"})
    poke = None
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and poke is None:
        try:
            message = json.loads(live.recv(timeout=max(0.1, deadline - time.monotonic())))
        except TimeoutError:
            break
        poke = message if message.get("type") == "poke" else None
    check("a note created afterwards (201) pokes the live connection", status == 201 and poke is not None, (status, poke))
    live.close()

    with open(server.log_path) as handle:
        summaries = [row.strip() for row in handle if "Connections: " in row]
    check("refusals and closings are logged in a line per minute, not one per connection", 1 <= len(summaries) <= 2,
          f"{len(summaries)} lines")
    for row in summaries:
        print("     server: " + row[row.index("Connections: "):][:300], flush=True)
    memory = memory_of(pid)
    print(f"     server peak RSS (VmHWM) {memory['VmHWM']:.0f} MB, RSS now {memory['VmRSS']:.0f} MB", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    parser.add_argument("--baseline", action="store_true", help="only the idle flood on the shipped config; measure, check nothing")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096:  # this script holds 1,100 sockets and more
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="quire-limits-connections-") as data:
        config = SHIPPED if args.baseline else short_timeouts(data)
        server = napkin_notes.Server(limited(binary, data), data, free_port(), config=config)
        try:
            server.start()
            if args.baseline:
                token = sign_up(server, "limits-user")
                idle_flood(server, token, strict=False)
                print(f"     server peak RSS (VmHWM) {memory_of(server.process.pid)['VmHWM']:.0f} MB", flush=True)
            else:
                scenarios(server)
            code = server.stop()
            if not args.baseline:
                check("SIGTERM → clean exit 0", code == 0, code)
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("acceptance run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
    failed = results.count(False)
    print(f"limits_connections acceptance: {len(results) - failed} passed, {failed} failed ({time.monotonic() - started:.0f} s)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
