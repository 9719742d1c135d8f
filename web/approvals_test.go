package web

import (
	"context"
	"net/url"
	"strconv"
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
	wantPage(t, rec, in(tid("approval-request")+" "+tid("own-request")),
		none(tid("approve")),   // the requester sees no approve button on their own request
		none(tid("nav-count"))) // nor does it count in their badge
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
	wantPage(t, rec, in(tid("nav-count"), textIs("1")),
		in(tid("approval-request"), hasText("asked by both@example.com"), hasText("cleanup job")),
		in(tid("approval-request")+" h3 a", textIs("orders_delete")), in(tid("approval-request")+" h3 .badge", textIs("DESTRUCTIVE")),
		in(tid("approval-request")+" code", textIs("exposed")), in(tid("approval-request")+" button"+tid("approve")))
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
	wantPage(t, rec, in(tid("decided-outcome"), hasText("approved")), in(tid("no-pending")), none(tid("approval-request")))
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
	wantPage(t, rec, in(tid("approval-request")+" "+tid("stale-request"), hasText("This request no longer matches the tool"),
		hasText("(timeout_ms)")))
	rec = a.do(request{method: "POST", path: "/approvals/" + itoa(stale.ID) + "/approve", form: url.Values{"confirm": {"yes"}}, cookie: approver, csrf: true})
	wantStatus(t, rec, 303)
	rec = a.do(request{method: "GET", path: rec.Header().Get("Location"), cookie: approver})
	wantPage(t, rec, in(tid("notice"), hasText("request is void")), in(tid("decided")+" tr", hasText("void"), hasText("timeout_ms")))

	cr := exposeRequest(t, a, a.users["admin"], mustPolicy(t, a, del.ToolID))
	rec = a.do(request{method: "POST", path: "/approvals/" + itoa(cr.ID) + "/reject", form: url.Values{}, cookie: approver, csrf: true})
	wantStatus(t, rec, 400)
	// The Approvals page again, with the error at the request's comment.
	wantPage(t, rec, in(tid("approvals")+` textarea[name="comment"]`, hasAttr("aria-invalid", "true"),
		hasAttr("aria-describedby", "comment-error-"+itoa(cr.ID))),
		in("#comment-error-"+itoa(cr.ID)+tid("field-error"), textIs("Say why you reject the request: the requester reads it.")))
	if got, _ := a.db.ChangeRequest(context.Background(), cr.ID); got.Status != store.StatusPending {
		t.Fatalf("a rejection without comment changed the request to %s", got.Status)
	}
	rec = a.do(request{method: "POST", path: "/approvals/" + itoa(cr.ID) + "/reject", form: url.Values{"comment": {"use the archive tool"}}, cookie: approver, csrf: true})
	wantStatus(t, rec, 303)
	rec = a.do(request{method: "GET", path: "/approvals", cookie: a.sessionCookie("viewer")})
	wantPage(t, rec, in(tid("decided")+" tr", hasText("rejected"), hasText("use the archive tool")),
		none(tid("approve"))) // a viewer sees no approve buttons
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
