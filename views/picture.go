package views

import (
	"math"
	"strconv"

	"github.com/toolgate/toolgate/views/chart"
)

// PictureKind is how a picture lays its data out.
type PictureKind int

// The kinds of picture (views/chart computes each one's geometry).
const (
	// BarsPicture: one horizontal stacked bar per category.
	BarsPicture PictureKind = iota
	// ColumnsPicture: one stacked column per time bucket, oldest first.
	ColumnsPicture
	// LinePicture: a line and points per series over time buckets.
	LinePicture
)

// Picture is one server-drawn SVG chart with its title, its text
// alternative and its numbers: the SVG is role="img", labelled by its
// <title> and described by its <desc>; the numbers are a table beside it
// (its own, in a <details>, or one the page already shows: NumbersIn).
type Picture struct {
	// ID is the figure's data-testid and the prefix of its element ids.
	ID    string
	Title string
	// Desc says in words what the picture shows (its text alternative).
	Desc string
	Kind PictureKind
	// Bars is the data of BarsPicture and ColumnsPicture, Lines of
	// LinePicture.
	Bars  chart.Stacked
	Lines chart.Lines
	// GroupHeading names the table's first column ("Source", "Hour").
	GroupHeading string
	// NumbersIn is the id of a table on the page holding these numbers;
	// "" renders the picture's own table.
	NumbersIn string
	// Empty, when set, is shown instead of the picture while there is
	// nothing to count.
	Empty string
	// SkipZeroRows leaves groups with nothing counted out of the table
	// (the hours without calls).
	SkipZeroRows bool
}

// layout computes the picture's geometry; an error means the data cannot
// be drawn honestly, and only the numbers are shown.
func (p Picture) layout() (chart.Layout, error) {
	switch p.Kind {
	case ColumnsPicture:
		return chart.Columns(p.Bars)
	case LinePicture:
		return chart.Line(p.Lines)
	}
	return chart.Horizontal(p.Bars)
}

// isEmpty reports whether the picture has nothing to show and says so.
func (p Picture) isEmpty() bool {
	if p.Empty == "" {
		return false
	}
	if p.Kind == LinePicture {
		for _, s := range p.Lines.Series {
			for _, v := range s.Values {
				if !math.IsNaN(v) {
					return false
				}
			}
		}
		return true
	}
	return p.Bars.Empty()
}

// series is what the legend lists.
func (p Picture) series() []chart.Series {
	if p.Kind == LinePicture {
		var out []chart.Series
		for _, s := range p.Lines.Series {
			out = append(out, s.Series)
		}
		return out
	}
	return p.Bars.Series
}

func (p Picture) part(name string) string { return p.ID + "-" + name }

// patternURL is the fill of a series' pattern overlay.
func (p Picture) patternURL(pattern string) string { return "url(#" + p.part(pattern) + ")" }

// compactTable: a table of up to four columns keeps its rows and columns
// on a phone; a wider one becomes labelled cards.
func (p Picture) compactTable() bool { return len(p.series()) <= 2 }

// lineValue writes the measured value of bucket i for the table ("–"
// for a gap, or when a refused series has none).
func lineValue(vs []float64, i int, unit string) string {
	if i >= len(vs) || math.IsNaN(vs[i]) {
		return "–"
	}
	v := vs[i]
	s := strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	if unit != "" {
		s += " " + unit
	}
	return s
}

func groupName(g chart.Group) string {
	if g.Detail != "" {
		return g.Detail
	}
	return g.Label
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

// valueAt writes g's value of series i ("–" when a refused group has none).
func valueAt(g chart.Group, i int) string {
	if i >= len(g.Values) {
		return "–"
	}
	return i64(g.Values[i])
}
