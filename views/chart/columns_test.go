package chart

import (
	"errors"
	"math"
	"testing"
)

// Columns stack from the base line up, each segment as tall as its share
// of the scale, one column per bucket, oldest on the left; bucket labels
// are thinned to fit apart.
func TestColumns(t *testing.T) {
	var gs []Group
	for i := range 24 {
		gs = append(gs, Group{Label: "h" + Short(float64(i)), Values: []int64{int64(i % 3), 1}})
	}
	l, err := Columns(Stacked{Series: classes, Groups: gs})
	if err != nil {
		t.Fatal(err)
	}
	base := cTop + cPlotH
	slot := (cRight - cLeft) / 24
	sc := NiceScale(3) // the tallest column is 2 + 1
	var last Rect
	for _, r := range l.Rects {
		if r.Y+r.H > base+1e-9 || r.Y < cTop-1e-9 {
			t.Errorf("segment outside the plot: %+v", r)
		}
		last = r
	}
	// The last bucket (23 % 3 = 2, then 1): write sits on read.
	if last.Key != "write" || math.Abs(last.H-sc.Of(1, cPlotH)) > 1e-9 || math.Abs(last.Y+last.H-(base-sc.Of(2, cPlotH))) > 1e-9 {
		t.Errorf("top segment of the last column %+v", last)
	}
	if math.Abs(last.X-(cLeft+23*slot+(slot-last.W)/2)) > 1e-9 {
		t.Errorf("last column at x %v", last.X)
	}
	labels := texts(l, "label")
	if len(labels) == 0 || len(labels) >= 24 || labels[0].S != "h0" {
		t.Fatalf("bucket labels %+v", labels)
	}
	if gap := labels[1].X - labels[0].X; gap < cLabelGap {
		t.Errorf("bucket labels %v apart, want at least %v", gap, cLabelGap)
	}
	// One bucket: a column in the middle, no wider than cMaxBar, its
	// label drawn.
	l, _ = Columns(Stacked{Series: classes, Groups: []Group{{Label: "now", Values: []int64{5, 0}}}})
	if len(l.Rects) != 1 || math.Abs(l.Rects[0].X+l.Rects[0].W/2-(cLeft+cRight)/2) > 1e-9 || l.Rects[0].W != cMaxBar || len(texts(l, "label")) != 1 {
		t.Errorf("one bucket: %+v %+v", l.Rects, texts(l, "label"))
	}
}

// A line breaks at a gap (NaN) and has a point per measured value; the
// scale reaches the reference line, which is drawn with its label.
func TestLine(t *testing.T) {
	nan := math.NaN()
	ls := Lines{Buckets: []string{"a", "b", "c", "d", "e"}, Unit: "ms", Ref: &Reference{Label: "timeout 8000 ms", Value: 8000},
		Series: []LineSeries{{Series: Series{Key: "p50", Label: "p50"}, Values: []float64{120, 140, nan, 90, 100}},
			{Series: Series{Key: "p95", Label: "p95", Pattern: Hatch}, Values: []float64{nan, nan, 900, nan, nan}}}}
	l, err := Line(ls)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Paths) != 3 {
		t.Fatalf("%d runs, want 3 (p50 broken at c, p95 one point)", len(l.Paths))
	}
	if p := l.Paths[0]; len(p.Points) != 2 || p.Points[1].Title != "b · p50: 140 ms" || p.D[0] != 'M' {
		t.Errorf("first run %+v", p)
	}
	if p := l.Paths[2]; p.Key != "p95" || p.Pattern != Hatch || len(p.Points) != 1 {
		t.Errorf("p95 run %+v", p)
	}
	var ref *Rule
	for i := range l.Rules {
		if l.Rules[i].Class == "ref" {
			ref = &l.Rules[i]
		}
	}
	if ref == nil || math.Abs(ref.Y1-(cTop+cPlotH-NiceScale(8000).Of(8000, cPlotH))) > 1e-9 || len(texts(l, "ref")) != 1 {
		t.Errorf("reference line %+v", ref)
	}
	for _, bad := range []Lines{
		{Buckets: []string{"a"}, Series: []LineSeries{{Series: Series{Key: "p50"}, Values: []float64{-1}}}},
		{Buckets: []string{"a"}, Series: []LineSeries{{Series: Series{Key: "p50"}, Values: []float64{math.Inf(1)}}}},
		{Buckets: []string{"a", "b"}, Series: []LineSeries{{Series: Series{Key: "p50"}, Values: []float64{1}}}},
	} {
		if _, err := Line(bad); !errors.Is(err, ErrNegative) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrShape) {
			t.Errorf("Line(%+v) = %v, want a refusal", bad, err)
		}
	}
}
