package runtime

import (
	"context"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/telemetry"
	"github.com/toolgate/toolgate/internal/testing/otlptest"
)

// With OTEL_EXPORTER_OTLP_ENDPOINT set, a tools/call from an MCP client
// that sends a traceparent in _meta is one span of the client's trace,
// exported over OTLP/HTTP to a real receiver, with an event per attempt
// (a 503, then a 200), and the upstream receives the trace context. No
// argument value appears in the span.
func TestToolCallTracedOverOTLP(t *testing.T) {
	rcv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	shutdown, err := telemetry.Setup(context.Background(), "toolgate-runtime", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = shutdown(context.Background()) }()

	var mu sync.Mutex
	var parents []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		parents = append(parents, r.Header.Get("Traceparent"))
		n := len(parents)
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"o-1"}`))
	}))
	defer up.Close()

	k := testKey(t, 1)
	console := newFakeConsole(t, keySet(k))
	tool := getOrderTool()
	tool.Policy.Retry.Attempts, tool.Policy.Retry.BackoffMS, tool.Policy.Retry.RetryOn = 3, 10, []int{503}
	console.publish(signBundle(t, k, 1, t0, time.Hour, up.URL, tool))
	r := newRuntime(t, rtOpts{console: console.URL, keys: keySet(k)})
	mustSync(t, r)
	cs, _ := connect(t, r)

	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "getOrder",
		Arguments: map[string]any{"order_id": "secret-order-4711"},
		Meta:      mcp.Meta{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("flushing spans: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(parents) != 2 {
		t.Fatalf("upstream got %d requests, want 2 (a 503, then the retry)", len(parents))
	}
	for i, p := range parents {
		if len(p) != 55 || p[3:35] != traceID {
			t.Errorf("attempt %d sent traceparent %q, want one of trace %s", i+1, p, traceID)
		}
	}
	if bad := rcv.Refused(); len(bad) > 0 {
		t.Fatalf("receiver refused exports: %v", bad)
	}
	found := false
	for _, s := range rcv.Spans() {
		if s.Name != "tools/call getOrder" {
			continue
		}
		found = true
		if got := hex.EncodeToString(s.TraceId); got != traceID {
			t.Errorf("span trace %s, want the caller's %s", got, traceID)
		}
		if got := hex.EncodeToString(s.ParentSpanId); got != "00f067aa0ba902b7" {
			t.Errorf("span parent %s, want the caller's span", got)
		}
		for key, want := range map[string]string{"toolgate.tool": "getOrder", "toolgate.source": "shop",
			"toolgate.risk_class": "READ", "toolgate.outcome_class": "OK", "toolgate.attempts": "2"} {
			if got := otlptest.Attr(s.Attributes, key); got != want {
				t.Errorf("span %s = %q, want %q", key, got, want)
			}
		}
		if len(s.Events) != 2 {
			t.Fatalf("%d attempt events, want 2", len(s.Events))
		}
		for i, want := range []struct{ status, class string }{{"503", "SERVER_ERROR"}, {"200", "OK"}} {
			ev := s.Events[i]
			if got := otlptest.Attr(ev.Attributes, "http.response.status_code"); ev.Name != "attempt" || got != want.status {
				t.Errorf("event %d: %s status %s, want attempt %s", i, ev.Name, got, want.status)
			}
			if got := otlptest.Attr(ev.Attributes, "toolgate.outcome_class"); got != want.class {
				t.Errorf("event %d: class %s, want %s", i, got, want.class)
			}
		}
		for _, kv := range s.Attributes {
			if v := kv.Value.GetStringValue(); v == "secret-order-4711" {
				t.Errorf("attribute %s carries an argument value", kv.Key)
			}
		}
	}
	if !found {
		t.Fatalf("no tools/call span among %d received", len(rcv.Spans()))
	}
}

// Off (no OTLP endpoint in the environment), a client's traceparent is not
// passed on: the upstream gets no trace context from the runtime.
func TestUntracedCallSendsNoTraceContext(t *testing.T) {
	if telemetry.On() {
		t.Fatal("tracing is on at the start of the test")
	}
	var mu sync.Mutex
	var got []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Traceparent"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"o-1"}`))
	}))
	defer up.Close()
	k := testKey(t, 1)
	console := newFakeConsole(t, keySet(k))
	console.publish(signBundle(t, k, 1, t0, time.Hour, up.URL, getOrderTool()))
	r := newRuntime(t, rtOpts{console: console.URL, keys: keySet(k)})
	mustSync(t, r)
	cs, _ := connect(t, r)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "getOrder",
		Arguments: map[string]any{"order_id": "o-1"},
		Meta:      mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "" {
		t.Fatalf("upstream saw traceparent %q, want none while tracing is off", got)
	}
}
