package executor

import (
	"context"
	"testing"

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
			up := &memUpstream{codes: []int{503}}
			e := newExecutor(t, testBundle("https://api.example.com",
				testTool("flaky", "GET", "/x", breakerPolicy(tc.attempts, tc.threshold, 60000)),
				testTool("other", "GET", "/y", retrying(1))), Options{Transport: up})
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
	up := &memUpstream{codes: []int{404, 401, 403, 409, 422, 404, 503, 404}}
	e := newExecutor(t, testBundle("https://api.example.com", testTool("t", "GET", "/x", breakerPolicy(1, 2, 60000))), Options{Transport: up})
	for range 8 {
		if r := e.Call(context.Background(), "t", nil); r.Err.Class == ClassCircuitOpen {
			t.Fatalf("the circuit opened on client errors after %d requests", up.count.Load())
		}
	}
	if up.count.Load() != 8 {
		t.Errorf("upstream saw %d requests, want 8", up.count.Load())
	}
}
