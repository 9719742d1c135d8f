package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/principal"
)

// summarizeCall counts one finished call (summaries.go) when it is on a
// tool of the bundle in force: names an agent made up are not counted,
// so they cannot crowd out the tools' own counts.
func (r *Runtime) summarizeCall(ctx context.Context, res *executor.Result, decision, class string) {
	s := r.snap.Load()
	if s == nil || s.tools[res.Tool] == nil {
		return
	}
	p := principal.FromContext(ctx)
	kind := string(p.Kind)
	if kind == "" {
		kind = string(principal.Anonymous)
	}
	opened := false
	if res.Err != nil && res.Err.Class != executor.ClassCircuitOpen && res.Attempts > 0 {
		state, ok := s.exec.BreakerState(res.Tool)
		opened = ok && state == executor.BreakerOpen
	}
	r.summaries.add(callOutcome{at: r.opts.Now(), tool: res.Tool, decision: decision, class: class,
		principal: callsummary.PrincipalKey(kind, p.Subject), status: res.Status, attempts: res.Attempts,
		retryAfter: res.RetryAfter, circuitOpened: opened, duration: res.Duration})
}

// sendCallSummaries delivers the summaries that changed, a batch at a
// time, until none is left, a request fails (they stay for the next
// fetch) or maxSummaryBatches were sent. A batch the console refuses as
// invalid would be refused again: it counts as delivered, and dropped.
func (r *Runtime) sendCallSummaries(ctx context.Context) {
	if r.console == nil {
		return
	}
	for range maxSummaryBatches {
		batch, taken := r.summaries.take(callsummary.MaxBatch, r.opts.Now())
		if len(batch) == 0 {
			return
		}
		refused, err := r.console.postCallSummaries(ctx, batch)
		if err != nil && !refused {
			r.log.Warn("sending call summaries failed; kept for the next fetch", "count", len(batch), "err", err)
			return
		}
		r.summaries.delivered(taken)
		if refused {
			r.summaries.dropped.Add(float64(len(batch)))
			r.log.Warn("the console refused call summaries; dropped", "count", len(batch), "err", err)
		}
	}
}

// postCallSummaries is POST /api/v1/call-summaries (postBatch).
func (c *console) postCallSummaries(ctx context.Context, sums []callsummary.Summary) (refused bool, err error) {
	body, err := json.Marshal(callsummary.Batch{Schema: callsummary.Schema, Summaries: sums})
	if err != nil {
		return true, fmt.Errorf("call summaries: %w", err)
	}
	return c.postBatch(ctx, "/api/v1/call-summaries", body)
}

// postBatch posts a batch of call records or summaries with the token
// and this runtime's name and instance id. refused reports a 400 or 413:
// the console will never take this batch.
func (c *console) postBatch(ctx context.Context, path string, body []byte) (refused bool, err error) {
	what := strings.TrimPrefix(path, "/api/v1/")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderRuntimeName, c.name)
	req.Header.Set(HeaderInstanceID, c.id)
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	msg, _ := readLimited(resp.Body, 4<<10)
	switch {
	case resp.StatusCode == http.StatusNoContent:
		return false, nil
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusRequestEntityTooLarge:
		return true, fmt.Errorf("%s: console answered %s: %s", what, resp.Status, msg)
	default:
		return false, fmt.Errorf("%s: console answered %s", what, resp.Status)
	}
}
