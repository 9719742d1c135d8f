package views

import (
	"math"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/views/chart"
)

// ToolHourVM is one hour of a tool's calls: by outcome group, and the
// latency percentiles of the calls that reached the upstream (NaN when
// none did).
type ToolHourVM struct {
	OutcomeHourVM
	P50MS, P95MS float64
}

// ToolPicturesVM is what a tool page's pictures draw: the hours of the
// last day, oldest first, and the attempt timeout latency is read against.
type ToolPicturesVM struct {
	Hours     []ToolHourVM
	Since     string
	TimeoutMS int
}

// toolOutcomesPicture draws the tool's calls of each hour by outcome group.
func toolOutcomesPicture(m OutcomesVM) Picture {
	v := m.Pictures
	p := Picture{ID: m.Anchor + "-mix-picture", Title: "Outcomes by hour, last 24 hours", Kind: ColumnsPicture,
		GroupHeading: "Hour (UTC)", Bars: chart.Stacked{Series: outcomeSeries}, SkipZeroRows: true,
		Empty: "No calls of this tool since " + v.Since + "."}
	totals := make([]int64, len(outcomeSeries))
	var all int64
	for _, h := range v.Hours {
		g := chart.Group{Label: h.Label, Detail: h.Detail, Values: h.values()}
		p.Bars.Groups = append(p.Bars.Groups, g)
		for i, n := range g.Values {
			totals[i] += n
		}
		all += g.Total()
	}
	var parts []string
	for i, s := range outcomeSeries {
		if totals[i] > 0 {
			parts = append(parts, strconv.FormatInt(totals[i], 10)+" "+strings.ToLower(s.Label))
		}
	}
	p.Desc = strconv.FormatInt(all, 10) + " calls since " + v.Since
	if len(parts) > 0 {
		p.Desc += ": " + strings.Join(parts, ", ")
	}
	p.Desc += "."
	return p
}

// latencySeries are the percentiles a tool's latency picture draws.
var latencySeries = []chart.Series{{Key: "p50", Label: "p50"}, {Key: "p95", Label: "p95", Pattern: chart.Dots}}

// toolLatencyPicture draws the hourly p50 and p95 against the timeout;
// hours without upstream calls are gaps.
func toolLatencyPicture(m OutcomesVM) Picture {
	v := m.Pictures
	ls := chart.Lines{Unit: "ms", Ref: &chart.Reference{Label: "timeout", Value: float64(v.TimeoutMS)}}
	p50 := chart.LineSeries{Series: latencySeries[0]}
	p95 := chart.LineSeries{Series: latencySeries[1]}
	worst, measured := 0.0, 0
	for _, h := range v.Hours {
		ls.Buckets = append(ls.Buckets, h.Label)
		p50.Values, p95.Values = append(p50.Values, h.P50MS), append(p95.Values, h.P95MS)
		if !math.IsNaN(h.P95MS) {
			measured++
			worst = math.Max(worst, h.P95MS)
		}
	}
	ls.Series = []chart.LineSeries{p50, p95}
	p := Picture{ID: m.Anchor + "-latency-picture", Title: "Latency by hour, last 24 hours", Kind: LinePicture,
		GroupHeading: "Hour (UTC)", Lines: ls, Empty: "No call of this tool reached the upstream since " + v.Since + "."}
	p.Desc = "p50 and p95 latency (upper histogram bounds) of each hour with calls that reached the upstream, against the " +
		strconv.Itoa(v.TimeoutMS) + " ms attempt timeout."
	if measured > 0 {
		p.Desc += " " + strconv.Itoa(measured) + " " + plural(measured, "hour", "hours") + " measured; the highest hourly p95 is " +
			strconv.FormatFloat(worst, 'f', -1, 64) + " ms."
	}
	return p
}
