package loop

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// browser is what the console sees of a person at a web browser without
// JavaScript: a cookie jar, pages fetched with GET, and forms submitted
// with exactly the values the page's form would send (the hidden CSRF
// field included), redirects followed. It drives the console's real HTTP
// endpoints, so the loop test exercises routing, CSRF, sessions, role
// checks and handlers, not only the store.
type browser struct {
	t    *testing.T
	base string
	hc   *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, base: base, hc: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
}

// page is a fetched HTML page after redirects.
type page struct {
	b      *browser
	url    *url.URL
	status int
	doc    *html.Node
}

// open GETs path (or an absolute URL) and requires 200.
func (b *browser) open(path string) *page {
	b.t.Helper()
	req, err := http.NewRequestWithContext(b.t.Context(), http.MethodGet, b.resolve(path), nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req).must(http.StatusOK)
}

func (b *browser) resolve(ref string) string {
	u, err := url.Parse(b.base)
	if err != nil {
		b.t.Fatal(err)
	}
	r, err := u.Parse(ref)
	if err != nil {
		b.t.Fatalf("bad link %q: %v", ref, err)
	}
	return r.String()
}

func (b *browser) do(req *http.Request) *page {
	b.t.Helper()
	resp, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatalf("%s %s: reading the page: %v", req.Method, req.URL, err)
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		b.t.Fatalf("%s %s: parsing the page: %v", req.Method, req.URL, err)
	}
	return &page{b: b, url: resp.Request.URL, status: resp.StatusCode, doc: doc}
}

// must fails the test unless the page came with status want, quoting the
// page's main text (the console's error pages say what went wrong).
func (p *page) must(want int) *page {
	p.b.t.Helper()
	if p.status != want {
		p.b.t.Fatalf("%s answered %d, want %d: %.600s", p.url, p.status, want, p.mainText())
	}
	return p
}

// done requires the page to be the redirect target of a successful action,
// recognisable by its ?done= word.
func (p *page) done(word string) *page {
	p.b.t.Helper()
	p.must(http.StatusOK)
	if got := p.url.Query().Get("done"); got != word {
		p.b.t.Fatalf("after the action the browser is at %s (done=%q), want done=%q: %.600s", p.url, got, word, p.mainText())
	}
	return p
}

func (p *page) mainText() string {
	n := find(p.doc, func(n *html.Node) bool { return n.DataAtom == atom.Main })
	if n == nil {
		n = p.doc
	}
	return strings.Join(strings.Fields(textOf(n)), " ")
}

// text returns the text of the element with data-testid id.
func (p *page) text(testID string) string {
	p.b.t.Helper()
	n := find(p.doc, func(n *html.Node) bool { return attr(n, "data-testid") == testID })
	if n == nil {
		p.b.t.Fatalf("%s has no [data-testid=%s]: %.600s", p.url, testID, p.mainText())
	}
	return strings.TrimSpace(textOf(n))
}

// csrf is the page's CSRF token (the hidden field every form carries).
func (p *page) csrf() string {
	p.b.t.Helper()
	n := find(p.doc, func(n *html.Node) bool { return n.DataAtom == atom.Input && attr(n, "name") == "_csrf" })
	if n == nil || attr(n, "value") == "" {
		p.b.t.Fatalf("%s carries no CSRF token", p.url)
	}
	return attr(n, "value")
}

// form returns the first form whose action matches actionRE; its values
// are what the browser would send as the page stands.
func (p *page) form(actionRE string) *form {
	p.b.t.Helper()
	re := regexp.MustCompile(actionRE)
	n := find(p.doc, func(n *html.Node) bool { return n.DataAtom == atom.Form && re.MatchString(attr(n, "action")) })
	if n == nil {
		p.b.t.Fatalf("%s has no form with action ~ %s: %.600s", p.url, actionRE, p.mainText())
	}
	action, err := p.url.Parse(attr(n, "action"))
	if err != nil {
		p.b.t.Fatal(err)
	}
	return &form{b: p.b, action: action.String(), multipart: attr(n, "enctype") == "multipart/form-data",
		values: formValues(n)}
}

// form is a filled-in HTML form ready to submit with POST.
type form struct {
	b         *browser
	action    string
	multipart bool
	values    url.Values
	files     []upload
}

type upload struct {
	field, name string
	data        []byte
}

// set replaces a field's values (several for checkboxes of one name); no
// values unticks a checkbox.
func (f *form) set(name string, values ...string) *form {
	if len(values) == 0 {
		f.values.Del(name)
		return f
	}
	f.values[name] = values
	return f
}

// attach chooses a file for a file input.
func (f *form) attach(field, name string, data []byte) *form {
	f.files = append(f.files, upload{field, name, data})
	return f
}

// submit posts the form and returns the page the browser ends up on.
func (f *form) submit() *page {
	f.b.t.Helper()
	body, contentType := strings.NewReader(f.values.Encode()), "application/x-www-form-urlencoded"
	if f.multipart {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, vs := range f.values {
			for _, v := range vs {
				_ = mw.WriteField(k, v)
			}
		}
		for _, u := range f.files {
			w, err := mw.CreateFormFile(u.field, u.name)
			if err != nil {
				f.b.t.Fatal(err)
			}
			_, _ = w.Write(u.data)
		}
		if err := mw.Close(); err != nil {
			f.b.t.Fatal(err)
		}
		body, contentType = strings.NewReader(buf.String()), mw.FormDataContentType()
	}
	req, err := http.NewRequestWithContext(f.b.t.Context(), http.MethodPost, f.action, body)
	if err != nil {
		f.b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	return f.b.do(req)
}

// formValues collects the successful controls of a form as a browser
// would: named, enabled, ticked if a checkbox or radio, the selected (or
// first) option of a select, a textarea's text; no buttons, no files.
func formValues(formNode *html.Node) url.Values {
	v := url.Values{}
	walk(formNode, func(n *html.Node) {
		name := attr(n, "name")
		if n.Type != html.ElementNode || name == "" || hasAttr(n, "disabled") {
			return
		}
		switch n.DataAtom {
		case atom.Input:
			switch attr(n, "type") {
			case "checkbox", "radio":
				if hasAttr(n, "checked") {
					v.Add(name, valueOr(n, "on"))
				}
			case "file", "submit", "button", "image", "reset":
			default:
				v.Add(name, attr(n, "value"))
			}
		case atom.Textarea:
			v.Add(name, textOf(n))
		case atom.Select:
			var first, chosen *html.Node
			walk(n, func(o *html.Node) {
				if o.DataAtom == atom.Option && first == nil {
					first = o
				}
				if o.DataAtom == atom.Option && hasAttr(o, "selected") && chosen == nil {
					chosen = o
				}
			})
			if chosen == nil {
				chosen = first
			}
			if chosen != nil {
				v.Add(name, valueOr(chosen, strings.TrimSpace(textOf(chosen))))
			}
		}
	})
	return v
}

func walk(n *html.Node, visit func(*html.Node)) {
	visit(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}

func find(root *html.Node, match func(*html.Node) bool) *html.Node {
	var found *html.Node
	walk(root, func(n *html.Node) {
		if found == nil && n.Type == html.ElementNode && match(n) {
			found = n
		}
	})
	return found
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func valueOr(n *html.Node, def string) string {
	if hasAttr(n, "value") {
		return attr(n, "value")
	}
	return def
}
