package web

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// policyValues is the editor form of p at version, as a browser posts it.
func policyValues(p policy.Policy, version int64) url.Values {
	f := policyForm(p)
	v := url.Values{
		"version": {strconv.FormatInt(version, 10)}, "timeout_ms": {f.TimeoutMS}, "deadline_ms": {f.DeadlineMS},
		"max_response_bytes": {f.MaxResponseBytes}, "retry.attempts": {f.Attempts}, "retry.backoff_ms": {f.BackoffMS},
		"retry.multiplier": {f.Multiplier}, "circuit_breaker.threshold": {f.BreakerThreshold},
		"circuit_breaker.reset_ms": {f.BreakerResetMS}, "idempotency_key.header": {f.KeyHeader},
		"idempotency_key.source": {f.KeySource}, "per_call": {f.PerCall},
	}
	for name, on := range map[string]bool{"exposed": f.Exposed, "retry.jitter": f.Jitter, "idempotent": f.Idempotent, "idempotency_key": f.KeyOn} {
		if on {
			v.Set(name, "true")
		}
	}
	for _, s := range f.RetryOn {
		v.Add("retry.retry_on", strconv.Itoa(s))
	}
	return v
}

// seedTools adds a GET and a DELETE tool.
func seedTools(t *testing.T, a *testApp) (get, del *store.PolicyRecord) {
	t.Helper()
	get = storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: "orders_list", Method: "GET", Path: "/orders", Class: risk.Read})
	del = storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: "orders_delete", Method: "DELETE", Path: "/orders/{id}", Class: risk.Destructive})
	return get, del
}

func TestToolPolicyPageByRole(t *testing.T) {
	a := newTestApp(t, true)
	seedTools(t, a)
	tests := []struct {
		role string
		want []check
	}{
		{"admin", []check{in(tid("risk-box")+" a.button", textIs("Expose this tool…")),
			in(tid("risk-box")+" a.button", textIs("Enable retry…")),
			in(tid("risk-reasons")+" code", textIs("method:DELETE")),
			in(tid("retry-box")+" "+tid("policy-summary"), hasText("DELETE · 1 attempt")),
			in(tid("retry-box") + " form" + tid("policy-form")), none(tid("policy-facts"))}},
		{"viewer", []check{in(tid("risk-class"), textIs("DESTRUCTIVE")), in(tid("retry-box") + " " + tid("policy-facts")),
			none(tid("policy-form")), none(tid("risk-box") + " a.button")}},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			rec := a.do(request{method: "GET", path: "/tools/orders_delete/policy", cookie: a.sessionCookie(tt.role)})
			wantStatus(t, rec, 200)
			wantPage(t, rec, tt.want...)
		})
	}
}

func TestToolPolicyPreviewFragment(t *testing.T) {
	a := newTestApp(t, true)
	get, del := seedTools(t, a)
	admin := a.sessionCookie("admin")
	v := policyValues(get.Policy, get.Version)
	v.Set("retry.attempts", "5")
	v.Set("deadline_ms", "6000")
	rec := a.do(request{method: "POST", path: "/tools/orders_list/policy/preview", form: v, cookie: admin, csrf: true,
		header: map[string]string{"HX-Request": "true"}})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("policy-preview")+" li", hasText("up to 5 attempts")),
		in(tid("policy-preview")+" "+tid("worst-case"), textIs("5 s")),
		in(tid("policy-preview")+" "+tid("preview-warning"), hasText("Warning: only 1 of 5 attempts fit")))
	wantFragment(t, rec)
	// Exposing a DESTRUCTIVE tool shows that it needs approval.
	v = policyValues(del.Policy, del.Version)
	v.Set("exposed", "true")
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/policy/preview", form: v, cookie: admin, csrf: true,
		header: map[string]string{"HX-Request": "true"}})
	wantPage(t, rec, in(tid("needs-approval")+" li", hasText("Expose a destructive or privileged tool")))
	// Without JavaScript the preview is the whole page with the values kept.
	v.Set("timeout_ms", "4321")
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/policy/preview", form: v, cookie: admin, csrf: true})
	wantStatus(t, rec, 200)
	wantDocument(t, rec)
	wantPage(t, rec, in(`input[name="timeout_ms"]`, hasAttr("value", "4321")), in(tid("needs-approval")))
}

