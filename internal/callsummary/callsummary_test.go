package callsummary

import (
	"testing"
	"time"
)

// A call falls in the first bucket whose bound it does not pass; past the
// last bound it is in the overflow bucket.
func TestBucket(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {5 * time.Millisecond, 0}, {6 * time.Millisecond, 1}, {100 * time.Millisecond, 4},
		{101 * time.Millisecond, 5}, {30 * time.Second, Buckets - 2}, {31 * time.Second, Buckets - 1},
	} {
		if got := Bucket(tt.d); got != tt.want {
			t.Errorf("Bucket(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

// A summary whose counts add up is valid; each way of not adding up is
// refused with its reason.
func TestValidate(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 30, 0, time.UTC)
	good := func() Summary {
		s := Summary{Minute: Minute(now), Tool: "get_order", Counts: Counts{Decision: "allowed", Class: "OK", Calls: 2, Attempts: 3, Retried: 1}}
		s.Latency[0] = 2
		return s
	}
	if err := good().Validate(now); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]func(*Summary){
		"retried more than calls":  func(s *Summary) { s.Retried = 3 },
		"no calls":                 func(s *Summary) { s.Calls, s.Latency[0] = 0, 0 },
		"denied by exposure as OK": func(s *Summary) { s.Decision = "denied_exposure" },
		"too many principals":      func(s *Summary) { s.Principals = make([]string, MaxPrincipals+1) },
		"empty principal":          func(s *Summary) { s.Principals = []string{""} },
		"negative bucket":          func(s *Summary) { s.Latency[0], s.Latency[1] = 3, -1 },
	} {
		s := good()
		bad(&s)
		if err := s.Validate(now); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
