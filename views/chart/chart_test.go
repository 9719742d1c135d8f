package chart

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

var classes = []Series{{Key: "read", Label: "READ"}, {Key: "write", Label: "WRITE", Pattern: Hatch}}

// NiceScale rounds the largest value up to a 1-2-5 step with 0 as the
// first tick and the top as the last; nothing to count is a zero scale
// that divides by nothing.
func TestNiceScale(t *testing.T) {
	tests := []struct {
		max   float64
		top   float64
		ticks []float64
	}{
		{0, 1, []float64{0}},
		{-3, 1, []float64{0}},
		{math.NaN(), 1, []float64{0}},
		{1, 1, []float64{0, 1}},
		{3, 3, []float64{0, 1, 2, 3}},
		{7, 8, []float64{0, 2, 4, 6, 8}},
		{10, 10, []float64{0, 5, 10}},
		{97, 100, []float64{0, 50, 100}},
		{130, 150, []float64{0, 50, 100, 150}}, // 130/4 = 32.5: step 50
		{1234, 1500, []float64{0, 500, 1000, 1500}},
	}
	for _, tt := range tests {
		sc := NiceScale(tt.max)
		if sc.Max != tt.top || !slices.Equal(sc.Ticks, tt.ticks) {
			t.Errorf("NiceScale(%v) = %v %v, want %v %v", tt.max, sc.Max, sc.Ticks, tt.top, tt.ticks)
		}
		if sc.Ticks[len(sc.Ticks)-1] > sc.Max || sc.Max < tt.max {
			t.Errorf("NiceScale(%v): ticks past the top or top below the data", tt.max)
		}
	}
	if got := []string{Short(950), Short(12000), Short(1_500_000), Short(2.5e9)}; !slices.Equal(got, []string{"950", "12k", "1.5M", "2.5G"}) {
		t.Errorf("Short: %v", got)
	}
}

