package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/runtimeapi"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// BenchmarkFetchWithSummaries is the cost of call summaries on the fetch
// path, against a real console (runtime API over SQLite, in this
// process): one fetch (a 304) after calls on `tools` tools, with the
// call records those calls leave, "today" without summaries and then with
// the summaries of those calls delivered on the same fetch. cpu-µs/fetch
// is the process's CPU time (runtime and console together) per fetch.
func BenchmarkFetchWithSummaries(b *testing.B) {
	for _, tools := range []int{1, 20} {
		r, calls := benchConsoleRuntime(b, tools)
		for _, mode := range []string{"today", "summaries"} {
			b.Run(fmt.Sprintf("tools=%d/%s", tools, mode), func(b *testing.B) {
				var cpu time.Duration
				for b.Loop() {
					b.StopTimer()
					calls()
					if mode == "today" {
						r.summaries.mu.Lock()
						clear(r.summaries.entries)
						r.summaries.mu.Unlock()
					}
					before := processCPU()
					b.StartTimer()
					mustSync(b, r)
					cpu += processCPU() - before
				}
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/fetch")
			})
		}
	}
}

// benchConsoleRuntime starts a console with n exposed tools and a runtime
// fetching from it; calls records one finished call on each tool.
func benchConsoleRuntime(b *testing.B, n int) (*Runtime, func()) {
	ctx := context.Background()
	db := storetest.MustOpen(b)
	keys := &keyring.Files{Dir: bundle.KeyDir{Path: filepath.Join(b.TempDir(), "keys")}, DB: db}
	if _, _, err := keys.EnsureActive(ctx, "system"); err != nil {
		b.Fatal(err)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("tool_%02d", i)
		storetest.MustAddTool(b, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: names[i],
			Method: "GET", Path: "/" + names[i], Class: risk.Read, Exposed: true})
	}
	storetest.Publish(b, db, keys, "bench")
	api, err := runtimeapi.New(ctx, runtimeapi.Config{Store: db, Logger: slog.New(slog.DiscardHandler), Keys: keys})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(api)
	b.Cleanup(func() { srv.Close(); api.Close(context.Background()) })
	r, err := New(Options{ConsoleURL: srv.URL, Token: storetest.RuntimeToken(b, db, "bench"), DataDir: b.TempDir(),
		TrustOnFirstUse: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	mustSync(b, r)
	return r, func() {
		for _, name := range names {
			res := &executor.Result{Tool: name, OK: true, Status: 200, Attempts: 1, Duration: 12 * time.Millisecond}
			r.recordCall(ctx, res, nil, "")
		}
	}
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
