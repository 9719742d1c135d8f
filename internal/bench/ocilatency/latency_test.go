package ocilatency

import (
	"context"
	crand "crypto/rand"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/pusher"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/runtime"
	"github.com/toolgate/toolgate/internal/runtimeapi"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/ocitest"
	"github.com/toolgate/toolgate/web"
)

var (
	pollFlag = flag.Duration("poll", 500*time.Millisecond, "poll interval of both runtimes")
	itersArg = flag.Int("iterations", 100, "publishes measured")
)

// setup is the console, its pusher and the two runtimes.
type setup struct {
	db                      *store.DB
	key                     bundle.SigningKey
	push                    *pusher.Pusher
	viaConsole, viaRegistry *runtime.Runtime
}

// newSetup starts both runtimes polling every poll; consolePoll, when not
// zero, is the console runtime's instead (at 1 s and more it long polls).
func newSetup(b *testing.B, ctx context.Context, poll, consolePoll time.Duration) *setup {
	b.Helper()
	dir := b.TempDir()
	db := storetest.MustOpen(b)
	storetest.MustAddTool(b, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "list_orders",
		Method: "GET", Path: "/orders", Class: risk.Read, Exposed: true})
	keys := bundle.KeyDir{Path: filepath.Join(dir, "keys")}
	key, _, err := keys.EnsureActive(crand.Reader, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	pub, err := keys.PublicKeys()
	if err != nil {
		b.Fatal(err)
	}
	reg := ocitest.Start(b, ocitest.Options{})
	client, err := oci.New(reg.Target("toolgate/bundles"), oci.Options{PlainHTTP: true})
	if err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	ring := &keyring.Files{Dir: keys, DB: db}
	// With the timestamp, as serve pushes it: the registry runtime reads it
	// first on every poll (R14).
	s := &setup{db: db, key: key, push: pusher.New(db, client, quiet, pusher.Options{Signer: ring})}
	api, err := runtimeapi.New(ctx, runtimeapi.Config{Store: db, Logger: quiet, Keys: ring})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { api.Close(context.Background()) })
	srv, err := web.New(ctx, web.Deps{Store: db, Logger: quiet, RuntimeAPI: api, SessionKeys: [][]byte{make([]byte, 64), make([]byte, 32)},
		Config: config.Config{Addr: "127.0.0.1:0", BaseURL: "http://127.0.0.1:1", SessionIdle: time.Hour, SessionMaxAge: time.Hour},
		Keys:   ring, Pusher: s.push})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	b.Cleanup(hs.Close)
	_, token, err := db.CreateRuntimeToken(ctx, "bench", "bench")
	if err != nil {
		b.Fatal(err)
	}
	s.publish(b, ctx) // v1, so both runtimes start from a bundle
	go s.push.Run(ctx)
	opts := func(name string) runtime.Options {
		return runtime.Options{Name: name, DataDir: filepath.Join(dir, name), TrustedKeys: &pub, PollInterval: poll,
			PollJitter: 0.2, Logger: quiet}
	}
	con := opts("console")
	con.ConsoleURL, con.Token = hs.URL, token
	if consolePoll != 0 {
		con.PollInterval = consolePoll
	}
	rg := opts("registry")
	rg.BundleSource, rg.Registry = reg.Target("toolgate/bundles").String(), oci.Options{PlainHTTP: true}
	for _, o := range []struct {
		dst  **runtime.Runtime
		opts runtime.Options
	}{{&s.viaConsole, con}, {&s.viaRegistry, rg}} {
		rt, err := runtime.New(o.opts)
		if err != nil {
			b.Fatal(err)
		}
		*o.dst = rt
		go func() { _ = rt.Run(ctx) }()
	}
	return s
}

// publish stores the next version as the Bundles page does and kicks the
// pusher; it returns the version and when the commit returned.
func (s *setup) publish(b *testing.B, ctx context.Context) (int64, time.Time) {
	b.Helper()
	rec, err := s.db.Publish(ctx, store.PublishRequest{Actor: "bench", Key: s.key})
	if err != nil {
		b.Fatal(err)
	}
	at := time.Now()
	s.push.Kick()
	return rec.Version, at
}

