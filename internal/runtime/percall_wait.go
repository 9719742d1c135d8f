package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/internal/callgate"
)

// awaitDecision long-polls the console while st is pending, up to the
// decision wait (Options.DecisionWait), and returns the last status: still
// pending when nobody decided in time. A client that asked for progress
// notifications gets one at once and then every defaultProgressStep while
// it waits. A call cancelled while it waits ends with the request still
// pending.
func (r *Runtime) awaitDecision(ctx context.Context, st callgate.Status, req callgate.Request) (callgate.Status, error) {
	total := r.opts.DecisionWait
	start := time.Now()
	if st.State == callgate.Pending {
		stop := r.sendProgress(ctx, mcpCallFrom(ctx), start, fmt.Sprintf(
			"waiting for a decision on call request %s (%s): %s", st.ID, req.Mode, st.URL))
		defer stop()
	}
	for st.State == callgate.Pending {
		left := total - time.Since(start)
		if left <= 0 {
			break
		}
		wait := min(left, callgate.MaxWait)
		pctx, cancel := context.WithTimeout(ctx, wait+gateRequestTimeout)
		next, err := r.console.callRequestStatus(pctx, st.ID, wait)
		cancel()
		if ctx.Err() != nil {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		st = next
	}
	return st, nil
}

// sendProgress notifies mc's client of the wait now and every step until
// the returned stop is called; nothing when the client sent no progress
// token.
func (r *Runtime) sendProgress(ctx context.Context, mc *mcpCall, start time.Time, msg string) (stop func()) {
	if mc == nil || mc.req == nil || mc.req.Params == nil || mc.req.Params.GetProgressToken() == nil {
		return func() {}
	}
	step := r.gate.progressStep
	if step <= 0 {
		step = defaultProgressStep
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(step)
		defer t.Stop()
		for {
			mc.progress(ctx, time.Since(start), r.opts.DecisionWait, msg)
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
