// Package callsummary is the wire format of call summaries: per tool and
// per minute, how the calls a runtime made ended — counts by decision,
// outcome class and HTTP status, the attempts they used, how many were
// retried, saw a Retry-After or opened the circuit, and a latency
// histogram — sent to the console on the fetch path beside call records
// and stored there in minute, hour and day buckets (README "Call
// summaries"). Summaries stand on their own: they are kept when call
// records are turned off or pruned.
//
// A summary's counts are cumulative for its minute: a runtime sends the
// minute again while calls still end in it, and the console replaces what
// it holds for (runtime instance, minute, tool, decision, class, status).
// A batch sent twice therefore changes nothing.
//
// Versioning (STYLE habit 15): Batch.Schema is "toolgate.call-summaries/v1".
// A compatible addition (a new optional field) keeps it; anything else,
// the latency bounds included, is v2, and a console refuses a schema it
// does not know.
package callsummary

import "time"

// Schema is the batch format this package writes and reads.
const Schema = "toolgate.call-summaries/v1"

// MaxBatch is the most summaries one batch carries (a batch is then at
// most a few tens of KiB).
const MaxBatch = 200

// MaxPrincipals is the most principals one summary names; a summary of
// more calls from more principals names the first MaxPrincipals.
const MaxPrincipals = 16

// LatencyBoundsMS are the upper bounds (inclusive) of the latency
// histogram's buckets, in milliseconds; Summary.Latency has one more
// bucket for calls longer than the last bound.
var LatencyBoundsMS = [...]int64{5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000}

// Buckets is len(Summary.Latency).
const Buckets = len(LatencyBoundsMS) + 1

// Counts are the calls that ended with one decision, class and status:
// one minute's in a summary, a window's as the console reads them.
type Counts struct {
	Decision string `json:"decision"` // a callrecord decision
	Class    string `json:"class"`    // OK or the outcome class
	Status   int    `json:"status,omitempty"`
	Calls    int64  `json:"calls"`
	// Attempts is the requests these calls sent upstream.
	Attempts int64 `json:"attempts"`
	// Retried counts the calls that sent more than one attempt (with
	// class OK: retries that succeeded).
	Retried int64 `json:"retried"`
	// RetryAfter counts the calls on which the upstream sent Retry-After.
	RetryAfter int64 `json:"retry_after"`
	// CircuitOpens counts the calls after which the tool's circuit
	// breaker was open without having refused them (R7).
	CircuitOpens int64 `json:"circuit_opens"`
	// Latency counts the calls by duration: Latency[i] those within
	// LatencyBoundsMS[i] (and above the bound before), the last those
	// longer than every bound.
	Latency [Buckets]int64 `json:"latency"`
}

// Summary is one minute of one tool's calls with the same Counts key.
type Summary struct {
	// Minute is the start of the minute (UTC) in which the calls ended.
	Minute time.Time `json:"minute"`
	Tool   string    `json:"tool"`
	Counts
	// Principals are the distinct principals ("kind:subject", the kind
	// alone without a subject) of these calls, at most MaxPrincipals.
	Principals []string `json:"principals,omitempty"`
}

// Batch is what a runtime sends: POST /api/v1/call-summaries.
type Batch struct {
	Schema    string    `json:"schema"`
	Summaries []Summary `json:"summaries"`
}

// Bucket is the index in Summary.Latency of a call that took d.
func Bucket(d time.Duration) int {
	ms := d.Milliseconds()
	for i, b := range LatencyBoundsMS {
		if ms <= b {
			return i
		}
	}
	return len(LatencyBoundsMS)
}

// Minute is the minute a call ending at t belongs to.
func Minute(t time.Time) time.Time { return t.UTC().Truncate(time.Minute) }

// PrincipalKey is how a summary names a principal.
func PrincipalKey(kind, subject string) string {
	if subject == "" {
		return kind
	}
	return kind + ":" + subject
}

// Retention is how long a console keeps each grain of buckets.
type Retention struct {
	Minutes, Hours, Days time.Duration
}

// DefaultRetention: minutes for two days (the last 24 hours are read by
// minute), hours for 30 days, days for a year.
var DefaultRetention = Retention{Minutes: 48 * time.Hour, Hours: 30 * 24 * time.Hour, Days: 366 * 24 * time.Hour}

// ByMinuteFrom is where a window reading summaries switches from hours to
// minutes: the last 24 hours, by whole hours, are read by minute, since
// the hours before them have been rolled up (hourly) for a day.
func ByMinuteFrom(now time.Time) time.Time { return now.UTC().Add(-24 * time.Hour).Truncate(time.Hour) }
