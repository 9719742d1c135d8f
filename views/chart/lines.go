package chart

import (
	"fmt"
	"math"
	"strings"
)

// LineSeries is one measured series over the buckets of a Lines picture
// (a latency percentile, say). A NaN value is a gap: nothing was measured
// in that bucket, and the line breaks there.
type LineSeries struct {
	Series
	Values []float64
}

// Reference is a horizontal line a series is read against (a timeout).
type Reference struct {
	Label string
	Value float64
}

// Lines is the data of a line/point picture over time buckets.
type Lines struct {
	Buckets []string // bucket labels, oldest first
	Series  []LineSeries
	Unit    string     // appended to values in titles: "ms"
	Ref     *Reference // nil when there is none
}

func (ls Lines) check() error {
	if len(ls.Series) == 0 || len(ls.Series) > MaxSeries || len(ls.Buckets) > MaxGroups {
		return fmt.Errorf("%w: %d series, %d buckets", ErrShape, len(ls.Series), len(ls.Buckets))
	}
	for _, se := range ls.Series {
		if err := checkSeries([]Series{se.Series}); err != nil {
			return err
		}
		if len(se.Values) != len(ls.Buckets) {
			return fmt.Errorf("%w: series %q has %d values for %d buckets", ErrShape, se.Key, len(se.Values), len(ls.Buckets))
		}
		for _, v := range se.Values {
			if !math.IsNaN(v) {
				if err := checkValue(v); err != nil {
					return fmt.Errorf("series %q: %w", se.Key, err)
				}
			}
		}
	}
	if ls.Ref != nil {
		return checkValue(ls.Ref.Value)
	}
	return nil
}

// Line lays ls out as one line per series with a point at each measured
// value, on the same frame as Columns; the scale reaches the reference
// line too, so a series is always seen against it.
func Line(ls Lines) (Layout, error) {
	if err := ls.check(); err != nil {
		return Layout{}, err
	}
	top := 0.0
	for _, se := range ls.Series {
		for _, v := range se.Values {
			if !math.IsNaN(v) {
				top = max(top, v)
			}
		}
	}
	if ls.Ref != nil {
		top = max(top, ls.Ref.Value)
	}
	sc := NiceScale(top)
	l, slot := frame(len(ls.Buckets), sc, ls.Buckets)
	base := cTop + cPlotH
	if r := ls.Ref; r != nil {
		y := base - sc.Of(r.Value, cPlotH)
		l.Rules = append(l.Rules, Rule{X1: cLeft, Y1: y, X2: cRight, Y2: y, Class: "ref"})
		l.Texts = append(l.Texts, Text{X: cRight, Y: y - 4, S: r.Label, Anchor: "end", Class: "ref"})
	}
	for _, se := range ls.Series {
		l.Paths = append(l.Paths, runs(se, ls, sc, slot)...)
	}
	return l, nil
}

// runs is one Path per unbroken run of measured values of se.
func runs(se LineSeries, ls Lines, sc Scale, slot float64) []Path {
	var out []Path
	var cur *Path
	for i, v := range se.Values {
		if math.IsNaN(v) {
			cur = nil
			continue
		}
		if cur == nil {
			out = append(out, Path{Key: se.Key, Pattern: se.Pattern})
			cur = &out[len(out)-1]
		}
		x, y := cLeft+(float64(i)+0.5)*slot, cTop+cPlotH-sc.Of(v, cPlotH)
		cur.Points = append(cur.Points, Point{X: x, Y: y, Title: fmt.Sprintf("%s · %s: %s%s", ls.Buckets[i], se.Label, trim(v), unit(ls.Unit))})
	}
	for i := range out {
		var d strings.Builder
		for j, p := range out[i].Points {
			if j == 0 {
				d.WriteString("M")
			} else {
				d.WriteString(" L")
			}
			d.WriteString(num(p.X) + " " + num(p.Y))
		}
		out[i].D = d.String()
	}
	return out
}

func unit(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}
