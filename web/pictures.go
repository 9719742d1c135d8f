package web

import (
	"cmp"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// dashboardSourcesShown is how many sources the dashboard's picture of
// exposure per source draws (those with the most tools).
const dashboardSourcesShown = 10

// outcomeHours is the window of the dashboard's picture of call outcomes:
// this hour and the 23 before it.
const outcomeHours = 24

// dashboardPictures fills what the dashboard's pictures need beyond the
// counts by class: the tools of each source (cached with those counts)
// and the calls of each hour of the window (one bounded, indexed query).
func (s *Server) dashboardPictures(c echo.Context, f *store.DashboardFacts, now time.Time) (views.DashboardPicturesVM, error) {
	v := views.DashboardPicturesVM{}
	srcs := slices.Clone(f.BySource)
	total := func(s store.SourceTools) int {
		n := 0
		for _, k := range s.Tools {
			n += k
		}
		return n
	}
	slices.SortStableFunc(srcs, func(a, b store.SourceTools) int { return cmp.Compare(total(b), total(a)) })
	if len(srcs) > dashboardSourcesShown {
		v.MoreSources, srcs = len(srcs)-dashboardSourcesShown, srcs[:dashboardSourcesShown]
	}
	for _, src := range srcs {
		row := views.SourceToolsVM{Source: src.Source, Exposed: map[string]int{}}
		for _, class := range risk.Classes {
			row.Exposed[class.String()] = src.Exposed[class.String()]
			row.Hidden += src.Tools[class.String()] - src.Exposed[class.String()]
		}
		v.BySource = append(v.BySource, row)
	}
	since := now.UTC().Truncate(time.Hour).Add(-(outcomeHours - 1) * time.Hour)
	counts, err := s.deps.Store.CallOutcomesByHour(c.Request().Context(), since, since.Add(outcomeHours*time.Hour))
	if err != nil {
		return v, err
	}
	v.OutcomesSince = consoleTime(since)
	v.Outcomes = outcomeHoursVM(since, counts)
	return v, nil
}

// outcomeHoursVM puts the counts into one bucket per hour from since,
// grouped by outcome (callrecord.OutcomeOf).
func outcomeHoursVM(since time.Time, counts []store.CallOutcomeCount) []views.OutcomeHourVM {
	out := make([]views.OutcomeHourVM, outcomeHours)
	for i := range out {
		h := since.Add(time.Duration(i) * time.Hour)
		out[i] = views.OutcomeHourVM{Label: h.Format("15:04"), Detail: consoleTime(h)}
	}
	for _, n := range counts {
		i := int(n.Hour.Sub(since) / time.Hour)
		if i < 0 || i >= outcomeHours {
			continue
		}
		addOutcome(&out[i], n.Decision, n.Class, n.Calls)
	}
	return out
}

// addOutcome counts n calls of decision and class into their outcome
// group (callrecord.OutcomeOf).
func addOutcome(b *views.OutcomeHourVM, decision, class string, n int) {
	switch callrecord.OutcomeOf(decision, class) {
	case callrecord.OutcomeOK:
		b.OK += n
	case callrecord.OutcomeRejected:
		b.Rejected += n
	case callrecord.OutcomeUnknown:
		b.Unknown += n
	case callrecord.OutcomeDenied:
		b.Denied += n
	default:
		b.Failed += n
	}
}

// fleetVM is the whole fleet by version for the Runtimes page's picture.
func (s *Server) fleetVM(c echo.Context, current int64, now time.Time) ([]views.FleetVersionVM, error) {
	fleet, err := s.deps.Store.RuntimeFleet(c.Request().Context(), now.Add(-s.pub.staleAfter))
	if err != nil {
		return nil, err
	}
	var out []views.FleetVersionVM
	for _, f := range fleet {
		out = append(out, views.FleetVersionVM{Version: f.Version, Current: f.Version == current && current > 0,
			Instances: f.Instances, Quiet: f.Quiet})
	}
	return out, nil
}
