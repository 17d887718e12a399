#!/usr/bin/env python3
"""Quire with its bus on NATS through an outage, against the real binary and a nats-server of its
own (tools/nats):

- Napkin Notes with every plugin message over NATS writes and reads;
- NATS stopped for 10 s under the running server: requests answer 503 with Retry-After at once,
  in a sentence that names the bus, without a stack or NATS' own words;
- NATS back: the same server answers again without a restart, and nothing is lost;
- a server started while NATS is down says so, waits (a line per attempt) and starts its plugins
  once NATS answers; the NATS token is never logged.

Prints one line per check and `nats acceptance: N passed, N failed` last.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import call, check, free_port, results, sign_up  # noqa: E402
from postgres import try_sign_up, until  # noqa: E402

ROOT = napkin_notes.ROOT


def nats(action, directory=None):
    out = subprocess.run([os.path.join(ROOT, "tools", "nats"), action] + ([directory] if directory else []),
                         check=True, capture_output=True, text=True).stdout
    return dict(part.split("=", 1) for part in out.replace("export ", "").split()) if action == "start" else None


def outage(server, directory):
    token = sign_up(server, "nats-ann")
    status, note, _ = call(server, "POST", "/api/v1/notes", {"title": "before the outage"}, token=token)
    check("over NATS: a note is written", status == 201, (status, note))
    nats("pause", directory)
    try:
        def down():
            answer = call(server, "GET", "/api/v1/notes", token=token, timeout=15)
            return answer if answer[0] == 503 else None
        answer = until(down, 10)
        status, problem, headers = answer or (None, None, {})
        check("NATS stopped: 503 with Retry-After, in a sentence that names the bus", status == 503 and headers.get("Retry-After")
              and "NATS" in (problem or {}).get("detail", ""), (status, problem, headers.get("Retry-After")))
        started = time.time()
        status, _, _ = call(server, "POST", "/api/v1/notes", {"title": "while away"}, token=token, timeout=15)
        check("…at once, not after a deadline", status == 503 and time.time() - started < 3, (status, time.time() - started))
        time.sleep(max(0, 10 - (time.time() - started)))
    finally:
        nats("resume", directory)
    back = until(lambda: call(server, "GET", "/api/v1/notes", token=token, timeout=15)[0] == 200, 30)
    check("NATS back after 10 s: the same server answers again, no restart", back)
    _, listing, _ = call(server, "GET", "/api/v1/notes", token=token)
    check("…and the note written before the outage is there", [n["title"] for n in listing["items"]] == ["before the outage"], listing)
    status, _, _ = call(server, "POST", "/api/v1/notes", {"title": "after"}, token=token)
    check("…and writes work again", status == 201, status)


def start_while_down(binary, data, directory, url):
    nats("pause", directory)
    server = napkin_notes.Server(binary, data, free_port())
    try:
        config = napkin_notes.on_nats(napkin_notes.CONFIG, data)
        env = dict(os.environ, QUIRE_PORT=str(server.port), QUIRE_DATA=data)
        log_path = os.path.join(data, "waiting.log")
        with open(log_path, "w") as log:
            process = subprocess.Popen([binary, "serve", "--config", config], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            said = until(lambda: open(log_path).read().count("The plugins start once it answers") >= 2, 20)
            check("a server started while NATS is down says so and keeps trying, a line per attempt",
                  said and process.poll() is None, open(log_path).read()[-400:])
            nats("resume", directory)
            token = until(lambda: try_sign_up(server, "nats-late"), 60)
            check("…and serves once NATS answers", token)
            if token:
                status, _, _ = call(server, "POST", "/api/v1/notes", {"title": "after the wait"}, token=token)
                check("…notes are written", status == 201, status)
            secret = url.split("://", 1)[1].split("@")[0]
            check("the NATS token is never logged", secret not in open(log_path).read())
        finally:
            process.terminate()
            process.wait(timeout=30)
    finally:
        subprocess.run([os.path.join(ROOT, "tools", "nats"), "resume", directory], capture_output=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    server_env = nats("start")
    url, directory = server_env["QUIRE_TEST_NATS_URL"].strip("'"), server_env["QUIRE_NATS_DIR"].strip("'")
    os.environ["QUIRE_TEST_NATS_URL"] = url
    os.environ["QUIRE_ACCEPTANCE_BUS"] = "nats"
    try:
        with tempfile.TemporaryDirectory(prefix="quire-nats-acceptance-") as data:
            server = napkin_notes.Server(binary, os.path.join(data, "a"), free_port())
            os.makedirs(server.data)
            server.start()
            try:
                outage(server, directory)
            except Exception as error:  # noqa: BLE001 — reported as a failed check, the run goes on
                check("outage run", False, repr(error))
            finally:
                server.stop()
            os.makedirs(os.path.join(data, "b"))
            start_while_down(binary, os.path.join(data, "b"), directory, url)
    finally:
        subprocess.run([os.path.join(ROOT, "tools", "nats"), "stop", directory], capture_output=True)
    passed, failed = results.count(True), results.count(False)
    print(f"nats acceptance: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
