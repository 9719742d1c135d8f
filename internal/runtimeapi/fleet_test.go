package runtimeapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
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
	writes := func() float64 { return counterValue(t, a.srv.metrics.fleetWrites) }
	a.srv.fleet.flush(ctx)
	list, err := a.db.ListRuntimeInstances(ctx)
	if err != nil || len(list) != 1 || writes() != 1 {
		t.Fatalf("after flush: %+v, %v, %v writes", list, err, writes())
	}
	got := list[0].Refused
	if len(got) > maxRefusedBytes || !strings.HasPrefix(got, "withheld 2 tools: <b>a</b>: schema too deep; é") || !strings.HasSuffix(got, "é") {
		t.Fatalf("refused recorded as %q (%d bytes)", got, len(got))
	}

	// The same report again within fleetWriteEvery: nothing to write.
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: h}), 304)
	a.srv.fleet.flush(ctx)
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
