package web

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// TestPerCallModeInTheEditor: the editor offers the per-call modes beside
// risk and retry, and the confirm/approve condition effects; a saved mode
// is shown beside the risk class and in the read-only facts; a mode that
// is none of them is refused at its field and nothing is saved.
func TestPerCallModeInTheEditor(t *testing.T) {
	ctx := context.Background()
	a := newTestApp(t, true)
	get, _ := seedTools(t, a)
	admin := a.sessionCookie("admin")
	rec := a.do(request{method: "GET", path: "/tools/orders_list/policy", cookie: admin})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("per-call-mode"), in(".badge", textIs("none"))),
		in(`select[name="per_call"]`, count("option", 3), in(`option[value=""][selected]`), in(`option[value="confirm"]`), in(`option[value="approve"]`)),
		in(`select[name="conditions.0.effect"]`, in(`option[value="confirm"]`, hasText("confirm")), in(`option[value="approve"]`, hasText("approver"))))

	v := policyValues(get.Policy, get.Version)
	v.Set("per_call", "sometimes")
	rec = a.do(request{method: "POST", path: "/tools/orders_list/policy", form: v, cookie: admin, csrf: true})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(`select[name="per_call"]`, hasAttr("aria-invalid", "true"), hasAttr("aria-describedby", "pf-per_call-hint pf-per_call-error")),
		in("#pf-per_call-error", hasText(`must be empty, "confirm" or "approve"`)))
	if stored, _ := a.db.ToolPolicy(ctx, get.ToolID); stored.Version != get.Version {
		t.Fatalf("a refused mode was saved: %+v", stored.Policy)
	}

	v.Set("per_call", policy.PerCallApprove)
	rec = a.do(request{method: "POST", path: "/tools/orders_list/policy", form: v, cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	if stored, _ := a.db.ToolPolicy(ctx, get.ToolID); stored.Policy.PerCall != policy.PerCallApprove {
		t.Fatalf("stored per_call %q, want approve", stored.Policy.PerCall)
	}
	rec = a.do(request{method: "GET", path: "/tools/orders_list/policy", cookie: admin})
	wantPage(t, rec, in(tid("risk-box"), in(tid("per-call-mode"), in(".badge", textIs("approve")))),
		in(`select[name="per_call"]`, in(`option[value="approve"][selected]`)))
	rec = a.do(request{method: "GET", path: "/tools/orders_list", cookie: admin})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("risk-box"), in(tid("risk-class")), in(tid("per-call-mode"), in(".badge", textIs("approve")))))
	rec = a.do(request{method: "GET", path: "/tools/orders_list/policy", cookie: a.sessionCookie("viewer")})
	wantPage(t, rec, none(`select[name="per_call"]`), in(tid("per-call-fact"), hasText("a security approver decides each call")))
}

// TestWeakerPerCallOnADestructiveToolIsAChangeRequest: on an exposed
// DESTRUCTIVE tool, a stronger per-call mode saves at once; a weaker one
// (approve to none) becomes a change request carrying the mode, and
// applies once an approver approves it.
func TestWeakerPerCallOnADestructiveToolIsAChangeRequest(t *testing.T) {
	ctx := context.Background()
	a := newTestApp(t, true)
	p := policy.NewToolPolicy("DELETE", risk.Destructive, policy.BuiltinDefaults())
	p.Exposed, p.PerCall = true, policy.PerCallConfirm
	del := storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: "orders_delete", Method: "DELETE", Path: "/orders/{id}",
		Class: risk.Destructive, Policy: &p})
	admin := a.sessionCookie("admin")

	v := policyValues(del.Policy, del.Version)
	v.Set("per_call", policy.PerCallApprove)
	rec := a.do(request{method: "POST", path: "/tools/orders_delete/policy", form: v, cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	stored, _ := a.db.ToolPolicy(ctx, del.ToolID)
	if stored.Policy.PerCall != policy.PerCallApprove {
		t.Fatalf("a stronger mode was not saved at once: %+v", stored.Policy)
	}

	v = policyValues(stored.Policy, stored.Version)
	v.Set("per_call", "")
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/policy", form: v, cookie: admin, csrf: true})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("explicit-action"), in(`form[action="/tools/orders_delete/actions/scope"]`,
		in(`input[type="hidden"][name="per_call"]`, hasAttr("value", "")), in("tr", in("code", textIs("per_call")), hasText("approve"), hasText("none")))))
	if now, _ := a.db.ToolPolicy(ctx, del.ToolID); now.Version != stored.Version {
		t.Fatalf("the weaker mode applied before any approval: %+v", now.Policy)
	}
	v.Set("reason", "the approvers are swamped")
	v.Set("confirm_name", "orders_delete")
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/actions/scope", form: v, cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	reqs, _ := a.db.ChangeRequests(ctx, store.ChangeRequestFilter{ToolID: del.ToolID, Pending: true})
	if len(reqs) != 1 {
		t.Fatalf("pending = %+v, want one request", reqs)
	}
	if _, err := a.db.ApproveChangeRequest(ctx, a.users["approver"].ID, reqs[0].ID, "ok"); err != nil {
		t.Fatal(err)
	}
	if now, _ := a.db.ToolPolicy(ctx, del.ToolID); now.Policy.PerCall != "" {
		t.Fatalf("after approval per_call is %q, want none", now.Policy.PerCall)
	}
}

// TestConditionTryItAsks: the try-it box tells an ask apart from a
// refusal: the asking condition, or the tool's own per-call mode.
func TestConditionTryItAsks(t *testing.T) {
	a := newTestApp(t, true)
	del := seedScopedDelete(t, a)
	big := policy.Condition{Effect: policy.ConditionApprove, Expr: "args.id.startsWith('big_')", Message: "big orders need an approver"}
	hx := map[string]string{"HX-Request": "true"}
	for _, c := range []struct {
		name, args, perCall, want string
	}{
		{"a condition asks", `{"id":"big_1"}`, "", "Asks first (approve), by condition 2"},
		{"a refusal still wins", `{"id":"ord_1"}`, "", "Refused by condition 1"},
		{"the tool's mode asks", `{"id":"ord_9"}`, policy.PerCallConfirm, "Asks first (confirm), by the tool's per-call mode"},
		{"nobody asked", `{"id":"ord_9"}`, "", "Allowed: no condition refuses"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := scopeValues(del, "ops", idDeny, big)
			v.Set("per_call", c.perCall)
			v.Set("try.args", c.args)
			v.Set("try.kind", "oidc")
			rec := a.do(request{method: "POST", path: "/tools/orders_delete/policy/try", form: v, cookie: a.sessionCookie("admin"), csrf: true, header: hx})
			wantStatus(t, rec, 200)
			wantPage(t, rec, in(tid("try-result"), hasText(c.want)))
		})
	}
}