// pushedAt waits until v's push is recorded (a runtime can pull it a
// moment before the pusher writes that down) and returns when it was.
func (s *setup) pushedAt(ctx context.Context, v int64) (time.Time, error) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		pushes, err := s.db.BundlePushes(ctx, s.push.Target())
		if err != nil {
			return time.Time{}, err
		}
		if p := pushes[v]; p.State == store.PushPushed {
			return p.PushedAt, nil
		}
	}
	return time.Time{}, fmt.Errorf("v%d served from the registry but not recorded as pushed within 30s", v)
}

// waitFor returns how long after since rt served version v.
func waitFor(rt *runtime.Runtime, v int64, since time.Time, limit time.Duration) (time.Duration, error) {
	for rt.Status().Version < v {
		if time.Since(since) > limit {
			return 0, fmt.Errorf("v%d not served after %s", v, limit)
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(since), nil
}

// BenchmarkPublishToRuntime: b.N is ignored beyond running once; the
// number of publishes is -iterations (make bench-oci sets it).
func BenchmarkPublishToRuntime(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	poll := *pollFlag
	s := newSetup(b, ctx, poll, 0)
	for _, rt := range []*runtime.Runtime{s.viaConsole, s.viaRegistry} {
		if _, err := waitFor(rt, 1, time.Now(), 30*time.Second); err != nil {
			b.Fatal(err)
		}
	}
	var console, registry, pushed []time.Duration
	b.ResetTimer()
	for range *itersArg {
		v, at := s.publish(b, ctx)
		var wg sync.WaitGroup
		var dc, dr time.Duration
		var ec, er error
		wg.Go(func() { dc, ec = waitFor(s.viaConsole, v, at, 30*time.Second) })
		wg.Go(func() { dr, er = waitFor(s.viaRegistry, v, at, 30*time.Second) })
		wg.Wait()
		if ec != nil || er != nil {
			b.Fatalf("console: %v; registry: %v", ec, er)
		}
		console, registry = append(console, dc), append(registry, dr)
		p, err := s.pushedAt(ctx, v)
		if err != nil {
			b.Fatal(err)
		}
		pushed = append(pushed, p.Sub(at))
		time.Sleep(time.Duration(rand.Float64() * float64(poll)))
	}
	b.StopTimer()
	report(b, poll, console, registry, pushed)
}

func report(b *testing.B, poll time.Duration, console, registry, pushed []time.Duration) {
	pc, pr, pp := percentiles(console), percentiles(registry), percentiles(pushed)
	b.ReportMetric(ms(pc[0]), "console-p50-ms")
	b.ReportMetric(ms(pc[1]), "console-p99-ms")
	b.ReportMetric(ms(pr[0]), "registry-p50-ms")
	b.ReportMetric(ms(pr[1]), "registry-p99-ms")
	b.ReportMetric(ms(pp[0]), "push-p50-ms")
	fmt.Printf("\npublish → runtime serving it, %d publishes, poll %s ± 20%% (loopback; machine shared)\n", len(console), poll)
	fmt.Printf("%-10s %10s %10s %10s %10s\n", "via", "p50", "p90", "p99", "max")
	for _, row := range []struct {
		name string
		p    [4]time.Duration
	}{{"console", pc}, {"registry", pr}, {"(push)", pp}} {
		fmt.Printf("%-10s %10s %10s %10s %10s\n", row.name, row.p[0].Round(time.Millisecond), row.p[2].Round(time.Millisecond),
			row.p[1].Round(time.Millisecond), row.p[3].Round(time.Millisecond))
	}
	fmt.Printf("registry/console ratio: p50 %.2f, p99 %.2f\n", float64(pr[0])/float64(pc[0]), float64(pr[1])/float64(pc[1]))
	fmt.Printf("(push) is commit → pushed recorded: the pusher's part of the registry row\n\n")
}

// percentiles returns p50, p99, p90 and max.
func percentiles(d []time.Duration) [4]time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return [4]time.Duration{at(0.50), at(0.99), at(0.90), s[len(s)-1]}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
