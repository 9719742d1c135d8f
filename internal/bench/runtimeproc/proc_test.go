package runtimeproc

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/testing/mcpref"
)

// binsEnv names the runtime binaries to measure, comma-separated (each is
// run as `BIN runtime`); unset, the benchmark builds ./cmd/toolgate twice:
// the whole binary and the runtime-only build (-tags runtimeonly).
const binsEnv = "TOOLGATE_BENCH_RUNTIME_BINS"

// BenchmarkRuntimeProcess measures real processes on loopback, the same
// client code against each: for every runtime binary and a go-sdk
// reference server (gosdkref) holding the tool definitions that runtime
// lists,
//
//   - tools=N/rss: resident memory (VmRSS, and its peak VmHWM, from /proc)
//     with N tools, after listing them all and 200 calls;
//   - tools=1000/call/c=C: tools/call latency from C concurrent sessions per
//     server, the two servers alternating in one loop (the order flipping
//     every round), b.N calls per session and server: p50, p99, mean.
//
// Set-up failures (a build, a process that does not start, a tool list
// that is short, a failed call) fail the benchmark.
func BenchmarkRuntimeProcess(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(mcpref.ItemJSON)
	}))
	b.Cleanup(up.Close)
	bins, ref := binaries(b)
	for _, n := range []int{1000, 5000} {
		fx := newFixture(b, n, up.URL)
		for _, bin := range bins {
			b.Run(fmt.Sprintf("tools=%d/%s", n, filepath.Base(bin)), func(b *testing.B) {
				rt := startRuntime(b, bin, fx)
				defs, got := listDefs(b, rt.dial(b))
				if got != n {
					b.Fatalf("%s lists %d tools, want %d", rt.name, got, n)
				}
				path := filepath.Join(b.TempDir(), "defs.json")
				mustWrite(b, path, defs)
				gs := startReference(b, ref, path, up.URL)
				pairs := [][2]*mcp.ClientSession{{rt.dial(b), gs.dial(b)}}
				if _, got := listDefs(b, pairs[0][1]); got != n {
					b.Fatalf("the reference lists %d tools, want %d", got, n)
				}
				b.Run("rss", func(b *testing.B) {
					// Once, whatever b.N: a reading, not a loop.
					measurePairs(b, pairs, 200)
					time.Sleep(time.Second)
					rss, hwm := rt.rssMB(b)
					grss, ghwm := gs.rssMB(b)
					b.ReportMetric(rss, "runtime-MB")
					b.ReportMetric(hwm, "runtime-peak-MB")
					b.ReportMetric(grss, "gosdk-MB")
					b.ReportMetric(ghwm, "gosdk-peak-MB")
					b.ReportMetric(rss/grss, "rss-ratio")
				})
				if n != 1000 {
					return
				}
				for _, c := range []int{1, 16} {
					b.Run(fmt.Sprintf("call/c=%d", c), func(b *testing.B) {
						pairs := make([][2]*mcp.ClientSession, c)
						for i := range pairs {
							pairs[i] = [2]*mcp.ClientSession{rt.dial(b), gs.dial(b)}
						}
						measurePairs(b, pairs, 20) // warm both
						b.ResetTimer()
						report(b, measurePairs(b, pairs, b.N))
					})
				}
			})
		}
	}
}

// binaries returns the runtime binaries to measure and the reference.
func binaries(b *testing.B) ([]string, string) {
	dir := b.TempDir()
	ref := build(b, dir, "gosdkref", "./internal/bench/runtimeproc/gosdkref", "")
	if v := os.Getenv(binsEnv); v != "" {
		return strings.Split(v, ","), ref
	}
	return []string{
		build(b, dir, "toolgate", "./cmd/toolgate", ""),
		build(b, dir, "toolgate-runtime", "./cmd/toolgate", "runtimeonly"),
	}, ref
}

// measurePairs makes calls rounds of one getItem call per server on every
// pair, the pairs concurrently, and returns every latency per server
// ([0] the runtime, [1] the reference). Half the pairs start with the
// reference and the order flips every round, so neither server always
// meets the burst.
func measurePairs(b *testing.B, pairs [][2]*mcp.ClientSession, calls int) [2][]time.Duration {
	var mu sync.Mutex
	var out [2][]time.Duration
	var wg sync.WaitGroup
	for i, p := range pairs {
		wg.Go(func() {
			var mine [2][]time.Duration
			for round := range calls {
				first := (i + round) % 2
				for _, s := range []int{first, 1 - first} {
					mine[s] = append(mine[s], timedCall(b, p[s]))
				}
			}
			mu.Lock()
			out[0], out[1] = append(out[0], mine[0]...), append(out[1], mine[1]...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

func timedCall(b *testing.B, cs *mcp.ClientSession) time.Duration {
	t0 := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "getItem", Arguments: map[string]any{"item_id": "42"}})
	d := time.Since(t0)
	if err != nil || res.IsError {
		b.Errorf("tools/call: %v %+v", err, res)
	}
	return d
}

// report writes p50, p99 and the mean of both servers and their ratios.
func report(b *testing.B, d [2][]time.Duration) {
	var p50, p99, mean [2]float64
	for s := range d {
		slices.Sort(d[s])
		p50[s] = us(d[s][len(d[s])/2])
		p99[s] = us(d[s][min(len(d[s])-1, len(d[s])*99/100)])
		var sum time.Duration
		for _, v := range d[s] {
			sum += v
		}
		mean[s] = us(sum) / float64(len(d[s]))
	}
	b.ReportMetric(p50[0], "runtime-p50-us")
	b.ReportMetric(p99[0], "runtime-p99-us")
	b.ReportMetric(p50[1], "gosdk-p50-us")
	b.ReportMetric(p99[1], "gosdk-p99-us")
	b.ReportMetric(p50[0]/p50[1], "p50-ratio")
	b.ReportMetric(p99[0]/p99[1], "p99-ratio")
	b.ReportMetric(mean[0]/mean[1], "mean-ratio")
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
