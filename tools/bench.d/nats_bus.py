#!/usr/bin/env python3
"""Request/reply over NATS, same run, same server: Quire's NATSBus (`quire-bench bus-nats`: its own
client on SwiftNIO, messages as JSON, two connections) against the nats-py client (raw bytes, two
connections), one request at a time and 64 in flight. Starts a throwaway nats-server (tools/nats)
and stops it after. Prints one JSON object.

    tools/setup --bench && swift build -c release --product quire-bench
    tools/bench.d/nats_bus.py --bin .build/release
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--in-flight", type=int, default=64)
    args = parser.parse_args()
    started = subprocess.run([os.path.join(ROOT, "tools", "nats"), "start"], capture_output=True, text=True, check=True).stdout
    values = dict(part.split("=", 1) for part in started.replace("export ", "").split())
    url, directory = values["QUIRE_TEST_NATS_URL"].strip("'"), values["QUIRE_NATS_DIR"].strip("'")
    try:
        quire = json.loads(subprocess.run([os.path.join(args.bin, "quire-bench"), "bus-nats", "--url", url, "--count", str(args.count),
                                           "--in-flight", str(args.in_flight)], capture_output=True, text=True, check=True).stdout)
        peer = json.loads(subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench.d", "nats_reqrep.py"), "--url", url,
                                          "--count", str(args.count), "--in-flight", str(args.in_flight)],
                                         capture_output=True, text=True, check=True).stdout)
    finally:
        subprocess.run([os.path.join(ROOT, "tools", "nats"), "stop", directory], capture_output=True)
    report = {
        "quire": {"sequential": quire["sequential"], "concurrent": quire["concurrent"]},
        "nats_py": {"sequential": peer["request_reply"], "concurrent": peer["concurrent"]},
        "count": args.count, "in_flight": args.in_flight,
    }
    for mode in ("sequential", "concurrent"):
        report[f"{mode}_ratio"] = round(quire[mode]["per_second"] / peer["request_reply" if mode == "sequential" else "concurrent"]["per_second"], 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