// One bar: its segments are side by side from the bar's start, each as
// long as its share of the scale, with the total after the bar; a zero
// value draws no segment.
func TestHorizontalOneBar(t *testing.T) {
	l, err := Horizontal(Stacked{Series: classes, Groups: []Group{{Label: "orders", Values: []int64{3, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Rects) != 2 {
		t.Fatalf("%d segments, want 2", len(l.Rects))
	}
	r, w := l.Rects[0], l.Rects[1]
	// Scale of 4 is 0..4: the bar fills the bar area.
	if r.X != hBarX || math.Abs(r.W-hBarW*3/4) > 1e-9 || w.X != r.X+r.W || math.Abs(w.W-hBarW/4) > 1e-9 {
		t.Errorf("segments %+v %+v", r, w)
	}
	if r.Key != "read" || w.Key != "write" || w.Pattern != Hatch || w.Title != "orders · WRITE: 1" {
		t.Errorf("segment keys or titles: %+v %+v", r, w)
	}
	if tot := texts(l, "total"); len(tot) != 1 || tot[0].S != "4" || tot[0].X != w.X+w.W+4 {
		t.Errorf("totals %+v", tot)
	}
	if l.Height != hTop+hRowH+hAxisH || l.ViewBox() != "0 0 480 54" {
		t.Errorf("height %v, viewBox %q", l.Height, l.ViewBox())
	}
	l, _ = Horizontal(Stacked{Series: classes, Groups: []Group{{Label: "a", Values: []int64{0, 2}}}})
	if len(l.Rects) != 1 || l.Rects[0].Key != "write" || l.Rects[0].X != hBarX {
		t.Errorf("a zero value drew a segment: %+v", l.Rects)
	}
}

// Nothing to count: no segment, every total 0, one grid line at 0, and no
// coordinate is NaN.
func TestZeroTotals(t *testing.T) {
	s := Stacked{Series: classes, Groups: []Group{{Label: "a", Values: []int64{0, 0}}, {Label: "b", Values: []int64{0, 0}}}}
	if !s.Empty() {
		t.Error("all zeros is not Empty")
	}
	for name, lay := range map[string]func(Stacked) (Layout, error){"horizontal": Horizontal, "columns": Columns} {
		l, err := lay(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(l.Rects) != 0 || len(l.Rules) != 2 && name == "columns" || len(texts(l, "tick")) != 1 {
			t.Errorf("%s: %d rects, %d rules, ticks %+v", name, len(l.Rects), len(l.Rules), texts(l, "tick"))
		}
		for _, r := range l.Rules {
			if math.IsNaN(r.X1 + r.X2 + r.Y1 + r.Y2) {
				t.Errorf("%s: NaN rule %+v", name, r)
			}
		}
	}
	l, _ := Horizontal(s)
	if tot := texts(l, "total"); len(tot) != 2 || tot[0].S != "0" {
		t.Errorf("totals %+v", tot)
	}
}

// A label longer than MaxLabel runes is cut with "…" and keeps its whole
// text; multi-byte runes are never split.
func TestLongLabels(t *testing.T) {
	long := "organization-administration-ünïcode"
	l, err := Horizontal(Stacked{Series: classes, Groups: []Group{{Label: long, Values: []int64{1, 0}}, {Label: "short", Values: []int64{1, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	labels := texts(l, "label")
	if len([]rune(labels[0].S)) != MaxLabel || !strings.HasSuffix(labels[0].S, "…") || labels[0].Full != long {
		t.Errorf("long label %+v", labels[0])
	}
	if labels[1].S != "short" || labels[1].Full != "" {
		t.Errorf("short label %+v", labels[1])
	}
	if shown, _ := Cut("ééééé", 3); shown != "éé…" {
		t.Errorf("Cut split a rune: %q", shown)
	}
	if !strings.HasPrefix(l.Rects[0].Title, long) {
		t.Errorf("segment title %q lacks the whole label", l.Rects[0].Title)
	}
}

// Values that cannot be drawn honestly are refused, naming the group.
func TestRefused(t *testing.T) {
	one := func(v ...int64) Stacked { return Stacked{Series: classes, Groups: []Group{{Label: "g", Values: v}}} }
	tests := []struct {
		name string
		s    Stacked
		want error
	}{
		{"negative", one(-1, 2), ErrNegative},
		{"huge", one(MaxValue+1, 0), ErrTooLarge},
		{"max int64", one(math.MaxInt64, math.MaxInt64), ErrTooLarge},
		{"values for other series", one(1), ErrShape},
		{"no series", Stacked{Groups: []Group{{Label: "g"}}}, ErrShape},
		{"bad key", Stacked{Series: []Series{{Key: "Read\"x", Label: "x"}}, Groups: []Group{{Values: []int64{1}}}}, ErrShape},
		{"bad pattern", Stacked{Series: []Series{{Key: "r", Pattern: "zigzag"}}, Groups: []Group{{Values: []int64{1}}}}, ErrShape},
		{"too many groups", Stacked{Series: classes, Groups: make([]Group, MaxGroups+1)}, ErrShape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, lay := range []func(Stacked) (Layout, error){Horizontal, Columns} {
				if _, err := lay(tt.s); !errors.Is(err, tt.want) {
					t.Errorf("got %v, want %v", err, tt.want)
				}
			}
		})
	}
	// The largest allowed values, many of them, still add up exactly.
	g := Group{Values: []int64{MaxValue, MaxValue}}
	if _, err := Horizontal(Stacked{Series: classes, Groups: []Group{g}}); err != nil || g.Total() != 2*MaxValue {
		t.Errorf("MaxValue refused (%v) or total wrong (%d)", err, g.Total())
	}
}

func texts(l Layout, class string) []Text {
	var out []Text
	for _, t := range l.Texts {
		if t.Class == class {
			out = append(out, t)
		}
	}
	return out
}
