package policy

import (
	"fmt"
	"time"
)

// WorstCase returns the longest a call of the tool can take under its
// effective policy (R5), and warnings for the console.
//
// The bound is attempts × timeout plus the longest wait between attempts
// (jitter's upper bound, Delay's cap), bounded by the deadline. A
// Retry-After header can ask for a longer wait than the policy computes, so
// waits themselves cannot be bounded from the policy alone; the deadline
// still bounds the whole call, because the executor never starts an attempt
// or a wait that would end past it. That is why the result never exceeds
// the effective deadline.
//
// A warning is given when the configured attempts cannot all fit in the
// deadline ("only 2 of 3 attempts fit in the 10 s deadline") and when the
// deadline is shorter than one attempt's timeout.
func WorstCase(method string, p Policy) (time.Duration, []string) {
	e := Effective(method, p)
	timeout := time.Duration(e.TimeoutMS) * time.Millisecond
	deadline := time.Duration(e.DeadlineMS) * time.Millisecond
	var warnings []string
	if timeout > deadline {
		warnings = append(warnings, fmt.Sprintf("the %s timeout is longer than the %s deadline: the deadline ends the first attempt",
			formatDuration(timeout), formatDuration(deadline)))
	}
	total, fit := attemptsTimeline(e.Retry, timeout, deadline)
	if fit >= 1 && fit < e.Retry.Attempts {
		warnings = append(warnings, fmt.Sprintf("only %d of %d attempts fit in the %s deadline",
			fit, e.Retry.Attempts, formatDuration(deadline)))
	}
	return min(total, deadline), warnings
}

// attemptsTimeline returns the unbounded worst case of every attempt and
// wait, and how many attempts can end within the deadline when each runs
// to its timeout and each wait is as long as jitter allows.
func attemptsTimeline(r Retry, timeout, deadline time.Duration) (total time.Duration, fit int) {
	for n := 1; n <= r.Attempts; n++ {
		if n > 1 {
			total += MaxDelay(r, n-1)
		}
		total += timeout
		if total <= deadline {
			fit = n
		}
	}
	return total, fit
}
