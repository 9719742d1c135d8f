package executor

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
)

func breakerPolicy(attempts, threshold, resetMS int) policy.Policy {
	p := retrying(attempts)
	p.Breaker.Threshold = threshold
	p.Breaker.ResetMS = resetMS
	return p
}

func TestBreakerOpensAfterThreshold(t *testing.T) {
	tests := []struct {
		name        string
		attempts    int
		threshold   int
		callsBefore int // calls that reach the upstream before the circuit opens
		wantReached int64
	}{
		{"one attempt per call", 1, 3, 3, 3},
		{"failed retry attempts count", 3, 3, 1, 3},
		{"threshold reached inside the retries", 5, 2, 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, status(503))
			e := newExecutor(t, testBundle(up.URL,
				testTool("flaky", "GET", "/x", breakerPolicy(tc.attempts, tc.threshold, 60000)),
				testTool("other", "GET", "/y", retrying(1))), Options{})
			for range tc.callsBefore {
				wantClass(t, e.Call(context.Background(), "flaky", nil), ClassServerError)
			}
			reached := up.count.Load()
			if reached != tc.wantReached {
				t.Fatalf("upstream saw %d requests before opening, want %d", reached, tc.wantReached)
			}
			r := e.Call(context.Background(), "flaky", nil)
			wantClass(t, r, ClassCircuitOpen)
			if up.count.Load() != reached || r.Attempts != 0 || r.Err.MayHaveApplied {
				t.Errorf("an open circuit touched the network: %+v", r)
			}
			// The breaker is per tool.
			wantClass(t, e.Call(context.Background(), "other", nil), ClassServerError)
		})
	}
}

func TestBreakerIgnoresClientErrors(t *testing.T) {
	up := newUpstream(t, status(404), status(401), status(403), status(409), status(422), status(404), status(503), status(404))
	e := newExecutor(t, testBundle(up.URL, testTool("t", "GET", "/x", breakerPolicy(1, 2, 60000))), Options{})
	for range 8 {
		if r := e.Call(context.Background(), "t", nil); r.Err.Class == ClassCircuitOpen {
			t.Fatalf("the circuit opened on client errors after %d requests", up.count.Load())
		}
	}
	if up.count.Load() != 8 {
		t.Errorf("upstream saw %d requests, want 8", up.count.Load())
	}
}

// TestBreakerLetsExactlyOneProbeThrough: after reset_ms, of 50 concurrent
// calls exactly one reaches the upstream; its success closes the circuit.
func TestBreakerLetsExactlyOneProbeThrough(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	releaseOnce := func() { once.Do(func() { close(release) }) }
	probe := func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.WriteHeader(200)
	}
	up := newUpstream(t, status(503), probe, status(200))
	t.Cleanup(releaseOnce) // registered after the upstream: runs first, so Close never waits on the probe
	const resetMS = 50
	e := newExecutor(t, testBundle(up.URL, testTool("t", "GET", "/x", breakerPolicy(1, 1, resetMS))), Options{})
	wantClass(t, e.Call(context.Background(), "t", nil), ClassServerError)
	wantClass(t, e.Call(context.Background(), "t", nil), ClassCircuitOpen)
	time.Sleep(resetMS * time.Millisecond * 2)

	results := make(chan *Result, 50)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { results <- e.Call(context.Background(), "t", nil) })
	}
	open, ok := 0, 0
	timeout := time.After(5 * time.Second)
	for open < 49 {
		select {
		case r := <-results:
			if r.Err == nil || r.Err.Class != ClassCircuitOpen {
				t.Fatalf("a call other than the probe got through: %+v", r)
			}
			open++
		case <-timeout:
			t.Fatalf("only %d calls were refused while the probe was in flight", open)
		}
	}
	// The probe may still be on its way to the upstream; give it time,
	// and give any wrongly admitted second call time to arrive too.
	for deadline := time.Now().Add(2 * time.Second); up.count.Load() < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if got := up.count.Load(); got != 2 {
		t.Fatalf("upstream saw %d requests, want 2 (the failure and one probe)", got)
	}
	releaseOnce()
	wg.Wait()
	close(results)
	for r := range results {
		if r.OK {
			ok++
		}
	}
	if ok != 1 {
		t.Fatalf("probe results ok = %d, want 1", ok)
	}
	wantClass(t, e.Call(context.Background(), "t", nil), "")
}
