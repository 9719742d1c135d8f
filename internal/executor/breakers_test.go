package executor

import (
	"context"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
)

// openedExecutor builds an executor with the registry from a bundle whose
// tool "flaky" opens its circuit after one 503, and opens it.
func openedExecutor(t *testing.T, up *upstream, reg *Breakers) *Executor {
	t.Helper()
	e := newExecutor(t, testBundle(up.URL, testTool("flaky", "GET", "/x", breakerPolicy(1, 1, 60000))),
		Options{Breakers: reg})
	wantClass(t, e.Call(context.Background(), "flaky", nil), ClassServerError)
	wantClass(t, e.Call(context.Background(), "flaky", nil), ClassCircuitOpen)
	wantBreakerState(t, e, "flaky", BreakerOpen)
	return e
}

func wantBreakerState(t *testing.T, e *Executor, tool, want string) {
	t.Helper()
	if got, ok := e.BreakerState(tool); !ok || got != want {
		t.Fatalf("BreakerState(%q) = %q, %v; want %q", tool, got, ok, want)
	}
}

// TestBreakersSurviveBundleSwaps: a new executor built with the same
// registry keeps a tool's open circuit exactly when the tool's breaker
// settings and origin are unchanged.
func TestBreakersSurviveBundleSwaps(t *testing.T) {
	other := newUpstream(t, status(200))
	tests := []struct {
		name     string
		next     func(origin string) *bundle.Bundle
		wantOpen bool
	}{
		{"unrelated tool added", func(origin string) *bundle.Bundle {
			return testBundle(origin, testTool("flaky", "GET", "/x", breakerPolicy(1, 1, 60000)),
				testTool("fresh", "GET", "/y", retrying(1)))
		}, true},
		{"retry policy changed, breaker not", func(origin string) *bundle.Bundle {
			return testBundle(origin, testTool("flaky", "GET", "/x", breakerPolicy(3, 1, 60000)))
		}, true},
		{"threshold changed", func(origin string) *bundle.Bundle {
			return testBundle(origin, testTool("flaky", "GET", "/x", breakerPolicy(1, 2, 60000)))
		}, false},
		{"reset changed", func(origin string) *bundle.Bundle {
			return testBundle(origin, testTool("flaky", "GET", "/x", breakerPolicy(1, 1, 50000)))
		}, false},
		{"origin changed", func(string) *bundle.Bundle {
			return testBundle(other.URL, testTool("flaky", "GET", "/x", breakerPolicy(1, 1, 60000)))
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, status(503), status(200))
			reg := NewBreakers()
			openedExecutor(t, up, reg)
			before := up.count.Load() + other.count.Load()
			next := newExecutor(t, tc.next(up.URL), Options{Breakers: reg})
			r := next.Call(context.Background(), "flaky", nil)
			reached := up.count.Load() + other.count.Load() - before
			if tc.wantOpen {
				wantClass(t, r, ClassCircuitOpen)
				if reached != 0 {
					t.Fatalf("the carried-over open circuit let %d requests through", reached)
				}
				wantBreakerState(t, next, "flaky", BreakerOpen)
				return
			}
			wantClass(t, r, "")
			if reached != 1 {
				t.Fatalf("a fresh breaker sent %d requests, want 1", reached)
			}
			wantBreakerState(t, next, "flaky", BreakerClosed)
		})
	}
}

func TestBreakersDropToolsNoLongerInTheBundle(t *testing.T) {
	up := newUpstream(t, status(503), status(200))
	reg := NewBreakers()
	openedExecutor(t, up, reg)
	without := newExecutor(t, testBundle(up.URL, testTool("fresh", "GET", "/y", retrying(1))), Options{Breakers: reg})
	if s, ok := reg.State("flaky"); ok {
		t.Fatalf("registry still holds the removed tool (state %q)", s)
	}
	if _, ok := without.BreakerState("flaky"); ok {
		t.Fatal("executor reports a breaker for a tool not in its bundle")
	}
	back := newExecutor(t, testBundle(up.URL, testTool("flaky", "GET", "/x", breakerPolicy(1, 1, 60000))), Options{Breakers: reg})
	wantClass(t, back.Call(context.Background(), "flaky", nil), "")
}

// TestBreakersUntouchedByAWithheldTool: a bundle with a tool New withholds
// keeps the open circuit of an unchanged tool beside it.
func TestBreakersUntouchedByAWithheldTool(t *testing.T) {
	up := newUpstream(t, status(503))
	reg := NewBreakers()
	openedExecutor(t, up, reg)
	bad := testBundle(up.URL, testTool("flaky", "GET", "/x", breakerPolicy(1, 1, 60000)),
		testTool("broken", "GET", "/{missing}", retrying(1)))
	e := newExecutor(t, bad, Options{Breakers: reg})
	if w := e.Withheld(); len(w) != 1 || w[0].Tool != "broken" {
		t.Fatalf("Withheld() = %+v, want broken only", w)
	}
	if s, ok := reg.State("flaky"); !ok || s != BreakerOpen {
		t.Fatalf("after a bundle with a withheld tool the registry says %q, %v; want open", s, ok)
	}
	if _, ok := reg.State("broken"); ok {
		t.Fatal("the registry holds a breaker for a withheld tool")
	}
}

// TestBreakersWithoutRegistryAreIndependent: without Options.Breakers each
// executor starts closed, as before registries existed.
func TestBreakersWithoutRegistryAreIndependent(t *testing.T) {
	up := newUpstream(t, status(503), status(200))
	openedExecutor(t, up, nil)
	e := newExecutor(t, testBundle(up.URL, testTool("flaky", "GET", "/x", breakerPolicy(1, 1, 60000))), Options{})
	wantClass(t, e.Call(context.Background(), "flaky", nil), "")
}

// TestBreakersConcurrentSwaps runs calls on old and new executors, state
// reads and swaps at once; -race checks the registry's locking, and the
// open circuit must hold throughout since no swap changes the tool.
func TestBreakersConcurrentSwaps(t *testing.T) {
	up := newUpstream(t, status(503))
	reg := NewBreakers()
	first := openedExecutor(t, up, reg)
	reached := up.count.Load()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			e := first
			for j := range 20 {
				if j%5 == i {
					e = newExecutor(t, testBundle(up.URL, testTool("flaky", "GET", "/x", breakerPolicy(1, 1, 60000)),
						testTool("other", "GET", "/y", breakerPolicy(1, 1+j%3, 60000))), Options{Breakers: reg})
				}
				if r := e.Call(context.Background(), "flaky", nil); r.Err == nil || r.Err.Class != ClassCircuitOpen {
					t.Errorf("call %d: %+v, want CIRCUIT_OPEN", j, r.Err)
				}
				if s, _ := reg.State("flaky"); s != BreakerOpen {
					t.Errorf("registry state %q, want open", s)
				}
			}
		})
	}
	wg.Wait()
	if up.count.Load() != reached {
		t.Errorf("upstream saw %d more requests while the circuit was open", up.count.Load()-reached)
	}
}
