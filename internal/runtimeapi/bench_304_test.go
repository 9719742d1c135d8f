package runtimeapi

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// benchApp is the runtime API over a database with one published bundle,
// for benchmarks: the service, a runtime token and the bundle's ETag.
type benchApp struct {
	srv         *Service
	db          *store.DB
	keys        keyring.Keyring
	token, etag string
}

func newBenchApp(b testing.TB) *benchApp {
	b.Helper()
	ctx := context.Background()
	db := storetest.MustOpen(b)
	storetest.MustAddTool(b, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "list_orders",
		Method: "GET", Path: "/orders", Class: risk.Read, Exposed: true})
	keys := &keyring.Files{Dir: bundle.KeyDir{Path: filepath.Join(b.TempDir(), "keys")}, DB: db}
	if _, _, err := keys.EnsureActive(ctx, "system"); err != nil {
		b.Fatal(err)
	}
	rec := storetest.Publish(b, db, keys, "first")
	srv, err := New(ctx, Config{Store: db, Logger: slog.New(slog.DiscardHandler), Keys: keys, PollInterval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close(context.Background()) })
	return &benchApp{srv: srv, db: db, keys: keys, token: storetest.RuntimeToken(b, db, "edge"), etag: rec.ETag}
}

// BenchmarkNotModified is the fleet's poll answered 304 by each listener's
// fast path, with the runtime's identification headers and no Prefer: the
// cost long polling must leave as it was (make bench-long-poll runs it on
// this tree and on main's, interleaved).
func BenchmarkNotModified(b *testing.B) {
	a := newBenchApp(b)
	ident := map[string]string{"Authorization": "Bearer " + a.token, "If-None-Match": a.etag, headerInstanceID: "pod-1",
		headerRuntimeName: "checkout", headerBundleVersion: "1", headerBundleSchemas: "toolgate.bundle/v1, toolgate.bundle/v2"}
	b.Run("net-http", func(b *testing.B) {
		r := httptest.NewRequest("GET", "/api/v1/bundle", nil)
		for k, v := range ident {
			r.Header.Set(k, v)
		}
		w := &allocWriter{h: http.Header{}}
		a.srv.notModifiedFast(w, r)
		a.srv.fleet.flush(b.Context()) // the report is written; repeats are not
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			clear(w.h)
			if !a.srv.notModifiedFast(w, r) || w.code != 304 {
				b.Fatal("fast path declined")
			}
		}
	})
	b.Run("fasthttp", func(b *testing.B) {
		var req fasthttp.Request
		req.SetRequestURI("/api/v1/bundle")
		for k, v := range ident {
			req.Header.Set(k, v)
		}
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, nil)
		a.srv.bundleFastHTTP(&ctx)
		a.srv.fleet.flush(b.Context())
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			ctx.Response.Reset()
			if !a.srv.bundleFastHTTP(&ctx) || ctx.Response.StatusCode() != 304 {
				b.Fatal("fast path declined")
			}
		}
	})
}

// reportCPU reports the process's CPU time per operation (user and
// system, from getrusage) when the returned func runs: on a shared machine
// wall time per operation includes the time others held the cores, CPU
// time does not.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
