package policy

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Delay returns the wait before attempt+1, where attempt is the 1-based
// number of the attempt that just failed (R4):
//
//	d = min(backoff_ms × multiplier^(attempt−1), 60000 ms)
//
// With jitter the wait is uniform in [d/2, d], drawn from rnd, which returns
// values in [0, 1) (rand.Float64 when rnd is nil; tests pass a fixed one).
// A Retry-After header may lengthen the wait; that is the executor's
// business, not this function's. r should be the Retry of an Effective
// policy; attempt values below 1 count as 1.
func Delay(r Retry, attempt int, rnd func() float64) time.Duration {
	d := delayCapMS(r, attempt)
	if r.Jitter && d > 0 {
		if rnd == nil {
			rnd = rand.Float64
		}
		f := rnd()
		if !(f >= 0) { // negative or NaN
			f = 0
		}
		f = min(f, 1)
		d = d/2 + f*d/2
	}
	return msDuration(d)
}

// MaxDelay is the longest wait Delay can return after attempt: the capped
// delay itself, which is jitter's upper bound.
func MaxDelay(r Retry, attempt int) time.Duration {
	return msDuration(delayCapMS(r, attempt))
}

// delayCapMS is min(backoff × multiplier^(attempt−1), 60000) in milliseconds.
func delayCapMS(r Retry, attempt int) float64 {
	if r.BackoffMS <= 0 {
		return 0 // also avoids 0 × Inf = NaN for huge exponents
	}
	m := r.Multiplier
	if !(m >= 1) {
		m = 1
	}
	n := max(attempt, 1) - 1
	d := float64(r.BackoffMS) * math.Pow(m, float64(n))
	return min(d, MaxDelayMS)
}

func msDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// AllowedRetryStatus reports whether R3 lets a tool retry on status at all:
// the transient set 408, 429, 502, 503, 504, plus 500 and 501 when a tool
// lists them.
func AllowedRetryStatus(status int) bool {
	switch status {
	case 408, 429, 500, 501, 502, 503, 504:
		return true
	}
	return false
}

// RetryableStatus reports whether an HTTP status is transient for r (R3):
// it must be listed in r.RetryOn (nil means DefaultRetryOn) and be one of
// 408, 429, 500, 501, 502, 503, 504. Any other status listed in a
// misconfigured policy is still never retried.
func RetryableStatus(r Retry, status int) bool {
	if !AllowedRetryStatus(status) {
		return false
	}
	on := r.RetryOn
	if on == nil {
		on = DefaultRetryOn()
	}
	return slices.Contains(on, status)
}
