package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// A check looks at a parsed page (or a selection in it) and says what is
// wrong, or "". In the style of pkgsite's htmlcheck: assertions name the
// element by CSS selector, so a test fails for a missing element, not for
// a changed attribute order or an unrelated string elsewhere on the page.
type check func(*goquery.Selection) string

// in applies checks to the elements matching sel; there must be at least
// one, and each check must hold for at least one of them.
func in(sel string, checks ...check) check {
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

// count checks that exactly n elements match sel.
func count(sel string, n int) check {
	return func(s *goquery.Selection) string {
		if got := s.Find(sel).Length(); got != n {
			return fmt.Sprintf("%d elements match %q, want %d", got, sel, n)
		}
		return ""
	}
}

// none checks that nothing matches sel.
func none(sel string) check { return count(sel, 0) }

// hasText checks that the element's text, with runs of space collapsed,
// contains want.
func hasText(want string) check {
	return func(s *goquery.Selection) string {
		got := strings.Join(strings.Fields(s.Text()), " ")
		if !strings.Contains(got, want) {
			return fmt.Sprintf("text %.200q lacks %q", got, want)
		}
		return ""
	}
}

// hasAttr checks that the element has attribute name with value want.
func hasAttr(name, want string) check {
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

// wantHTML parses body and reports every failing check.
func wantHTML(t *testing.T, body string, checks ...check) {
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

// TestHTMLCheckFails keeps the helper honest: each check fails on a page
// that lacks what it asks for.
func TestHTMLCheckFails(t *testing.T) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(`<main><h1 id="x">Tools</h1><p class="a">one</p><p class="a">two</p></main>`))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]check{
		"missing element": in("h2"),
		"wrong text":      in("h1", hasText("Sources")),
		"wrong attribute": in("h1", hasAttr("id", "y")),
		"missing attr":    in("h1", hasAttr("class", "")),
		"count":           count("p.a", 1),
		"none":            none("p"),
	} {
		if c(doc.Selection) == "" {
			t.Errorf("%s: check passed on a page that fails it", name)
		}
	}
	for name, c := range map[string]check{
		"element":        in("h1", hasText("Tools"), hasAttr("id", "x")),
		"any of several": in("p.a", hasText("two")),
		"count":          count("p.a", 2),
		"none":           none("h2"),
	} {
		if msg := c(doc.Selection); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}
