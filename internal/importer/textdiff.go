package importer

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// DiffLine is one line of a text diff: Op is ' ' (kept), '-' (removed) or
// '+' (added); a Gap line stands for unchanged lines left out.
type DiffLine struct {
	Op   byte
	Text string
	Gap  bool
}

// TextDiff is a line diff of two texts with a little context around each
// change, as a person reads it in a preview.
type TextDiff struct {
	Lines []DiffLine
}

// Changed reports whether the two texts differ.
func (d TextDiff) Changed() bool {
	for _, l := range d.Lines {
		if l.Op != ' ' {
			return true
		}
	}
	return false
}

// diffContext is how many unchanged lines are kept around a change.
const diffContext = 3

// LineDiff diffs before and after line by line (difflib's sequence
// matcher, the algorithm of Python's difflib): no lines when they are
// equal.
func LineDiff(before, after string) TextDiff {
	if before == after {
		return TextDiff{}
	}
	a, b := splitLines(before), splitLines(after)
	m := difflib.NewMatcher(a, b)
	var d TextDiff
	for gi, group := range m.GetGroupedOpCodes(diffContext) {
		if gi > 0 || group[0].I1 > 0 {
			d.Lines = append(d.Lines, DiffLine{Gap: true})
		}
		for _, op := range group {
			switch op.Tag {
			case 'e':
				for _, l := range a[op.I1:op.I2] {
					d.Lines = append(d.Lines, DiffLine{Op: ' ', Text: l})
				}
			case 'd', 'r', 'i':
				for _, l := range a[op.I1:op.I2] {
					d.Lines = append(d.Lines, DiffLine{Op: '-', Text: l})
				}
				for _, l := range b[op.J1:op.J2] {
					d.Lines = append(d.Lines, DiffLine{Op: '+', Text: l})
				}
			}
		}
	}
	return d
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
