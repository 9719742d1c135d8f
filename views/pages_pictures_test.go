package views

import (
	"math"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/toolgate/toolgate/internal/testing/htmlcheck"
	"github.com/toolgate/toolgate/views/chart"
)

var textIs = htmlcheck.TextIs

// wantPicture checks what every picture has: an SVG with role img,
// labelled by its <title> and described by its <desc>, and the legend.
func wantPicture(id, title, desc string) check {
	return in("figure[data-testid="+id+"]",
		in("figcaption", textIs(title)),
		in("svg.plot[role=img]", hasAttr("aria-labelledby", id+"-title "+id+"-desc"), scalesToWidth()),
		in("svg > title#"+id+"-title", textIs(title)),
		in("svg > desc#"+id+"-desc", hasText(desc)),
		in("[data-testid="+id+"-legend] li"))
}

// scalesToWidth checks that an SVG has the pictures' viewBox width (and no
// fixed size), so CSS scales it to its box.
func scalesToWidth() check {
	return func(s *goquery.Selection) string {
		vb, _ := s.Attr("viewBox")
		if !strings.HasPrefix(vb, "0 0 480 ") {
			return "viewBox " + vb
		}
		if _, fixed := s.Attr("width"); fixed {
			return "a fixed width"
		}
		return ""
	}
}

// row checks one row of a picture's table: its heading, then its cells.
func row(heading string, cells ...string) check {
	checks := []check{in("th[scope=row]", textIs(heading))}
	for i, c := range cells {
		checks = append(checks, in("td:nth-of-type("+itoa(i+1)+")", textIs(c)))
	}
	return func(s *goquery.Selection) string {
		var last string
		found := false
		s.Find("tbody tr").EachWithBreak(func(_ int, tr *goquery.Selection) bool {
			if strings.TrimSpace(tr.Find("th[scope=row]").Text()) != heading {
				return true
			}
			found = true
			for _, c := range checks {
				if last = c(tr); last != "" {
					return false
				}
			}
			return false
		})
		if !found {
			return "no row " + heading
		}
		return last
	}
}

// A picture draws its segments with their series' classes and patterns,
// cuts a long label but keeps it whole in a <title> and in the table, and
// puts every number in the table; with nothing counted it says so instead;
// data it cannot draw leaves the table alone.
func TestPictureFigure(t *testing.T) {
	long := "organization-administration-" + evil
	p := Picture{ID: "p", Title: "Exposure per source", Desc: "What it shows.", GroupHeading: "Source",
		Bars: chart.Stacked{Series: []chart.Series{{Key: "read", Label: "READ exposed"}, {Key: "hidden", Label: "Not exposed", Pattern: chart.Hatch}},
			Groups: []chart.Group{{Label: long, Values: []int64{3, 4}}, {Label: "orders", Values: []int64{0, 2}}}}}
	htmlcheck.Run(t, render(t, PictureFigure(p)),
		wantPicture("p", "Exposure per source", "What it shows."),
		count("svg.plot rect.seg-read", 1), count("svg.plot rect.seg-hidden", 2), count("svg.plot rect.pat[fill='url(#p-hatch)']", 2),
		in("svg pattern#p-hatch"),
		in("svg text.t-label title", textIs(long)),
		in("svg.plot rect.seg-read title", textIs(long+" · READ exposed: 3")),
		in("[data-testid=p-numbers] thead th:nth-of-type(1)", textIs("Source")),
		in("[data-testid=p-numbers] thead th:nth-of-type(3)", textIs("Not exposed")),
		in("[data-testid=p-numbers]", row(long, "3", "4", "7"), row("orders", "0", "2", "2")),
		none("script"))

	empty := p
	empty.Bars.Groups = []chart.Group{{Label: "a", Values: []int64{0, 0}}}
	empty.Empty = "No tools yet."
	htmlcheck.Run(t, render(t, PictureFigure(empty)), in("[data-testid=p-empty]", textIs("No tools yet.")), none("svg"), none("table"))

	refused := p
	refused.Bars.Groups = []chart.Group{{Label: "a", Values: []int64{-1, 2}}}
	htmlcheck.Run(t, render(t, PictureFigure(refused)), in("[data-testid=p-refused]"), none("svg"),
		in("[data-testid=p-numbers]", row("a", "-1", "2", "1")))

	line := Picture{ID: "lat", Title: "Latency", Desc: "p50 and p95.", Kind: LinePicture, GroupHeading: "Hour",
		Lines: chart.Lines{Buckets: []string{"13:00", "14:00"}, Unit: "ms", Ref: &chart.Reference{Label: "timeout", Value: 8000},
			Series: []chart.LineSeries{{Series: chart.Series{Key: "p50", Label: "p50"}, Values: []float64{120, math.NaN()}},
				{Series: chart.Series{Key: "p95", Label: "p95", Pattern: chart.Hatch}, Values: []float64{900.5, 1200}}}}}
	htmlcheck.Run(t, render(t, PictureFigure(line)), wantPicture("lat", "Latency", "p50 and p95."),
		count("svg path.line-p50", 1), count("svg path.line-p95.dashed", 1), count("svg circle.dot", 3),
		in("svg line.r-ref"), in("svg text.t-ref", textIs("timeout")),
		in("[data-testid=lat-numbers]", row("13:00", "120 ms", "900.5 ms"), row("14:00", "–", "1200 ms")))
}

