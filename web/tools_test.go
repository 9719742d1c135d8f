package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// importDoc stores yaml as source name through the store.
func (a *testApp) importDoc(name, yaml string) {
	a.t.Helper()
	doc, err := openapi.LoadBytes(name+".yaml", []byte(yaml), openapi.Options{})
	if err != nil {
		a.t.Fatal(err)
	}
	if _, err := a.db.ImportSource(context.Background(), "test", store.SourceImport{Name: name, Doc: doc}); err != nil {
		a.t.Fatal(err)
	}
}

// manyOps is a document with n GET and n DELETE operations.
func manyOps(n int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: Many, version: \"1\"}\nservers: [{url: https://many.example.com}]\npaths:\n")
	for i := range n {
		fmt.Fprintf(&b, "  /things%04d:\n    get: {operationId: getThing%04d, tags: [t%d], responses: {\"200\": {description: ok}}}\n", i, i, i%3)
		fmt.Fprintf(&b, "    delete: {operationId: deleteThing%04d, responses: {\"204\": {description: ok}}}\n", i)
	}
	return b.String()
}

func (a *testApp) get(path, role string, header map[string]string) string {
	a.t.Helper()
	rec := a.do(request{method: "GET", path: path, cookie: a.sessionCookie(role), header: header})
	wantStatus(a.t, rec, 200)
	return rec.Body.String()
}

func TestToolsFiltersAndPages(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("many", manyOps(60))
	a.importDoc("pets", petsDoc(""))
	named := func(n string) check { return in(tid("tool-row")+" a.tool-name", textIs(n)) }
	notShown := func(n string) check { return in("main", lacks(n)) }
	retry := func(s string) check { return in(tid("tool-retry"), hasText(s)) }
	next, prev := `nav.pager a[rel="next"]`, `nav.pager a[rel="prev"]`
	tests := []struct {
		query  string
		count  string
		checks []check
	}{
		{"", "124 tools · page 1 of 3", []check{named("createPet"), in(next), none(prev)}},
		{"?page=3", "124 tools · page 3 of 3", []check{in(prev), none(next)}},
		{"?class=DESTRUCTIVE", "61 tools", []check{named("deletePet"), retry("DELETE · 1 attempt (not idempotent)"), notShown("getThing0001")}},
		{"?method=get&source=pets", "2 tools", []check{named("listPets"), retry("GET · 2 attempts"), notShown("createPet")}},
		{"?tag=t1&source=many", "20 tools", []check{named("getThing0001"), none(tid("tool-row") + ` a.tool-name[href$="getThing0002"]`)}},
		{"?q=show", "1 tools", []check{named("getPet")}},
		{"?exposure=exposed", "0 tools", []check{notShown("getPet")}},
		{"?sort=class&dir=desc&source=pets", "4 tools", []check{in(`th[aria-sort="descending"]`)}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			body := a.get("/tools"+tt.query, "viewer", nil)
			wantHTML(t, body, append([]check{in(tid("tools-count"), hasText(tt.count))}, tt.checks...)...)
		})
	}
	// The filter state survives in the form and the links.
	body := a.get("/tools?class=DESTRUCTIVE&source=many", "viewer", nil)
	wantHTML(t, body, in(`select[name="class"] option[value="DESTRUCTIVE"][selected]`),
		in(`a[href="/tools?class=DESTRUCTIVE&page=2&source=many"]`))
	// HTMX gets the results fragment only.
	frag := a.get("/tools?class=DESTRUCTIVE", "viewer", map[string]string{"HX-Request": "true"})
	wantFragment(t, httpBody(frag))
	wantHTML(t, frag, in("table"+tid("tools-table")))
	// Viewers get no bulk controls; admins do.
	wantHTML(t, body, none(`input[name="tool"]`))
	wantHTML(t, a.get("/tools", "admin", nil), in(tid("tool-row")+` input[type="checkbox"][name="tool"]`))
}

func TestToolsBulkSkipReport(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("pets", petsDoc(""))
	form := url.Values{"action": {"expose"}, "tool": {"listPets", "deletePet", "createPet"}}
	rec := a.do(request{method: "POST", path: "/tools/bulk", cookie: a.sessionCookie("admin"), csrf: true, form: form})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("bulk-report")+" h1", textIs("Expose selected: confirm")),
		in(tid("bulk-skipped")+" li", hasText("deletePet"), hasText("R10")),
		in(tid("bulk-report")+` form input[type="hidden"][name="tool"]`, hasAttr("value", "createPet")))
	if tool, _ := a.db.ToolByName(context.Background(), "listPets"); tool.Exposed {
		t.Fatal("the review page changed something")
	}
	rec = a.do(request{method: "POST", path: "/tools/bulk/apply", cookie: a.sessionCookie("admin"), csrf: true, form: form})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("bulk-report")+" h1", textIs("Expose selected: done")), in("h2", textIs("Changed (2)")),
		count(tid("bulk-changed")+" li", 2), in("h2", textIs("Skipped (1)")), count(tid("bulk-skipped")+" li", 1))
	if tool, _ := a.db.ToolByName(context.Background(), "deletePet"); tool.Exposed {
		t.Error("bulk exposed a DESTRUCTIVE tool")
	}
	if tool, _ := a.db.ToolByName(context.Background(), "createPet"); !tool.Exposed {
		t.Error("createPet not exposed")
	}
}

