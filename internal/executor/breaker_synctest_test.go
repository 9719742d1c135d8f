package executor

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// memUpstream answers every request with the next status of its script
// (the last one repeats) without a network, so a test runs in a synctest
// bubble: the breaker's reset_ms passes on the bubble's clock, not the wall.
type memUpstream struct {
	codes []int
	count atomic.Int64
}

func (m *memUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	i := int(m.count.Add(1)) - 1
	code := m.codes[min(i, len(m.codes)-1)]
	return &http.Response{StatusCode: code, Status: http.StatusText(code), Header: http.Header{},
		Body: http.NoBody, Request: r, ProtoMajor: 1, ProtoMinor: 1}, nil
}

// breakerReset is a realistic reset_ms: a minute of the bubble's time.
const breakerReset = 60_000

func TestBreakerReopensWhenTheProbeFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &memUpstream{codes: []int{503}}
		e := newExecutor(t, testBundle("https://api.example.com", testTool("t", "GET", "/x", breakerPolicy(1, 1, breakerReset))),
			Options{Transport: up})
		wantClass(t, e.Call(context.Background(), "t", nil), ClassServerError)
		time.Sleep(breakerReset*time.Millisecond - time.Millisecond)
		wantClass(t, e.Call(context.Background(), "t", nil), ClassCircuitOpen) // not yet reset
		time.Sleep(2 * time.Millisecond)
		wantClass(t, e.Call(context.Background(), "t", nil), ClassServerError) // the probe
		wantClass(t, e.Call(context.Background(), "t", nil), ClassCircuitOpen)
		if up.count.Load() != 2 {
			t.Errorf("upstream saw %d requests, want 2", up.count.Load())
		}
	})
}

// TestBreakerStateReadsTheBreaker: the state moves with time alone (open
// turns half-open after reset_ms with no call), and a probe closes it.
func TestBreakerStateReadsTheBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &memUpstream{codes: []int{503, 200}}
		e := newExecutor(t, testBundle("https://api.example.com", testTool("t", "GET", "/x", breakerPolicy(1, 1, breakerReset))),
			Options{Transport: up})
		if _, ok := e.BreakerState("missing"); ok {
			t.Fatal("BreakerState reports a tool not in the bundle")
		}
		wantBreakerState(t, e, "t", BreakerClosed)
		wantClass(t, e.Call(context.Background(), "t", nil), ClassServerError)
		wantBreakerState(t, e, "t", BreakerOpen)
		time.Sleep(breakerReset*time.Millisecond - time.Millisecond)
		wantBreakerState(t, e, "t", BreakerOpen)
		time.Sleep(2 * time.Millisecond)
		wantBreakerState(t, e, "t", BreakerHalfOpen)
		wantClass(t, e.Call(context.Background(), "t", nil), "")
		wantBreakerState(t, e, "t", BreakerClosed)
	})
}