// The dashboard draws tools by class beside the table that holds their
// numbers, exposure per source and the calls of the last 24 hours, each
// with its numbers; without calls it says so.
func TestDashboardPictures(t *testing.T) {
	m := DashboardView{Page: page("Dashboard"), Roles: []string{"admin"}, Sources: 2, StaleAfter: "10m",
		Classes:    []DashboardClassVM{{Class: "READ", Tools: 10, Exposed: 6}, {Class: "WRITE", Tools: 4}, {Class: "DESTRUCTIVE", Tools: 2, Exposed: 1}, {Class: "PRIVILEGED"}},
		ToolsTotal: 16, ExposedTotal: 7,
		Pictures: DashboardPicturesVM{MoreSources: 3, OutcomesSince: "2026-12-01 15:00 UTC",
			BySource: []SourceToolsVM{{Source: "orders", Exposed: map[string]int{"READ": 5, "DESTRUCTIVE": 1}, Hidden: 6},
				{Source: "admin", Exposed: map[string]int{"READ": 1}, Hidden: 3}},
			Outcomes: []OutcomeHourVM{{Label: "13:00", Detail: "2026-12-02 13:00 UTC"},
				{Label: "14:00", Detail: "2026-12-02 14:00 UTC", OK: 40, Rejected: 2, Failed: 3, Unknown: 1, Denied: 4}}}}
	wantPage(t, DashboardPage(m), "Dashboard",
		wantPicture("dash-classes-picture", "Exposure by risk class", "Of 16 tools, 7 are exposed. Exposed of all, by class: READ 6 of 10, WRITE 0 of 4, DESTRUCTIVE 1 of 2, PRIVILEGED 0 of 0."),
		in("[data-testid=dash-classes-picture-numbers] a[href='#dash-classes']"), in("table#dash-classes"),
		count("[data-testid=dash-classes-picture] svg.plot rect.seg", 5),
		wantPicture("dash-sources-picture", "Exposure per source", "orders: 6 of 12 exposed; admin: 1 of 4 exposed. 3 smaller sources are not shown."),
		in("[data-testid=dash-sources-picture-numbers]", row("orders", "5", "0", "1", "0", "6", "12"), row("admin", "1", "0", "0", "0", "3", "4")),
		count("[data-testid=dash-sources-picture] svg.plot rect.seg-destructive", 1),
		wantPicture("dash-outcomes-picture", "Call outcomes, last 24 hours",
			"50 calls since 2026-12-01 15:00 UTC: 40 ok, 2 refused as sent, 3 upstream failed, 1 outcome unknown, 4 denied by the runtime. The busiest hour began 2026-12-02 14:00 UTC."),
		count("[data-testid=dash-outcomes-picture-numbers] tbody tr", 1),
		in("[data-testid=dash-outcomes-picture-numbers]", row("2026-12-02 14:00 UTC", "40", "2", "3", "1", "4", "50")),
		in("a[href='/calls']"))

	quiet := m
	quiet.Pictures.Outcomes = []OutcomeHourVM{{Label: "13:00"}, {Label: "14:00"}}
	wantPage(t, DashboardPage(quiet), "Dashboard",
		in("[data-testid=dash-outcomes-picture-empty]", hasText("No calls recorded since 2026-12-01 15:00 UTC.")),
		none("[data-testid=dash-outcomes-picture] svg"))
}

