package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/principal"
)

// Call records (README "Call records"): every tools/call decision is
// buffered in memory and sent to the console on the fetch path, at most
// callrecord.MaxBatch a request and maxRecordBatches requests a fetch.
// While the console is away the buffer holds at most maxBufferedRecords;
// beyond it the oldest are dropped and counted
// (toolgate_runtime_call_records_dropped_total).
const (
	maxBufferedRecords = 10000
	maxRecordBatches   = 20
)

// callRecords is the runtime's buffer of records not yet delivered.
type callRecords struct {
	mu      sync.Mutex
	pending []callrecord.Record
	dropped prometheus.Counter
}

func newCallRecords(reg *prometheus.Registry) *callRecords {
	c := &callRecords{dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_runtime_call_records_dropped_total",
		Help: "Call records not delivered to the console: the oldest, dropped while the buffer was full, or refused by the console."})}
	reg.MustRegister(c.dropped)
	return c
}

// add buffers rec, dropping the oldest when full.
func (c *callRecords) add(rec callrecord.Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if over := len(c.pending) + 1 - maxBufferedRecords; over > 0 {
		c.pending = c.pending[over:]
		c.dropped.Add(float64(over))
	}
	c.pending = append(c.pending, rec)
}

// take removes and returns up to n of the oldest records.
func (c *callRecords) take(n int) []callrecord.Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	n = min(n, len(c.pending))
	out := append([]callrecord.Record(nil), c.pending[:n]...)
	c.pending = c.pending[n:]
	return out
}

// giveBack puts records that could not be sent back in front, as far as
// the buffer has room (the newest records win over the oldest).
func (c *callRecords) giveBack(recs []callrecord.Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := maxBufferedRecords - len(c.pending)
	if room < len(recs) {
		c.dropped.Add(float64(len(recs) - max(room, 0)))
		recs = recs[len(recs)-max(room, 0):]
	}
	c.pending = append(recs, c.pending...)
}

// recordCall buffers the record of one finished call: its decision,
// outcome, principal, the tool's definition digest and the digest of its
// arguments (never the arguments). Without a console nobody would read
// it, so nothing is kept.
func (r *Runtime) recordCall(ctx context.Context, res *executor.Result, args map[string]any, decision string) {
	if r.console == nil {
		return
	}
	class := ClassOK
	if res.Err != nil {
		class = string(res.Err.Class)
	}
	if decision == "" {
		decision = callrecord.DecisionOf(class)
	}
	r.summarizeCall(ctx, res, decision, class)
	digest, err := callrecord.ArgumentsDigest(args)
	if err != nil {
		r.log.Warn("call record: arguments digest", "tool", res.Tool, "err", err)
		return
	}
	p := principal.FromContext(ctx)
	rec := callrecord.Record{ID: callrecord.NewID(), Tool: res.Tool, ArgumentsDigest: digest,
		Principal: callrecord.Principal{Kind: string(p.Kind), Subject: p.Subject, ClientID: p.ClientID},
		Decision:  decision, Class: class, Status: res.Status, Attempts: res.Attempts,
		At: r.opts.Now().Add(-res.Duration), DurationMS: res.Duration.Milliseconds()}
	if rec.Principal.Kind == "" {
		rec.Principal.Kind = string(principal.Anonymous)
	}
	if s := r.snap.Load(); s != nil {
		if t, ok := s.tools[res.Tool]; ok {
			rec.DefinitionDigest = t.Digest
		}
	}
	r.records.add(rec)
}

// sendCallRecords delivers buffered records to the console, a batch at a
// time, until the buffer is empty, a request fails (the batch goes back,
// the next fetch tries again) or maxRecordBatches were sent. A batch the
// console refuses as invalid would be refused again: it is dropped and
// counted.
//
// The minutes' call summaries go first (summaries_send.go): they are
// smaller, and they are what the tool pages read.
func (r *Runtime) sendCallRecords(ctx context.Context) {
	if r.console == nil {
		return
	}
	r.sendCallSummaries(ctx)
	for range maxRecordBatches {
		batch := r.records.take(callrecord.MaxBatch)
		if len(batch) == 0 {
			return
		}
		refused, err := r.console.postCallRecords(ctx, batch)
		if refused {
			r.records.dropped.Add(float64(len(batch)))
			r.log.Warn("the console refused call records; dropped", "count", len(batch), "err", err)
			continue
		}
		if err != nil {
			r.records.giveBack(batch)
			r.log.Warn("sending call records failed; kept for the next fetch", "count", len(batch), "err", err)
			return
		}
	}
}

// postCallRecords is POST /api/v1/call-records. refused reports a 400
// (the console will never take this batch).
func (c *console) postCallRecords(ctx context.Context, recs []callrecord.Record) (refused bool, err error) {
	body, err := json.Marshal(callrecord.Batch{Schema: callrecord.Schema, Records: recs})
	if err != nil {
		return true, fmt.Errorf("call records: %w", err)
	}
	return c.postBatch(ctx, "/api/v1/call-records", body)
}
