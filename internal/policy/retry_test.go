package policy

import (
	"testing"
	"time"
)

func fixed(f float64) func() float64 { return func() float64 { return f } }

func TestDelay(t *testing.T) {
	r := Retry{Attempts: 5, BackoffMS: 500, Multiplier: 2}
	jit := Retry{Attempts: 5, BackoffMS: 500, Multiplier: 2, Jitter: true}
	for _, tc := range []struct {
		name    string
		r       Retry
		attempt int
		rnd     float64
		want    time.Duration
	}{
		{"first wait is the backoff", r, 1, 0.7, 500 * time.Millisecond},
		{"second wait doubles", r, 2, 0, time.Second},
		{"fourth wait", r, 4, 0, 4 * time.Second},
		{"attempt 0 counts as 1", r, 0, 0, 500 * time.Millisecond},
		{"cap at 60 s", Retry{BackoffMS: 50000, Multiplier: 3}, 3, 0, 60 * time.Second},
		{"huge exponent capped", Retry{BackoffMS: 1, Multiplier: 10}, 1000, 0, 60 * time.Second},
		{"zero backoff huge exponent", Retry{BackoffMS: 0, Multiplier: 10, Jitter: true}, 1000, 0.5, 0},
		{"multiplier 1 is constant", Retry{BackoffMS: 300, Multiplier: 1}, 4, 0, 300 * time.Millisecond},
		{"fractional multiplier", Retry{BackoffMS: 1000, Multiplier: 1.5}, 3, 0, 2250 * time.Millisecond},
		{"jitter low end is half", jit, 1, 0, 250 * time.Millisecond},
		{"jitter middle", jit, 1, 0.5, 375 * time.Millisecond},
		{"jitter high end approaches d", jit, 2, 0.999999, 999999500 * time.Nanosecond},
		{"jitter applies after the cap", Retry{BackoffMS: 100000, Multiplier: 2, Jitter: true}, 1, 0, 30 * time.Second},
		{"out of range rnd clamped low", jit, 1, -3, 250 * time.Millisecond},
		{"out of range rnd clamped high", jit, 1, 7, 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Delay(tc.r, tc.attempt, fixed(tc.rnd)); got != tc.want {
				t.Errorf("Delay(%+v, %d, %v) = %v, want %v", tc.r, tc.attempt, tc.rnd, got, tc.want)
			}
		})
	}
}

func TestDelayNilRandStaysInRange(t *testing.T) {
	r := Retry{BackoffMS: 400, Multiplier: 2, Jitter: true}
	for range 200 {
		d := Delay(r, 2, nil)
		if d < 400*time.Millisecond || d > 800*time.Millisecond {
			t.Fatalf("Delay with jitter = %v, want within [400ms, 800ms]", d)
		}
	}
}

func TestRetryableStatus(t *testing.T) {
	def := Retry{}
	with500 := Retry{RetryOn: []int{408, 429, 500, 502, 503, 504}}
	broken := Retry{RetryOn: []int{401, 409, 503}}
	for _, tc := range []struct {
		name   string
		r      Retry
		status int
		want   bool
	}{
		{"nil means R3 set: 503", def, 503, true},
		{"nil means R3 set: 408", def, 408, true},
		{"nil means R3 set: 429", def, 429, true},
		{"500 not by default", def, 500, false},
		{"501 not by default", def, 501, false},
		{"500 when listed", with500, 500, true},
		{"501 still not when unlisted", with500, 501, false},
		{"401 never", broken, 401, false},
		{"409 never even if listed", broken, 409, false},
		{"listed transient still works", broken, 503, true},
		{"unlisted transient", broken, 502, false},
		{"empty list retries no status", Retry{RetryOn: []int{}}, 503, false},
		{"3xx never", def, 302, false},
		{"2xx never", def, 200, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RetryableStatus(tc.r, tc.status); got != tc.want {
				t.Errorf("RetryableStatus(%v, %d) = %v, want %v", tc.r.RetryOn, tc.status, got, tc.want)
			}
		})
	}
}
