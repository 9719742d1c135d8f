package web

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// byTestID returns the collapsed text of the element reached by following
// data-testid values, each looked for inside the previous one, or fails.
func byTestID(t *testing.T, body string, ids ...string) string {
	t.Helper()
	n, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if n = findTestID(n, id); n == nil {
			t.Fatalf("no element with data-testid %q (path %v)", id, ids)
		}
	}
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func findTestID(n *html.Node, id string) *html.Node {
	for d := range n.Descendants() {
		if d.Type != html.ElementNode {
			continue
		}
		for _, a := range d.Attr {
			if a.Key == "data-testid" && a.Val == id {
				return d
			}
		}
	}
	return nil
}

// seedDashboard fills every area the dashboard counts: 2 sources, 4 tools
// (2 exposed), one pending request by the admin, bundle v1, three runtime
// instances of which two are stale (one behind, one silent).
func seedDashboard(t *testing.T, a *testApp) {
	t.Helper()
	ctx := context.Background()
	add := func(source, name, method string, class risk.Class, exposed bool) int64 {
		return storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: source, Origin: "https://api.example.com", Name: name,
			Method: method, Path: "/" + name, Class: class, Exposed: exposed})
	}
	add("orders", "orders_list", "GET", risk.Read, true)
	add("orders", "orders_get", "GET", risk.Read, true)
	add("orders", "orders_create", "POST", risk.Write, false)
	del := add("billing", "invoices_delete", "DELETE", risk.Destructive, false)
	a.publish("first")

	rec, err := a.db.ToolPolicy(ctx, del)
	if err != nil {
		t.Fatal(err)
	}
	p := rec.Policy
	p.Exposed = true
	if _, err := a.db.CreateChangeRequest(ctx, a.users["admin"], store.NewChangeRequest{ToolID: del,
		Kind: store.KindExposeRisky, Reason: "cleanup job", Policy: p}); err != nil {
		t.Fatal(err)
	}

	a.token("fleet")
	tok, err := a.db.ListRuntimeTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(instance string, version int64) {
		if err := a.db.RecordRuntimeFetch(ctx, store.RuntimeFetch{TokenID: tok[0].ID, InstanceID: instance,
			Name: instance, Version: version}); err != nil {
			t.Fatal(err)
		}
	}
	realNow := a.db.Now
	a.db.Now = func() time.Time { return realNow().Add(-time.Hour) }
	fetch("silent", 1)
	a.db.Now = realNow
	fetch("current", 1)
	fetch("behind", 0)
}

func TestDashboardFigures(t *testing.T) {
	a := newPublishApp(t)
	seedDashboard(t, a)

	tests := []struct {
		role string
		want map[string]string // testid path joined by " > " → text
		// absent testids must not be rendered for this role.
		absent []string
	}{
		{role: "approver", want: map[string]string{
			"dash-pending-for-you": "1 waiting for you",
		}},
		{role: "admin", want: map[string]string{
			"dash-sources":                     "2",
			"dash-tools-total":                 "4",
			"dash-exposed-total":               "2",
			"dash-pending":                     "1",
			"dash-bundle":                      "v1",
			"dash-runtimes":                    "3",
			"dash-stale-runtimes":              "2 stale",
			"dash-class-READ > tools":          "2",
			"dash-class-READ > exposed":        "2",
			"dash-class-WRITE > tools":         "1",
			"dash-class-DESTRUCTIVE > tools":   "1",
			"dash-class-DESTRUCTIVE > exposed": "0",
			"dash-class-PRIVILEGED > tools":    "0",
		}, absent: []string{"dash-pending-for-you", "dash-lower-verdicts"}},
		{role: "viewer", want: map[string]string{"dash-sources": "2", "dash-bundle": "v1"},
			absent: []string{"dash-pending-for-you"}},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			rec := a.do(request{method: "GET", path: "/", cookie: a.sessionCookie(tt.role)})
			wantStatus(t, rec, 200)
			body := rec.Body.String()
			for path, want := range tt.want {
				if got := byTestID(t, body, strings.Split(path, " > ")...); got != want {
					t.Errorf("%s: %q, want %q", path, got, want)
				}
			}
			wantHTML(t, body, in(tid("dash-rules-version"), hasText("risk rules version "+strconv.Itoa(risk.RulesVersion))))
			for _, id := range tt.absent {
				wantHTML(t, body, none(tid(id)))
			}
		})
	}
}

