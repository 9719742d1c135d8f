package web

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
)

// exposeRequest asks, as requester, to expose the DELETE tool.
func exposeRequest(t *testing.T, a *testApp, requester *store.User, del *store.PolicyRecord) *store.ChangeRequest {
	t.Helper()
	p := del.Policy
	p.Exposed = true
	cr, err := a.db.CreateChangeRequest(context.Background(), requester,
		store.NewChangeRequest{ToolID: del.ToolID, Kind: store.KindExposeRisky, Reason: "cleanup job", Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	return cr
}

func TestApprovalsWhoMayDecide(t *testing.T) {
	a := newTestApp(t, true)
	_, del := seedTools(t, a)
	both, err := a.db.CreateUser(context.Background(), "test", store.NewUser{Email: "both@example.com", PasswordHash: testHash(),
		Roles: []auth.Role{auth.RoleAdmin, auth.RoleApprover}})
	if err != nil {
		t.Fatal(err)
	}
	a.users["both"] = both
	cr := exposeRequest(t, a, both, del)
	path := "/approvals/" + itoa(cr.ID) + "/approve"

	// The requester, though an approver, sees no approve button and the
	// server refuses the POST anyway.
	rec := a.do(request{method: "GET", path: "/approvals", cookie: a.sessionCookie("both")})
	wantBody(t, rec, `data-testid="own-request"`)
	if strings.Contains(rec.Body.String(), `data-testid="approve"`) {
		t.Error("the requester sees an approve button on their own request")
	}
	if strings.Contains(rec.Body.String(), `data-testid="nav-count"`) {
		t.Error("the requester's own request counts in their badge")
	}
	for _, who := range []string{"both", "viewer", "admin"} {
		rec = a.do(request{method: "POST", path: path, form: url.Values{}, cookie: a.sessionCookie(who), csrf: true})
		wantStatus(t, rec, 403)
	}
	if got, _ := a.db.ChangeRequest(context.Background(), cr.ID); got.Status != store.StatusPending {
		t.Fatalf("refused approvals changed the request to %s", got.Status)
	}

	// Another approver sees the count and the button, and approves.
	approver := a.sessionCookie("approver")
	rec = a.do(request{method: "GET", path: "/approvals", cookie: approver})
	wantBody(t, rec, `data-testid="nav-count"`, `>1</span>`, `data-testid="approve"`, "orders_delete", "DESTRUCTIVE", "cleanup job",
		"<code>exposed</code>", "both@example.com")
	rec = a.do(request{method: "POST", path: path, form: url.Values{"comment": {"fine"}, "confirm": {"yes"}}, cookie: approver, csrf: true})
	wantStatus(t, rec, 303)
	if loc := rec.Header().Get("Location"); loc != "/approvals?done=approved" {
		t.Fatalf("redirect %q", loc)
	}
	stored, _ := a.db.ToolPolicy(context.Background(), del.ToolID)
	if !stored.Policy.Exposed {
		t.Fatal("approved exposure not applied")
	}
	rec = a.do(request{method: "GET", path: "/approvals", cookie: approver})
	wantBody(t, rec, `data-testid="decided"`, "approved", `data-testid="no-pending"`)
}

func TestApprovalsVoidAndReject(t *testing.T) {
	a := newTestApp(t, true)
	_, del := seedTools(t, a)
	approver := a.sessionCookie("approver")
	stale := exposeRequest(t, a, a.users["admin"], del)
	p := del.Policy
	p.TimeoutMS = 2000
	if _, err := a.db.SavePolicy(context.Background(), "admin@example.com", del.ToolID, del.Version, p); err != nil {
		t.Fatal(err)
	}
	// Approvals marks the request before anyone approves it.
	rec := a.do(request{method: "GET", path: "/approvals", cookie: approver})
	wantBody(t, rec, `data-testid="stale-request"`, "This request no longer matches the tool", "(timeout_ms)")
	rec = a.do(request{method: "POST", path: "/approvals/" + itoa(stale.ID) + "/approve", form: url.Values{"confirm": {"yes"}}, cookie: approver, csrf: true})
	wantStatus(t, rec, 303)
	rec = a.do(request{method: "GET", path: rec.Header().Get("Location"), cookie: approver})
	wantBody(t, rec, "request is void", "timeout_ms")

	cr := exposeRequest(t, a, a.users["admin"], mustPolicy(t, a, del.ToolID))
	rec = a.do(request{method: "POST", path: "/approvals/" + itoa(cr.ID) + "/reject", form: url.Values{}, cookie: approver, csrf: true})
	wantStatus(t, rec, 400)
	// The Approvals page again, with the error at the request's comment.
	wantBody(t, rec, `data-testid="approvals"`, `aria-describedby="comment-error-`+itoa(cr.ID)+`"`,
		`data-testid="field-error">Say why you reject the request: the requester reads it.<`)
	if got, _ := a.db.ChangeRequest(context.Background(), cr.ID); got.Status != store.StatusPending {
		t.Fatalf("a rejection without comment changed the request to %s", got.Status)
	}
	rec = a.do(request{method: "POST", path: "/approvals/" + itoa(cr.ID) + "/reject", form: url.Values{"comment": {"use the archive tool"}}, cookie: approver, csrf: true})
	wantStatus(t, rec, 303)
	rec = a.do(request{method: "GET", path: "/approvals", cookie: a.sessionCookie("viewer")})
	wantBody(t, rec, "rejected", "use the archive tool")
	if strings.Contains(rec.Body.String(), `data-testid="approve"`) {
		t.Error("a viewer sees approve buttons")
	}
}

func mustPolicy(t *testing.T, a *testApp, id int64) *store.PolicyRecord {
	t.Helper()
	rec, err := a.db.ToolPolicy(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
