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
}

func (f *faultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	kind, took, after := f.rnd.IntN(6), f.rnd.Float64(), f.rnd.IntN(40)
	f.mu.Unlock()
	dl, _ := req.Context().Deadline()
	left := time.Until(dl)
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
// of ADR-0008 (R5): over random policies and random fault sequences, no
// call outlives its deadline, on the executor's clock.
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
		if eff := policy.Effective(method, p); r.Attempts > eff.Retry.Attempts {
			t.Fatalf("case %d: %d attempts, policy allows %d", i, r.Attempts, eff.Retry.Attempts)
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
