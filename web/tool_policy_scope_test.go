package web

import (
	"context"
	"net/url"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

var idDeny = policy.Condition{Effect: policy.ConditionDeny, Expr: "args.id == 'ord_1'", Message: "ord_1 is kept"}

// seedScopedDelete is an exposed DESTRUCTIVE tool (DELETE /orders/{id},
// id a string) scoped to ops and billing with one deny condition.
func seedScopedDelete(t *testing.T, a *testApp) *store.PolicyRecord {
	t.Helper()
	p := policy.NewToolPolicy("DELETE", risk.Destructive, policy.BuiltinDefaults())
	p.Exposed, p.Groups, p.Conditions = true, []string{"ops", "billing"}, []policy.Condition{idDeny}
	return storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: "orders_delete", Method: "DELETE", Path: "/orders/{id}",
		Class: risk.Destructive, Policy: &p})
}

// scopeValues is the editor form of rec with groups and conditions
// replaced.
func scopeValues(rec *store.PolicyRecord, groups string, conds ...policy.Condition) url.Values {
	v := policyValues(rec.Policy, rec.Version)
	v.Set("groups", groups)
	for i, c := range conds {
		prefix := "conditions." + string(rune('0'+i)) + "."
		v.Set(prefix+"effect", c.Effect)
		v.Set(prefix+"expr", c.Expr)
		v.Set(prefix+"message", c.Message)
	}
	return v
}

func TestPolicyEditorShowsScope(t *testing.T) {
	a := newTestApp(t, true)
	seedScopedDelete(t, a)
	rec := a.do(request{method: "GET", path: "/tools/orders_delete/policy", cookie: a.sessionCookie("admin")})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("scope-fields"), in(`input[name="groups"]`, hasAttr("value", "ops, billing")),
		in(`textarea[name="conditions.0.expr"]`, textIs("args.id == 'ord_1'")),
		in(`input[name="conditions.0.message"]`, hasAttr("value", "ord_1 is kept")),
		in(`textarea[name="conditions.1.expr"]`, textIs(""))),
		in(tid("try-button"), hasAttr("hx-post", "/tools/orders_delete/policy/try")))
	rec = a.do(request{method: "GET", path: "/tools/orders_delete/policy", cookie: a.sessionCookie("viewer")})
	wantPage(t, rec, none(`input[name="groups"]`), none("textarea"),
		in("dt", textIs("Groups")), in("dd", hasText("ops, billing")), in("dd", hasText("deny: args.id == 'ord_1'")))
}

// TestConditionTypeErrorAtTheField: a condition that does not type-check
// against the input schema is shown at its field (aria-describedby, line
// and column) and nothing is saved.
func TestConditionTypeErrorAtTheField(t *testing.T) {
	ctx := context.Background()
	a := newTestApp(t, true)
	_, get := seedTools(t, a)
	v := scopeValues(get, "", policy.Condition{Effect: policy.ConditionDeny, Expr: "args.limit > 10", Message: "m"})
	rec := a.do(request{method: "POST", path: "/tools/orders_delete/policy", form: v, cookie: a.sessionCookie("admin"), csrf: true})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(tid("form-error"), hasText("A condition does not compile")),
		in(`textarea[name="conditions.0.expr"]`, hasAttr("aria-describedby", "pf-conditions.0.expr-error"), textIs("args.limit > 10")),
		in(`[id="pf-conditions.0.expr-error"]`, hasText("Line 1, column 5: undefined field 'limit'")))
	if stored, _ := a.db.ToolPolicy(ctx, get.ToolID); stored.Version != get.Version || len(stored.Policy.Conditions) > 0 {
		t.Fatalf("stored %+v (version %d) after a refused save", stored.Policy, stored.Version)
	}
	// The live preview type-checks as the admin types.
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/policy/preview", form: v, cookie: a.sessionCookie("admin"), csrf: true,
		header: map[string]string{"HX-Request": "true"}})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("preview-invalid"), hasText("conditions[0]: Line 1, column 5: undefined field")))
	// A message is required too, at the same field.
	v = scopeValues(get, "", policy.Condition{Effect: policy.ConditionDeny, Expr: "true"})
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/policy", form: v, cookie: a.sessionCookie("admin"), csrf: true})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(`[id="pf-conditions.0.expr-error"]`, hasText("needs a message")))
	// A type mismatch, not only an unknown name.
	v = scopeValues(get, "", policy.Condition{Effect: policy.ConditionDeny, Expr: "args.id > 10", Message: "m"})
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/policy", form: v, cookie: a.sessionCookie("admin"), csrf: true})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(`[id="pf-conditions.0.expr-error"]`, hasText("Line 1, column 9: found no matching overload for '_>_' applied to '(string, int)'")))
}

