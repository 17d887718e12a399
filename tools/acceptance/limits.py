#!/usr/bin/env python3
"""Bounded under abuse (issue 38): the server's memory, time and connections under what a handful of
hostile or careless clients can send, each part against a fresh real `quire` binary:

- `limits_connections.py`: 1,100 idle TCP connections under a 1,024-file limit, slow heads and
  bodies, many connections from one address; `/health` under 1 s throughout (2 s during the uploads).
- `limits_uploads.py`: 50 concurrent 20 MB JPEGs under `server.memory_budget`; nothing lost.
- `limits_imports.py`: amplifying import files (a small .apkg with a huge field, CSVs with huge
  cells), six imports at once; the good rows imported, the bad field a problem of its own.

Each part prints its own checks and peak RSS; this prints one line per part and fails if any did.

    tools/acceptance/limits.py --binary .build/debug/quire [--only connections,uploads,imports]
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PARTS = ("connections", "uploads", "imports")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--only", default=",".join(PARTS), help="comma-separated parts to run")
    args = parser.parse_args()
    chosen = [part for part in args.only.split(",") if part]
    unknown = [part for part in chosen if part not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    failed = []
    for part in chosen:
        script = os.path.join(HERE, f"limits_{part}.py")
        print(f"== limits: {part}", flush=True)
        started = time.monotonic()
        code = subprocess.call([sys.executable, script, "--binary", args.binary])
        took = time.monotonic() - started
        print(f"{'ok  ' if code == 0 else 'FAIL'} limits {part} ({took:.0f} s)", flush=True)
        if code != 0:
            failed.append(part)
    print(f"limits: {len(chosen) - len(failed)} parts passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
