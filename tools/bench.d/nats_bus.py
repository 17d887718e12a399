#!/usr/bin/env python3
"""Request/reply over NATS, same run, same server, two connections each, one request at a time and
64 in flight:
- Quire's client (`quire-bench bus-nats`: its NATSConnection on SwiftNIO) echoing the payload's bytes,
  as the peers do: the nats-py client and the official Go client (Debian's
  golang-github-nats-io-go-nats-dev, built here from nats_reqrep.go);
- Quire's bus on that client (NATSBus: a typed request and reply as JSON, the deadline in a header).
Starts a throwaway nats-server (tools/nats) and stops it after. Prints one JSON object.

    tools/setup --bench && swift build -c release --product quire-bench
    tools/bench.d/nats_bus.py --bin .build/release
    tools/bench.d/nats_bus.py --bin .build/release --rows --pairs 5   # BENCHMARKS.md's two rows, with their ratios
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--in-flight", type=int, default=64)
    parser.add_argument("--pairs", type=int, default=0, help="then this many client/bus pairs of 64-in-flight runs (quire-bench --pairs): "
                        "the ratio per pair, and their median in --rows")
    parser.add_argument("--rows", action="store_true", help="print BENCHMARKS.md's two rows (client, bus) with peer and ratio, not JSON")
    args = parser.parse_args()
    go_peer = build_go_peer()
    started = subprocess.run([os.path.join(ROOT, "tools", "nats"), "start"], capture_output=True, text=True, check=True).stdout
    values = dict(part.split("=", 1) for part in started.replace("export ", "").split())
    url, directory = values["QUIRE_TEST_NATS_URL"].strip("'"), values["QUIRE_NATS_DIR"].strip("'")
    try:
        quire = json.loads(subprocess.run([os.path.join(args.bin, "quire-bench"), "bus-nats", "--url", url, "--count", str(args.count),
                                           "--in-flight", str(args.in_flight)] + (["--pairs", str(args.pairs)] if args.pairs else []),
                                          capture_output=True, text=True, check=True).stdout)
        peer = json.loads(subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench.d", "nats_reqrep.py"), "--url", url,
                                          "--count", str(args.count), "--in-flight", str(args.in_flight)],
                                         capture_output=True, text=True, check=True).stdout)
        go = json.loads(subprocess.run([go_peer, "--url", url, "--count", str(args.count), "--in-flight", str(args.in_flight)],
                                       capture_output=True, text=True, check=True).stdout)
    finally:
        subprocess.run([os.path.join(ROOT, "tools", "nats"), "stop", directory], capture_output=True)
    report = {
        "quire_client": quire["client"],
        "quire_bus": {"sequential": quire["sequential"], "concurrent": quire["concurrent"]},
        "nats_py": {"sequential": peer["request_reply"], "concurrent": peer["concurrent"]},
        "go": {"sequential": go["request_reply"], "concurrent": go["concurrent"]},
        "count": args.count, "in_flight": args.in_flight,
    }
    if "pair_ratios" in quire:
        report["quire_bus_pair_ratios"], report["quire_bus_pair_ratio_median"] = quire["pair_ratios"], quire["pair_ratio_median"]
    for mode in ("sequential", "concurrent"):
        key = "request_reply" if mode == "sequential" else "concurrent"
        for ours in ("quire_client", "quire_bus"):
            report[f"{ours}_{mode}_ratio_nats_py"] = round(report[ours][mode]["per_second"] / peer[key]["per_second"], 2)
            report[f"{ours}_{mode}_ratio_go"] = round(report[ours][mode]["per_second"] / go[key]["per_second"], 2)
    if args.rows:
        client, bus = report["quire_client"]["concurrent"]["per_second"], report["quire_bus"]["concurrent"]["per_second"]
        go_rate = go["concurrent"]["per_second"]
        print(f"| NATS client, {args.in_flight} in flight | {client:,.0f}/s | Go `nats.go`: {go_rate:,.0f}/s | {client / go_rate:.2f}× Go |")
        pairs = report.get("quire_bus_pair_ratios")
        ratio = f"**{bus / client:.0%}**" + (f"; {len(pairs)} pairs: median **{report['quire_bus_pair_ratio_median']:.0%}** "
                                             f"({min(pairs):.0%}–{max(pairs):.0%})" if pairs else "")
        print(f"| bus over NATS, typed JSON, {args.in_flight} in flight | {bus:,.0f}/s | our client, same run: {client:,.0f}/s (target ≥ 80 %) "
              f"| {ratio} |")
        return
    print(json.dumps(report, indent=2))


def build_go_peer():
    """Builds nats_reqrep.go against Debian's Go sources (GOPATH mode: no module download)."""
    out = os.path.join(tempfile.gettempdir(), "quire-nats-reqrep-go")
    environment = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOCACHE=os.path.join(tempfile.gettempdir(), "quire-gocache"))
    subprocess.run(["go", "build", "-o", out, os.path.join(ROOT, "tools", "bench.d", "nats_reqrep.go")], env=environment, check=True)
    return out


if __name__ == "__main__":
    main()
