package policy

import (
	"fmt"
	"time"
)

// WorstCase returns the longest a call of the tool can take under its
// effective policy (R5), and warnings for the console.
//
// The executor starts an attempt only when its full timeout fits before the
// deadline, and a wait only when the attempt after it fits too; when the
// next attempt cannot fit, the call returns the last error at once. So the
// worst case is the end of the last attempt that fits when every attempt
// runs to its timeout and the waits are as long as jitter allows while the
// attempts still fit. A
// Retry-After header can ask for a longer wait than the policy computes;
// the executor then skips the attempts that no longer fit, and the call
// still ends by the deadline, so the result never exceeds the effective
// deadline.
//
// A warning is given when the configured attempts cannot all fit in the
// deadline ("only 2 of 3 attempts fit in the 10 s deadline") and when the
// deadline is shorter than one attempt's timeout (no attempt can start).
func WorstCase(method string, p Policy) (time.Duration, []string) {
	e := Effective(method, p)
	timeout := time.Duration(e.TimeoutMS) * time.Millisecond
	deadline := time.Duration(e.DeadlineMS) * time.Millisecond
	var warnings []string
	if timeout > deadline {
		warnings = append(warnings, fmt.Sprintf("the %s timeout is longer than the %s deadline: no attempt can start",
			formatDuration(timeout), formatDuration(deadline)))
	}
	worst, fit := attemptsTimeline(e.Retry, timeout, deadline)
	if fit >= 1 && fit < e.Retry.Attempts {
		warnings = append(warnings, fmt.Sprintf("only %d of %d attempts fit in the %s deadline: the call returns the last error instead of starting an attempt that would end past it",
			fit, e.Retry.Attempts, formatDuration(deadline)))
	}
	return worst, warnings
}

// attemptsTimeline returns the latest a call can end and how many attempts
// are sure to fit in the deadline. Each attempt runs to its timeout. An
// attempt is started only when it fits (R5), so k attempts happen at all
// only when they fit with the shortest waits jitter allows, and then end
// at the latest with the longest waits, cut at the deadline. Attempts
// after the first that cannot fit are never started.
func attemptsTimeline(r Retry, timeout, deadline time.Duration) (worst time.Duration, sure int) {
	shortest := func() float64 { return 0 }
	var early, late time.Duration
	for n := 1; n <= r.Attempts; n++ {
		if n > 1 {
			early += Delay(r, n-1, shortest)
			late += MaxDelay(r, n-1)
		}
		early += timeout
		late += timeout
		if early > deadline {
			break
		}
		worst = min(late, deadline)
		if late <= deadline {
			sure = n
		}
	}
	return worst, sure
}
