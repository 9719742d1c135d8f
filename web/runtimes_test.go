package web

import (
	"context"
	"fmt"
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
	wantPage(t, rec, in(tid("runtimes-total"), textIs("120 instances · page 1 of 3")),
		in(`nav.pager a[rel="next"]`, hasAttr("href", "/runtimes?page=2")),
		in(tid("runtime-row")+` td[data-label="Instance"]`, textIs("pod-119")), count(tid("runtime-row"), runtimesPageSize))
	rec = a.do(request{method: "GET", path: "/runtimes?page=3", cookie: viewer})
	wantPage(t, rec, in(tid("runtimes-total"), hasText("page 3 of 3")),
		in(`nav.pager a[rel="prev"]`, hasAttr("href", "/runtimes?page=2")),
		in(tid("runtime-row")+` td[data-label="Instance"]`, textIs("pod-000")), count(tid("runtime-row"), 20),
		in(tid("runtimes-table"), lacks("pod-119")),
		none(tid("eviction"))) // no eviction shown before any

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
	wantPage(t, rec, in(tid("eviction"), hasText("Token greedy: 3 instance rows removed")),
		in(tid("evictions"), hasText("at most 100 instances")))
	wantBody(t, a.do(request{method: "GET", path: "/api/v1/metrics", header: bearer(secret)}), "toolgate_console_fleet_instances_evicted_total 3")
}
