package web

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/approval"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// callsApp is a console with refund (approve per call) and note (confirm
// per call) published.
type callsApp struct {
	*testApp
	version int64
	digests map[string]string
}

func newCallsApp(t *testing.T) *callsApp {
	t.Helper()
	a := newPublishApp(t)
	for name, mode := range map[string]string{"refund": policy.PerCallApprove, "note": policy.PerCallConfirm} {
		p := policy.NewToolPolicy("POST", risk.Write, policy.BuiltinDefaults())
		p.PerCall = mode
		storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: name,
			Method: "POST", Path: "/" + name, Class: risk.Write, Exposed: true, Policy: &p})
	}
	rec := a.publish("per-call tools")
	b, err := rec.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	c := &callsApp{testApp: a, version: rec.Version, digests: map[string]string{}}
	for _, tool := range b.Tools {
		c.digests[tool.Name] = tool.Digest
	}
	return c
}

// file files a call to tool for subject (kind token) as a runtime would.
func (c *callsApp) file(tool, mode, subject string) *store.CallRequest {
	c.t.Helper()
	digest, _ := callrecord.ArgumentsDigest(map[string]any{"amount": 250, "subject": subject})
	cr, _, err := c.db.FileCallRequest(context.Background(), store.NewCallRequest{Request: callgate.Request{
		Schema: callgate.RequestSchema, Tool: tool, DefinitionDigest: c.digests[tool], ArgumentsDigest: digest,
		Arguments: map[string]any{"amount": 250, "card_token": callgate.Masked}, Mode: mode, BundleVersion: c.version,
		Instance: "rt-1", Principal: callgate.Principal{Principal: callrecord.Principal{Kind: "token", Subject: subject}}},
		TokenID: 1, RiskClass: "WRITE", Lifetime: time.Hour, Limits: approval.DefaultLimits})
	if err != nil {
		c.t.Fatal(err)
	}
	return cr
}

func (c *callsApp) post(role, path string, form url.Values) *httptest.ResponseRecorder {
	c.t.Helper()
	return c.do(request{method: "POST", path: path, form: form, cookie: c.sessionCookie(role), csrf: true})
}

// TestCallsSectionAndDecision: the Approvals page lists the waiting call
// with its arguments (a masked one as masked) and the way to decide it;
// the section answers HTMX polling alone; an approver approves with a
// comment after the confirmation step and the grant exists, audited.
func TestCallsSectionAndDecision(t *testing.T) {
	c := newCallsApp(t)
	cr := c.file("refund", policy.PerCallApprove, "alice@example.com")
	own := c.file("refund", policy.PerCallApprove, "approver@example.com")
	page := c.do(request{method: "GET", path: "/approvals", cookie: c.sessionCookie("approver")})
	wantStatus(t, page, 200)
	wantPage(t, page, in("section#calls", count(tid("call-request"), 2),
		in("article#call-"+cr.ID, in(tid("call-principal"), hasText("token:alice@example.com")),
			in(tid("argument-value"), hasText("250")), in(tid("masked")),
			in("a"+tid("decide-call"), hasAttr("href", "/approvals/calls/"+cr.ID))),
		in("article#call-"+own.ID, in(tid("own-call")), none(tid("decide-call")))))
	frag := c.do(request{method: "GET", path: "/approvals/calls", cookie: c.sessionCookie("viewer"), header: map[string]string{"HX-Request": "true"}})
	wantStatus(t, frag, 200)
	wantPage(t, frag, in("section#calls", count(tid("call-request"), 2), none(tid("decide-call"))), none("html > head title"))

	confirm := c.post("approver", "/approvals/calls/"+cr.ID+"/approve", url.Values{"comment": {"refund ok"}})
	wantStatus(t, confirm, 200)
	wantPage(t, confirm, in(tid("call-confirm"), in("textarea#confirm-call-comment", hasText("refund ok"))))
	if got, _ := c.db.CallRequest(context.Background(), cr.ID); got.State != callgate.Pending {
		t.Fatalf("the first step decided already: %s", got.State)
	}
	done := c.post("approver", "/approvals/calls/"+cr.ID+"/approve", url.Values{"comment": {"refund ok"}, "confirm": {"yes"}})
	wantStatus(t, done, 303)
	got, err := c.db.CallRequest(context.Background(), cr.ID)
	if err != nil || got.State != callgate.Approved || got.Grant == "" || got.Comment != "refund ok" || got.DecidedBy != "approver@example.com" {
		t.Fatalf("after approval: %+v %v", got, err)
	}
	entries, _, err := c.db.QueryAudit(context.Background(), store.AuditFilter{Action: "call_request.approve", Limit: 10})
	if err != nil || len(entries) != 1 || entries[0].Actor != "approver@example.com" || !strings.Contains(entries[0].After, cr.ID) {
		t.Fatalf("audit: %+v %v", entries, err)
	}
	after := c.do(request{method: "GET", path: done.Header().Get("Location"), cookie: c.sessionCookie("approver")})
	wantPage(t, after, in(tid("notice"), hasText("Approved")), in(tid("call-state"), hasText("approved")))
}

// TestCallDecisionRefusals: the principal cannot approve their own call,
// a viewer cannot decide, a denial needs a comment; a confirm-mode call
// is the principal's alone (others get 404), whatever their roles.
func TestCallDecisionRefusals(t *testing.T) {
	c := newCallsApp(t)
	own := c.file("refund", policy.PerCallApprove, "approver@example.com")
	yes := url.Values{"confirm": {"yes"}, "comment": {"mine"}}
	rec := c.post("approver", "/approvals/calls/"+own.ID+"/approve", yes)
	wantStatus(t, rec, 403)
	wantPage(t, rec, in(tid("form-error"), hasText("another approver must decide it")))
	wantStatus(t, c.post("viewer", "/approvals/calls/"+own.ID+"/approve", yes), 403)
	rec = c.post("admin", "/approvals/calls/"+own.ID+"/deny", url.Values{"confirm": {"yes"}})
	wantStatus(t, rec, 403) // an admin is no approver
	other := c.file("refund", policy.PerCallApprove, "alice@example.com")
	rec = c.post("approver", "/approvals/calls/"+other.ID+"/deny", url.Values{"confirm": {"yes"}})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(tid("form-error"), hasText("Say why you deny the call")))
	for _, id := range []string{own.ID, other.ID} {
		if got, _ := c.db.CallRequest(context.Background(), id); got.State != callgate.Pending {
			t.Fatalf("a refused decision changed %s to %s", id, got.State)
		}
	}

	note := c.file("note", policy.PerCallConfirm, "viewer@example.com")
	wantStatus(t, c.do(request{method: "GET", path: "/approvals/calls/" + note.ID, cookie: c.sessionCookie("approver")}), 404)
	wantStatus(t, c.post("approver", "/approvals/calls/"+note.ID+"/approve", yes), 404)
	mine := c.do(request{method: "GET", path: "/approvals/calls/" + note.ID, cookie: c.sessionCookie("viewer")})
	wantStatus(t, mine, 200)
	wantPage(t, mine, in("h1", hasText("Confirm this call to note?")), in(tid("approve-call"), hasText("Confirm…")))
	wantStatus(t, c.post("viewer", "/approvals/calls/"+note.ID+"/approve", url.Values{"confirm": {"yes"}}), 303)
	if got, _ := c.db.CallRequest(context.Background(), note.ID); got.State != callgate.Approved || got.DecidedBy != "viewer@example.com" {
		t.Fatalf("the principal's confirmation: %+v", got)
	}
}
