package web

import (
	"context"
	"math"
	"time"

	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/evidence"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// toolPictures reads a tool's call summaries of the last day by hour for
// the tool page's pictures: calls by outcome group, and the p50/p95 of the
// calls that reached the upstream (internal/evidence) against its timeout.
func (s *Server) toolPictures(ctx context.Context, tool string, t evidence.Tool) (*views.ToolPicturesVM, error) {
	now := s.deps.Store.Now()
	since := now.UTC().Truncate(time.Hour).Add(-(outcomeHours - 1) * time.Hour)
	byHour, err := s.deps.Store.ToolOutcomesByHour(ctx, tool, store.SummaryWindow{Since: since, ByMinute: callsummary.ByMinuteFrom(now)})
	if err != nil {
		return nil, err
	}
	v := &views.ToolPicturesVM{Since: consoleTime(since), TimeoutMS: evidence.Of(t, nil).TimeoutMS}
	for i := range outcomeHours {
		h := since.Add(time.Duration(i) * time.Hour)
		row := views.ToolHourVM{OutcomeHourVM: views.OutcomeHourVM{Label: h.Format("15:04"), Detail: consoleTime(h)},
			P50MS: math.NaN(), P95MS: math.NaN()}
		for _, c := range byHour[h] {
			addOutcome(&row.OutcomeHourVM, c.Decision, c.Class, int(c.Calls))
		}
		e := evidence.Of(t, byHour[h])
		if e.P50.Known {
			row.P50MS, row.P95MS = float64(e.P50.MS), float64(e.P95.MS)
		}
		v.Hours = append(v.Hours, row)
	}
	return v, nil
}
