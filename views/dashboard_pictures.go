package views

import (
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/views/chart"
)

// DashboardPicturesVM is what the dashboard's pictures show beyond the
// counts by class it already has.
type DashboardPicturesVM struct {
	// BySource are the sources with the most tools, most first;
	// MoreSources counts those left out.
	BySource    []SourceToolsVM
	MoreSources int
	// Outcomes has one bucket per hour of the window, oldest first;
	// OutcomesSince is when the window starts.
	Outcomes      []OutcomeHourVM
	OutcomesSince string
}

// SourceToolsVM is one source's exposed tools by class and its hidden ones.
type SourceToolsVM struct {
	Source  string
	Exposed map[string]int // by risk class
	Hidden  int
}

// OutcomeHourVM is one hour's calls by outcome group.
type OutcomeHourVM struct {
	Label                                 string // "14:00"
	Detail                                string // "2026-12-02 14:00 UTC"
	OK, Rejected, Failed, Unknown, Denied int
}

func (h OutcomeHourVM) values() []int64 {
	return []int64{int64(h.OK), int64(h.Rejected), int64(h.Failed), int64(h.Unknown), int64(h.Denied)}
}

// riskPatterns: each class has its badge's colour and a pattern of its
// own, so the classes differ without colour too.
var riskPatterns = map[string]string{"READ": chart.Solid, "WRITE": chart.Hatch, "DESTRUCTIVE": chart.Cross, "PRIVILEGED": chart.Dots}

// exposureSeries are the exposed tools of each class, then the hidden ones.
func exposureSeries(classes []DashboardClassVM) []chart.Series {
	var out []chart.Series
	for _, c := range classes {
		out = append(out, chart.Series{Key: strings.ToLower(c.Class), Label: c.Class + " exposed", Pattern: riskPatterns[c.Class]})
	}
	return append(out, chart.Series{Key: "hidden", Label: "Not exposed"})
}

// classesPicture draws the tools of each class, exposed and not, beside
// the table that holds the same numbers.
func classesPicture(m DashboardView) Picture {
	p := Picture{ID: "dash-classes-picture", Title: "Exposure by risk class", Kind: BarsPicture, NumbersIn: "dash-classes",
		Bars: chart.Stacked{Series: exposureSeries(m.Classes)}, Empty: "No tools yet."}
	var parts []string
	for i, c := range m.Classes {
		v := make([]int64, len(m.Classes)+1)
		v[i], v[len(m.Classes)] = int64(c.Exposed), int64(c.Tools-c.Exposed)
		p.Bars.Groups = append(p.Bars.Groups, chart.Group{Label: c.Class, Values: v})
		parts = append(parts, c.Class+" "+itoa(c.Exposed)+" of "+itoa(c.Tools))
	}
	p.Desc = "Of " + itoa(m.ToolsTotal) + " tools, " + itoa(m.ExposedTotal) + " are exposed. Exposed of all, by class: " + strings.Join(parts, ", ") + "."
	return p
}

// sourcesPicture draws each source's tools: exposed by class, then hidden.
func sourcesPicture(m DashboardView) Picture {
	p := Picture{ID: "dash-sources-picture", Title: "Exposure per source", Kind: BarsPicture, GroupHeading: "Source",
		Bars: chart.Stacked{Series: exposureSeries(m.Classes)}, Empty: "No tools yet."}
	var parts []string
	for _, s := range m.Pictures.BySource {
		var v []int64
		exposed := 0
		for _, c := range m.Classes {
			v = append(v, int64(s.Exposed[c.Class]))
			exposed += s.Exposed[c.Class]
		}
		p.Bars.Groups = append(p.Bars.Groups, chart.Group{Label: s.Source, Values: append(v, int64(s.Hidden))})
		parts = append(parts, s.Source+": "+itoa(exposed)+" of "+itoa(exposed+s.Hidden)+" exposed")
	}
	p.Desc = "Tools of each source, exposed by risk class and not exposed. " + strings.Join(parts, "; ") + "."
	if n := m.Pictures.MoreSources; n > 0 {
		p.Desc += " " + itoa(n) + " smaller " + plural(n, "source is", "sources are") + " not shown."
	}
	return p
}

// outcomeSeries are the outcome groups in stacking order.
var outcomeSeries = []chart.Series{{Key: "ok", Label: "OK"}, {Key: "rejected", Label: "Refused as sent", Pattern: chart.Hatch},
	{Key: "failed", Label: "Upstream failed", Pattern: chart.Cross}, {Key: "unknown", Label: "Outcome unknown", Pattern: chart.Dots},
	{Key: "denied", Label: "Denied by the runtime", Pattern: chart.Hatch}}

// outcomesPicture draws the calls of each hour by outcome group; its
// table lists only the hours with calls.
func outcomesPicture(v DashboardPicturesVM) Picture {
	p := Picture{ID: "dash-outcomes-picture", Title: "Call outcomes, last 24 hours", Kind: ColumnsPicture, GroupHeading: "Hour (UTC)",
		Bars: chart.Stacked{Series: outcomeSeries}, SkipZeroRows: true,
		Empty: "No calls recorded since " + v.OutcomesSince + ". Runtimes report each tools/call on their next fetch."}
	totals := make([]int64, len(outcomeSeries))
	var all int64
	var busiest OutcomeHourVM
	var most int64
	for _, h := range v.Outcomes {
		g := chart.Group{Label: h.Label, Detail: h.Detail, Values: h.values()}
		p.Bars.Groups = append(p.Bars.Groups, g)
		for i, n := range g.Values {
			totals[i] += n
		}
		all += g.Total()
		if g.Total() > most {
			busiest, most = h, g.Total()
		}
	}
	var parts []string
	for i, s := range outcomeSeries {
		parts = append(parts, strconv.FormatInt(totals[i], 10)+" "+strings.ToLower(s.Label))
	}
	p.Desc = strconv.FormatInt(all, 10) + " calls since " + v.OutcomesSince + ": " + strings.Join(parts, ", ") + "."
	if busiest.Label != "" {
		p.Desc += " The busiest hour began " + busiest.Detail + "."
	}
	return p
}
