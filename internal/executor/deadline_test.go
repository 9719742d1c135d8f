package executor

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
)

// faultTransport is an in-memory upstream on a fake clock: each request
// takes a random (virtual) time and ends in a random fault. A request that
// would take longer than the attempt's timeout ends at the timeout, as a
// real one would.
type faultTransport struct {
	clock *fakeClock
	mu    sync.Mutex
	rnd   *rand.Rand
	ends  []time.Time     // when each attempt's timeout would end, on clock
	lefts []time.Duration // each attempt's own timeout, as its context says
	last  time.Time       // when the last attempt returned, on clock
}

func (f *faultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	kind, took, after := f.rnd.IntN(6), f.rnd.Float64(), f.rnd.IntN(40)
	f.mu.Unlock()
	dl, _ := req.Context().Deadline()
	left := time.Until(dl)
	f.ends = append(f.ends, f.clock.Now().Add(left))
	f.lefts = append(f.lefts, left)
	defer func() { f.last = f.clock.Now() }()
	d := time.Duration(took * 2 * float64(left))
	if kind == 5 || d >= left {
		f.clock.Advance(left)
		return nil, context.DeadlineExceeded
	}
	f.clock.Advance(d)
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{}`)), Request: req}
	switch kind {
	case 1:
		resp.StatusCode = 503
	case 2:
		resp.StatusCode = 429
		resp.Header.Set("Retry-After", strconv.Itoa(after))
	case 3:
		resp.StatusCode = 429
		resp.Header.Set("Retry-After", f.clock.Now().Add(time.Duration(after)*time.Second).Format(http.TimeFormat))
	case 4:
		return nil, errors.New("connection reset by peer")
	}
	return resp, nil
}

// TestTotalDurationNeverExceedsTheDeadline is the second enforcement test
// of ADR-0008 (R5, strictly): over random policies and random fault
// sequences, no call outlives its deadline on the executor's clock; every
// attempt that starts has its full timeout_ms before the deadline; and a
// call that cannot start another attempt returns at once, never after a
// wait that no attempt follows.
func TestTotalDurationNeverExceedsTheDeadline(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 42))
	for i := range 400 {
		p := randomPolicy(rnd)
		method := []string{"GET", "POST", "PUT", "DELETE"}[rnd.IntN(4)]
		clock := newFakeClock()
		tr := &faultTransport{clock: clock, rnd: rand.New(rand.NewPCG(seed, uint64(i)))}
		e := newExecutor(t, testBundle("https://api.example", testTool("t", method, "/x", p)),
			Options{Clock: clock, Transport: tr, Rand: rnd.Float64})
		start := clock.Now()
		r := e.Call(context.Background(), "t", nil)
		total := clock.Now().Sub(start)
		deadline := time.Duration(p.DeadlineMS) * time.Millisecond
		if total > deadline || r.Duration > deadline {
			t.Fatalf("case %d (%s %+v): call took %v, deadline %v; result %+v err %+v", i, method, p, total, deadline, r, r.Err)
		}
		eff := policy.Effective(method, p)
		if r.Attempts > eff.Retry.Attempts {
			t.Fatalf("case %d: %d attempts, policy allows %d", i, r.Attempts, eff.Retry.Attempts)
		}
		timeout := time.Duration(eff.TimeoutMS) * time.Millisecond
		for n, left := range tr.lefts {
			if left < timeout-time.Second/10 {
				t.Fatalf("case %d (%s %+v): attempt %d ran with %v, not its full %v timeout", i, method, p, n+1, left, timeout)
			}
		}
		for n, end := range tr.ends {
			if end.Sub(start) > deadline {
				t.Fatalf("case %d (%s %+v): attempt %d had its timeout end %v after the start, past the %v deadline",
					i, method, p, n+1, end.Sub(start), deadline)
			}
		}
		switch {
		case len(tr.ends) == 0 && timeout <= deadline:
			t.Fatalf("case %d (%+v): the first attempt fits but none was sent; err %+v", i, p, r.Err)
		case len(tr.ends) == 0 && (r.Err == nil || r.Err.Class != ClassDeadlineExceeded || total != 0):
			t.Fatalf("case %d (%+v): no attempt fits, want DEADLINE_EXCEEDED at once; took %v, err %+v", i, p, total, r.Err)
		case len(tr.ends) > 0 && !clock.Now().Equal(tr.last):
			t.Fatalf("case %d (%s %+v): the call went on %v after its last attempt (sleeps %v); err %+v",
				i, method, p, clock.Now().Sub(tr.last), clock.Sleeps(), r.Err)
		}
	}
}

func randomPolicy(rnd *rand.Rand) policy.Policy {
	p := policy.Policy{
		TimeoutMS:  100 + rnd.IntN(10000),
		DeadlineMS: 100 + rnd.IntN(60000),
		Retry: policy.Retry{
			Attempts:   1 + rnd.IntN(5),
			BackoffMS:  rnd.IntN(20000),
			Multiplier: 1 + 3*rnd.Float64(),
			Jitter:     rnd.IntN(2) == 0,
		},
		Idempotent: rnd.IntN(2) == 0,
		Breaker:    policy.Breaker{Threshold: 100, ResetMS: 1000},
	}
	if rnd.IntN(3) == 0 {
		p.Retry.RetryOn = []int{429, 500, 503}
	}
	return p
}

// TestStrictDeadlineReturnsTheLastErrorAtOnce: with a 4 s timeout and a
// 10 s deadline, two attempts fit (0–4 s, then after a 0.5 s wait 4.5–8.5 s);
// a third would end at 13 s, so it is not started and the call returns the
// second attempt's TIMEOUT at 8.5 s, without waiting again.
func TestStrictDeadlineReturnsTheLastErrorAtOnce(t *testing.T) {
	clock := newFakeClock()
	var sent int
	tr := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		sent++
		clock.Advance(4 * time.Second) // the attempt runs to its timeout
		return nil, context.DeadlineExceeded
	})
	p := policy.Policy{TimeoutMS: 4000, DeadlineMS: 10000,
		Retry: policy.Retry{Attempts: 3, BackoffMS: 500, Multiplier: 2, Jitter: false}}
	e := newExecutor(t, testBundle("https://api.example", testTool("get_x", "GET", "/x", p)), Options{Clock: clock, Transport: tr})
	r := e.Call(context.Background(), "get_x", nil)
	wantClass(t, r, ClassTimeout)
	if sent != 2 || r.Attempts != 2 {
		t.Errorf("sent %d requests (attempts %d), want 2: the third does not fit", sent, r.Attempts)
	}
	if r.Duration != 8500*time.Millisecond {
		t.Errorf("call took %v, want 8.5 s: the end of the second attempt", r.Duration)
	}
	if got := clock.Sleeps(); len(got) != 1 || got[0] != 500*time.Millisecond {
		t.Errorf("waits %v, want one 500 ms wait", got)
	}
}

// TestCallerDeadlineShorterThanTheTimeoutSendsNothing: the caller's context
// leaves 3 s, the attempt timeout is 4 s; no attempt can run to its timeout,
// so none starts.
func TestCallerDeadlineShorterThanTheTimeoutSendsNothing(t *testing.T) {
	clock := newFakeClock()
	tr := roundTripFunc(func(*http.Request) (*http.Response, error) {
		t.Error("a request was sent although its timeout does not fit")
		return nil, errors.New("unreachable")
	})
	p := policy.Policy{TimeoutMS: 4000, DeadlineMS: 10000, Retry: policy.Retry{Attempts: 3, BackoffMS: 500, Multiplier: 2}}
	e := newExecutor(t, testBundle("https://api.example", testTool("get_x", "GET", "/x", p)), Options{Clock: clock, Transport: tr})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	r := e.Call(ctx, "get_x", nil)
	wantClass(t, r, ClassDeadlineExceeded)
	if r.Attempts != 0 || r.Err.MayHaveApplied || r.Duration != 0 {
		t.Errorf("attempts %d, may_have_applied %v, took %v; want 0, false, at once", r.Attempts, r.Err.MayHaveApplied, r.Duration)
	}
}

// roundTripFunc is an http.RoundTripper from a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
