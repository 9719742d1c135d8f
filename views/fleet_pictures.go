package views

import (
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/views/chart"
)

// FleetVersionVM counts the runtime instances that run one version.
type FleetVersionVM struct {
	Version   int64 // 0: none yet
	Current   bool
	Instances int
	// Quiet counts those not seen within the stale window.
	Quiet int
}

func (f FleetVersionVM) label() string {
	switch {
	case f.Version == 0:
		return "none yet"
	case f.Current:
		return "v" + i64(f.Version) + " (current)"
	}
	return "v" + i64(f.Version)
}

// fleetPicture draws the fleet by the version each instance runs, newest
// first, split by whether it was seen within the stale window.
func fleetPicture(fleet []FleetVersionVM, staleAfter string) Picture {
	p := Picture{ID: "fleet-picture", Title: "Fleet by bundle version", Kind: BarsPicture, GroupHeading: "Version",
		Bars: chart.Stacked{Series: []chart.Series{{Key: "fresh", Label: "Seen recently"},
			{Key: "stale", Label: "Not seen for " + staleAfter, Pattern: chart.Hatch}}}}
	var parts []string
	total, quiet := 0, 0
	for _, f := range fleet {
		p.Bars.Groups = append(p.Bars.Groups, chart.Group{Label: f.label(), Values: []int64{int64(f.Instances - f.Quiet), int64(f.Quiet)}})
		parts = append(parts, f.label()+" "+itoa(f.Instances))
		total += f.Instances
		quiet += f.Quiet
	}
	p.Desc = itoa(total) + " " + plural(total, "instance", "instances") + " by the version " + plural(total, "it runs", "they run") + ": " +
		strings.Join(parts, ", ") + "; " + itoa(quiet) + " not seen for " + staleAfter + "."
	return p
}

// maxTimeline is how many versions the Bundles timeline shows.
const maxTimeline = 30

// bundlesPicture draws the newest versions, oldest first, each with its
// tools and the tools its publish left out.
func bundlesPicture(history []BundleRow) Picture {
	p := Picture{ID: "bundles-picture", Title: "Versions and their tools", Kind: ColumnsPicture, GroupHeading: "Version",
		Bars: chart.Stacked{Series: []chart.Series{{Key: "tools", Label: "Tools"}, {Key: "withheld", Label: "Left out", Pattern: chart.Hatch}}}}
	shown := history[:min(len(history), maxTimeline)]
	least, most := -1, 0
	for i := len(shown) - 1; i >= 0; i-- {
		b := shown[i]
		v := "v" + i64(b.Version)
		p.Bars.Groups = append(p.Bars.Groups, chart.Group{Label: v, Detail: v + ", " + b.IssuedAt, Values: []int64{int64(b.ToolCount), int64(len(b.Withheld))}})
		most = max(most, b.ToolCount)
		if least < 0 || b.ToolCount < least {
			least = b.ToolCount
		}
	}
	if len(shown) == 0 {
		return p
	}
	cur := shown[0]
	p.Desc = strconv.Itoa(len(shown)) + " " + plural(len(shown), "version", "versions") + ", v" + i64(shown[len(shown)-1].Version) + " to v" + i64(cur.Version) +
		": from " + itoa(least) + " to " + itoa(most) + " tools. The newest, v" + i64(cur.Version) + ", has " + itoa(cur.ToolCount) + " tools and left out " + itoa(len(cur.Withheld)) + "."
	if len(history) > len(shown) {
		p.Desc += " Older versions are in the history below."
	}
	return p
}
