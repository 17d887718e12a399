#!/usr/bin/env python3
"""Quire on PostgreSQL through an outage, against the real binary and the throwaway cluster that
tools/test starts (QUIRE_TEST_POSTGRES_URL, QUIRE_PG_DIR; tools/postgres):

- Napkin Notes on PostgreSQL writes and reads;
- the database stopped under the running server: requests answer 503 with Retry-After, in a
  sentence, without the database's own words;
- the database back: the same server answers again without a restart, and nothing is lost;
- a server started while the database is down says so in one line, serves 503 with Retry-After
  while it keeps trying with backoff (one line per attempt), and serves for real once it is back.

Prints one line per check and `postgres acceptance: N passed, N failed` last.
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

ROOT = napkin_notes.ROOT


def postgres(action):
    subprocess.run([os.path.join(ROOT, "tools", "postgres"), action, os.environ["QUIRE_PG_DIR"]], check=True)


def until(predicate, seconds):
    """Polls `predicate` until it answers something truthy or `seconds` pass; answers its last value."""
    deadline = time.time() + seconds
    value = predicate()
    while not value and time.time() < deadline:
        time.sleep(0.25)
        value = predicate()
    return value


def outage(server):
    token = sign_up(server, "pg-ann")
    status, note, _ = call(server, "POST", "/api/v1/notes", {"title": "before the outage"}, token=token)
    check("on PostgreSQL: a note is written", status == 201, (status, note))
    postgres("pause")
    try:
        def down():
            answer = call(server, "GET", "/api/v1/notes", token=token, timeout=15)
            return answer if answer[0] == 503 else None
        answer = until(down, 20)
        status, problem, headers = answer or (None, None, {})
        check("the database stopped: 503 with Retry-After, in a sentence", status == 503 and headers.get("Retry-After") == "2"
              and "try again" in (problem or {}).get("detail", ""), (status, problem, headers.get("Retry-After")))
        check("…and nothing of PostgreSQL's own words reaches the client", "PSQL" not in str(problem) and "57P01" not in str(problem), problem)
    finally:
        postgres("resume")
    back = until(lambda: call(server, "GET", "/api/v1/notes", token=token, timeout=15)[0] == 200, 30)
    check("the database back: the same server answers again, no restart", back)
    _, listing, _ = call(server, "GET", "/api/v1/notes", token=token)
    check("…and the note written before the outage is there", [n["title"] for n in listing["items"]] == ["before the outage"], listing)
    status, _, _ = call(server, "POST", "/api/v1/notes", {"title": "after"}, token=token)
    check("…and writes work again", status == 201, status)


def start_while_down(binary, data):
    postgres("pause")
    server = napkin_notes.Server(binary, data, free_port())
    try:
        env_config, env = server.tool()
        env["QUIRE_PORT"] = str(server.port)
        log_path = os.path.join(data, "waiting.log")
        with open(log_path, "w") as log:
            process = subprocess.Popen([binary, "serve", "--config", env_config], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            said = until(lambda: "cannot be reached; serving 503 until it can" in open(log_path).read(), 20)
            check("a server started while the database is down says so in one line", said, open(log_path).read()[-400:])
            listening = until(lambda: probe(server), 20)
            answer = call(server, "POST", "/api/v1/auth/register", {"username": "pg-early", "password": "correct horse battery"}, timeout=15) \
                if listening else (None, None, {})
            status, problem, headers = answer
            check("…serves meanwhile: a request gets 503 with Retry-After, in a sentence",
                  status == 503 and headers.get("Retry-After") == "2" and "try again" in (problem or {}).get("detail", ""),
                  (status, problem, headers.get("Retry-After")))
            waited = until(lambda: open(log_path).read().count("cannot be reached; trying again in") >= 2, 20)
            check("…and keeps trying with backoff, one line per attempt", waited and process.poll() is None, open(log_path).read()[-400:])
            postgres("resume")
            token = until(lambda: try_sign_up(server, "pg-late"), 60)
            check("…and serves for real once the database is back (the collections declared while it was away)", token)
            if token:
                status, _, _ = call(server, "POST", "/api/v1/notes", {"title": "after the wait"}, token=token)
                check("…notes are written", status == 201, status)
            secret = os.environ["QUIRE_TEST_POSTGRES_URL"].split("@")[0].split(":")[-1]
            check("the database's password is never logged", secret not in open(log_path).read())
        finally:
            process.terminate()
            process.wait(timeout=30)
    finally:
        if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", os.environ["QUIRE_TEST_POSTGRES_URL"].split(":")[-1].split("/")[0]]).returncode:
            postgres("resume")


def try_sign_up(server, username):
    try:
        return sign_up(server, username)
    except (OSError, RuntimeError):
        return None


def probe(server):
    try:
        return call(server, "GET", "/health", timeout=2)[0] == 200
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    if "QUIRE_TEST_POSTGRES_URL" not in os.environ or "QUIRE_PG_DIR" not in os.environ:
        sys.exit('postgres acceptance: start a cluster first: eval "$(tools/postgres start)"')
    os.environ["QUIRE_ACCEPTANCE_BACKEND"] = "postgres"
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="quire-pg-acceptance-") as data:
        server = napkin_notes.Server(binary, os.path.join(data, "a"), free_port())
        os.makedirs(server.data)
        server.start()
        try:
            outage(server)
        except Exception as error:  # noqa: BLE001 — reported as a failed check, the run goes on
            check("outage run", False, repr(error))
        finally:
            server.stop()
        os.makedirs(os.path.join(data, "b"))
        start_while_down(binary, os.path.join(data, "b"))
    passed, failed = results.count(True), results.count(False)
    print(f"postgres acceptance: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
