package runtime

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/sampleapi"
)

// guardedGetOrder is getOrder with one attempt per call and a breaker that
// opens after threshold transient failures.
func guardedGetOrder(threshold int) bundle.ToolInput {
	t := getOrderTool()
	t.Policy.Retry.Attempts = 1
	t.Policy.Breaker.Threshold = threshold
	t.Policy.Breaker.ResetMS = 60000
	return t
}

// scrape returns the runtime's metrics in the Prometheus text format.
func scrape(t *testing.T, r *Runtime) string {
	t.Helper()
	srv := httptest.NewServer(r.MetricsHandler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	return string(raw)
}

func wantMetrics(t *testing.T, text string, lines ...string) {
	t.Helper()
	for _, want := range lines {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %q in\n%s", want, text)
		}
	}
}

// TestBreakerSurvivesPublishAndIsScraped: an open circuit stays open across
// a publish that leaves its tool unchanged (no request reaches the failing
// upstream), the metric reads the breaker itself at scrape time, and a
// publish that changes the tool's threshold starts it closed.
func TestBreakerSurvivesPublishAndIsScraped(t *testing.T) {
	k := testKey(t, 1)
	api, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, guardedGetOrder(2), createOrderTool(nil)))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	wantMetrics(t, scrape(t, r),
		`toolgate_runtime_breaker_open{tool="getOrder"} 0`, `toolgate_runtime_breaker_state{tool="getOrder"} 0`,
		`toolgate_runtime_breaker_open{tool="createOrder"} 0`)

	api.SetFaults(sampleapi.Faults{FailNext: &sampleapi.FailNext{Count: 100, Status: 503}})
	args := map[string]any{"order_id": "ord_0001"}
	for range 2 {
		wantResult(t, r.Call(context.Background(), "getOrder", args), executor.ClassServerError)
	}
	wantMetrics(t, scrape(t, r), // open before any call has seen CIRCUIT_OPEN
		`toolgate_runtime_breaker_open{tool="getOrder"} 1`, `toolgate_runtime_breaker_state{tool="getOrder"} 2`,
		`toolgate_runtime_breaker_open{tool="createOrder"} 0`)

	con.publish(signBundle(t, k, 2, clk.Now(), 0, up.URL, guardedGetOrder(2), createOrderTool(nil), deleteOrderTool()))
	mustSync(t, r)
	if v := r.Status().Version; v != 2 {
		t.Fatalf("runtime serves v%d, want 2", v)
	}
	wantMetrics(t, scrape(t, r),
		`toolgate_runtime_breaker_open{tool="getOrder"} 1`, `toolgate_runtime_breaker_open{tool="deleteOrder"} 0`)
	left := api.Faults().FailNext.Count
	res := r.Call(context.Background(), "getOrder", args)
	wantResult(t, res, executor.ClassCircuitOpen)
	if res.Attempts != 0 || api.Faults().FailNext.Count != left {
		t.Fatalf("the open circuit let a request through after the publish: attempts %d, upstream saw %d",
			res.Attempts, left-api.Faults().FailNext.Count)
	}

	api.ResetFaults()
	con.publish(signBundle(t, k, 3, clk.Now(), 0, up.URL, guardedGetOrder(3), createOrderTool(nil)))
	mustSync(t, r)
	wantMetrics(t, scrape(t, r),
		`toolgate_runtime_breaker_open{tool="getOrder"} 0`, `toolgate_runtime_breaker_state{tool="getOrder"} 0`)
	if text := scrape(t, r); strings.Contains(text, `tool="deleteOrder"`) {
		t.Errorf("metrics still report the removed tool deleteOrder:\n%s", text)
	}
	// The sample API starts empty: a 404 proves the fresh breaker let the
	// call reach the upstream.
	res = r.Call(context.Background(), "getOrder", args)
	wantResult(t, res, executor.ClassRejected)
	if res.Attempts != 1 || res.Status != 404 {
		t.Fatalf("after the threshold changed: attempts %d status %d, want one request answered 404", res.Attempts, res.Status)
	}
}

func wantResult(t *testing.T, res *executor.Result, class executor.Class) {
	t.Helper()
	if res.Err == nil || res.Err.Class != class {
		t.Fatalf("want %s, got status %d error %+v", class, res.Status, res.Err)
	}
}
