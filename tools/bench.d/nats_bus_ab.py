#!/usr/bin/env python3
"""The bus over NATS, A/B: two (or more) release quire-bench binaries alternated on one throwaway
nats-server. Each round, per binary: `bus-nats --pairs N` (client then bus, the ratio of each pair and
its two rates), then a bus-only run under `perf stat` (task-clock of the bench process, which holds
both nodes, and nats-server's utime+stime, per request). Prints each binary's medians.

    cp .build/release/quire-bench /tmp/me/A/      # before the change; after it, to /tmp/me/B/
    tools/bench.d/nats_bus_ab.py --bin /tmp/me/A --bin /tmp/me/B --rounds 5 --pairs 3
    tools/bench.d/nats_bus_ab.py --bin /tmp/me/A --bin "/tmp/me/B --pooled" ...   # extra arguments for that binary
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUS_ONLY = 100000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", action="append", required=True, help="a folder holding quire-bench (give two or more)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--count", type=int, default=50000)
    args = parser.parse_args()
    started = subprocess.run([os.path.join(ROOT, "tools", "nats"), "start"], capture_output=True, text=True, check=True).stdout
    values = dict(part.split("=", 1) for part in started.replace("export ", "").split())
    url, directory = values["QUIRE_TEST_NATS_URL"].strip("'"), values["QUIRE_NATS_DIR"].strip("'")
    server = int(open(os.path.join(directory, "pid")).read())
    results = {b: {"ratios": [], "rates": [], "cpu_us": [], "nats_us": [], "bus_only": []} for b in args.bin}
    try:
        for round_ in range(args.rounds):
            for b in args.bin:
                folder, *extra = shlex.split(b)
                out = run([os.path.join(folder, "quire-bench"), "bus-nats", *extra, "--url", url, "--count", str(args.count), "--sequential-count", "0",
                           "--pairs", str(args.pairs)]).stdout
                d = json.loads(out.strip().splitlines()[-1])
                results[b]["ratios"] += d["pair_ratios"]
                # A binary from before pair_rates: the first pair (client then bus, same run) only.
                results[b]["rates"] += d.get("pair_rates", [[d["client"]["concurrent"]["per_second"], d["concurrent"]["per_second"]]])
            for b in args.bin:
                before = cpu_ms(server)
                folder, *extra = shlex.split(b)
                done = run(["perf", "stat", "-x,", "-e", "task-clock", os.path.join(folder, "quire-bench"), "bus-nats", *extra, "--url", url,
                            "--count", str(BUS_ONLY), "--sequential-count", "0", "--bus-only"])
                nats = cpu_ms(server) - before
                requests = BUS_ONLY // 64 * 64
                clock = float([line for line in done.stderr.splitlines() if "task-clock" in line][0].split(",")[0])
                results[b]["cpu_us"].append(round(clock * 1000 / requests, 2))
                results[b]["nats_us"].append(round(nats * 1000 / requests, 2))
                results[b]["bus_only"].append(json.loads(done.stdout.strip().splitlines()[-1])["concurrent"]["per_second"])
            print(f"round {round_ + 1}: " + "; ".join(f"{b}: pairs {results[b]['ratios'][-args.pairs:]}, {results[b]['cpu_us'][-1]} µs" for b in args.bin),
                  flush=True)
    finally:
        subprocess.run([os.path.join(ROOT, "tools", "nats"), "stop", directory], capture_output=True)
    for b, x in results.items():
        print(f"{b}: bus ÷ client, {len(x['ratios'])} pairs: median {statistics.median(x['ratios']):.2f} "
              f"({min(x['ratios']):.2f}–{max(x['ratios']):.2f}); client/s median {statistics.median(r[0] for r in x['rates']):,.0f}, "
              f"bus/s median {statistics.median(r[1] for r in x['rates']):,.0f}")
        print(f"{b}: bus only, {args.rounds} runs of {BUS_ONLY:,}: bench process CPU {statistics.median(x['cpu_us'])} µs/request "
              f"({min(x['cpu_us'])}–{max(x['cpu_us'])}), nats-server {statistics.median(x['nats_us'])} µs/request, "
              f"{statistics.median(x['bus_only']):,.0f}/s")


def run(command):
    return subprocess.run(command, capture_output=True, text=True, check=True)


def cpu_ms(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 // os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
