package runtime

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/internal/callsummary"
)

// Call summaries (README "Call summaries"): every call on a tool of the
// bundle in force is counted into its minute, per tool, decision, class
// and status, and the minutes that changed are sent on the fetch path
// beside call records. A minute is kept until it has ended and its last
// counts were delivered; while the console is away at most
// maxSummaryEntries are held (the oldest minute goes first, counted in
// toolgate_runtime_call_summaries_dropped_total), whatever the call rate.
const (
	maxSummaryEntries = 5000
	maxSummaryBatches = 10
)

// summaryKey is what one summary counts.
type summaryKey struct {
	minute                int64 // Unix seconds of the minute's start
	tool, decision, class string
	status                int
}

// summaryEntry is one summary and its delivery state: gen counts its
// changes, sent is the gen the console last took.
type summaryEntry struct {
	s         callsummary.Summary
	gen, sent uint64
}

// callSummaries is the runtime's per-minute counts not yet delivered.
type callSummaries struct {
	mu      sync.Mutex
	entries map[summaryKey]*summaryEntry
	dropped prometheus.Counter
}

func newCallSummaries(reg *prometheus.Registry) *callSummaries {
	c := &callSummaries{entries: map[summaryKey]*summaryEntry{},
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_runtime_call_summaries_dropped_total",
			Help: "Per-minute call summaries not delivered to the console: the oldest, dropped while the buffer was full, or refused by the console."})}
	reg.MustRegister(c.dropped)
	return c
}

// callOutcome is one finished call as a summary counts it.
type callOutcome struct {
	at                               time.Time
	tool, decision, class, principal string
	status, attempts                 int
	retryAfter, circuitOpened        bool
	duration                         time.Duration
}

// add counts one call into its minute.
func (c *callSummaries) add(o callOutcome) {
	minute := callsummary.Minute(o.at)
	k := summaryKey{minute: minute.Unix(), tool: o.tool, decision: o.decision, class: o.class, status: o.status}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[k]
	if e == nil {
		if len(c.entries) >= maxSummaryEntries {
			c.dropOldestLocked()
		}
		e = &summaryEntry{s: callsummary.Summary{Minute: minute, Tool: o.tool,
			Counts: callsummary.Counts{Decision: o.decision, Class: o.class, Status: o.status}}}
		c.entries[k] = e
	}
	s := &e.s
	s.Calls++
	s.Attempts += int64(o.attempts)
	s.Retried += b2i(o.attempts > 1)
	s.RetryAfter += b2i(o.retryAfter)
	s.CircuitOpens += b2i(o.circuitOpened)
	s.Latency[callsummary.Bucket(o.duration)]++
	if len(s.Principals) < callsummary.MaxPrincipals && !slices.Contains(s.Principals, o.principal) {
		s.Principals = append(s.Principals, o.principal)
	}
	e.gen++
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// dropOldestLocked removes the summaries of the oldest minute held.
func (c *callSummaries) dropOldestLocked() {
	oldest := int64(0)
	for k := range c.entries {
		if oldest == 0 || k.minute < oldest {
			oldest = k.minute
		}
	}
	for k := range c.entries {
		if k.minute == oldest {
			delete(c.entries, k)
			c.dropped.Inc()
		}
	}
}

// takenSummary is a summary handed to a batch and the gen it had.
type takenSummary struct {
	key summaryKey
	gen uint64
}

// take returns copies of up to n summaries changed since their last
// delivery, oldest minute first, and forgets the delivered summaries of
// minutes that have ended.
func (c *callSummaries) take(n int, now time.Time) ([]callsummary.Summary, []takenSummary) {
	cur := callsummary.Minute(now).Unix()
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []summaryKey
	for k, e := range c.entries {
		switch {
		case e.gen != e.sent:
			keys = append(keys, k)
		case k.minute < cur:
			delete(c.entries, k)
		}
	}
	slices.SortFunc(keys, func(a, b summaryKey) int {
		return cmp.Or(cmp.Compare(a.minute, b.minute), cmp.Compare(a.tool, b.tool), cmp.Compare(a.class, b.class),
			cmp.Compare(a.decision, b.decision), cmp.Compare(a.status, b.status))
	})
	keys = keys[:min(n, len(keys))]
	out := make([]callsummary.Summary, 0, len(keys))
	taken := make([]takenSummary, 0, len(keys))
	for _, k := range keys {
		e := c.entries[k]
		s := e.s
		s.Principals = slices.Clone(s.Principals)
		out = append(out, s)
		taken = append(taken, takenSummary{key: k, gen: e.gen})
	}
	return out, taken
}

// delivered marks taken summaries as the console holds them; a summary
// that changed since stays to be sent again.
func (c *callSummaries) delivered(taken []takenSummary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range taken {
		if e := c.entries[t.key]; e != nil && e.sent < t.gen {
			e.sent = t.gen
		}
	}
}
