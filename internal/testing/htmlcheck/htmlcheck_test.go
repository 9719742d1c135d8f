package htmlcheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestHTMLCheckFails keeps the helper honest: each check fails on a page
// that lacks what it asks for, and passes on one that has it.
func TestHTMLCheckFails(t *testing.T) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(`<main><h1 id="x">Tools</h1><p class="a">one</p><p class="a">two</p></main>`))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Checker{
		"missing element": In("h2"),
		"wrong text":      In("h1", HasText("Sources")),
		"wrong attribute": In("h1", HasAttr("id", "y")),
		"missing attr":    In("h1", HasAttr("class", "")),
		"count":           Count("p.a", 1),
		"none":            None("p"),
		"each, one fails": InEach("p.a", HasText("one")),
		"each, no match":  InEach("h2"),
		"text is, longer": In("h1", TextIs("Tool")),
		"lacks text":      In("main", LacksText("two")),
		"all, split":      In("p.a", All(HasText("one"), HasText("two"))),
	} {
		if c(doc.Selection) == "" {
			t.Errorf("%s: check passed on a page that fails it", name)
		}
	}
	for name, c := range map[string]Checker{
		"element":        In("h1", HasText("Tools"), HasAttr("id", "x")),
		"any of several": In("p.a", HasText("two")),
		"each":           InEach("p.a", HasAttr("class", "a")),
		"count":          Count("p.a", 2),
		"none":           None("h2"),
		"text is":        In("h1", TextIs("Tools")),
		"lacks text":     In("main", LacksText("three")),
		"all":            In("p.a", All(HasText("two"), HasAttr("class", "a"))),
	} {
		if msg := c(doc.Selection); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

// TestHTMLCheckRun: Run turns every failing check into a test error and a
// passing page into none.
func TestHTMLCheckRun(t *testing.T) {
	page := `<form action="/x" method="post"><input type="hidden" name="csrf"></form>`
	var rec recorder
	Run(&rec, page, In("form", HasAttr("action", "/y")), None("input"), In("form[method=post]"))
	if len(rec.errors) != 2 {
		t.Errorf("Run reported %d errors, want 2: %q", len(rec.errors), rec.errors)
	}
	rec = recorder{}
	Run(&rec, page, In("form", HasAttr("action", "/x")))
	if len(rec.errors) != 0 {
		t.Errorf("Run reported %q on a page that passes", rec.errors)
	}
}

// recorder is a testing.TB that keeps the errors it is given.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Error(args ...any) {
	for _, a := range args {
		r.errors = append(r.errors, a.(string))
	}
}

// TestIsDocument: a page with a doctype or an <html> element is a document;
// a fragment is not, even one that mentions "<html" in its text.
func TestIsDocument(t *testing.T) {
	for body, want := range map[string]bool{
		"<!DOCTYPE html>\n<html><body>x</body></html>": true,
		"\n  <html lang=\"en\"><p>x</p></html>":        true,
		`<tr id="x"><td>a</td></tr>`:                   false,
		`<p>&lt;html&gt; is escaped</p>`:               false,
		"just text":                                    false,
		"":                                             false,
	} {
		if got := IsDocument(body); got != want {
			t.Errorf("IsDocument(%q) = %v, want %v", body, got, want)
		}
	}
}

// TestText: the text of the first match, space collapsed; no match fails.
func TestText(t *testing.T) {
	page := `<p id="a"> one
	two </p><p id="a">three</p>`
	if got := Text(t, page, "#a"); got != "one two" {
		t.Errorf("Text = %q, want %q", got, "one two")
	}
	var rec recorder
	func() {
		defer func() { _ = recover() }()
		Text(&rec, page, "#b")
	}()
	if len(rec.errors) != 1 {
		t.Errorf("Text on no match reported %q, want one error", rec.errors)
	}
}

// Fatalf records the message and stops the caller, as testing's does
// (a panic here; the test recovers it).
func (r *recorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	panic("fatal")
}
