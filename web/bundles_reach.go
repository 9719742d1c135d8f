package web

import (
	"context"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callsummary"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// reachWindow is how far back the next-bundle preview looks for callers.
const reachWindow = 7 * 24 * time.Hour

// reachRows is, for each tool the changes withdraw or restrict (in that
// order), who called it over reachWindow.
func (s *Server) reachRows(ctx context.Context, ch bundle.Changes) ([]views.ReachRow, error) {
	var rows []views.ReachRow
	for _, t := range ch.ToolsRemoved {
		rows = append(rows, views.ReachRow{Tool: t, Change: "withdrawn"})
	}
	for _, t := range ch.ToolsChanged {
		if t.Restricts() {
			rows = append(rows, views.ReachRow{Tool: t.Tool, Change: "restricted"})
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Tool
	}
	now := s.deps.Store.Now()
	reach, err := s.deps.Store.CallReaches(ctx, names, store.SummaryWindow{Since: now.Add(-reachWindow), ByMinute: callsummary.ByMinuteFrom(now)})
	if err != nil {
		return nil, err
	}
	for i := range rows {
		r := reach[rows[i].Tool]
		rows[i].Calls, rows[i].Principals, rows[i].Runtimes = r.Calls, r.Principals, r.Runtimes
	}
	return rows, nil
}
