package chart

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Scale maps values 0..Max onto a length; Ticks are the round values a
// grid line marks (0 first, Max last).
type Scale struct {
	Max   float64
	Ticks []float64
}

// NiceScale is the scale for data whose largest value is max: Max is max
// rounded up to a multiple of a 1-2-5 step, with about four steps. A max
// of zero (nothing to count) gives Max 1 with one tick at 0, so nothing
// divides by zero and no grid line claims a count.
func NiceScale(max float64) Scale {
	if !(max > 0) {
		return Scale{Max: 1, Ticks: []float64{0}}
	}
	step := niceStep(max / 4)
	top := math.Ceil(max/step) * step
	var ticks []float64
	for i := 0.0; i*step <= top*(1+1e-9); i++ {
		ticks = append(ticks, i*step)
	}
	return Scale{Max: top, Ticks: ticks}
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten, never below 1
// (counts are whole numbers).
func niceStep(raw float64) float64 {
	if raw <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// Of is v's length on a scale of length n.
func (s Scale) Of(v, n float64) float64 { return v / s.Max * n }

// Short writes a tick value compactly: 950, 12k, 1.5M.
func Short(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return trim(v/1e9) + "G"
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e4:
		return trim(v/1e3) + "k"
	}
	return trim(v)
}

func trim(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// num writes a coordinate with at most two decimals.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// Num writes a coordinate for an SVG attribute.
func Num(v float64) string { return num(v) }

// Cut shortens s to max runes, the last being "…"; it returns s itself
// and "" when s fits, else the cut text and s.
func Cut(s string, max int) (shown, full string) {
	if utf8.RuneCountInString(s) <= max {
		return s, ""
	}
	r := []rune(s)
	return string(r[:max-1]) + "…", s
}
