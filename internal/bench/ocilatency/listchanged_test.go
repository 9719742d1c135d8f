package ocilatency

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/runtime"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// BenchmarkPublishToListChanged: from a publish that withdraws (or brings
// back) a tool to notifications/tools/list_changed at an MCP client of
// each runtime — one long polling the console (its poll interval the
// default 30 s: it waits at the console), one pulling the registry every
// -poll (a registry cannot hold a request, so its poll bounds it). b.N is
// ignored beyond running once; -iterations publishes are measured.
func BenchmarkPublishToListChanged(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	poll := *pollFlag
	s := newSetup(b, ctx, poll, runtime.DefaultPollInterval)
	toolID := storetest.MustAddTool(b, s.db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com",
		Name: "cancel_order", Method: "GET", Path: "/orders/cancel", Class: risk.Read, Exposed: true})
	v, _ := s.publish(b, ctx)
	for _, rt := range []*runtime.Runtime{s.viaConsole, s.viaRegistry} {
		if _, err := waitFor(rt, v, time.Now(), 60*time.Second); err != nil {
			b.Fatal(err)
		}
	}
	viaConsole, viaRegistry := listChanges(b, s.viaConsole), listChanges(b, s.viaRegistry)
	var console, registry []time.Duration
	b.ResetTimer()
	for i := range *itersArg {
		s.setExposed(b, ctx, toolID, i%2 == 1) // withdraw, bring back, withdraw, …
		drain(viaConsole)
		drain(viaRegistry)
		_, at := s.publish(b, ctx)
		var wg sync.WaitGroup
		var dc, dr time.Duration
		var ec, er error
		wg.Go(func() { dc, ec = waitChange(viaConsole, at, 60*time.Second) })
		wg.Go(func() { dr, er = waitChange(viaRegistry, at, 60*time.Second) })
		wg.Wait()
		if ec != nil || er != nil {
			b.Fatalf("console: %v; registry: %v", ec, er)
		}
		console, registry = append(console, dc), append(registry, dr)
		time.Sleep(time.Duration(rand.Float64() * float64(poll)))
	}
	b.StopTimer()
	pc, pr := percentiles(console), percentiles(registry)
	b.ReportMetric(ms(pc[0]), "console-p50-ms")
	b.ReportMetric(ms(pc[1]), "console-p99-ms")
	b.ReportMetric(ms(pr[0]), "registry-p50-ms")
	b.ReportMetric(ms(pr[1]), "registry-p99-ms")
	fmt.Printf("\npublish withdrawing/restoring a tool → list_changed at an MCP client, %d publishes (loopback; machine shared)\n", len(console))
	fmt.Printf("%-34s %10s %10s %10s %10s\n", "via", "p50", "p90", "p99", "max")
	for _, row := range []struct {
		name string
		p    [4]time.Duration
	}{{"console, long poll (poll 30 s)", pc}, {fmt.Sprintf("registry, poll %s ± 20%%", poll), pr}} {
		fmt.Printf("%-34s %10s %10s %10s %10s\n", row.name, row.p[0].Round(time.Millisecond), row.p[2].Round(time.Millisecond),
			row.p[1].Round(time.Millisecond), row.p[3].Round(time.Millisecond))
	}
	fmt.Println()
}

// setExposed changes the tool's exposure as the policy form does.
func (s *setup) setExposed(b *testing.B, ctx context.Context, toolID int64, exposed bool) {
	b.Helper()
	rec, err := s.db.ToolPolicy(ctx, toolID)
	if err != nil {
		b.Fatal(err)
	}
	p := rec.Policy
	p.Exposed = exposed
	if _, err := s.db.SavePolicy(ctx, "bench", toolID, rec.Version, p); err != nil {
		b.Fatal(err)
	}
}

// listChanges connects an MCP client to rt; the channel receives one
// value per notifications/tools/list_changed.
func listChanges(b *testing.B, rt *runtime.Runtime) chan struct{} {
	b.Helper()
	changed := make(chan struct{}, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := rt.Server().Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close(); ss.Wait() })
	return changed
}

func drain(ch chan struct{}) {
	for len(ch) > 0 {
		<-ch
	}
}

func waitChange(ch chan struct{}, since time.Time, limit time.Duration) (time.Duration, error) {
	select {
	case <-ch:
		return time.Since(since), nil
	case <-time.After(limit):
		return 0, fmt.Errorf("no list_changed within %s", limit)
	}
}
