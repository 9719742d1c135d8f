package web

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/toolgate/toolgate/internal/store"
)

// Fetches are recorded in memory and written in batches: no write per
// request, one row write per instance per flush, unchanged reports not
// rewritten, the refusal header recorded (bounded, printable), and what is
// pending written at Close.
func TestFleetWritesBatched(t *testing.T) {
	a, _ := newAPIApp(t, time.Hour)
	ctx := context.Background()
	a.exposeTool("list_orders")
	token := a.token("edge")
	v1 := a.publish("first")
	refused := "withheld 2 tools: <b>a</b>: schema\x07 too deep; " + strings.Repeat("é", 400)
	h := bearer(token, "If-None-Match", v1.ETag, headerInstanceID, "pod-1", headerRuntimeName, "checkout", headerBundleVersion, "1", headerRefused, refused)
	for range 10 {
		wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: h}), 304)
	}
	if list, _ := a.db.ListRuntimeInstances(ctx); len(list) != 0 {
		t.Fatalf("fetches were written before the flush: %+v", list)
	}
	writes := func() float64 { return counterValue(t, a.srv.pub.metrics.fleetWrites) }
	a.srv.pub.fleet.flush(ctx)
	list, err := a.db.ListRuntimeInstances(ctx)
	if err != nil || len(list) != 1 || writes() != 1 {
		t.Fatalf("after flush: %+v, %v, %v writes", list, err, writes())
	}
	got := list[0].Refused
	if len(got) > maxRefusedBytes || !strings.HasPrefix(got, "withheld 2 tools: <b>a</b>: schema too deep; é") || !strings.HasSuffix(got, "é") {
		t.Fatalf("refused recorded as %q (%d bytes)", got, len(got))
	}
	rec := a.do(request{method: "GET", path: "/runtimes", cookie: a.sessionCookie("viewer")})
	wantBody(t, rec, `data-testid="refused">withheld 2 tools: &lt;b&gt;a&lt;/b&gt;: schema too deep;`)

	// The same report again within fleetWriteEvery: nothing to write.
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: h}), 304)
	a.srv.pub.fleet.flush(ctx)
	if writes() != 1 {
		t.Fatalf("an unchanged report was rewritten: %v writes", writes())
	}
	// No refusal any more: the header is absent and the reason cleared.
	delete(h, headerRefused)
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: h}), 304)
	a.srv.Close(ctx)
	if list, _ := a.db.ListRuntimeInstances(ctx); len(list) != 1 || list[0].Refused != "" || writes() != 2 {
		t.Fatalf("after Close: %+v, %v writes", list, writes())
	}
}

// The Runtimes page is paginated and says when a token's oldest instance
// rows were evicted to keep it under its bound.
func TestRuntimesPagesAndEvictions(t *testing.T) {
	a, _ := newAPIApp(t, time.Hour)
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
	a.srv.pub.fleet.perToken = 100
	_, secret, err := a.db.CreateRuntimeToken(ctx, "test", "greedy")
	if err != nil {
		t.Fatal(err)
	}
	a.exposeTool("list_orders")
	a.publish("")
	for i := range 103 {
		wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(secret, headerInstanceID, fmt.Sprintf("fake-%d", i))}), 200)
	}
	a.srv.pub.fleet.flush(ctx)
	rec = a.do(request{method: "GET", path: "/runtimes", cookie: viewer})
	wantBody(t, rec, `data-testid="eviction">Token greedy: 3 instance rows removed`, "at most 100 instances")
	if got := counterValue(t, a.srv.pub.metrics.fleetEvicted); got != 3 {
		t.Errorf("evictions counted: %v, want 3", got)
	}
}

// The next-bundle preview is built once per change of publishable state.
func TestBundlesPreviewCached(t *testing.T) {
	a := newPublishApp(t)
	admin := a.sessionCookie("admin")
	hx := map[string]string{"HX-Request": "true"}
	a.exposeTool("list_orders")
	builds := func() int {
		a.srv.pub.preview.mu.Lock()
		defer a.srv.pub.preview.mu.Unlock()
		return a.srv.pub.preview.builds
	}
	for range 3 {
		wantBody(t, a.do(request{method: "GET", path: "/bundles/next", cookie: admin, header: hx}), "list_orders")
	}
	if builds() != 1 {
		t.Fatalf("three views built the preview %d times", builds())
	}
	a.exposeTool("get_order") // a change by plain SQL: the triggers see it too
	wantBody(t, a.do(request{method: "GET", path: "/bundles/next", cookie: admin, header: hx}), "get_order")
	if builds() != 2 {
		t.Fatalf("builds after a change: %d, want 2", builds())
	}
	wantStatus(t, a.do(request{method: "POST", path: "/keys/rotate", cookie: admin, csrf: true, form: url.Values{"confirm": {"yes"}}}), 303)
	a.do(request{method: "GET", path: "/bundles/next", cookie: admin, header: hx})
	if builds() != 3 {
		t.Fatalf("builds after a key rotation: %d, want 3", builds())
	}
	wantStatus(t, a.do(request{method: "POST", path: "/bundles", cookie: admin, csrf: true, form: url.Values{"note": {"n"}}}), 303)
	wantBody(t, a.do(request{method: "GET", path: "/bundles/next", cookie: admin, header: hx}), `data-testid="no-changes"`)
	if builds() != 4 {
		t.Fatalf("builds after a publish: %d, want 4", builds())
	}
}

// counterValue reads a counter (client_golang's testutil would add a
// module for one function).
func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
