// Package chart computes the geometry of the console's pictures: stacked
// bars (horizontal, one row per category; or columns, one per time
// bucket) and line/point series, in the units of an SVG viewBox, from
// typed data. It draws nothing: views/chart.templ turns a Layout into SVG,
// so what is placed where is tested here as plain numbers.
//
// Rules every layout follows:
//   - a value is a count or a measure, never negative, at most MaxValue:
//     anything else is refused with an error (the page then shows its
//     table alone), never drawn wrong;
//   - every series has a key (a CSS class suffix: lower-case letters,
//     digits and '-') and a label; colour comes from the key, the pattern
//     from Series.Pattern, so colour is never the only cue;
//   - category labels longer than MaxLabel runes are cut with "…" and keep
//     the whole text in Text.Full (shown as an SVG <title>);
//   - a picture with nothing to count has no bars, a zero scale and no NaN.
package chart

import (
	"errors"
	"fmt"
	"regexp"
)

// Limits of what one picture takes.
const (
	// MaxValue is the largest value drawn: larger ones are refused (a
	// sum of MaxGroups of them still fits an int64 and a float64 exactly).
	MaxValue = 1 << 50
	// MaxGroups is the most bars (categories or time buckets) a picture has.
	MaxGroups = 400
	// MaxSeries is the most series a picture stacks or draws.
	MaxSeries = 12
	// MaxLabel is how many runes of a category label are drawn.
	MaxLabel = 16
)

// Width is the viewBox width of every picture; CSS scales it to the page.
const Width = 480

// Patterns a series may carry on top of its colour.
const (
	Solid = ""
	Hatch = "hatch" // diagonal lines
	Dots  = "dots"
	Cross = "cross" // cross-hatch
)

// Series is one stacked part (or one line) of a picture.
type Series struct {
	Key     string // CSS class suffix: seg-KEY
	Label   string // legend and table column
	Pattern string // Solid, Hatch, Dots or Cross
}

// Group is one bar: a category (a source, a version) or a time bucket,
// with one value per series, in the order of Stacked.Series.
type Group struct {
	Label string
	// Detail, when set, is the group's full description for its <title>
	// ("v5, published 2026-12-01 10:00 UTC"); Label otherwise.
	Detail string
	Values []int64
}

// Stacked is the data of a stacked-bar picture.
type Stacked struct {
	Series []Series
	Groups []Group
}

// Errors a layout returns for data it will not draw.
var (
	ErrNegative = errors.New("chart: a value is negative")
	ErrTooLarge = errors.New("chart: a value is larger than chart.MaxValue")
	ErrShape    = errors.New("chart: the data does not fit the picture")
)

var keyRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// check refuses data a layout cannot draw honestly.
func (s Stacked) check() error {
	if len(s.Series) == 0 || len(s.Series) > MaxSeries || len(s.Groups) > MaxGroups {
		return fmt.Errorf("%w: %d series, %d groups", ErrShape, len(s.Series), len(s.Groups))
	}
	if err := checkSeries(s.Series); err != nil {
		return err
	}
	for _, g := range s.Groups {
		if len(g.Values) != len(s.Series) {
			return fmt.Errorf("%w: group %q has %d values for %d series", ErrShape, g.Label, len(g.Values), len(s.Series))
		}
		for _, v := range g.Values {
			if err := checkValue(float64(v)); err != nil {
				return fmt.Errorf("group %q: %w", g.Label, err)
			}
		}
	}
	return nil
}

func checkSeries(series []Series) error {
	for _, se := range series {
		if !keyRE.MatchString(se.Key) {
			return fmt.Errorf("%w: series key %q", ErrShape, se.Key)
		}
		switch se.Pattern {
		case Solid, Hatch, Dots, Cross:
		default:
			return fmt.Errorf("%w: pattern %q", ErrShape, se.Pattern)
		}
	}
	return nil
}

func checkValue(v float64) error {
	switch {
	case v < 0:
		return ErrNegative
	case v > MaxValue || v != v:
		return ErrTooLarge
	}
	return nil
}

// Total is the sum of g's values (MaxValue bounds each, so it cannot
// overflow).
func (g Group) Total() int64 {
	var n int64
	for _, v := range g.Values {
		n += v
	}
	return n
}

// Empty reports whether every value of s is zero (or there are none).
func (s Stacked) Empty() bool {
	for _, g := range s.Groups {
		if g.Total() != 0 {
			return false
		}
	}
	return true
}

// Rect is one drawn segment (or a legend-free bar) in viewBox units.
type Rect struct {
	X, Y, W, H float64
	Key        string // series key
	Pattern    string
	Title      string // "orders · READ exposed: 3"
}

// Text is one label: a category, a total, a tick.
type Text struct {
	X, Y   float64
	S      string // what is drawn
	Full   string // the whole label when S was cut; "" otherwise
	Anchor string // start, middle or end
	Class  string // label, total, tick
}

// Rule is a grid line, an axis or a reference line.
type Rule struct {
	X1, Y1, X2, Y2 float64
	Class          string // grid, axis, ref
}

// Path is one line series (or one unbroken run of it) with its points.
type Path struct {
	Key     string
	Pattern string // Solid, or Hatch for a dashed line
	D       string // SVG path data, "M x y L x y ..."
	Points  []Point
}

// Point is one drawn value of a line series.
type Point struct {
	X, Y  float64
	Title string
}

// Layout is a picture's geometry: the viewBox and what is drawn in it.
type Layout struct {
	Width, Height float64
	Rects         []Rect
	Texts         []Text
	Rules         []Rule
	Paths         []Path
}

// ViewBox is the SVG viewBox attribute.
func (l Layout) ViewBox() string {
	return "0 0 " + num(l.Width) + " " + num(l.Height)
}
