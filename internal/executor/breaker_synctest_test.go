package executor

import (
	"context"
	"net/http"
	"sync"
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

// gatedUpstream is memUpstream whose requests after the first `free` wait
// for release: the probe stays in flight while the other calls are decided.
type gatedUpstream struct {
	memUpstream
	free    int64
	release chan struct{}
}

func (g *gatedUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	if g.count.Load() >= g.free {
		<-g.release
	}
	return g.memUpstream.RoundTrip(r)
}

// TestBreakerLetsExactlyOneProbeThrough: after reset_ms, of 50 concurrent
// calls exactly one reaches the upstream; while it is in flight the other
// 49 are refused, and its success closes the circuit.
func TestBreakerLetsExactlyOneProbeThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &gatedUpstream{memUpstream: memUpstream{codes: []int{503, 200}}, free: 1, release: make(chan struct{})}
		e := newExecutor(t, testBundle("https://api.example.com", testTool("t", "GET", "/x", breakerPolicy(1, 1, breakerReset))),
			Options{Transport: up})
		var once sync.Once
		release := func() { once.Do(func() { close(up.release) }) }
		t.Cleanup(release) // a failed check must not leave the probe blocked in the bubble
		wantClass(t, e.Call(context.Background(), "t", nil), ClassServerError)
		wantClass(t, e.Call(context.Background(), "t", nil), ClassCircuitOpen)
		time.Sleep(breakerReset*time.Millisecond + time.Millisecond)

		results := make(chan *Result, 50)
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() { results <- e.Call(context.Background(), "t", nil) })
		}
		synctest.Wait() // every call is decided, or blocked in the upstream
		if len(results) != 49 {
			t.Fatalf("%d calls finished while the probe was in flight, want 49", len(results))
		}
		for range 49 {
			if r := <-results; r.Err == nil || r.Err.Class != ClassCircuitOpen {
				t.Fatalf("a call other than the probe got through: %+v", r)
			}
		}
		release()
		wg.Wait()
		wantClass(t, <-results, "")
		if got := up.count.Load(); got != 2 {
			t.Fatalf("upstream saw %d requests, want 2 (the failure and one probe)", got)
		}
		wantClass(t, e.Call(context.Background(), "t", nil), "")
	})
}
