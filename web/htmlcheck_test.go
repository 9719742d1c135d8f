package web

import (
	"net/http/httptest"
	"testing"

	"github.com/toolgate/toolgate/internal/testing/htmlcheck"
)

// The selector checks live in internal/testing/htmlcheck; these short
// names keep web's tests readable.
type check = htmlcheck.Checker

var (
	in      = htmlcheck.In
	all     = htmlcheck.All
	count   = htmlcheck.Count
	none    = htmlcheck.None
	hasText = htmlcheck.HasText
	lacks   = htmlcheck.LacksText
	textIs  = htmlcheck.TextIs
	hasAttr = htmlcheck.HasAttr
)

// wantHTML parses body and reports every failing check.
func wantHTML(t *testing.T, body string, checks ...check) {
	t.Helper()
	htmlcheck.Run(t, body, checks...)
}

// wantPage is wantHTML on a response's body.
func wantPage(t *testing.T, rec *httptest.ResponseRecorder, checks ...check) {
	t.Helper()
	wantHTML(t, rec.Body.String(), checks...)
}

// tid is the selector of the elements with data-testid id.
func tid(id string) string { return `[data-testid="` + id + `"]` }

// wantFragment fails unless rec's body is an HTML fragment (an HTMX
// answer), not a whole page.
func wantFragment(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	htmlcheck.Document(t, rec.Body.String(), false)
}

// wantDocument fails unless rec's body is a whole page (a full-page
// navigation never receives a fragment).
func wantDocument(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	htmlcheck.Document(t, rec.Body.String(), true)
}

// textOf returns the text of the first element matching sel in rec's body,
// with runs of space collapsed (failing when there is none): a value the
// test goes on to use, such as a token shown once.
func textOf(t *testing.T, rec *httptest.ResponseRecorder, sel string) string {
	t.Helper()
	return htmlcheck.Text(t, rec.Body.String(), sel)
}