// TestScopeChangesOnADestructiveTool: narrowing the groups and adding a
// deny condition save at once; widening the groups or changing a
// condition turns the save into a change request whose diff shows the old
// and new expression, and nothing changes until it is approved.
func TestScopeChangesOnADestructiveTool(t *testing.T) {
	ctx := context.Background()
	a := newTestApp(t, true)
	del := seedScopedDelete(t, a)
	admin := a.sessionCookie("admin")
	extra := policy.Condition{Effect: policy.ConditionDeny, Expr: "args.id.startsWith('keep_')", Message: "kept"}

	rec := a.do(request{method: "POST", path: "/tools/orders_delete/policy", form: scopeValues(del, "ops", idDeny, extra), cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	stored, _ := a.db.ToolPolicy(ctx, del.ToolID)
	if len(stored.Policy.Groups) != 1 || len(stored.Policy.Conditions) != 2 {
		t.Fatalf("narrowing and adding were not saved: %+v", stored.Policy)
	}

	changed := policy.Condition{Effect: policy.ConditionDeny, Expr: "args.id == 'ord_2'", Message: "ord_2 is kept"}
	for _, c := range []struct {
		name   string
		form   url.Values
		before string
		after  string
	}{
		{"widen groups", scopeValues(stored, "ops, support", idDeny, extra), "ops", "ops, support"},
		{"change a condition", scopeValues(stored, "ops", changed, extra), "deny: args.id == 'ord_1' — ord_1 is kept", "deny: args.id == 'ord_2' — ord_2 is kept"},
		{"remove a condition", scopeValues(stored, "ops", extra), "deny: args.id == 'ord_1' — ord_1 is kept", "deny: args.id.startsWith('keep_') — kept"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := a.do(request{method: "POST", path: "/tools/orders_delete/policy", form: c.form, cookie: admin, csrf: true})
			wantStatus(t, rec, 200)
			wantPage(t, rec, in(tid("explicit-action"), in(`form[action="/tools/orders_delete/actions/scope"]`),
				hasText(c.before), hasText(c.after)))
			if now, _ := a.db.ToolPolicy(ctx, del.ToolID); now.Version != stored.Version {
				t.Fatalf("the save changed the policy to %+v before any approval", now.Policy)
			}
		})
	}

	// Submitting the confirmation creates the request; the approver sees
	// the old and new expression.
	form := scopeValues(stored, "ops", changed, extra)
	form.Set("reason", "ord_1 may go now, ord_2 must stay")
	form.Set("confirm_name", "orders_delete")
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/actions/scope", form: form, cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	if now, _ := a.db.ToolPolicy(ctx, del.ToolID); now.Version != stored.Version {
		t.Fatalf("the request changed the policy at once: %+v", now.Policy)
	}
	rec = a.do(request{method: "GET", path: "/approvals", cookie: a.sessionCookie("approver")})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in("tr", in("code", textIs("conditions[0]")), hasText("deny: args.id == 'ord_1' — ord_1 is kept"),
		hasText("deny: args.id == 'ord_2' — ord_2 is kept")), in("a", textIs("orders_delete")), in("p", hasText("ord_1 may go now")))

	// Approved, the new expression is the policy.
	reqs, _ := a.db.ChangeRequests(ctx, store.ChangeRequestFilter{ToolID: del.ToolID, Pending: true})
	if len(reqs) != 1 {
		t.Fatalf("pending = %+v", reqs)
	}
	if _, err := a.db.ApproveChangeRequest(ctx, a.users["approver"].ID, reqs[0].ID, "ok"); err != nil {
		t.Fatal(err)
	}
	if now, _ := a.db.ToolPolicy(ctx, del.ToolID); len(now.Policy.Conditions) != 2 || now.Policy.Conditions[0] != changed {
		t.Fatalf("after approval the conditions are %+v, want the changed one first", now.Policy.Conditions)
	}

	// The confirmation re-checks the expressions it carries.
	form.Set("conditions.0.expr", "args.id > 3")
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/actions/scope", form: form, cookie: admin, csrf: true})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(tid("form-error"), hasText("conditions[0]: Line 1, column 9")))
}

func TestConditionTryIt(t *testing.T) {
	a := newTestApp(t, true)
	del := seedScopedDelete(t, a)
	only := policy.Condition{Effect: policy.ConditionAllowOnly, Expr: "'ops' in principal.groups", Message: "ops only"}
	hx := map[string]string{"HX-Request": "true"}
	for _, c := range []struct {
		name, args, groups string
		want               string
	}{
		{"deny decides", `{"id":"ord_1"}`, "ops", "Refused by condition 1"},
		{"allow_only decides", `{"id":"ord_9"}`, "billing", "Refused by condition 2"},
		{"allowed", `{"id":"ord_9"}`, "ops", "Allowed: no condition refuses"},
		{"unset argument fails closed", `{}`, "ops", "could not be evaluated"},
		{"bad JSON", `{"id":`, "ops", "not a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := scopeValues(del, "ops", idDeny, only)
			v.Set("try.args", c.args)
			v.Set("try.groups", c.groups)
			v.Set("try.kind", "oidc")
			rec := a.do(request{method: "POST", path: "/tools/orders_delete/policy/try", form: v, cookie: a.sessionCookie("admin"), csrf: true, header: hx})
			wantStatus(t, rec, 200)
			wantPage(t, rec, in(tid("try-result"), hasText(c.want)))
			wantFragment(t, rec)
		})
	}
	// Without JavaScript: the whole page, the sample kept, and a condition
	// that does not compile is named.
	v := scopeValues(del, "ops", policy.Condition{Effect: policy.ConditionDeny, Expr: "args.nope", Message: "m"})
	v.Set("try.args", `{"id":"x"}`)
	rec := a.do(request{method: "POST", path: "/tools/orders_delete/policy/try", form: v, cookie: a.sessionCookie("admin"), csrf: true})
	wantStatus(t, rec, 200)
	wantDocument(t, rec)
	wantPage(t, rec, in(tid("try-result"), hasText("conditions[0] does not compile")), in(`[id="pf-conditions.0.expr-error"]`),
		in(`textarea[name="try.args"]`, textIs(`{"id":"x"}`)))
	// The editor's role rules: a viewer may not try.
	rec = a.do(request{method: "POST", path: "/tools/orders_delete/policy/try", form: v, cookie: a.sessionCookie("viewer"), csrf: true, header: hx})
	wantStatus(t, rec, 403)
}
