// The Go peer of `quire-bench bus-nats`: request/reply through a real nats-server with the
// official client (Debian's golang-github-nats-io-go-nats-dev), two connections, one request at a
// time and N in flight. Prints one JSON object like nats_reqrep.py.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

type summary struct {
	PerSecond int     `json:"per_second"`
	P50       float64 `json:"p50_us"`
	P99       float64 `json:"p99_us"`
}

func summarise(samples []time.Duration, elapsed time.Duration) summary {
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	at := func(q int) float64 {
		i := len(samples) * q / 100
		if i >= len(samples) {
			i = len(samples) - 1
		}
		return float64(samples[i].Nanoseconds()) / 1000
	}
	return summary{PerSecond: int(float64(len(samples)) / elapsed.Seconds()), P50: at(50), P99: at(99)}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "nats_reqrep_go:", err)
	os.Exit(1)
}

func main() {
	url := flag.String("url", nats.DefaultURL, "nats-server")
	count := flag.Int("count", 20000, "requests per mode")
	inFlight := flag.Int("in-flight", 64, "concurrent callers")
	flag.Parse()
	responder, err := nats.Connect(*url)
	if err != nil {
		fail(err)
	}
	defer responder.Close()
	caller, err := nats.Connect(*url)
	if err != nil {
		fail(err)
	}
	defer caller.Close()
	if _, err := responder.QueueSubscribe("bench.ping", "bench", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		fail(err)
	}
	if err := responder.Flush(); err != nil {
		fail(err)
	}
	for i := 0; i < *count/10; i++ {
		if _, err := caller.Request("bench.ping", []byte(strconv.Itoa(i)), 5*time.Second); err != nil {
			fail(err)
		}
	}
	latencies := make([]time.Duration, 0, *count)
	started := time.Now()
	for i := 0; i < *count; i++ {
		start := time.Now()
		if _, err := caller.Request("bench.ping", []byte(strconv.Itoa(i)), 5*time.Second); err != nil {
			fail(err)
		}
		latencies = append(latencies, time.Since(start))
	}
	sequential := summarise(latencies, time.Since(started))

	perWorker := *count / *inFlight
	if perWorker < 1 {
		perWorker = 1
	}
	var lock sync.Mutex
	var group sync.WaitGroup
	concurrentLatencies := make([]time.Duration, 0, perWorker**inFlight)
	started = time.Now()
	for w := 0; w < *inFlight; w++ {
		group.Add(1)
		go func(first int) {
			defer group.Done()
			mine := make([]time.Duration, 0, perWorker)
			for i := first; i < first+perWorker; i++ {
				payload := []byte(strconv.Itoa(i))
				start := time.Now()
				reply, err := caller.Request("bench.ping", payload, 5*time.Second)
				if err != nil {
					fail(err)
				}
				if string(reply.Data) != string(payload) {
					fail(fmt.Errorf("reply %q to %q", reply.Data, payload))
				}
				mine = append(mine, time.Since(start))
			}
			lock.Lock()
			concurrentLatencies = append(concurrentLatencies, mine...)
			lock.Unlock()
		}(w * perWorker)
	}
	group.Wait()
	concurrent := summarise(concurrentLatencies, time.Since(started))
	out, _ := json.Marshal(map[string]any{"request_reply": sequential, "concurrent": concurrent, "in_flight": *inFlight, "count": *count})
	fmt.Println(string(out))
}
