package risk

import (
	"fmt"
	"slices"

	"github.com/toolgate/toolgate/internal/openapi"
)

// Classify assigns op the highest class any rule of the table implies and
// returns every reason found, highest class first and in table order within
// a class. It is pure and deterministic: the order of scopes, security
// alternatives and extensions in op does not change the result. A nil op is
// classified as an operation with an unknown method (WRITE).
func Classify(op *openapi.Operation) Assessment {
	if op == nil {
		op = &openapi.Operation{}
	}
	f := extractFacts(op)
	a := Assessment{Class: Read, Reasons: []Reason{}}
	for _, r := range ruleTable() {
		for _, term := range r.match(f, r.Terms) {
			code := r.Code + ":" + term
			// The table is ordered highest class first, so a code seen
			// before already carries its strongest class.
			if slices.ContainsFunc(a.Reasons, func(x Reason) bool { return x.Code == code }) {
				continue
			}
			a.Reasons = append(a.Reasons, Reason{Code: code, Class: r.Class, Text: fmt.Sprintf(r.Text, term)})
			a.Class = max(a.Class, r.Class)
		}
	}
	return a
}

// Codes returns the reason codes of a in order, for compact display.
func (a Assessment) Codes() []string {
	out := make([]string, len(a.Reasons))
	for i, r := range a.Reasons {
		out[i] = r.Code
	}
	return out
}
