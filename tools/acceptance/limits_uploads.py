#!/usr/bin/env python3
"""Uploads under the memory budget (issue 38, item 2), against the real `quire` binary and iRemember's
shipped config.

- One real 20 MB JPEG (6000×4000, made at run time with the `vips` command of tools/setup), sent 50
  times at once by two users (25 each, every copy with its own JPEG comment so no two are the same
  bytes), while a checker asks `/health` and a third user lists their photos every 100 ms.
- `/health` answers in under 2 s throughout (the burst takes tens of seconds: a server blocked behind
  it would answer after); the third user's list answers 200 in under 2 s.
- Every upload either succeeds (201) or is refused with 503, code `unavailable` with `limit: memory_budget` and a `Retry-After`;
  a refused one sent again after its Retry-After succeeds: each user ends with 25 photos.
- The server's peak RSS (VmHWM in /proc/<pid>/status) stays under `server.memory_budget` plus the
  RSS the server had before the burst (its base) plus a margin for what the budget does not count.
- RSS after the burst is printed (memory is given back when the budget goes idle: malloc_trim).
- Then the refusal itself: the same app with `memory_budget: 32MB` and `memory_budget_wait: 1s`, 12
  uploads at once: some are refused with 503 (`unavailable`, `limit: memory_budget`, `Retry-After`),
  every one succeeds when sent again after its Retry-After, and the user ends with 12 photos.

Prints one line per check and `limits_uploads acceptance: N passed, N failed` last.

    tools/acceptance/limits_uploads.py --binary .build/debug/quire
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
from napkin_notes import Watch, call, check, device_account, free_port, memory_of, results  # noqa: E402

ROOT = napkin_notes.ROOT
SHIPPED = os.path.join(ROOT, "config", "apps", "iremember.yaml")
UPLOADS = 50
MB = 1 << 20
# The default server.memory_budget (AppConfig): what the script expects unless --budget-mb says otherwise.
DEFAULT_BUDGET_MB = 320
# What the budget does not count: the allocator's slack, libvips' own buffers, thread stacks of
# the waiting requests, 50 connections' socket buffers.
MARGIN_MB = 96


class Server(napkin_notes.Server):
    blob_grace = "600"


def make_jpeg(data):
    """A 6000×4000 JPEG of noise, about 20 MB (noise compresses badly; a phone photo is smaller)."""
    noise, joined, cast = (os.path.join(data, name) for name in ("noise.v", "joined.v", "cast.v"))
    path = os.path.join(data, "big.jpg")
    subprocess.run(["vips", "gaussnoise", noise, "6000", "4000", "--mean", "128", "--sigma", "36"], check=True)
    subprocess.run(["vips", "bandjoin", f"{noise} {noise} {noise}", joined], check=True)
    subprocess.run(["vips", "cast", joined, cast, "uchar"], check=True)
    subprocess.run(["vips", "copy", cast, path + "[Q=95]"], check=True)
    for name in (noise, joined, cast):
        os.remove(name)
    with open(path, "rb") as handle:
        return handle.read()


def with_comment(jpeg, text):
    """The same JPEG with a COM segment after SOI: other bytes, the same picture."""
    payload = text.encode()
    return jpeg[:2] + b"\xff\xfe" + (len(payload) + 2).to_bytes(2, "big") + payload + jpeg[2:]


def upload(server, token, payload, key, attempts=10):
    """One upload, sent again after its Retry-After while refused with 503 (at most `attempts` times).
    Answers (first status, final status, refusals seen, refusals without Retry-After or code)."""
    first, refused, malformed = None, 0, []
    for _ in range(attempts):
        try:
            status, body, headers = call(server, "POST", "/api/v1/album/photos?source=library", raw=payload, token=token,
                                         content_type="image/jpeg", headers={"Idempotency-Key": key}, timeout=120)
        except OSError as error:
            status, body, headers = repr(error), None, {}
        first = first if first is not None else status
        if status != 503:
            return first, status, refused, malformed
        refused += 1
        retry = headers.get("Retry-After")
        code = (body.get("code"), body.get("limit")) if isinstance(body, dict) else None
        if not retry or not retry.isdigit() or code != ("unavailable", "memory_budget"):
            malformed.append((retry, code))
        time.sleep(min(int(retry) if retry and retry.isdigit() else 1, 5))
    return first, status, refused, malformed


def burst(server, data, budget_mb):
    jpeg = make_jpeg(data)
    check(f"a real {len(jpeg) / MB:.1f} MB 6000×4000 JPEG made with vips", 15 * MB <= len(jpeg) <= 25 * MB, len(jpeg))
    uploaders = [device_account(server), device_account(server)]
    watcher = device_account(server)
    # One upload first: the server's base is its RSS with every code path of an upload warmed.
    status, body, _ = call(server, "POST", "/api/v1/album/photos", raw=with_comment(jpeg, "warm-up"), token=watcher,
                           content_type="image/jpeg", timeout=60)
    check("a single 20 MB upload succeeds", status == 201, (status, body))
    pid = server.process.pid
    base = memory_of(pid)
    print(f"     server RSS before the burst: {base['VmRSS']:.0f} MB (peak so far {base['VmHWM']:.0f} MB)")

    # /health and a third user's photo list every 100 ms meanwhile.
    with Watch(lambda: call(server, "GET", "/health", timeout=5)[0],
               lambda: call(server, "GET", "/api/v1/album/photos?limit=20", token=watcher, timeout=5)[0]) as checker:
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(max_workers=UPLOADS) as pool:
            jobs = [pool.submit(upload, server, uploaders[index % 2], with_comment(jpeg, f"copy {index}"), str(uuid.uuid4()))
                    for index in range(UPLOADS)]
            outcomes = [job.result() for job in jobs]
        took = time.monotonic() - started
        time.sleep(0.5)
    peak = memory_of(pid)["VmHWM"]
    time.sleep(1.5)  # the budget is idle: the allocator's free memory is given back
    after = memory_of(pid)["VmRSS"]

    firsts = [outcome[0] for outcome in outcomes]
    finals = [outcome[1] for outcome in outcomes]
    refusals = sum(outcome[2] for outcome in outcomes)
    malformed = [entry for outcome in outcomes for entry in outcome[3]]
    print(f"     {UPLOADS} uploads in {took:.1f} s: {firsts.count(201)} accepted at once, {refusals} refusals (503) retried")
    check("every upload either succeeded or was refused with 503", all(status in (201, 503) for status in firsts),
          sorted(set(map(str, firsts))))
    check("every 503 carried Retry-After, code unavailable and limit memory_budget", not malformed, malformed[:3])
    check("every refused upload succeeded when sent again: nothing lost", finals.count(201) == UPLOADS, sorted(set(map(str, finals))))
    for index, token in enumerate(uploaders):
        status, listing, _ = call(server, "GET", "/api/v1/album/photos?limit=100", token=token)
        count = len(listing["items"]) if status == 200 else None
        check(f"user {'AB'[index]} has its 25 photos, none doubled", count == UPLOADS // 2, (status, count))
    print(f"     /health: worst {checker.health_worst * 1000:.0f} ms over {checker.rounds} rounds; "
          f"third user's list: worst {checker.list_worst * 1000:.0f} ms")
    check("/health answered 200 throughout", not checker.health_failures, checker.health_failures[:3])
    # Under 2 s, not 1: with tools/test's three lanes the two cores are saturated, and one fresh-clone
    # run saw 1.16 s while 50 × 24 MP decodes ran. A server blocked behind them would answer only once
    # the burst ended (tens of seconds), which this still catches; speed itself is for BENCHMARKS.md.
    check("/health under 2 s throughout", checker.health_worst < 2.0, f"{checker.health_worst:.2f} s")
    check("a third user's list answered 200 throughout", not checker.list_failures, checker.list_failures[:3])
    check("a third user's list under 2 s throughout", checker.list_worst < 2.0, f"{checker.list_worst:.2f} s")
    limit = base["VmRSS"] + budget_mb + MARGIN_MB
    print(f"     peak RSS {peak:.0f} MB ({(peak - base['VmRSS']) / UPLOADS:.1f} MB per concurrent upload above the base); "
          f"RSS after the burst {after:.0f} MB")
    check(f"peak RSS under base {base['VmRSS']:.0f} + budget {budget_mb} + margin {MARGIN_MB} MB", peak < limit,
          f"{peak:.0f} MB ≥ {limit:.0f} MB")
    check("RSS after the burst is given back (within base + 128 MB)", after < base["VmRSS"] + 128,
          f"{after:.0f} MB after, base {base['VmRSS']:.0f} MB")


def refusals(binary, data):
    """A budget that holds one upload, waited for 1 s: refused uploads get 503 and succeed when sent again."""
    with open(SHIPPED) as handle:
        text = handle.read()
    assert "\nserver: { " in text
    path = os.path.join(data, "iremember-small-budget.yaml")
    with open(path, "w") as handle:
        handle.write(text.replace("\nserver: { ", "\nserver: { memory_budget: 32MB, memory_budget_wait: 1s, ", 1))
    small = os.path.join(data, "small")
    os.makedirs(small)
    server = Server(binary, small, free_port(), config=path)
    server.start()
    try:
        with open(os.path.join(data, "big.jpg"), "rb") as handle:
            jpeg = handle.read()
        token = device_account(server)
        count = 12
        with concurrent.futures.ThreadPoolExecutor(max_workers=count) as pool:
            jobs = [pool.submit(upload, server, token, with_comment(jpeg, f"small budget {index}"), str(uuid.uuid4()), 60)
                    for index in range(count)]
            outcomes = [job.result() for job in jobs]
        refused = sum(outcome[2] for outcome in outcomes)
        malformed = [entry for outcome in outcomes for entry in outcome[3]]
        print(f"     budget of 32 MB, 1 s wait: {count} uploads at once, {refused} refusals (503) sent again")
        check("a budget too small for the burst refuses some uploads with 503", refused > 0, refused)
        check("…each 503 with Retry-After, code unavailable and limit memory_budget", not malformed, malformed[:3])
        check("…and every refused upload succeeds when sent again", all(outcome[1] == 201 for outcome in outcomes),
              sorted(set(str(outcome[1]) for outcome in outcomes)))
        status, listing, _ = call(server, "GET", "/api/v1/album/photos?limit=100", token=token)
        check(f"…the user has its {count} photos, none doubled", status == 200 and len(listing["items"]) == count,
              (status, len(listing["items"]) if status == 200 else listing))
        status, _, _ = call(server, "GET", "/health")
        check("…and the server is up", status == 200, status)
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    parser.add_argument("--budget-mb", type=int, default=DEFAULT_BUDGET_MB, help="the server.memory_budget the binary runs under")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="quire-limits-uploads-") as data:
        server = Server(binary, data, free_port(), config=SHIPPED)
        try:
            server.start()
            burst(server, data, args.budget_mb)
            code = server.stop()
            check("SIGTERM → clean exit 0", code == 0, code)
            refusals(binary, data)
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("acceptance run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
    failed = results.count(False)
    print(f"limits_uploads acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
