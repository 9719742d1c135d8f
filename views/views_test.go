package views

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/toolgate/toolgate/internal/testing/htmlcheck"
)

// The page tests render each page component from a view model built as
// web's handlers fill it, and check it by selector (htmlcheck): the
// elements a person and the browser tests rely on, the CSRF field on every
// state-changing form, labels on every control, and escaping of imported
// text.

type check = htmlcheck.Checker

var (
	in      = htmlcheck.In
	inEach  = htmlcheck.InEach
	count   = htmlcheck.Count
	none    = htmlcheck.None
	hasText = htmlcheck.HasText
	hasAttr = htmlcheck.HasAttr
)

// csrf is the token every test page carries.
const csrf = "csrf-token-1"

// evil is imported or typed text that must render as text, never as markup.
const evil = `<script>alert(1)</script>`

// render renders c to a string.
func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatalf("rendering: %v", err)
	}
	return b.String()
}

// page is the layout data of a signed-in admin on the page titled title,
// as web's Server.page fills it.
func page(title string) Page {
	return Page{
		Title: title,
		User:  &Viewer{Email: "ada@example.com", Roles: []string{"admin"}},
		Nav: []NavItem{{Label: "Dashboard", Href: "/"}, {Label: "Tools", Href: "/tools", Active: true},
			{Label: "Approvals", Href: "/approvals", Count: 2}},
		CSRF:   csrf,
		Assets: Assets{CSS: "/static/app.css?v=1", HTMX: "/static/htmx.min.js?v=1", JS: "/static/app.js?v=1", Icon: "/static/favicon.ico"},
	}
}

// anonymous is the layout data of a page nobody is signed in to.
func anonymous(title string) Page {
	p := page(title)
	p.User, p.Nav = nil, nil
	return p
}

// wantPage renders a full page and checks it: one h1 with the heading,
// the layout's frame, no inline script or style (the CSP refuses them, and
// an escaped <script> in imported text must not become one), the CSRF
// field on every state-changing form and a label on every control, then
// the page's own checks.
func wantPage(t *testing.T, c templ.Component, h1 string, checks ...check) {
	t.Helper()
	all := append([]check{
		count("h1", 1),
		in("h1", hasText(h1)),
		in("main#main #flash[aria-live=polite]"),
		in("link[rel=icon]"),
		none("script:not([src])"),
		none("[style]"),
		csrfOnForms(),
		controlsLabelled(),
	}, checks...)
	htmlcheck.Run(t, render(t, c), all...)
}

// wantFragment checks an HTMX fragment: the CSRF field and labels as on a
// page, then its own checks.
func wantFragment(t *testing.T, c templ.Component, checks ...check) {
	t.Helper()
	htmlcheck.Run(t, render(t, c), append([]check{none("script"), csrfOnForms(), controlsLabelled()}, checks...)...)
}

// wantRows checks a fragment of table rows; the HTML parser drops a <tr>
// outside a table, as a browser's would, so it is parsed inside one.
func wantRows(t *testing.T, c templ.Component, checks ...check) {
	t.Helper()
	body := "<table><tbody>" + render(t, c) + "</tbody></table>"
	htmlcheck.Run(t, body, append([]check{none("script"), csrfOnForms(), controlsLabelled()}, checks...)...)
}

// csrfOnForms checks that every form that is not a GET form carries the
// CSRF token as a hidden field (HTMX sends it as a header too, but every
// form must also work as a plain POST).
func csrfOnForms() check {
	return func(s *goquery.Selection) string {
		var problems []string
		s.Find("form").Each(func(_ int, f *goquery.Selection) {
			if m, _ := f.Attr("method"); strings.EqualFold(m, "get") {
				return
			}
			if f.Find(`input[type=hidden][name=_csrf][value="`+csrf+`"]`).Length() != 1 {
				action, _ := f.Attr("action")
				problems = append(problems, fmt.Sprintf("form %q has no CSRF field", action))
			}
		})
		return strings.Join(problems, "; ")
	}
}

// controlsLabelled checks that every label's for= names a control, and that
// every control a person fills (not hidden, not a button) has a label: one
// naming its id, one around it, or an aria-label.
func controlsLabelled() check {
	return func(s *goquery.Selection) string {
		var problems []string
		s.Find("label[for]").Each(func(_ int, l *goquery.Selection) {
			id, _ := l.Attr("for")
			if s.Find(`[id="`+id+`"]`).Filter("input, select, textarea").Length() != 1 {
				problems = append(problems, fmt.Sprintf("label %q names no control %q", strings.TrimSpace(l.Text()), id))
			}
		})
		s.Find("input, select, textarea").Each(func(_ int, c *goquery.Selection) {
			if typ, _ := c.Attr("type"); typ == "hidden" || typ == "submit" || typ == "button" {
				return
			}
			id, _ := c.Attr("id")
			_, aria := c.Attr("aria-label")
			if aria || c.ParentsFiltered("label").Length() > 0 || (id != "" && s.Find(`label[for="`+id+`"]`).Length() > 0) {
				return
			}
			name, _ := c.Attr("name")
			problems = append(problems, fmt.Sprintf("control %q (id %q) has no label", name, id))
		})
		return strings.Join(problems, "; ")
	}
}

// postForm checks for a POST form to action carrying the CSRF token, and
// then checks inside it.
func postForm(action string, checks ...check) check {
	return in(`form[method=post][action="`+action+`"]`,
		append([]check{in(`input[type=hidden][name=_csrf][value="` + csrf + `"]`)}, checks...)...)
}

// TestPageChecksFail keeps the shared checks honest: each fails on markup
// that lacks what it asks for.
func TestPageChecksFail(t *testing.T) {
	for name, tc := range map[string]struct {
		html string
		c    check
	}{
		"form without CSRF":  {`<form method="post" action="/x"><button>Go</button></form>`, csrfOnForms()},
		"form, wrong token":  {`<form method="post" action="/x"><input type="hidden" name="_csrf" value="other"></form>`, csrfOnForms()},
		"hx-post form":       {`<form hx-post="/x"></form>`, csrfOnForms()},
		"unlabelled input":   {`<input id="a" name="a" type="text">`, controlsLabelled()},
		"label names none":   {`<label for="b">B</label><input id="a" name="a">`, controlsLabelled()},
		"unlabelled select":  {`<select name="s"></select>`, controlsLabelled()},
		"postForm, no token": {`<form method="post" action="/x"></form>`, postForm("/x")},
	} {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(tc.html))
		if err != nil {
			t.Fatal(err)
		}
		if tc.c(doc.Selection) == "" {
			t.Errorf("%s: check passed on markup that fails it", name)
		}
	}
	ok := `<form method="get" action="/s"><label for="q">Q</label><input id="q" name="q"></form>
		<form method="post" action="/x"><input type="hidden" name="_csrf" value="` + csrf + `">
		<label><input type="checkbox" name="c"> C</label><input type="text" name="t" aria-label="T"></form>`
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(ok))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []check{csrfOnForms(), controlsLabelled(), postForm("/x")} {
		if msg := c(doc.Selection); msg != "" {
			t.Errorf("check failed on good markup: %s", msg)
		}
	}
}
