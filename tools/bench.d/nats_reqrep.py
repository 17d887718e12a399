#!/usr/bin/env python3
"""The NATS peer of `quire-bench bus`: sequential request/reply and publish→deliver over loopback
through a real nats-server, with the nats-py client. Prints one JSON object like quire-bench --json."""
import argparse
import asyncio
import json
import time

import nats


def summary(samples, elapsed):
    ordered = sorted(samples)
    return {"per_second": round(len(samples) / elapsed),
            "p50_us": ordered[len(ordered) // 2] * 1e6,
            "p99_us": ordered[min(len(ordered) - 1, len(ordered) * 99 // 100)] * 1e6}


async def main(url, count, in_flight):
    responder = await nats.connect(url)
    caller = await nats.connect(url)

    async def reply(message):
        await message.respond(message.data)

    await responder.subscribe("bench.ping", cb=reply)
    await responder.flush()
    for index in range(count // 10):
        await caller.request("bench.ping", b"%d" % index, timeout=5)
    latencies = []
    started = time.perf_counter()
    for index in range(count):
        start = time.perf_counter()
        await caller.request("bench.ping", b"%d" % index, timeout=5)
        latencies.append(time.perf_counter() - start)
    request = summary(latencies, time.perf_counter() - started)

    # Many in flight: `in_flight` callers on the one connection, each waiting for its own reply.
    concurrent_latencies = []

    async def worker(first, n):
        for index in range(first, first + n):
            start = time.perf_counter()
            reply = await caller.request("bench.ping", b"%d" % index, timeout=5)
            assert reply.data == b"%d" % index
            concurrent_latencies.append(time.perf_counter() - start)

    per_worker = max(1, count // in_flight)
    started = time.perf_counter()
    await asyncio.gather(*(worker(w * per_worker, per_worker) for w in range(in_flight)))
    concurrent = summary(concurrent_latencies, time.perf_counter() - started)

    # publish → deliver, one at a time (the subscriber acks through a future)
    received = asyncio.Queue()

    async def on_event(message):
        received.put_nowait(time.perf_counter() - float(message.data))

    await responder.subscribe("bench.event", cb=on_event)
    await responder.flush()
    deliveries = []
    started = time.perf_counter()
    for _ in range(count // 4):
        await caller.publish("bench.event", repr(time.perf_counter()).encode())
        await caller.flush()
        deliveries.append(await received.get())
    publish = summary(deliveries, time.perf_counter() - started)
    await caller.close()
    await responder.close()
    print(json.dumps({"request_reply": request, "concurrent": concurrent, "in_flight": in_flight, "publish_deliver": publish,
                      "count": count}, sort_keys=True))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="nats://127.0.0.1:4222")
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--in-flight", type=int, default=64)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.url, arguments.count, arguments.in_flight))