func TestToolPolicySaveAndConflict(t *testing.T) {
	ctx := context.Background()
	a := newTestApp(t, true)
	get, _ := seedTools(t, a)
	admin := a.sessionCookie("admin")
	first := policyValues(get.Policy, get.Version)
	first.Set("timeout_ms", "1500")
	first.Set("return_to", "https://evil.example/")
	rec := a.do(request{method: "POST", path: "/tools/orders_list/policy", form: first, cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	if loc := rec.Header().Get("Location"); loc != "/?done=saved" {
		t.Errorf("redirect to %q: return_to must stay on this site", loc)
	}
	// A second admin saves from the same (now stale) version: 409 with the
	// current values and their own in a reapply form.
	second := policyValues(get.Policy, get.Version)
	second.Set("deadline_ms", "12000")
	rec = a.do(request{method: "POST", path: "/tools/orders_list/policy", form: second, cookie: admin, csrf: true})
	wantStatus(t, rec, 409)
	wantPage(t, rec, in(tid("policy-conflict"), hasText("Reapply my changes")), in(tid("policy-conflict")+" code", textIs("timeout_ms")),
		in(tid("policy-form")+` input[name="deadline_ms"]`, hasAttr("value", "12000")),
		in(tid("policy-form")+` input[name="version"]`, hasAttr("value", strconv.FormatInt(get.Version+1, 10))),
		in(tid("save-policy"), textIs("Reapply my changes")))
	stored, _ := a.db.ToolPolicy(ctx, get.ToolID)
	if stored.Policy.TimeoutMS != 1500 || stored.Policy.DeadlineMS == 12000 {
		t.Fatalf("stored %+v after the conflict", stored.Policy)
	}
	// Reapplying at the current version keeps both changes? No: the form
	// holds the second admin's values, timeout included, which they saw.
	second.Set("version", strconv.FormatInt(stored.Version, 10))
	rec = a.do(request{method: "POST", path: "/tools/orders_list/policy", form: second, cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	if stored, _ = a.db.ToolPolicy(ctx, get.ToolID); stored.Policy.DeadlineMS != 12000 {
		t.Fatalf("reapply stored %+v", stored.Policy)
	}
}

func TestToolPolicySaveRefusals(t *testing.T) {
	a := newTestApp(t, true)
	_, del := seedTools(t, a)
	admin := a.sessionCookie("admin")
	tests := []struct {
		name  string
		set   map[string]string
		want  []check
		field string
	}{
		{"expose a DELETE tool", map[string]string{"exposed": "true"}, []check{in(tid("form-error"), hasText("needs an explicit action"))}, ""},
		{"DELETE attempts above 1", map[string]string{"retry.attempts": "3"}, []check{in(tid("form-error"), hasText("needs an explicit action"))}, ""},
		{"not a number", map[string]string{"timeout_ms": "soon"}, []check{in("#pf-timeout_ms-error", textIs("Enter a whole number.")),
			in("#pf-timeout_ms", hasAttr("value", "soon"))}, "timeout_ms"},
		{"out of range", map[string]string{"timeout_ms": "5"}, []check{in("#pf-timeout_ms-error" + tid("field-error"))}, "timeout_ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := policyValues(del.Policy, del.Version)
			for k, x := range tt.set {
				v.Set(k, x)
			}
			rec := a.do(request{method: "POST", path: "/tools/orders_delete/policy", form: v, cookie: admin, csrf: true})
			wantStatus(t, rec, 400)
			wantPage(t, rec, tt.want...)
			if tt.field != "" {
				wantPage(t, rec, in("#pf-"+tt.field, hasAttr("aria-invalid", "true"), hasAttr("aria-describedby", "pf-"+tt.field+"-error")))
			}
		})
	}
	if stored, _ := a.db.ToolPolicy(context.Background(), del.ToolID); stored.Version != del.Version {
		t.Fatal("a refused save was stored")
	}
}

func TestExplicitActionCreatesARequest(t *testing.T) {
	ctx := context.Background()
	a := newTestApp(t, true)
	_, del := seedTools(t, a)
	admin := a.sessionCookie("admin")
	rec := a.do(request{method: "GET", path: "/tools/orders_delete/actions/expose", cookie: admin})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("explicit-action")+` form input[name="confirm_name"]`), in(tid("explicit-action")+" code", textIs("exposed")))
	rec = a.do(request{method: "GET", path: "/tools/orders_delete/actions/retry", cookie: admin})
	wantPage(t, rec, in(tid("explicit-action")+" "+tid("warning"), hasText("Sending an idempotency key does not make an API idempotent")))

	form := url.Values{"reason": {"the cleanup job deletes expired orders"}, "confirm_name": {"orders_list"}}
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/actions/expose", form: form, cookie: admin, csrf: true})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(tid("explicit-action"), hasText("Type the tool's name, orders_delete, exactly")),
		in(tid("explicit-action")+` textarea[name="reason"]`, textIs("the cleanup job deletes expired orders")))

	form.Set("confirm_name", "orders_delete")
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/actions/expose", form: form, cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	if stored, _ := a.db.ToolPolicy(ctx, del.ToolID); stored.Policy.Exposed {
		t.Fatal("the tool was exposed before approval")
	}
	rec = a.do(request{method: "GET", path: "/tools/orders_delete/policy?done=requested", cookie: admin})
	wantPage(t, rec, in(tid("pending-request"), hasText("the cleanup job deletes expired orders")),
		in(tid("pending-request")+" button", textIs("Withdraw my request")), in(tid("notice"), hasText("Change request created")))

	// Retry with a key on the DELETE tool: one request with key and attempts.
	retry := url.Values{"reason": {"upstream dedups"}, "confirm_name": {"orders_delete"}, "mode": {"key"},
		"header": {"Idempotency-Key"}, "source": {"generated"}, "attempts": {"3"}}
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/actions/retry", form: retry, cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	reqs, _ := a.db.ChangeRequests(ctx, store.ChangeRequestFilter{Pending: true})
	if len(reqs) != 2 || reqs[1].Kind != store.KindEnableMutationRetry {
		t.Fatalf("pending = %+v", reqs)
	}
}

