package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/runtimeapi"
	"github.com/toolgate/toolgate/internal/store"
)

// The Runtimes page is paginated and says when a token's oldest instance
// rows were evicted to keep it under its bound.
func TestRuntimesPagesAndEvictions(t *testing.T) {
	a := newPublishApp(t, func(d *Deps) {
		d.RuntimeAPI = newRuntimeAPI(t, runtimeapi.Config{Store: d.Store, Logger: d.Logger, Keys: d.Keys, InstancesPerToken: 100})
	})
	ctx := context.Background()
	tok, _, err := a.db.CreateRuntimeToken(ctx, "test", "edge")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var batch []store.RuntimeFetch
	for i := range 120 {
		batch = append(batch, store.RuntimeFetch{TokenID: tok.ID, InstanceID: fmt.Sprintf("pod-%03d", i), At: start.Add(time.Duration(i) * time.Second)})
	}
	if _, err := a.db.RecordRuntimeFetches(ctx, batch, store.DefaultInstancesPerToken); err != nil {
		t.Fatal(err)
	}
	viewer := a.sessionCookie("viewer")
	rec := a.do(request{method: "GET", path: "/runtimes", cookie: viewer})
	wantBody(t, rec, "120 instances · page 1 of 3", `href="/runtimes?page=2"`, "pod-119")
	if n := strings.Count(rec.Body.String(), `data-testid="runtime-row"`); n != runtimesPageSize {
		t.Fatalf("page 1 has %d rows", n)
	}
	rec = a.do(request{method: "GET", path: "/runtimes?page=3", cookie: viewer})
	wantBody(t, rec, "page 3 of 3", `href="/runtimes?page=2"`, "pod-000")
	if n := strings.Count(rec.Body.String(), `data-testid="runtime-row"`); n != 20 || strings.Contains(rec.Body.String(), "pod-119") {
		t.Fatalf("page 3 has %d rows", n)
	}
	if strings.Contains(rec.Body.String(), `data-testid="eviction"`) {
		t.Fatal("eviction shown before any")
	}

	// Through the API: a token inventing instance ids past its bound.
	_, secret, err := a.db.CreateRuntimeToken(ctx, "test", "greedy")
	if err != nil {
		t.Fatal(err)
	}
	a.exposeTool("list_orders")
	a.publish("")
	for i := range 103 {
		wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(secret, "X-Toolgate-Instance-Id", fmt.Sprintf("fake-%d", i))}), 200)
	}
	a.api.Flush(ctx)
	rec = a.do(request{method: "GET", path: "/runtimes", cookie: viewer})
	wantBody(t, rec, `data-testid="eviction">Token greedy: 3 instance rows removed`, "at most 100 instances")
	wantBody(t, a.do(request{method: "GET", path: "/api/v1/metrics", header: bearer(secret)}), "toolgate_console_fleet_instances_evicted_total 3")
}