func TestToolsEscapeDocumentText(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("evil", strings.Replace(petsDoc(""), "summary: Show a pet",
		`summary: "<script>alert(1)</script>", description: "<b>bold</b> <img src=x onerror=alert(2)>"`, 1))
	for path, shown := range map[string]check{
		"/tools?source=evil": in(`a.tool-name[href="/tools/getPet"]`, hasAttr("title", "getPet — <script>alert(1)</script>")),
		"/tools/getPet":      in(tid("tool-summary"), textIs("<script>alert(1)</script>")),
	} {
		body := a.get(path, "viewer", nil)
		// The document's text is text: no element of it, and its markup shown as written.
		wantHTML(t, body, none(`script:containsOwn("alert(1)")`), none(`b:containsOwn("bold")`), none(`img[src="x"]`), shown)
	}
}

func TestToolDetailAndRaise(t *testing.T) {
	a := newTestApp(t, true)
	a.importDoc("pets", petsDoc(""))
	body := a.get("/tools/deletePet", "viewer", nil)
	wantHTML(t, body, in(tid("risk-reasons")+" code", textIs("method:DELETE")),
		in(tid("policy-summary"), hasText("DELETE · 1 attempt")), in(tid("tool-params")),
		in(tid("tool-security"), hasText("none (no authentication)")),
		none(tid("raise-risk"))) // a viewer sees no raise form
	wantHTML(t, a.get("/tools/getPet", "admin", nil), in(`form[method="post"]`+tid("raise-risk")+` select[name="class"] option[value="PRIVILEGED"]`))

	post := func(form url.Values) *testRec {
		return &testRec{a.do(request{method: "POST", path: "/tools/getPet/risk", cookie: a.sessionCookie("admin"), csrf: true, form: form})}
	}
	r := post(url.Values{"class": {"PRIVILEGED"}, "reason": {""}})
	wantStatus(t, r.ResponseRecorder, 400)
	wantPage(t, r.ResponseRecorder, in(tid("raise-risk")+" #raise-reason-error", hasText("Say why")))
	r = post(url.Values{"class": {"PRIVILEGED"}, "reason": {"it returns API keys"}})
	wantStatus(t, r.ResponseRecorder, 303)
	wantHTML(t, a.get("/tools/getPet?done=raised", "viewer", nil), in(tid("notice"), hasText("Risk class raised.")),
		in(tid("risk-override"), hasText("it returns API keys")))
	if tool, _ := a.db.ToolByName(context.Background(), "getPet"); tool.Class.String() != "PRIVILEGED" {
		t.Errorf("class %v", tool.Class)
	}
}

// BenchmarkToolsPage renders the tools page over 1,000 operations (the
// first page, a filtered and sorted later page, and a text search) through
// the whole handler stack: session, SQL, policy summaries and templ.
func BenchmarkToolsPage(b *testing.B) {
	ctx := context.Background()
	db := storetest.MustOpen(b)
	u, err := db.CreateUser(ctx, "bench", store.NewUser{Email: "viewer@example.com", PasswordHash: "x", Roles: []auth.Role{auth.RoleViewer}})
	if err != nil {
		b.Fatal(err)
	}
	doc, err := openapi.LoadBytes("many.yaml", []byte(manyOps(500)), openapi.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.ImportSource(ctx, "bench", store.SourceImport{Name: "many", Doc: doc}); err != nil {
		b.Fatal(err)
	}
	keys := [][]byte{bytes.Repeat([]byte{1}, 64), bytes.Repeat([]byte{2}, 32)}
	srv, err := New(ctx, Deps{Store: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Config: testConfig(), SessionKeys: keys})
	if err != nil {
		b.Fatal(err)
	}
	token, err := db.Login(ctx, u, "bench", store.SessionPolicy{Idle: time.Hour, Absolute: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	v, err := securecookie.EncodeMulti(sessionCookie, map[any]any{sessionKeyID: token}, srv.cookies.Codecs...)
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"/tools", "/tools?class=DESTRUCTIVE&sort=path&dir=desc&page=5", "/tools?q=thing01"} {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("GET", path, nil)
				req.AddCookie(&http.Cookie{Name: sessionCookie, Value: v})
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
