package policy

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestWorstCase(t *testing.T) {
	get := func(attempts, timeout, deadline, backoff int) Policy {
		return Policy{TimeoutMS: timeout, DeadlineMS: deadline,
			Retry: Retry{Attempts: attempts, BackoffMS: backoff, Multiplier: 2, Jitter: true}}
	}
	for _, tc := range []struct {
		name     string
		method   string
		p        Policy
		want     time.Duration
		warnings []string
	}{
		{"one attempt", "GET", get(1, 8000, 30000, 500), 8 * time.Second, nil},
		{"two attempts plus the jitter upper bound", "GET", get(2, 8000, 30000, 300), 16300 * time.Millisecond, nil},
		{"three attempts, growing waits", "GET", get(3, 1000, 30000, 500), 4500 * time.Millisecond, nil},
		{"POST ignores stored attempts", "POST", get(3, 8000, 30000, 500), 8 * time.Second, nil},
		{"idempotent POST retries", "POST", func() Policy { p := get(3, 8000, 30000, 500); p.Idempotent = true; return p }(),
			25500 * time.Millisecond, nil},
		{"a second attempt would end past the deadline", "GET", get(3, 8000, 10000, 500), 8 * time.Second,
			[]string{"only 1 of 3 attempts fit in the 10 s deadline: the call returns the last error instead of starting an attempt that would end past it"}},
		{"two of three fit", "GET", get(3, 4000, 10000, 500), 8500 * time.Millisecond,
			[]string{"only 2 of 3 attempts fit in the 10 s deadline: the call returns the last error instead of starting an attempt that would end past it"}},
		{"exact fit gives no warning", "GET", get(2, 4000, 8500, 500), 8500 * time.Millisecond, nil},
		{"deadline shorter than the timeout", "GET", get(2, 8000, 5000, 500), 0,
			[]string{"the 8 s timeout is longer than the 5 s deadline: no attempt can start"}},
		{"defaults", "DELETE", Policy{}, 8 * time.Second, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings := WorstCase(tc.method, tc.p)
			if got != tc.want {
				t.Errorf("WorstCase = %v, want %v", got, tc.want)
			}
			if !slices.Equal(warnings, tc.warnings) {
				t.Errorf("warnings = %q, want %q", warnings, tc.warnings)
			}
		})
	}
}

// randomPolicy draws a policy from well beyond the valid ranges, so the
// property holds for whatever a store or a bundle may hold.
func randomPolicy(rng *rand.Rand) Policy {
	p := Policy{
		TimeoutMS:  rng.IntN(400000) - 100,
		DeadlineMS: rng.IntN(4000000) - 100,
		Retry: Retry{
			Attempts:   rng.IntN(9) - 1,
			BackoffMS:  rng.IntN(100000) - 10,
			Multiplier: rng.Float64() * 12,
			Jitter:     rng.IntN(2) == 0,
		},
		Idempotent: rng.IntN(3) == 0,
	}
	if rng.IntN(3) == 0 {
		p.IdempotencyKey = &IdempotencyKey{Header: DefaultKeyHeader, Source: KeyGenerated}
	}
	return p
}

// TestWorstCaseNeverExceedsDeadline is the decision record's second
// blocking test: the worst-case duration of a call never exceeds the tool's
// deadline, and every schedule the policy allows (any jitter draw, any
// attempt ending at its timeout) cut at the deadline stays within it.
func TestWorstCaseNeverExceedsDeadline(t *testing.T) {
	rng := rand.New(rand.NewPCG(0, 8)) // seed 000, ADR-0008
	methods := []string{"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"}
	for i := range 20000 {
		p := randomPolicy(rng)
		m := methods[i%len(methods)]
		e := Effective(m, p)
		deadline := ms(e.DeadlineMS)
		worst, _ := WorstCase(m, p)
		if worst > deadline || worst < 0 || (worst == 0) != (ms(e.TimeoutMS) > deadline) {
			t.Fatalf("WorstCase(%s, %+v) = %v, deadline %v", m, p, worst, deadline)
		}
		if got := simulate(e, deadline, rng.Float64); got > worst {
			t.Fatalf("a schedule of %v exceeds the worst case %v for %s %+v", got, worst, m, p)
		}
	}
}

// simulate runs attempts of an effective policy to their timeout with
// jittered waits drawn from rnd, as the executor does under R5: an attempt
// (with the wait before it) starts only when its full timeout fits before
// the deadline. It returns when the call ends.
func simulate(e Policy, deadline time.Duration, rnd func() float64) time.Duration {
	var now time.Duration
	for n := 1; n <= e.Retry.Attempts; n++ {
		var wait time.Duration
		if n > 1 {
			wait = Delay(e.Retry, n-1, rnd)
		}
		if now+wait+ms(e.TimeoutMS) > deadline {
			break
		}
		now += wait + ms(e.TimeoutMS)
	}
	return now
}

func FuzzWorstCase(f *testing.F) {
	f.Add("GET", 8000, 30000, 3, 500, 2.0, true, false)
	f.Add("POST", 100, 100, 5, 60000, 10.0, false, true)
	f.Add("DELETE", -1, 0, 0, 0, 0.0, true, true)
	f.Add("GET", 1<<62, 1<<62, 5, 1<<62, 10.0, true, false)
	f.Fuzz(func(t *testing.T, method string, timeout, deadline, attempts, backoff int, mult float64, jitter, idem bool) {
		p := Policy{TimeoutMS: timeout, DeadlineMS: deadline, Idempotent: idem,
			Retry: Retry{Attempts: attempts, BackoffMS: backoff, Multiplier: mult, Jitter: jitter}}
		worst, _ := WorstCase(method, p)
		if d := ms(Effective(method, p).DeadlineMS); worst > d || worst < 0 {
			t.Fatalf("WorstCase = %v, deadline %v", worst, d)
		}
	})
}
