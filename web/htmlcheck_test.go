package web

import (
	"testing"

	"github.com/toolgate/toolgate/internal/testing/htmlcheck"
)

// The selector checks live in internal/testing/htmlcheck; these short
// names keep web's tests readable.
type check = htmlcheck.Checker

var (
	in      = htmlcheck.In
	count   = htmlcheck.Count
	none    = htmlcheck.None
	hasText = htmlcheck.HasText
	hasAttr = htmlcheck.HasAttr
)

// wantHTML parses body and reports every failing check.
func wantHTML(t *testing.T, body string, checks ...check) {
	t.Helper()
	htmlcheck.Run(t, body, checks...)
}
