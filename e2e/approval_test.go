package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// seedDeleteTool puts a DELETE tool into the running app's database
// through the store (the same file the server uses; SQLite WAL lets both
// write).
func seedDeleteTool(t *testing.T, a *app) {
	t.Helper()
	db := storetest.Open(t, config.DBPath(a.dataDir))
	defer db.Close()
	storetest.MustSeedTool(t, db, storetest.SeedTool{Name: "orders_delete", Method: "DELETE", Path: "/orders/{id}", Class: risk.Destructive})
}

// TestApprovalFlow is R10's four-eyes story in two browsers: an admin
// asks to expose a DELETE tool and cannot approve it; an approver sees the
// pending count and approves; the tool is exposed and the audit log shows
// both steps.
func TestApprovalFlow(t *testing.T) {
	a := startApp(t)
	_, admin := a.setupAdmin(t, desktop)
	approverPassword := a.addUser(t, "approver@example.com", "approver")
	seedDeleteTool(t, a)

	// The admin asks to expose the DELETE tool, with a reason.
	must(t, goTo(admin, "/tools/orders_delete/policy"))
	visible(t, admin.GetByTestId("risk-class").GetByText("DESTRUCTIVE"))
	visible(t, admin.GetByTestId("retry-box"))
	shot(t, admin, "01-tool-risk-beside-retry")
	must(t, admin.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Expose this tool…"}).Click())
	must(t, admin.GetByLabel("Reason (the approver reads it)").Fill("The nightly cleanup agent deletes expired orders."))
	must(t, admin.GetByLabel("Type the tool's name to confirm").Fill("orders_delete"))
	shot(t, admin, "02-expose-confirm")
	must(t, admin.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Ask for approval"}).Click())
	visible(t, admin.GetByTestId("pending-request"))

	// The same admin sees no approve button.
	must(t, goTo(admin, "/approvals"))
	visible(t, admin.GetByTestId("own-request"))
	if n, err := admin.GetByTestId("approve").Count(); err != nil || n != 0 {
		t.Fatalf("requester sees %d approve buttons (%v)", n, err)
	}

	// An approver, in another browser context, sees the count and approves.
	_, approver := a.signIn(t, desktop, "approver@example.com", approverPassword)
	visible(t, approver.GetByTestId("nav-count").GetByText("1"))
	must(t, approver.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Approvals"}).Click())
	visible(t, approver.GetByTestId("approval-request").GetByText("orders_delete"))
	shot(t, approver, "03-approvals")
	must(t, approver.GetByLabel("Comment (required to reject)").Fill("OK for the cleanup agent."))
	must(t, approver.GetByTestId("approve").Click())
	// A confirmation step shows what a runtime will do, then applies.
	visible(t, approver.GetByTestId("approve-confirm"))
	visible(t, approver.GetByTestId("effective-policy").GetByText("Exposed: agents can call this tool."))
	shot(t, approver, "03b-approve-confirm")
	must(t, approver.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Approve and apply"}).Click())
	visible(t, approver.GetByTestId("notice").GetByText("Approved and applied."))

	// The tool is exposed, and the audit log lists both steps.
	must(t, goTo(admin, "/tools/orders_delete/policy"))
	checked, err := admin.GetByLabel("Exposed to agents").IsChecked()
	if err != nil || !checked {
		t.Fatalf("tool not shown as exposed after approval (%v)", err)
	}
	shot(t, admin, "04-tool-exposed")
	must(t, goTo(admin, "/audit?subject=tool:orders_delete"))
	visible(t, admin.GetByTestId("audit-table").GetByText("change_request.create"))
	visible(t, admin.GetByTestId("audit-table").GetByText("change_request.approve"))
	shot(t, admin, "05-audit")
}
