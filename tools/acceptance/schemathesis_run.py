#!/usr/bin/env python3
"""Schemathesis against each app's real server: generated requests for every operation of
docs/openapi.yaml that the app serves, a bounded number per operation and a fixed seed, checked for
no 5xx and for statuses, content types and bodies that conform to the document.

The spec is cut down per app to the paths its manifest lists, so an operation the app does not
mount is not counted as a 404 against it. Prints one line per app and
`schemathesis: N passed, N failed` last.

    python3 tools/acceptance/schemathesis_run.py --binary .build/debug/quire [--examples 20] [--app iremember]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from hardening import APPS, Server, account  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402

ROOT = napkin_notes.ROOT
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
# Routes whose generated calls would end the run's own session or flood it: signing out revokes the
# token every other call uses, and the sign-in routes are throttled per address by design.
SKIPPED = {("post", "/api/v1/auth/logout")}


def app_spec(server, data, app):
    with open(os.path.join(ROOT, "docs", "openapi.yaml")) as handle:
        spec = yaml.safe_load(handle)
    status, manifest, _ = call(server, "GET", "/api/v1/manifest")
    mounted = {route["path"] for plugin in manifest["plugins"] for route in plugin["routes"]} | {"/health", "/api/v1/manifest"}
    shape = lambda path: re.sub(r"\{[^}]+\}", "{}", path)  # noqa: E731
    shapes = {shape(path) for path in mounted}
    paths = {}
    for path, item in spec["paths"].items():
        if shape(path) not in shapes:
            continue
        kept = {key: value for key, value in item.items() if (key, path) not in SKIPPED}
        if any(key in kept for key in ("get", "post", "put", "patch", "delete")):
            paths[path] = kept
    spec["paths"] = paths
    spec["servers"] = [{"url": server.base}]
    out = os.path.join(data, f"openapi-{app}.yaml")
    with open(out, "w") as handle:
        yaml.safe_dump(spec, handle, sort_keys=False)
    return out, len(paths)


def run(binary, app, examples, seed):
    with tempfile.TemporaryDirectory(prefix=f"quire-schemathesis-{app}-") as data:
        server = Server(binary, data, free_port(), os.path.join(ROOT, "config", "apps", f"{app}.yaml"))
        server.start()
        try:
            token = account(server, app, "schemathesis")
            spec, count = app_spec(server, data, app)
            command = ["st", "run", spec, "--url", server.base, "-H", f"Authorization: Bearer {token}",
                       "--checks", CHECKS, "--max-examples", str(examples), "--seed", str(seed),
                       "--phases", "examples,coverage,fuzzing", "--workers", "2", "--request-timeout", "30",
                       "--generation-deterministic", "--no-color", "--continue-on-failure",
                       "--suppress-health-check", "all", "--warnings", "off"]
            done = subprocess.run(command, capture_output=True, text=True, cwd=data, timeout=1800)
            output = done.stdout + done.stderr
            # CPython 3.11.7's ast.parse can fail in one thread while another parses (gh-106905,
            # fixed in 3.11.8): Hypothesis describing a lambda meets it, and schemathesis reports a
            # "Runtime Error" for one operation. That is the interpreter, not the server: run again
            # once, on one worker thread, where the race cannot happen (two threads in a row met it).
            if done.returncode != 0 and "AST constructor recursion depth mismatch" in output and "FAILURES" not in output and "Failures:" not in output:
                single = command[:command.index("--workers") + 1] + ["1"] + command[command.index("--workers") + 2:]
                done = subprocess.run(single, capture_output=True, text=True, cwd=data, timeout=1800)
                output = done.stdout + done.stderr
            summary = [line.strip() for line in output.splitlines()
                       if len(line) < 200 and re.search(r"\b(passed|failed|errors?)\b", line)]
            with open(os.path.join(ROOT, ".build", f"schemathesis-{app}.log"), "w") as handle:
                handle.write(output)
            check(f"{app}: schemathesis over {count} paths, {examples} examples each: no 5xx, all conform",
                  done.returncode == 0 and server.alive(),
                  f"exit {done.returncode}; {' | '.join(summary[-3:])}; full output in .build/schemathesis-{app}.log")
        finally:
            check(f"{app}: stops cleanly after schemathesis", server.stop() == 0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--examples", type=int, default=int(os.environ.get("QUIRE_SCHEMATHESIS_EXAMPLES", "25")))
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--app", choices=APPS)
    arguments = parser.parse_args()
    os.makedirs(os.path.join(ROOT, ".build"), exist_ok=True)
    for app in [arguments.app] if arguments.app else APPS:
        run(os.path.abspath(arguments.binary), app, arguments.examples, arguments.seed)
    passed = sum(napkin_notes.results)
    failed = len(napkin_notes.results) - passed
    print(f"schemathesis: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
