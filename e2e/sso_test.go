package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/oidctest"
)

// startSSOApp runs the console with single sign-on against a real provider
// (internal/testing/oidctest) holding an admin (group tg-admins) and an approver
// (tg-approvers); staff gives the viewer role. Local sign-in is off.
func startSSOApp(t *testing.T) (*app, *oidctest.Provider) {
	t.Helper()
	requireBrowser(t)
	idp := oidctest.Start(t,
		oidctest.User{ID: "u-ada", Username: "ada", Password: "ada-pw", Email: "ada@example.com", EmailVerified: true,
			Groups: []string{"tg-admins"}},
		oidctest.User{ID: "u-sam", Username: "sam", Password: "sam-pw", Email: "sam@example.com", EmailVerified: true,
			Groups: []string{"tg-approvers", "staff"}})
	secret := filepath.Join(t.TempDir(), "oidc-secret")
	if err := os.WriteFile(secret, []byte("e2e-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startApp(t, "--oidc-issuer", idp.Issuer, "--oidc-client-id", "toolgate", "--oidc-client-secret-file", secret,
		"--oidc-name", "Test IdP", "--oidc-admin-groups", "tg-admins", "--oidc-approver-groups", "tg-approvers",
		"--oidc-viewer-groups", "staff", "--local-login=false")
	idp.AddClient("toolgate", "e2e-secret", a.baseURL+"/login/oidc/callback")
	return a, idp
}

// ssoSignIn signs in through the provider's own form in a fresh browser
// context and returns the page on the dashboard.
func ssoSignIn(t *testing.T, a *app, size *playwright.Size, user, password, shotPrefix string) playwright.Page {
	t.Helper()
	_, page := a.newPage(t, size)
	must(t, goTo(page, "/login"))
	if shotPrefix != "" {
		shot(t, page, shotPrefix+"-login")
	}
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Sign in with Test IdP"}).Click())
	visible(t, page.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Test identity provider"}))
	must(t, page.GetByLabel("Username").Fill(user))
	must(t, page.GetByLabel("Password").Fill(password))
	if shotPrefix != "" {
		shot(t, page, shotPrefix+"-provider")
	}
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Sign in"}).Click())
	visible(t, page.GetByTestId("dashboard"))
	return page
}

// TestSingleSignOnApproval is README "Single sign-on (OpenID Connect)" in browsers: an admin signs
// in through the provider and asks to expose a DESTRUCTIVE tool; an
// approver signs in through the provider and approves; removed from the
// approver group at the provider, the approver's next sign-in has no
// approver role.
func TestSingleSignOnApproval(t *testing.T) {
	a, idp := startSSOApp(t)
	seedDeleteTool(t, a)

	admin := ssoSignIn(t, a, desktop, "ada", "ada-pw", "01-admin")
	visible(t, admin.GetByText("with the roles: admin"))
	must(t, goTo(admin, "/tools/orders_delete/policy"))
	must(t, admin.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Expose this tool…"}).Click())
	must(t, admin.GetByLabel("Reason (the approver reads it)").Fill("The nightly cleanup agent deletes expired orders."))
	must(t, admin.GetByLabel("Type the tool's name to confirm").Fill("orders_delete"))
	must(t, admin.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Ask for approval"}).Click())
	visible(t, admin.GetByTestId("pending-request"))
	shot(t, admin, "02-admin-requested")

	approver := ssoSignIn(t, a, narrow, "sam", "sam-pw", "03-approver-narrow")
	visible(t, approver.GetByText("with the roles: approver, viewer"))
	must(t, goTo(approver, "/approvals"))
	must(t, approver.GetByLabel("Comment (required to reject)").Fill("OK for the cleanup agent."))
	must(t, approver.GetByTestId("approve").Click())
	visible(t, approver.GetByTestId("approve-confirm"))
	must(t, approver.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Approve and apply"}).Click())
	visible(t, approver.GetByTestId("notice").GetByText("Approved and applied."))
	shot(t, approver, "04-approved-narrow")
	noSideways(t, approver, "/approvals")

	// The admin sees both accounts managed by the provider.
	must(t, goTo(admin, "/users"))
	visible(t, admin.GetByTestId("managed-badge").First())
	shot(t, admin, "05-users-managed")

	// Removed from the approver group at the provider: the next sign-in
	// has no approver role, so a new pending request has no approve button.
	seedTool(t, a, "orders_purge")
	must(t, goTo(admin, "/tools/orders_purge/policy"))
	must(t, admin.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Expose this tool…"}).Click())
	must(t, admin.GetByLabel("Reason (the approver reads it)").Fill("Purge job."))
	must(t, admin.GetByLabel("Type the tool's name to confirm").Fill("orders_purge"))
	must(t, admin.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Ask for approval"}).Click())
	visible(t, admin.GetByTestId("pending-request"))
	idp.SetGroups("u-sam", "staff")
	again := ssoSignIn(t, a, desktop, "sam", "sam-pw", "")
	visible(t, again.GetByText("with the roles: viewer."))
	must(t, goTo(again, "/approvals"))
	visible(t, again.GetByTestId("approval-request").GetByText("orders_purge"))
	if n, err := again.GetByTestId("approve").Count(); err != nil || n != 0 {
		t.Fatalf("ex-approver sees %d approve buttons (%v)", n, err)
	}
	shot(t, again, "06-ex-approver")

	// A callback nobody started is refused with a clear page.
	must(t, goTo(again, "/login/oidc/callback?code=stolen&state=forged"))
	visible(t, again.GetByTestId("sso-failure"))
	shot(t, again, "07-refused-callback")
}

// seedTool adds a DELETE tool named name to the running app's database.
func seedTool(t *testing.T, a *app, name string) {
	t.Helper()
	db := storetest.Open(t, config.DBPath(a.dataDir))
	defer db.Close()
	storetest.MustSeedTool(t, db, storetest.SeedTool{Name: name, Method: "DELETE", Path: "/" + name + "/{id}", Class: risk.Destructive})
}

// noSideways fails when the page scrolls sideways.
func noSideways(t *testing.T, page playwright.Page, path string) {
	t.Helper()
	overflow, err := page.Evaluate(`() => document.documentElement.scrollWidth > window.innerWidth`)
	must(t, err)
	if overflow == true {
		t.Errorf("%s scrolls sideways at this width", path)
	}
}

// TestBreakGlassSignIn: with local sign-in off, a local account the
// operator marked break-glass signs in through the tucked-away form, and
// the dashboard shows the sign-in to everybody, at 375 px too.
func TestBreakGlassSignIn(t *testing.T) {
	a, _ := startSSOApp(t)
	password := a.addUser(t, "glass@example.com", "admin")
	a.cliRun(t, "user", "break-glass", "--email", "glass@example.com")
	_, page := a.newPage(t, narrow)
	must(t, goTo(page, "/login"))
	must(t, page.GetByText("Break-glass sign-in").Click())
	shot(t, page, "01-break-glass-form")
	fillLogin(t, page, "glass@example.com", password)
	visible(t, page.GetByTestId("break-glass-sign-ins").GetByText("glass@example.com"))
	shot(t, page, "02-dashboard-warns")
	noSideways(t, page, "/")
}
