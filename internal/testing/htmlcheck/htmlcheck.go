// Package htmlcheck asserts on HTML by CSS selector, in the style of
// pkgsite's internal/testing/htmlcheck: a test names the element it means
// (by data-testid, role, label or form action), so it fails for a missing
// element, not for a changed attribute order or an unrelated string
// elsewhere on the page.
//
// It is test support: only _test.go files import it, so the production
// binary never links it (nor the testing package it uses).
package htmlcheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// A Checker looks at a parsed page (or a selection in it) and says what is
// wrong, or "" when all is well.
type Checker func(*goquery.Selection) string

// In applies checks to the elements matching sel; there must be at least
// one, and each check must hold for at least one of them.
func In(sel string, checks ...Checker) Checker {
	return func(s *goquery.Selection) string {
		found := s.Find(sel)
		if found.Length() == 0 {
			return fmt.Sprintf("no element matches %q", sel)
		}
		for _, c := range checks {
			ok := false
			var last string
			found.EachWithBreak(func(_ int, e *goquery.Selection) bool {
				last = c(e)
				ok = last == ""
				return !ok
			})
			if !ok {
				return fmt.Sprintf("%q: %s", sel, last)
			}
		}
		return ""
	}
}

// All holds when every check holds for the same element: In(sel, All(a,
// b)) asks for one element with both, where In(sel, a, b) lets a and b be
// met by different elements (one table row per rule, not any two rows).
func All(checks ...Checker) Checker {
	return func(s *goquery.Selection) string {
		for _, c := range checks {
			if m := c(s); m != "" {
				return m
			}
		}
		return ""
	}
}

// InEach applies checks to every element matching sel (there must be at
// least one): each check must hold for all of them, e.g. every
// state-changing form carries the CSRF field.
func InEach(sel string, checks ...Checker) Checker {
	return func(s *goquery.Selection) string {
		found := s.Find(sel)
		if found.Length() == 0 {
			return fmt.Sprintf("no element matches %q", sel)
		}
		var msg string
		found.EachWithBreak(func(i int, e *goquery.Selection) bool {
			for _, c := range checks {
				if m := c(e); m != "" {
					msg = fmt.Sprintf("%q #%d: %s", sel, i+1, m)
					return false
				}
			}
			return true
		})
		return msg
	}
}

// Count checks that exactly n elements match sel.
func Count(sel string, n int) Checker {
	return func(s *goquery.Selection) string {
		if got := s.Find(sel).Length(); got != n {
			return fmt.Sprintf("%d elements match %q, want %d", got, sel, n)
		}
		return ""
	}
}

// None checks that nothing matches sel.
func None(sel string) Checker { return Count(sel, 0) }

// HasText checks that the element's text, with runs of space collapsed,
// contains want.
func HasText(want string) Checker {
	return func(s *goquery.Selection) string {
		got := strings.Join(strings.Fields(s.Text()), " ")
		if !strings.Contains(got, want) {
			return fmt.Sprintf("text %.200q lacks %q", got, want)
		}
		return ""
	}
}

// LacksText checks that the element's text, with runs of space collapsed,
// does not contain unwanted (a secret that must not be shown again, a row
// that belongs to another page).
func LacksText(unwanted string) Checker {
	return func(s *goquery.Selection) string {
		got := strings.Join(strings.Fields(s.Text()), " ")
		if strings.Contains(got, unwanted) {
			return fmt.Sprintf("text %.200q contains %q", got, unwanted)
		}
		return ""
	}
}

// TextIs checks that the element's text, with runs of space collapsed and
// trimmed, is exactly want ("v1", not "v10").
func TextIs(want string) Checker {
	return func(s *goquery.Selection) string {
		if got := strings.Join(strings.Fields(s.Text()), " "); got != want {
			return fmt.Sprintf("text %.200q, want %q", got, want)
		}
		return ""
	}
}

// HasAttr checks that the element has attribute name with value want.
func HasAttr(name, want string) Checker {
	return func(s *goquery.Selection) string {
		got, ok := s.Attr(name)
		if !ok {
			return fmt.Sprintf("no attribute %s", name)
		}
		if got != want {
			return fmt.Sprintf("%s=%q, want %q", name, got, want)
		}
		return ""
	}
}

// IsDocument reports whether body is a whole page (it opens with a doctype
// or an <html> element) rather than a fragment. The parser adds <html> to
// every fragment, so this reads the tokens as they were sent: an HTMX
// answer must be a fragment, a full-page navigation a document.
func IsDocument(body string) bool {
	z := html.NewTokenizer(strings.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return false
		case html.DoctypeToken:
			return true
		case html.StartTagToken:
			name, _ := z.TagName()
			return string(name) == "html"
		case html.TextToken:
			if strings.TrimSpace(string(z.Text())) != "" {
				return false
			}
		}
	}
}

// Document fails the test unless body is a whole page (want true) or a
// fragment (want false).
func Document(t testing.TB, body string, want bool) {
	t.Helper()
	if got := IsDocument(body); got != want {
		kind := map[bool]string{true: "a whole page", false: "a fragment"}
		t.Errorf("body is %s, want %s:\n%.300s", kind[got], kind[want], body)
	}
}

// Text returns the text of the first element of body matching sel, with
// runs of space collapsed, and fails the test when nothing matches.
func Text(t testing.TB, body, sel string) string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing HTML: %v", err)
	}
	found := doc.Find(sel).First()
	if found.Length() == 0 {
		t.Fatalf("no element matches %q", sel)
	}
	return strings.Join(strings.Fields(found.Text()), " ")
}

// Run parses body and reports every failing check as a test error.
func Run(t testing.TB, body string, checks ...Checker) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing HTML: %v", err)
	}
	for _, c := range checks {
		if msg := c(doc.Selection); msg != "" {
			t.Error(msg)
		}
	}
}