// The Runtimes page draws the whole fleet by version, fresh and quiet;
// the Bundles page draws its versions oldest first with their tools and
// those left out.
func TestFleetAndBundlesPictures(t *testing.T) {
	rt := RuntimesView{Page: page("Runtimes"), StaleAfter: "10m0s", CurrentVersion: 5, Total: 4, PageNo: 1, Pages: 1,
		Runtimes: []RuntimeRow{{Name: "a", InstanceID: "i", Version: 5}},
		Fleet:    []FleetVersionVM{{Version: 5, Current: true, Instances: 3, Quiet: 1}, {Version: 4, Instances: 1}}}
	wantPage(t, RuntimesPage(rt), "Runtimes",
		wantPicture("fleet-picture", "Fleet by bundle version", "4 instances by the version they run: v5 (current) 3, v4 1; 1 not seen for 10m0s."),
		in("[data-testid=fleet-picture-numbers]", row("v5 (current)", "2", "1", "3"), row("v4", "1", "0", "1")),
		in("[data-testid=fleet-picture-numbers] table.keep"))
	noFleet := RuntimesView{Page: page("Runtimes"), StaleAfter: "10m0s", PageNo: 1, Pages: 1}
	wantPage(t, RuntimesPage(noFleet), "Runtimes", none("[data-testid=fleet-picture]"))

	history := []BundleRow{{Version: 3, IssuedAt: "2026-12-02 10:00 UTC", ToolCount: 12, Withheld: []WithheldRow{{Tool: "x", Reason: "r"}}},
		{Version: 2, IssuedAt: "2026-12-01 10:00 UTC", ToolCount: 9}, {Version: 1, IssuedAt: "2026-11-30 10:00 UTC", ToolCount: 3}}
	b := BundlesView{Page: page("Bundles"), History: history, Current: &history[0]}
	wantPage(t, BundlesPage(b), "Bundles",
		wantPicture("bundles-picture", "Versions and their tools", "3 versions, v1 to v3: from 3 to 12 tools. The newest, v3, has 12 tools and left out 1."),
		in("[data-testid=bundles-picture-numbers] tbody tr:first-child th", textIs("v1, 2026-11-30 10:00 UTC")),
		in("[data-testid=bundles-picture-numbers]", row("v3, 2026-12-02 10:00 UTC", "12", "1", "13")),
		count("[data-testid=bundles-picture] svg.plot rect.seg-tools", 3), count("[data-testid=bundles-picture] svg.plot rect.seg-withheld", 1))
}

// The tool page draws the last day by hour below its evidence table: the
// calls by outcome group, and p50/p95 against the timeout with gaps where
// no call reached the upstream; a tool without calls has neither.
func TestToolPictures(t *testing.T) {
	hours := []ToolHourVM{
		{OutcomeHourVM: OutcomeHourVM{Label: "13:00", Detail: "2026-12-02 13:00 UTC", OK: 3, Failed: 1}, P50MS: 50, P95MS: 250},
		{OutcomeHourVM: OutcomeHourVM{Label: "14:00", Detail: "2026-12-02 14:00 UTC", Denied: 2}, P50MS: math.NaN(), P95MS: math.NaN()},
	}
	m := OutcomesVM{Anchor: "outcomes-get_order", Timeout: "2 s",
		Windows:  []OutcomeWindowVM{{Key: "24h", Label: "Last 24 hours", Calls: 6}},
		Pictures: &ToolPicturesVM{Hours: hours, Since: "2026-12-01 15:00 UTC", TimeoutMS: 2000}}
	htmlcheck.Run(t, render(t, ToolOutcomes(m)),
		wantPicture("outcomes-get_order-mix-picture", "Outcomes by hour, last 24 hours",
			"6 calls since 2026-12-01 15:00 UTC: 3 ok, 1 upstream failed, 2 denied by the runtime."),
		in("[data-testid=outcomes-get_order-mix-picture-numbers]", row("2026-12-02 13:00 UTC", "3", "0", "1", "0", "0", "4"),
			row("2026-12-02 14:00 UTC", "0", "0", "0", "0", "2", "2")),
		wantPicture("outcomes-get_order-latency-picture", "Latency by hour, last 24 hours", "the highest hourly p95 is 250 ms"),
		in("[data-testid=outcomes-get_order-latency-picture] svg text.t-ref", textIs("timeout")),
		in("[data-testid=outcomes-get_order-latency-picture-numbers]", row("13:00", "50 ms", "250 ms"), row("14:00", "–", "–")))
	m.Windows[0].Calls = 0
	htmlcheck.Run(t, render(t, ToolOutcomes(m)), in("[data-testid=no-outcomes]"), none("[data-testid=tool-pictures]"))
}
