package runtime

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/sampleapi"
)

func TestRunPicksUpNewBundles(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	con.publish(signBundle(t, k, 1, time.Now(), 0, up.URL, getOrderTool()))
	r, err := New(Options{ConsoleURL: con.URL, Token: testToken, DataDir: t.TempDir(), TrustedKeys: keySet(k),
		PollInterval: 20 * time.Millisecond, Executor: sampleCredentials(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	waitVersion(t, r, 1)
	con.publish(signBundle(t, k, 2, time.Now(), 0, up.URL, getOrderTool(), createOrderTool(nil)))
	waitVersion(t, r, 2)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if n := len(con.requests()); n < 2 {
		t.Errorf("fetches = %d, want a second poll", n)
	}
}

func waitVersion(t testing.TB, r *Runtime, v int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.Status().Version != v {
		if time.Now().After(deadline) {
			t.Fatalf("version %d never arrived (have %d)", v, r.Status().Version)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestMetrics(t *testing.T) {
	k := testKey(t, 1)
	api, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 7, clk.Now(), 0, up.URL, getOrderTool(), createOrderTool(nil)))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	clk.Advance(90 * time.Second)
	order := map[string]any{"body": map[string]any{"customer": "c", "items": []any{map[string]any{"sku": "S", "quantity": 1, "unit_price_cents": 1}}}}
	r.Call(context.Background(), "createOrder", order)
	api.SetFaults(sampleapi.Faults{DropAfterApply: &sampleapi.DropAfterApply{Count: 1, Method: "POST"}})
	r.Call(context.Background(), "createOrder", order)
	api.SetFaults(sampleapi.Faults{FailNext: &sampleapi.FailNext{Count: 1, Status: 503}})
	r.Call(context.Background(), "getOrder", map[string]any{"order_id": "ord_0001"}) // 503 then 200: 2 attempts
	con.publish([]byte("garbage"))
	_ = r.Sync(context.Background())

	srv := httptest.NewServer(r.MetricsHandler())
	t.Cleanup(srv.Close)
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	text := string(raw)
	for _, want := range []string{
		`toolgate_runtime_calls_total{class="OK",tool="createOrder"} 1`,
		`toolgate_runtime_calls_total{class="OUTCOME_UNKNOWN",tool="createOrder"} 1`,
		`toolgate_runtime_calls_total{class="OK",tool="getOrder"} 1`,
		`toolgate_runtime_call_attempts_total{tool="getOrder"} 2`,
		`toolgate_runtime_call_attempts_total{tool="createOrder"} 2`,
		`toolgate_runtime_breaker_open{tool="getOrder"} 0`,
		`toolgate_runtime_bundle_version 7`,
		`toolgate_runtime_bundle_age_seconds 90`,
		`toolgate_runtime_bundle_stale 0`,
		`toolgate_runtime_bundle_fetches_total{result="accepted"} 1`,
		`toolgate_runtime_bundle_refusals_total{reason="unsigned"} 1`,
		`toolgate_runtime_tools_listed 2`,
		`toolgate_runtime_call_duration_seconds_count{tool="getOrder"} 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %q in\n%s", want, text)
		}
	}
}