// TestDashboardDetails checks the bundle line, the recent audit entries
// and that each figure links to its page.
func TestDashboardDetails(t *testing.T) {
	a := newPublishApp(t)
	seedDashboard(t, a)
	rec := a.do(request{method: "GET", path: "/", cookie: a.sessionCookie("admin")})
	wantStatus(t, rec, 200)
	body := rec.Body.String()
	if got := byTestID(t, body, "dash-bundle-published"); !strings.HasPrefix(got, "less than a minute ago by test") {
		t.Errorf("bundle published line %q", got)
	}
	if got := byTestID(t, body, "dash-bundle-expires"); !strings.HasPrefix(got, "Expires 20") {
		t.Errorf("bundle expiry line %q", got)
	}
	wantHTML(t, body, count(tid("dash-recent-entry"), dashboardRecentAudit))
	// Newest first: the admin's sign-in for this request, then the change
	// request seeded before it.
	if got := byTestID(t, body, "dash-recent-entry"); !strings.HasPrefix(got, "login.success") {
		t.Errorf("first recent entry %q", got)
	}
	wantHTML(t, body, in(tid("dash-recent-entry"), hasText("change_request.create tool:invoices_delete")))
	wantPage(t, rec, in(`a[href="/sources"]`+tid("dash-sources")), in(`a[href="/approvals"]`+tid("dash-pending")),
		in(`a[href="/bundles"]`+tid("dash-bundle")), in(`a[href="/runtimes"]`+tid("dash-stale-runtimes")),
		in(`a[href="/tools?class=WRITE"]`+tid("tools")), in(`a[href="/tools?class=READ&exposure=exposed"]`+tid("exposed")))
}

// TestDashboardEmpty is the first-run dashboard: zeros and no bundle.
func TestDashboardEmpty(t *testing.T) {
	a := newTestApp(t, true)
	rec := a.do(request{method: "GET", path: "/", cookie: a.sessionCookie("admin")})
	wantStatus(t, rec, 200)
	body := rec.Body.String()
	for id, want := range map[string]string{"dash-sources": "0", "dash-bundle": "none", "dash-runtimes": "0", "dash-pending": "0"} {
		if got := byTestID(t, body, id); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
}

// TestDashboardWarnsAboutLocalApprovals: an approval between local
// accounts is listed as one person could have given it; one between two
// accounts of the identity provider is not.
func TestDashboardWarnsAboutLocalApprovals(t *testing.T) {
	a := newTestApp(t, true)
	ctx := context.Background()
	approve := func(requester, approver *store.User, tool string) {
		t.Helper()
		cr := exposeRequest(t, a, requester, riskyTool(t, a, tool))
		if _, err := a.db.ApproveChangeRequest(ctx, approver.ID, cr.ID, "ok"); err != nil {
			t.Fatal(err)
		}
	}
	page := a.do(request{method: "GET", path: "/", cookie: a.sessionCookie("viewer")})
	wantHTML(t, page.Body.String(), none(`[data-testid="local-approvals"]`))

	sso := func(sub string, role auth.Role) *store.User {
		t.Helper()
		u, _, err := a.db.SignInSSO(ctx, store.SSOSignIn{Provider: "https://idp.example", Subject: sub,
			Email: sub + "@example.com", Roles: []auth.Role{role}}, store.SessionPolicy{Idle: time.Hour, Absolute: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	approve(sso("ann", auth.RoleAdmin), sso("sam", auth.RoleApprover), "carts_delete")
	page = a.do(request{method: "GET", path: "/", cookie: a.sessionCookie("viewer")})
	wantHTML(t, page.Body.String(), none(`[data-testid="local-approvals"]`))

	approve(a.users["admin"], a.users["approver"], "orders_delete")
	page = a.do(request{method: "GET", path: "/", cookie: a.sessionCookie("viewer")})
	wantHTML(t, page.Body.String(), in(`[data-testid="local-approvals"]`,
		hasText("orders_delete: asked by admin@example.com, approved by approver@example.com"),
		hasText("anyone with access to the host"), hasText("single sign-on groups")))
	// An approval between provider accounts is not listed as one person's.
	wantHTML(t, page.Body.String(), in(`[data-testid="local-approvals"]`, lacks("carts_delete: asked by")))
}
