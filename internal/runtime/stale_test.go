package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/executor"
)

func TestStalenessDisablesRiskyToolsUntilConfirmed(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), deleteOrderTool()))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL}) // MaxStaleness 10m
	mustSync(t, r)
	cs, changed := connect(t, r)

	con.setDown(true)
	clk.Advance(10*time.Minute + time.Second)
	if err := r.Sync(context.Background()); err == nil {
		t.Fatal("Sync against a failing console succeeded")
	}
	r.reconcile() // what Run does after every wake-up
	waitChanged(t, changed)
	if got := names(listTools(t, cs)); !slices.Equal(got, []string{"getOrder"}) {
		t.Errorf("stale tools/list = %v, want only the READ tool", got)
	}
	res := r.Call(context.Background(), "deleteOrder", map[string]any{"order_id": "ord_0001"})
	if res.Err == nil || res.Err.Class != executor.ClassToolNotExposed || res.Attempts != 0 ||
		!strings.Contains(res.Err.Message, "maximum staleness") || res.Err.MayHaveApplied {
		t.Errorf("stale DESTRUCTIVE call = %+v, want TOOL_NOT_EXPOSED naming the staleness rule, nothing sent", res.Err)
	}
	if res := r.Call(context.Background(), "getOrder", map[string]any{"order_id": "ord_0404"}); res.Attempts != 1 {
		t.Errorf("stale READ call was not sent: %+v", res.Err)
	}
	if !r.Status().Stale {
		t.Error("Status().Stale = false")
	}

	con.setDown(false)
	mustSync(t, r) // 304: the console confirms the bundle again
	waitChanged(t, changed)
	if got := names(listTools(t, cs)); !slices.Equal(got, []string{"deleteOrder", "getOrder"}) {
		t.Errorf("tools/list after confirmation = %v", got)
	}
	if res := r.Call(context.Background(), "deleteOrder", map[string]any{"order_id": "ord_0404"}); res.Attempts != 1 {
		t.Errorf("confirmed DESTRUCTIVE call not sent: %+v", res.Err)
	}
}

func TestExpiredBundleDisablesEveryTool(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), time.Hour, up.URL, getOrderTool()))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	clk.Advance(time.Hour)
	mustSync(t, r) // a 304 confirms, but cannot revive an expired bundle
	r.reconcile()
	cs, _ := connect(t, r)
	if got := listTools(t, cs); len(got) != 0 {
		t.Errorf("tools/list with an expired bundle = %v", names(got))
	}
	res := r.Call(context.Background(), "getOrder", map[string]any{"order_id": "ord_0001"})
	if res.Err == nil || res.Err.Class != executor.ClassToolNotExposed || !strings.Contains(res.Err.Message, "expired") {
		t.Errorf("call with an expired bundle = %+v", res.Err)
	}
}

func TestNextBoundary(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	if _, ok := r.nextBoundary(); ok {
		t.Error("a boundary without a bundle")
	}
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	mustSync(t, r)
	if d, ok := r.nextBoundary(); !ok || d < 10*time.Minute || d > 10*time.Minute+time.Second {
		t.Errorf("boundary = %s, %v; want the staleness limit (10m)", d, ok)
	}
	clk.Advance(11 * time.Minute)
	if d, ok := r.nextBoundary(); !ok || d < 29*24*time.Hour {
		t.Errorf("boundary once stale = %s, %v; want the expiry", d, ok)
	}
}

// TestSwapDoesNotFailCallsInFlight starts a call that blocks in the
// upstream, swaps in a bundle WITHOUT that tool, and lets the call finish:
// it completes on the executor it started with; the next call is refused.
func TestSwapDoesNotFailCallsInFlight(t *testing.T) {
	k := testKey(t, 1)
	release := make(chan struct{})
	arrived := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"ord_0001"}`)
	}))
	t.Cleanup(up.Close)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)

	var wg sync.WaitGroup
	var res *executor.Result
	wg.Add(1)
	go func() {
		defer wg.Done()
		res = r.Call(context.Background(), "getOrder", map[string]any{"order_id": "ord_0001"})
	}()
	<-arrived
	con.publish(signBundle(t, k, 2, clk.Now(), 0, up.URL, createOrderTool(nil)))
	mustSync(t, r)
	close(release)
	wg.Wait()
	if !res.OK || res.Status != 200 {
		t.Fatalf("call in flight during the swap = %+v", res.Err)
	}
	if next := r.Call(context.Background(), "getOrder", map[string]any{"order_id": "ord_0001"}); next.Err == nil || next.Err.Class != executor.ClassToolNotExposed {
		t.Errorf("call after the swap = %+v, want TOOL_NOT_EXPOSED", next.Err)
	}
}

func TestCallLogLineHasNoSecrets(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), createOrderTool(nil)))
	var logs bytes.Buffer
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL, logs: &logs})
	mustSync(t, r)
	logs.Reset()
	r.Call(context.Background(), "createOrder", map[string]any{"body": map[string]any{
		"customer": "secret-customer-name", "items": []any{map[string]any{"sku": "S", "quantity": 1, "unit_price_cents": 1}}}})

	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(logs.Bytes()), &line); err != nil {
		t.Fatalf("want exactly one JSON log line, got %q", logs.String())
	}
	for field, want := range map[string]any{"msg": "tool call", "tool": "createOrder", "class": "OK", "status": float64(201), "attempts": float64(1)} {
		if line[field] != want {
			t.Errorf("log %s = %v, want %v", field, line[field], want)
		}
	}
	if _, ok := line["duration_ms"]; !ok {
		t.Error("log line has no duration_ms")
	}
	for _, secret := range []string{"secret-customer-name", "sample-token", testToken} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("log line contains %q", secret)
		}
	}
}