// TestRetryActionCanAdd500: once a POST retries (approved), adding 500 to
// its retry_on needs approval (policy.ApprovalNeeded); the editor refuses it
// and the explicit retry action carries it as a change request instead.
func TestRetryActionCanAdd500(t *testing.T) {
	ctx := context.Background()
	a := newTestApp(t, true)
	post := storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: "orders_create", Method: "POST", Path: "/orders", Class: risk.Write})
	admin := a.sessionCookie("admin")
	retry := url.Values{"reason": {"upstream dedups by key"}, "confirm_name": {"orders_create"}, "mode": {"key"},
		"header": {"Idempotency-Key"}, "source": {"generated"}, "attempts": {"3"}}
	wantStatus(t, a.do(request{method: "POST", path: "/tools/orders_create/actions/retry", form: retry, cookie: admin, csrf: true}), 303)
	reqs, _ := a.db.ChangeRequests(ctx, store.ChangeRequestFilter{Pending: true})
	if len(reqs) != 1 {
		t.Fatalf("pending = %+v", reqs)
	}
	if _, err := a.db.ApproveChangeRequest(ctx, a.users["approver"].ID, reqs[0].ID, "ok"); err != nil {
		t.Fatal(err)
	}
	cur, err := a.db.ToolPolicy(ctx, post.ToolID)
	if err != nil {
		t.Fatal(err)
	}

	// The editor refuses adding 500 as an ordinary edit.
	form := policyValues(cur.Policy, cur.Version)
	form.Add("retry.retry_on", "500")
	rec := a.do(request{method: "POST", path: "/tools/orders_create/policy", form: form, cookie: admin, csrf: true})
	wantStatus(t, rec, 400)
	if after, _ := a.db.ToolPolicy(ctx, post.ToolID); slices.Contains(after.Policy.Retry.RetryOn, 500) {
		t.Fatal("the editor saved retry on 500 for a retrying POST without approval")
	}

	// The explicit action asks for it.
	retry.Set("retry_500", "1")
	wantStatus(t, a.do(request{method: "POST", path: "/tools/orders_create/actions/retry", form: retry, cookie: admin, csrf: true}), 303)
	reqs, _ = a.db.ChangeRequests(ctx, store.ChangeRequestFilter{Pending: true})
	if len(reqs) != 1 {
		t.Fatalf("pending = %+v", reqs)
	}
	_, after, err := reqs[0].Policies()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(after.Retry.RetryOn, 500) || slices.Contains(after.Retry.RetryOn, 501) {
		t.Fatalf("requested retry_on = %v, want 500 added and not 501", after.Retry.RetryOn)
	}
}
