package web

import (
	"context"
	"time"

	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/evidence"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// outcomeWindows are the windows a tool's call evidence is shown for.
var outcomeWindows = []struct {
	key, label string
	length     time.Duration
}{
	{"24h", "Last 24 hours", 24 * time.Hour},
	{"7d", "Last 7 days", 7 * 24 * time.Hour},
}

// toolOutcomes reads a tool's call summaries over each window and turns
// them into its evidence (internal/evidence): the tool page and a retry
// change request show it.
func (s *Server) toolOutcomes(ctx context.Context, tool string, t evidence.Tool) (*views.OutcomesVM, error) {
	now := s.deps.Store.Now()
	m := &views.OutcomesVM{Anchor: "outcomes-" + tool}
	for _, win := range outcomeWindows {
		counts, err := s.deps.Store.CallOutcomes(ctx, tool, store.SummaryWindow{Since: now.Add(-win.length), ByMinute: callsummary.ByMinuteFrom(now)})
		if err != nil {
			return nil, err
		}
		e := evidence.Of(t, counts)
		m.RetryOff, m.Mutation = e.RetryOff, e.Mutation
		m.Timeout = formatDuration(time.Duration(e.TimeoutMS) * time.Millisecond)
		m.Windows = append(m.Windows, outcomeWindowVM(win.key, win.label, e))
	}
	return m, nil
}

func outcomeWindowVM(key, label string, e evidence.Window) views.OutcomeWindowVM {
	w := views.OutcomeWindowVM{Key: key, Label: label, Calls: e.Calls, Covered: e.Covered, Retried: e.Retried,
		RetrySucceeded: e.RetrySucceeded, RetryAfter: e.RetryAfter, Unknown: e.Unknown, CircuitOpens: e.CircuitOpens,
		P50: latencyText(e.P50), P95: latencyText(e.P95), Slow: e.P95.Known && (e.P95.Over || e.P95.MS >= int64(e.TimeoutMS))}
	for _, sh := range e.Mix {
		w.Mix = append(w.Mix, views.OutcomeShareVM{Class: sh.Class, Calls: sh.Calls, Percent: int(sh.Calls * 100 / max(e.Calls, 1))})
	}
	return w
}

// latencyText is a histogram percentile: "≤ 25 ms", "> 30 s", "–".
func latencyText(l evidence.Latency) string {
	switch {
	case !l.Known:
		return "–"
	case l.Over:
		return "> " + formatDuration(time.Duration(l.MS)*time.Millisecond)
	}
	return "≤ " + formatDuration(time.Duration(l.MS)*time.Millisecond)
}
