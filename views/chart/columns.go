package chart

import (
	"math"
	"strconv"
)

// Geometry of a picture over time (viewBox units): tick labels on the
// left, the plot, bucket labels below it.
const (
	cLeft   = 40.0
	cRight  = Width - 10.0
	cTop    = 10.0
	cPlotH  = 150.0
	cAxisH  = 22.0
	cBarFit = 0.72 // share of a bucket's width its bar takes
	cMaxBar = 28.0 // the widest a column gets, however few buckets
	// cLabelGap is the least room between two bucket labels.
	cLabelGap = 56.0
	// maxBucketLabel is how many runes of a bucket label are drawn.
	maxBucketLabel = 10
)

// Columns lays s out as one stacked column per group, left to right (a
// time series: oldest first), the series stacked from the bottom in their
// order. Bucket labels are drawn as often as they fit apart.
func Columns(s Stacked) (Layout, error) {
	if err := s.check(); err != nil {
		return Layout{}, err
	}
	sc := NiceScale(maxTotal(s.Groups))
	l, slot := frame(len(s.Groups), sc, groupLabels(s.Groups))
	w := min(max(slot*cBarFit, 0.5), cMaxBar)
	for i, g := range s.Groups {
		x := cLeft + float64(i)*slot + (slot-w)/2
		y := cTop + cPlotH
		for j, v := range g.Values {
			if v == 0 {
				continue
			}
			h := sc.Of(float64(v), cPlotH)
			y -= h
			se := s.Series[j]
			l.Rects = append(l.Rects, Rect{X: x, Y: y, W: w, H: h, Key: se.Key, Pattern: se.Pattern,
				Title: g.title() + " · " + se.Label + ": " + strconv.FormatInt(v, 10)})
		}
	}
	return l, nil
}

func groupLabels(gs []Group) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Label
	}
	return out
}

// frame draws what every picture over time has: grid lines and tick
// labels of sc, the base line, and the bucket labels that fit. It returns
// the layout so far and the width of one bucket.
func frame(n int, sc Scale, labels []string) (Layout, float64) {
	l := Layout{Width: Width, Height: cTop + cPlotH + cAxisH}
	base := cTop + cPlotH
	for _, t := range sc.Ticks {
		y := base - sc.Of(t, cPlotH)
		l.Rules = append(l.Rules, Rule{X1: cLeft, Y1: y, X2: cRight, Y2: y, Class: "grid"})
		l.Texts = append(l.Texts, Text{X: cLeft - 6, Y: y + 4, S: Short(t), Anchor: "end", Class: "tick"})
	}
	l.Rules = append(l.Rules, Rule{X1: cLeft, Y1: base, X2: cRight, Y2: base, Class: "axis"})
	if n == 0 {
		return l, 0
	}
	slot := (cRight - cLeft) / float64(n)
	every := max(int(math.Ceil(cLabelGap/slot)), 1)
	for i := 0; i < n; i += every {
		shown, full := Cut(labels[i], maxBucketLabel)
		l.Texts = append(l.Texts, Text{X: cLeft + (float64(i)+0.5)*slot, Y: base + 15, S: shown, Full: full, Anchor: "middle", Class: "label"})
	}
	return l, slot
}
