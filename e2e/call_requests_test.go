package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/callrecord"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// runtimeClient speaks the runtime API as a runtime does: bearer token,
// JSON bodies (internal/callgate).
type runtimeClient struct {
	t       *testing.T
	baseURL string
	token   string
}

func (rc runtimeClient) do(method, path string, body any) (int, []byte) {
	rc.t.Helper()
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		must(rc.t, err)
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, rc.baseURL+path, in)
	must(rc.t, err)
	req.Header.Set("Authorization", "Bearer "+rc.token)
	resp, err := http.DefaultClient.Do(req)
	must(rc.t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	must(rc.t, err)
	return resp.StatusCode, out
}

func (rc runtimeClient) status(method, path string, body any, want int) callgate.Status {
	rc.t.Helper()
	code, out := rc.do(method, path, body)
	if code != want {
		rc.t.Fatalf("%s %s: %d %s, want %d", method, path, code, out, want)
	}
	var st callgate.Status
	must(rc.t, json.Unmarshal(out, &st))
	return st
}

// TestCallApprovalInTheBrowser is R16's approve mode on the console: a
// call request filed through the runtime API appears live in the
// Approvals page's Calls section; an approver reviews its arguments,
// approves with a comment after the confirmation step, and the runtime
// reads the grant from the request's status. A request for the approver
// themself offers no decision, and deciding it anyway is refused.
func TestCallApprovalInTheBrowser(t *testing.T) {
	a := startApp(t)
	db := storetest.Open(t, config.DBPath(a.dataDir))
	p := policy.NewToolPolicy("POST", risk.Write, policy.BuiltinDefaults())
	p.PerCall = policy.PerCallApprove
	storetest.MustAddTool(t, db, storetest.FixtureTool{Source: "orders", Origin: "https://api.example.com", Name: "refund_order",
		Method: "POST", Path: "/refunds", Class: risk.Write, Exposed: true, Policy: &p})
	rc := runtimeClient{t: t, baseURL: a.baseURL, token: storetest.RuntimeToken(t, db, "edge")}

	_, admin := a.setupAdmin(t, desktop)
	must(t, goTo(admin, "/bundles"))
	must(t, admin.GetByLabel("Note (what changed and why)").Fill("refunds, approved per call"))
	must(t, admin.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Publish"}).Click())
	visible(t, admin.GetByTestId("current-version").GetByText("v1"))
	rec, err := db.LatestBundle(context.Background())
	must(t, err)
	b, err := rec.Bundle()
	must(t, err)
	must(t, db.Close())

	_, approver := a.signIn(t, desktop, "approver@example.com", a.addUser(t, "approver@example.com", "approver"))
	must(t, goTo(approver, "/approvals"))
	visible(t, approver.GetByTestId("no-calls"))
	shot(t, approver, "01-no-calls")

	call := func(subject string, amount int) callgate.Request {
		digest, err := callrecord.ArgumentsDigest(map[string]any{"amount": amount, "card_token": "tok_live_secret"})
		must(t, err)
		return callgate.Request{Schema: callgate.RequestSchema, Tool: "refund_order", DefinitionDigest: b.Tools[0].Digest,
			ArgumentsDigest: digest, Arguments: map[string]any{"amount": amount, "card_token": callgate.Masked},
			Mode: policy.PerCallApprove, Reason: "refunds need an approver", BundleVersion: rec.Version, Instance: "rt-e2e",
			Principal: callgate.Principal{Principal: callrecord.Principal{Kind: "token", Subject: subject, ClientID: "agent"}}}
	}
	filed := rc.status("POST", callgate.PathRequests, call("alice@example.com", 4200), http.StatusCreated)
	if filed.URL != a.baseURL+"/approvals/calls/"+filed.ID {
		t.Fatalf("status URL %q", filed.URL)
	}

	// Live: the section polls, so the call appears without a reload.
	item := approver.Locator("#call-" + filed.ID)
	visible(t, item.GetByTestId("call-principal").GetByText("token:alice@example.com"))
	visible(t, item.GetByTestId("argument-value").GetByText("4200"))
	visible(t, item.GetByTestId("masked"))
	shot(t, approver, "02-call-appeared")
	must(t, item.GetByTestId("decide-call").Click())
	visible(t, approver.GetByTestId("call-page"))
	must(t, approver.GetByLabel("Comment (required to deny)").Fill("Refund agreed with the customer."))
	must(t, approver.GetByTestId("approve-call").Click())
	visible(t, approver.GetByTestId("call-confirm"))
	shot(t, approver, "03-confirm")
	must(t, approver.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Approve the call"}).Click())
	visible(t, approver.GetByTestId("notice").GetByText("Approved"))
	shot(t, approver, "04-approved")

	st := rc.status("GET", callgate.PathRequests+"/"+filed.ID+"?wait=5", nil, http.StatusOK)
	if st.State != callgate.Approved || st.Grant == "" || st.Comment != "Refund agreed with the customer." || st.DecidedBy != "approver@example.com" {
		t.Fatalf("status after approval: %+v", st)
	}
	code, jwks := rc.do("GET", "/api/v1/keys", nil)
	if code != http.StatusOK {
		t.Fatalf("keys: %d", code)
	}
	keys, err := bundle.ParseKeySet(jwks)
	must(t, err)
	if _, err := bundle.VerifyGrant([]byte(st.Grant), keys, time.Now()); err != nil {
		t.Fatalf("the grant does not verify with the console's keys: %v", err)
	}

	// A call for the approver themself: no decision offered, and one
	// posted anyway (with a valid CSRF token) is refused.
	own := rc.status("POST", callgate.PathRequests, call("approver@example.com", 99), http.StatusCreated)
	must(t, goTo(approver, "/approvals"))
	visible(t, approver.Locator("#call-"+own.ID).GetByTestId("own-call"))
	if n, err := approver.Locator("#call-" + own.ID).GetByTestId("decide-call").Count(); err != nil || n != 0 {
		t.Fatalf("the principal is offered %d decide links (%v)", n, err)
	}
	shot(t, approver, "05-own-call")
	csrf, err := approver.Locator("input[name=_csrf]").First().InputValue()
	must(t, err)
	resp, err := approver.Request().Post(a.baseURL+"/approvals/calls/"+own.ID+"/approve", playwright.APIRequestContextPostOptions{
		Form: map[string]any{"_csrf": csrf, "confirm": "yes", "comment": "my own"}})
	must(t, err)
	if resp.Status() != http.StatusForbidden {
		t.Fatalf("the principal approving their own call: %d, want 403", resp.Status())
	}
	if st := rc.status("GET", callgate.PathRequests+"/"+own.ID, nil, http.StatusOK); st.State != callgate.Pending {
		t.Fatalf("the refused decision changed the request: %+v", st)
	}
}
