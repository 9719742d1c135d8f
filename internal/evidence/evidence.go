// Package evidence turns a tool's call summaries over a window into what
// the people deciding its retry policy read (README "Call summaries"):
// how its calls ended, how many failures a retry would have covered, how
// many ended OUTCOME_UNKNOWN (for a mutation: how often a retry would have
// risked a duplicate), its latency against its timeout and how often its
// circuit opened. It is pure: counts and a policy in, numbers out.
package evidence

import (
	"cmp"
	"math"
	"slices"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
)

// Tool is what the evidence depends on: the operation's method and its
// stored policy (the effective one is derived, R1).
type Tool struct {
	Method string
	Policy policy.Policy
}

// Share is the calls that ended with one class.
type Share struct {
	Class string
	Calls int64
}

// Latency is a percentile read from the histogram: at most MS, or above
// the histogram's last bound when Over; Known is false without calls.
type Latency struct {
	MS    int64
	Over  bool
	Known bool
}

// Window is the evidence of one window.
type Window struct {
	Calls int64
	// Mix is the calls by class, most first (OK included).
	Mix []Share
	// Denied counts the calls the runtime refused before the executor.
	Denied int64
	// Retried counts the calls that used more than one attempt, and
	// RetrySucceeded those of them that ended OK.
	Retried, RetrySucceeded int64
	// RetryAfter counts the calls that saw the upstream's Retry-After.
	RetryAfter int64
	// RetryOff is true when the tool makes one attempt (R1, or attempts 1);
	// Covered then counts its transient failures (R3) a retry would have
	// covered. Zero while retry is on: those were retried.
	RetryOff bool
	Covered  int64
	// Unknown counts OUTCOME_UNKNOWN: for a Mutation, each is a call a
	// retry would have risked applying twice.
	Unknown  int64
	Mutation bool
	// CircuitOpens counts the calls after which the circuit was open.
	CircuitOpens int64
	// P50 and P95 are of the calls that reached the upstream, against
	// TimeoutMS (the effective attempt timeout).
	P50, P95  Latency
	TimeoutMS int
}

// Of is the evidence of counts (one window's) on tool t.
func Of(t Tool, counts []callsummary.Counts) Window {
	eff := policy.Effective(t.Method, t.Policy)
	w := Window{RetryOff: eff.Retry.Attempts <= 1, Mutation: !policy.IsSafeMethod(t.Method), TimeoutMS: eff.TimeoutMS}
	mix := map[string]int64{}
	var sent [callsummary.Buckets]int64
	for _, c := range counts {
		w.Calls += c.Calls
		mix[c.Class] += c.Calls
		if c.Decision != callrecord.Allowed {
			w.Denied += c.Calls
			continue
		}
		w.Retried += c.Retried
		if c.Class == callrecord.ClassOK {
			w.RetrySucceeded += c.Retried
		}
		w.RetryAfter += c.RetryAfter
		w.CircuitOpens += c.CircuitOpens
		if c.Class == string(executor.ClassOutcomeUnknown) {
			w.Unknown += c.Calls
		}
		if w.RetryOff && Transient(c, eff.Retry) {
			w.Covered += c.Calls
		}
		if c.Attempts > 0 {
			for i, n := range c.Latency {
				sent[i] += n
			}
		}
	}
	for class, n := range mix {
		w.Mix = append(w.Mix, Share{Class: class, Calls: n})
	}
	slices.SortFunc(w.Mix, func(a, b Share) int { return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Class, b.Class)) })
	w.P50, w.P95 = Percentile(sent, 0.50), Percentile(sent, 0.95)
	return w
}

// Transient reports whether calls that ended as c failed in a way R3
// retries under retry policy r: an attempt timeout, a connection failure
// before anything was sent, or a status r retries on. OUTCOME_UNKNOWN is
// never transient: the request may have been applied.
func Transient(c callsummary.Counts, r policy.Retry) bool {
	switch executor.Class(c.Class) {
	case executor.ClassTimeout, executor.ClassNetwork:
		return true
	case executor.ClassRateLimited, executor.ClassServerError, executor.ClassRejected:
		return policy.RetryableStatus(r, c.Status)
	}
	return false
}

// Percentile is the p-th percentile (0 < p ≤ 1) of a latency histogram:
// the upper bound of the bucket holding the call of rank ⌈p·calls⌉.
func Percentile(h [callsummary.Buckets]int64, p float64) Latency {
	var total int64
	for _, n := range h {
		total += n
	}
	if total == 0 {
		return Latency{}
	}
	rank := int64(math.Ceil(p * float64(total)))
	var seen int64
	for i, n := range h {
		seen += n
		if seen >= rank && i < len(callsummary.LatencyBoundsMS) {
			return Latency{MS: callsummary.LatencyBoundsMS[i], Known: true}
		}
	}
	last := callsummary.LatencyBoundsMS[len(callsummary.LatencyBoundsMS)-1]
	return Latency{MS: last, Over: true, Known: true}
}
