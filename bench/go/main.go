// Command bench measures client-go's workqueue on the same workload as rxkube's reconcile-operator benchmark, so
// the two can be compared: throughput of 1M adds over 10k distinct keys with no-op processing at 1, 8 and 64
// workers, and Add-to-Get latency for a paced 5k adds/s stream. It prints one JSON document on stdout.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
)

const (
	totalAdds    = 1_000_000
	distinctKeys = 10_000
	pacedRate    = 5_000 // adds per second
	pacedFor     = 3 * time.Second
	pacedWorkers = 1 // rxkube's default concurrency
)

var workerCounts = []int{1, 8, 64}

type throughputResult struct {
	Workers int `json:"workers"`
	Adds    int `json:"adds"`
	// Processed counts Get/Done cycles; it is below Adds because the queue coalesces a key that is already waiting.
	Processed        int64   `json:"processed"`
	AddSeconds       float64 `json:"addSeconds"`
	TotalSeconds     float64 `json:"totalSeconds"`
	AddsPerSecond    float64 `json:"addsPerSecond"`
	ProcessedPerSec  float64 `json:"processedPerSecond"`
	AddsPerSecondAll float64 `json:"addsPerSecondIncludingDrain"`
}

type latencyResult struct {
	Workers         int     `json:"workers"`
	TargetRate      int     `json:"targetAddsPerSecond"`
	Adds            int     `json:"adds"`
	Received        int     `json:"received"`
	AchievedRate    float64 `json:"achievedAddsPerSecond"`
	P50Micros       float64 `json:"p50Micros"`
	P99Micros       float64 `json:"p99Micros"`
	MaxMicros       float64 `json:"maxMicros"`
	DurationSeconds float64 `json:"durationSeconds"`
}

type report struct {
	Implementation string             `json:"implementation"`
	ClientGo       string             `json:"clientGo"`
	GoVersion      string             `json:"goVersion"`
	GOMAXPROCS     int                `json:"gomaxprocs"`
	NumCPU         int                `json:"numCPU"`
	Queue          string             `json:"queue"`
	Throughput     []throughputResult `json:"throughput"`
	Latency        latencyResult      `json:"latency"`
}

func newQueue() workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
}

// keys are built before timing starts so the measurement is the queue, not string formatting.
func makeKeys(n int, prefix string) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("default/%s-%d", prefix, i)
	}
	return keys
}

func throughput(workers int, keys []string) throughputResult {
	q := newQueue()
	var processed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				// No-op reconcile: success, so the rate limiter forgets the key as a real controller would.
				q.Forget(key)
				q.Done(key)
				processed.Add(1)
			}
		}()
	}
	start := time.Now()
	for i := range totalAdds {
		q.Add(keys[i%len(keys)])
	}
	addElapsed := time.Since(start)
	// ShutDown (not WithDrain) still hands every queued and dirty item to the workers before Get reports shutdown,
	// so waiting for the workers to exit means everything added has been processed.
	q.ShutDown()
	wg.Wait()
	total := time.Since(start)
	n := processed.Load()
	return throughputResult{
		Workers:          workers,
		Adds:             totalAdds,
		Processed:        n,
		AddSeconds:       addElapsed.Seconds(),
		TotalSeconds:     total.Seconds(),
		AddsPerSecond:    float64(totalAdds) / addElapsed.Seconds(),
		ProcessedPerSec:  float64(n) / total.Seconds(),
		AddsPerSecondAll: float64(totalAdds) / total.Seconds(),
	}
}

func latency() latencyResult {
	n := int(pacedFor.Seconds() * pacedRate)
	keys := makeKeys(n, "paced") // distinct keys: each Add maps to exactly one Get, no coalescing
	index := make(map[string]int, n)
	for i, k := range keys {
		index[k] = i
	}
	addedAt := make([]atomic.Int64, n)
	latencies := make([]time.Duration, n)
	var received atomic.Int64

	q := newQueue()
	var wg sync.WaitGroup
	for range pacedWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				got := time.Now().UnixNano()
				i := index[key]
				latencies[i] = time.Duration(got - addedAt[i].Load())
				received.Add(1)
				q.Forget(key)
				q.Done(key)
			}
		}()
	}
	interval := time.Second / pacedRate
	start := time.Now()
	for i := range n {
		// Pace against absolute targets so sleep overshoot is caught up instead of accumulating.
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		addedAt[i].Store(time.Now().UnixNano())
		q.Add(keys[i])
	}
	sent := time.Since(start)
	q.ShutDown()
	wg.Wait()

	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	return latencyResult{
		Workers:         pacedWorkers,
		TargetRate:      pacedRate,
		Adds:            n,
		Received:        int(received.Load()),
		AchievedRate:    float64(n) / sent.Seconds(),
		P50Micros:       micros(percentile(sorted, 0.50)),
		P99Micros:       micros(percentile(sorted, 0.99)),
		MaxMicros:       micros(sorted[len(sorted)-1]),
		DurationSeconds: sent.Seconds(),
	}
}

// percentile uses the nearest-rank method on an ascending slice.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(rank, len(sorted)-1))]
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func clientGoVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/client-go" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func main() {
	keys := makeKeys(distinctKeys, "obj")
	out := report{
		Implementation: "client-go workqueue",
		ClientGo:       clientGoVersion(),
		GoVersion:      runtime.Version(),
		GOMAXPROCS:     runtime.GOMAXPROCS(0),
		NumCPU:         runtime.NumCPU(),
		Queue:          "workqueue.NewTypedRateLimitingQueue(DefaultTypedControllerRateLimiter[string]())",
	}
	for _, w := range workerCounts {
		out.Throughput = append(out.Throughput, throughput(w, keys))
		runtime.GC() // keep one run's garbage from being collected during the next
	}
	out.Latency = latency()
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
