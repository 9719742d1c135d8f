package callsummary

import (
	"fmt"
	"time"

	"github.com/toolgate/toolgate/internal/callrecord"
)

// Bounds of what a console accepts; a batch beyond them is refused whole.
const (
	// MaxBodyBytes bounds a batch's JSON.
	MaxBodyBytes = 512 << 10
	// maxCalls bounds one summary's calls (a million calls a minute).
	maxCalls = 1 << 20
	// maxPrincipalKey bounds one principal's name (kind, ':', subject).
	maxPrincipalKey = 300
	// maxSkew is how far in the future a minute may start.
	maxSkew = 5 * time.Minute
)

// ParseBatch reads a batch a runtime sent and checks every summary (the
// schema, at most MaxBatch summaries, known fields only, each summary's
// values). Any error names the first bad summary; nothing of a bad batch
// is to be stored.
func ParseBatch(body []byte, now time.Time) ([]Summary, error) {
	var b Batch
	if err := callrecord.DecodeBatch(body, MaxBodyBytes, Schema, &b); err != nil {
		return nil, err
	}
	if b.Schema != Schema {
		return nil, fmt.Errorf("unknown batch schema %q (this console reads %s)", b.Schema, Schema)
	}
	if len(b.Summaries) > MaxBatch {
		return nil, fmt.Errorf("the batch has %d summaries; at most %d are accepted", len(b.Summaries), MaxBatch)
	}
	for i, s := range b.Summaries {
		if err := s.Validate(now); err != nil {
			return nil, fmt.Errorf("summary %d: %w", i, err)
		}
	}
	return b.Summaries, nil
}

// Validate checks one summary's values: a whole minute not in the future,
// the record vocabulary for tool, decision and class, and counts that add
// up (the histogram holds every call; attempts at most 5 a call, R4).
func (s Summary) Validate(now time.Time) error {
	switch {
	case s.Minute.IsZero() || !s.Minute.Equal(Minute(s.Minute)) || s.Minute.After(now.Add(maxSkew)):
		return fmt.Errorf("minute must be the start of a minute no later than now")
	case !callrecord.IsToolName(s.Tool):
		return fmt.Errorf("tool %q is not a tool name", s.Tool)
	case !callrecord.IsClass(s.Class):
		return fmt.Errorf("class %q is not an outcome class", s.Class)
	case !callrecord.GoesWith(s.Decision, s.Class):
		return fmt.Errorf("decision %q does not go with class %s", s.Decision, s.Class)
	case s.Status < 0 || s.Status > 599:
		return fmt.Errorf("status must be 0..599")
	case s.Calls < 1 || s.Calls > maxCalls:
		return fmt.Errorf("calls must be 1..%d", maxCalls)
	case s.Attempts < 0 || s.Attempts > 5*s.Calls:
		return fmt.Errorf("attempts must be 0..5 a call")
	case !within(s.Calls, s.Retried, s.RetryAfter, s.CircuitOpens):
		return fmt.Errorf("retried, retry_after and circuit_opens must be 0..calls")
	case sum(s.Latency) != s.Calls:
		return fmt.Errorf("the latency histogram must count every call once")
	case len(s.Principals) > MaxPrincipals:
		return fmt.Errorf("at most %d principals", MaxPrincipals)
	}
	for _, p := range s.Principals {
		if p == "" || !callrecord.Printable(p, maxPrincipalKey) {
			return fmt.Errorf("a principal must be printable and 1..%d bytes", maxPrincipalKey)
		}
	}
	return nil
}

func within(limit int64, vs ...int64) bool {
	for _, v := range vs {
		if v < 0 || v > limit {
			return false
		}
	}
	return true
}

func sum(h [Buckets]int64) int64 {
	var n int64
	for _, v := range h {
		if v < 0 {
			return -1
		}
		n += v
	}
	return n
}
