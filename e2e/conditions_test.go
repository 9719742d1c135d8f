package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// seedGuardedDelete puts an exposed DELETE tool with one deny condition
// into the running app's database.
func seedGuardedDelete(t *testing.T, a *app) {
	t.Helper()
	db := storetest.Open(t, config.DBPath(a.dataDir))
	p := policy.NewToolPolicy("DELETE", risk.Destructive, policy.BuiltinDefaults())
	p.Exposed = true
	p.Conditions = []policy.Condition{{Effect: policy.ConditionDeny, Expr: "args.id == 'ord_1'", Message: "ord_1 is kept"}}
	storetest.MustSeedTool(t, db, storetest.SeedTool{Name: "orders_delete", Method: "DELETE", Path: "/orders/{id}", Class: risk.Destructive, Policy: &p})
}

// TestConditionChangeRequest: an admin changes the condition of an exposed
// DELETE tool, sees a type error at the expression, fixes it, tries it,
// saves, and the save becomes a change request; the approver sees the old
// and the new expression in its diff.
func TestConditionChangeRequest(t *testing.T) {
	a := startApp(t)
	_, admin := a.setupAdmin(t, desktop)
	approverPassword := a.addUser(t, "approver@example.com", "approver")
	seedGuardedDelete(t, a)

	must(t, goTo(admin, "/tools/orders_delete/policy"))
	first := admin.GetByTestId("condition-0")
	visible(t, admin.GetByTestId("scope-fields"))
	expr := first.GetByLabel("Expression")
	must(t, expr.Fill("args.id > 3"))
	must(t, admin.GetByTestId("save-policy").Click())
	errLoc := admin.GetByTestId("condition-0").GetByTestId("field-error")
	visible(t, errLoc.GetByText("Line 1, column 9"))
	if d, err := admin.GetByTestId("condition-0").GetByLabel("Expression").GetAttribute("aria-describedby"); err != nil || d != "pf-conditions.0.expr-error" {
		t.Fatalf("expression aria-describedby = %q (%v)", d, err)
	}
	shot(t, admin, "01-type-error")

	must(t, admin.GetByTestId("condition-0").GetByLabel("Expression").Fill("args.id == 'ord_2'"))
	// Editing the expression clears the last save's error from it.
	hidden(t, errLoc)
	if v, err := admin.GetByTestId("condition-0").GetByLabel("Expression").GetAttribute("aria-invalid"); err != nil || v != "" {
		t.Fatalf("edited expression still aria-invalid=%q (%v)", v, err)
	}
	must(t, admin.GetByTestId("condition-0").GetByLabel("Message to the agent").Fill("ord_2 is kept"))
	must(t, admin.GetByText("Try the conditions").Click())
	must(t, admin.GetByLabel("Sample arguments (JSON)").Fill(`{"id":"ord_2"}`))
	must(t, admin.GetByTestId("try-button").Click())
	visible(t, admin.GetByTestId("try-result").GetByText("Refused by condition 1"))
	shot(t, admin, "02-try-it")
	// The same editor on a phone: the condition fields and the try-it box.
	_, phoneAdmin := a.signIn(t, narrow, "admin@example.com", adminPassword)
	must(t, goTo(phoneAdmin, "/tools/orders_delete/policy"))
	must(t, phoneAdmin.GetByTestId("scope-fields").ScrollIntoViewIfNeeded())
	shotScreen(t, phoneAdmin, "02b-editor-375")

	must(t, admin.GetByTestId("save-policy").Click())
	visible(t, admin.GetByTestId("explicit-action"))
	visible(t, admin.GetByTestId("diff").GetByText("deny: args.id == 'ord_1' — ord_1 is kept"))
	visible(t, admin.GetByTestId("diff").GetByText("deny: args.id == 'ord_2' — ord_2 is kept"))
	shot(t, admin, "03-change-request")
	must(t, admin.GetByLabel("Reason (the approver reads it)").Fill("ord_1 was archived; ord_2 must stay."))
	must(t, admin.GetByLabel("Type the tool's name to confirm").Fill("orders_delete"))
	must(t, admin.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Ask for approval"}).Click())
	visible(t, admin.GetByTestId("pending-request"))

	for _, size := range []*playwright.Size{desktop, narrow} {
		_, approver := a.signIn(t, size, "approver@example.com", approverPassword)
		must(t, goTo(approver, "/approvals"))
		req := approver.GetByTestId("approval-request")
		visible(t, req.GetByText("orders_delete"))
		visible(t, req.GetByText("deny: args.id == 'ord_1' — ord_1 is kept"))
		visible(t, req.GetByText("deny: args.id == 'ord_2' — ord_2 is kept"))
		if size == narrow {
			shotScreen(t, approver, "05-approver-diff-375")
		} else {
			shot(t, approver, "04-approver-diff")
		}
	}
}
