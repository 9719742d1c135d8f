package importer

import (
	"strconv"

	"github.com/toolgate/toolgate/internal/risk"
)

// Reclass is what re-classifying one stored tool with the binary's rules
// does: the new verdict, the class in force afterwards and whether exposure
// is suspended.
type Reclass struct {
	Tool       string
	Assessment risk.Assessment
	Before     *Stored
	// Class is the class in force afterwards; KeepOverride says whether the
	// stored override still applies.
	Class        risk.Class
	KeepOverride bool
	// Lowered is true when the new verdict is below the class in force:
	// the class is kept (lowering is never silent, R10) and the console
	// shows the lower verdict until someone asks to lower the class.
	Lowered bool
	// Suspend, when not "", turns the tool's exposure off for this reason.
	Suspend string
}

// Changed reports whether the class in force or the verdict changed.
func (r Reclass) Changed() bool {
	return r.Class != r.Before.Class || r.Assessment.Class != r.Before.DetectedClass
}

// Reclassify re-classifies stored tools with the rules of this binary, the
// way a re-import of an unchanged document would, with one difference: a
// re-import may lower the class in force when the document changed, but new
// rules never lower it silently.
//
//   - verdict unchanged: everything stays, override included;
//   - verdict above the class in force: the class rises, any override is
//     void, and an exposed tool is suspended until approved again;
//   - verdict below the class in force (or between): the class stays, and
//     Lowered says the engine now sees less risk — the lower-class change
//     request (R10) is the way down.
func Reclassify(stored []Stored) []Reclass {
	out := make([]Reclass, 0, len(stored))
	for i := range stored {
		s := &stored[i]
		a := risk.Classify(&s.Op)
		r := Reclass{Tool: s.Name, Assessment: a, Before: s, Class: s.Class, KeepOverride: s.Overridden}
		switch {
		case a.Class == s.DetectedClass:
		case a.Class > s.Class:
			r.Class, r.KeepOverride = a.Class, false
			if s.Exposed && !s.Removed {
				r.Suspend = "The risk rules changed (version " + strconv.Itoa(risk.RulesVersion) + ") and raised the class from " +
					s.Class.String() + " to " + a.Class.String() + "; review it before exposing it again."
			}
		case a.Class < s.Class:
			r.Lowered = true
		}
		out = append(out, r)
	}
	return out
}
