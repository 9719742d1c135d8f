package web

import (
	"context"
	"net/url"
	"testing"

	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// TestDuplicateRequestRefusedWithALink: asking for the same change to the
// same tool while it is pending is refused on the form, with a link to the
// pending request; a different change is not.
func TestDuplicateRequestRefusedWithALink(t *testing.T) {
	a := newTestApp(t, true)
	seedTools(t, a)
	admin := a.sessionCookie("admin")
	expose := url.Values{"confirm_name": {"orders_delete"}, "reason": {"nightly cleanup"}}
	wantStatus(t, a.post(admin, "/tools/orders_delete/actions/expose", expose), 303)
	pending, err := a.db.ChangeRequests(context.Background(), store.ChangeRequestFilter{Pending: true})
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending %v %v", pending, err)
	}
	first := itoa(pending[0].ID)

	expose.Set("reason", "asked again, in other words")
	rec := a.post(a.sessionCookie("admin"), "/tools/orders_delete/actions/expose", expose)
	wantStatus(t, rec, 409)
	wantPage(t, rec, in(tid("form-error"), hasText("The same change is already waiting for a decision: request #"+first+
		", asked by admin@example.com.")), in(tid("form-error")+" a"+tid("form-error-link"), hasAttr("href", "/approvals#request-"+first)))

	retry := url.Values{"confirm_name": {"orders_delete"}, "reason": {"deletes are idempotent"}, "mode": {"assert"}, "attempts": {"3"}}
	wantStatus(t, a.post(admin, "/tools/orders_delete/actions/retry", retry), 303)
	if pending, _ = a.db.ChangeRequests(context.Background(), store.ChangeRequestFilter{Pending: true}); len(pending) != 2 {
		t.Errorf("%d pending requests, want 2: the first and the different change", len(pending))
	}
}

// TestApproveConfirmShowsWhatARuntimeWillDo: the Approve button leads to a
// confirmation page (a plain POST form) with the diff, the effective
// policy, the worst case before and after and the warnings; nothing is
// applied until it is confirmed.
func TestApproveConfirmShowsWhatARuntimeWillDo(t *testing.T) {
	a := newTestApp(t, true)
	ctx := context.Background()
	rec0 := storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: "orders_create", Method: "POST", Path: "/orders", Class: risk.Write})
	p := rec0.Policy
	p.TimeoutMS, p.DeadlineMS = 4000, 10000
	if _, err := a.db.SavePolicy(ctx, "admin@example.com", rec0.ToolID, rec0.Version, p); err != nil {
		t.Fatal(err)
	}
	retry := url.Values{"confirm_name": {"orders_create"}, "reason": {"the API dedupes"}, "mode": {"assert"}, "attempts": {"3"}}
	wantStatus(t, a.post(a.sessionCookie("admin"), "/tools/orders_create/actions/retry", retry), 303)
	pending, err := a.db.ChangeRequests(ctx, store.ChangeRequestFilter{Pending: true})
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending %v %v", pending, err)
	}
	path := "/approvals/" + itoa(pending[0].ID) + "/approve"
	approver := a.sessionCookie("approver")

	rec := a.post(approver, path, url.Values{"comment": {"checked the API docs"}})
	wantStatus(t, rec, 200)
	confirm := tid("approve-confirm")
	wantPage(t, rec, in(confirm+" "+tid("diff")), in(confirm+" "+tid("effective-policy")+" li", hasText("POST · up to 3 attempts")),
		in(confirm+" "+tid("worst-case"), textIs("8.5 s")), in(confirm+" p:has("+tid("worst-case")+")", hasText("(now 4 s)")),
		in(confirm+" "+tid("approve-warning"), hasText("Warning: only 2 of 3 attempts fit in the 10 s deadline")),
		in(confirm+` form input[type="hidden"][name="confirm"]`, hasAttr("value", "yes")),
		in(confirm+` form textarea[name="comment"]`, textIs("checked the API docs")),
		in(confirm+" form button"+tid("confirm-approve")))
	wantPage(t, rec, none(confirm+` li:containsOwn("Warning:")`)) // the warning is not shown twice
	if got, _ := a.db.ToolPolicy(ctx, rec0.ToolID); got.Policy.Retry.Attempts == 3 {
		t.Fatal("applied before confirmation")
	}
	wantPending(t, a, &pending[0])

	rec = a.post(approver, path, url.Values{"comment": {"checked the API docs"}, "confirm": {"yes"}})
	wantStatus(t, rec, 303)
	if got, _ := a.db.ToolPolicy(ctx, rec0.ToolID); got.Policy.Retry.Attempts != 3 || !got.Policy.Idempotent {
		t.Fatalf("confirmed approval not applied: %+v", got.Policy)
	}
	if cr, _ := a.db.ChangeRequest(ctx, pending[0].ID); cr.Comment != "checked the API docs" {
		t.Errorf("comment %q", cr.Comment)
	}
	// A second approval (another tab) lands on Approvals with the reason.
	rec = a.post(approver, path, url.Values{})
	wantStatus(t, rec, 409)
	wantPage(t, rec, in(tid("approvals")+" "+tid("form-error"), hasText("This request is no longer pending (it is approved).")))
}
