package chart

import "strconv"

// Geometry of a horizontal picture (viewBox units): the label column on
// the left, bars, then room for each bar's total.
const (
	hLabelW  = 132.0
	hBarX    = hLabelW + 8
	hBarW    = Width - hBarX - 44
	hTop     = 6.0
	hRowH    = 26.0
	hBarH    = 16.0
	hAxisH   = 22.0
	hLabelDY = 4.0 // baseline below a row's middle
)

// Horizontal lays s out as one stacked bar per group, top to bottom in
// the order given, with the group's label cut to MaxLabel runes on the
// left, its total on the right and a grid line at each tick.
func Horizontal(s Stacked) (Layout, error) {
	if err := s.check(); err != nil {
		return Layout{}, err
	}
	n := float64(len(s.Groups))
	l := Layout{Width: Width, Height: hTop + n*hRowH + hAxisH}
	sc := NiceScale(maxTotal(s.Groups))
	bottom := hTop + n*hRowH
	for _, t := range sc.Ticks {
		x := hBarX + sc.Of(t, hBarW)
		l.Rules = append(l.Rules, Rule{X1: x, Y1: hTop, X2: x, Y2: bottom, Class: "grid"})
		l.Texts = append(l.Texts, Text{X: x, Y: bottom + 14, S: Short(t), Anchor: "middle", Class: "tick"})
	}
	for i, g := range s.Groups {
		y := hTop + float64(i)*hRowH
		mid := y + hRowH/2
		shown, full := Cut(g.Label, MaxLabel)
		l.Texts = append(l.Texts, Text{X: hLabelW, Y: mid + hLabelDY, S: shown, Full: full, Anchor: "end", Class: "label"})
		x := hBarX
		for j, v := range g.Values {
			if v == 0 {
				continue
			}
			w := sc.Of(float64(v), hBarW)
			se := s.Series[j]
			l.Rects = append(l.Rects, Rect{X: x, Y: mid - hBarH/2, W: w, H: hBarH, Key: se.Key, Pattern: se.Pattern,
				Title: g.title() + " · " + se.Label + ": " + strconv.FormatInt(v, 10)})
			x += w
		}
		l.Texts = append(l.Texts, Text{X: x + 4, Y: mid + hLabelDY, S: strconv.FormatInt(g.Total(), 10), Anchor: "start", Class: "total"})
	}
	return l, nil
}

// title is how a group is named in its segments' titles.
func (g Group) title() string {
	if g.Detail != "" {
		return g.Detail
	}
	return g.Label
}

func maxTotal(gs []Group) float64 {
	var m int64
	for _, g := range gs {
		m = max(m, g.Total())
	}
	return float64(m)
}
