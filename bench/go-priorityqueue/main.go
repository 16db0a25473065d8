// Command priorityqueue-bench runs controller-runtime's priority queue (pkg/controller/priorityqueue) on the
// workload of rxkube's queue benchmark (bench/queue/priority.ts): 1,000,000 keys preloaded at LowPriority, then a
// stream of high-priority keys, reconciles that sleep 1 ms, `-concurrency` workers, for `-duration`. It prints one
// JSON document on stdout. See bench/go-priorityqueue/README.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

const highPriority = 100

type result struct {
	Implementation  string  `json:"implementation"`
	Version         string  `json:"version"`
	GoVersion       string  `json:"goVersion"`
	GOMAXPROCS      int     `json:"gomaxprocs"`
	Mode            string  `json:"mode"`
	Concurrency     int     `json:"concurrency"`
	Low             int     `json:"low"`
	PreloadSeconds  float64 `json:"preloadSeconds"`
	DurationSeconds float64 `json:"durationSeconds"`
	Completed       int64   `json:"completed"`
	PerSecond       float64 `json:"perSecond"`
	HighTriggered   int64   `json:"highTriggered"`
	HighStarted     int     `json:"highStarted"`
	HighP50Ms       float64 `json:"highP50Ms"`
	HighP99Ms       float64 `json:"highP99Ms"`
	LowStarted      int64   `json:"lowStarted"`
	FirstLowStartMs float64 `json:"firstLowStartMs"`
	LowBoundRatio   float64 `json:"lowBoundRatio"`
	LowStillWaiting int64   `json:"lowStillWaiting"`
}

func main() {
	concurrency := flag.Int("concurrency", 1, "workers")
	mode := flag.String("mode", "steady", "steady: high keys at -rate per second; saturating: 2 x concurrency high keys, each added again when done")
	rate := flag.Int("rate", 250, "high keys per second in steady mode")
	duration := flag.Duration("duration", 3*time.Second, "how long to measure after the preload")
	low := flag.Int("low", 1_000_000, "low-priority keys preloaded")
	flag.Parse()

	lowKeys := make([]string, *low)
	for i := range lowKeys {
		lowKeys[i] = fmt.Sprintf("ns-%d/low-%d", i/10_000, i)
	}
	q := priorityqueue.New[string]("") // no name: no metrics, as rxkube's side has no metrics hook
	lowPriority := handler.LowPriority
	preload := time.Now()
	for _, key := range lowKeys {
		q.AddWithOpts(priorityqueue.AddOpts{Priority: &lowPriority}, key)
	}
	for q.Len() < *low { // Len flushes the add buffer
		time.Sleep(time.Millisecond)
	}
	preloaded := time.Since(preload)
	runtime.GC()
	time.Sleep(time.Second) // as on rxkube's side: every low key has waited 1 s when the row starts

	var (
		mu          sync.Mutex
		triggeredAt = map[string]time.Time{}
		highWaits   []time.Duration
		completed   atomic.Int64
		highCount   atomic.Int64
		lowStarted  atomic.Int64
		firstLow    atomic.Int64 // ns after start, 0 = none
		starts      atomic.Int64
		boundRatio  float64 // under mu
		stopped     atomic.Bool
	)
	high := priorityqueue.AddOpts{Priority: new(int)}
	*high.Priority = highPriority
	addHigh := func(key string) {
		mu.Lock()
		triggeredAt[key] = time.Now()
		mu.Unlock()
		highCount.Add(1)
		q.AddWithOpts(high, key)
	}
	start := time.Now()
	deadline := start.Add(*duration)
	var wg sync.WaitGroup
	for range *concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				key, _, shutdown := q.GetWithPriority()
				if shutdown {
					return
				}
				now := time.Now()
				var position int64
				if now.Before(deadline) {
					position = starts.Add(1)
				}
				if strings.Contains(key, "/high-") {
					mu.Lock()
					if at, ok := triggeredAt[key]; ok && now.Before(deadline) {
						highWaits = append(highWaits, now.Sub(at))
					}
					mu.Unlock()
				} else if now.Before(deadline) {
					lowStarted.Add(1)
					firstLow.CompareAndSwap(0, int64(now.Sub(start)))
					older, _ := strconv.Atoi(key[strings.LastIndex(key, "-")+1:])
					mu.Lock()
					boundRatio = max(boundRatio, float64(position)/float64(older+1))
					mu.Unlock()
				}
				time.Sleep(time.Millisecond) // the reconcile
				q.Done(key)
				if time.Now().Before(deadline) {
					completed.Add(1)
				}
				if *mode == "saturating" && strings.Contains(key, "/high-") && !stopped.Load() {
					addHigh(key)
				}
			}
		}()
	}
	if *mode == "saturating" {
		for j := range 2 * *concurrency {
			addHigh(highKey(j))
		}
	} else {
		interval := time.Second / time.Duration(*rate)
		for j := 0; ; j++ {
			at := start.Add(time.Duration(j) * interval)
			if !at.Before(deadline) {
				break
			}
			if d := time.Until(at); d > 0 {
				time.Sleep(d)
			}
			addHigh(highKey(j))
		}
	}
	time.Sleep(time.Until(deadline))
	stopped.Store(true)
	q.ShutDown()
	wg.Wait()

	mu.Lock()
	waits := slices.Clone(highWaits)
	mu.Unlock()
	slices.Sort(waits)
	out := result{
		Implementation:  "controller-runtime priorityqueue",
		Version:         version(),
		GoVersion:       runtime.Version(),
		GOMAXPROCS:      runtime.GOMAXPROCS(0),
		Mode:            *mode,
		Concurrency:     *concurrency,
		Low:             *low,
		PreloadSeconds:  preloaded.Seconds(),
		DurationSeconds: duration.Seconds(),
		Completed:       completed.Load(),
		PerSecond:       float64(completed.Load()) / duration.Seconds(),
		HighTriggered:   highCount.Load(),
		HighStarted:     len(waits),
		HighP50Ms:       ms(percentile(waits, 0.50)),
		HighP99Ms:       ms(percentile(waits, 0.99)),
		LowStarted:      lowStarted.Load(),
		FirstLowStartMs: ms(time.Duration(firstLow.Load())),
		LowBoundRatio:   boundRatio,
		LowStillWaiting: int64(*low) - lowStarted.Load(),
	}
	if out.LowStarted == 0 {
		out.FirstLowStartMs = math.NaN()
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(sanitize(out)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func highKey(j int) string { return "ns-" + strconv.Itoa(j%100) + "/high-" + strconv.Itoa(j) }

// percentile uses the nearest-rank method on an ascending slice; NaN when empty.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return -1
	}
	rank := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(rank, len(sorted)-1))]
}

func ms(d time.Duration) float64 {
	if d < 0 {
		return math.NaN()
	}
	return float64(d.Nanoseconds()) / 1e6
}

// sanitize turns NaN (no sample) into -1, which JSON can carry.
func sanitize(r result) result {
	for _, f := range []*float64{&r.HighP50Ms, &r.HighP99Ms, &r.FirstLowStartMs} {
		if math.IsNaN(*f) {
			*f = -1
		}
	}
	return r
}

func version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "sigs.k8s.io/controller-runtime" {
				return dep.Version
			}
		}
	}
	return "unknown"
}
