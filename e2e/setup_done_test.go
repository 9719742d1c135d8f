package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestSetupLinkAfterSetup: the setup link opened again once the first
// admin exists (as a second console's link on a shared database is) says
// setup is done and leads to the sign-in page.
func TestSetupLinkAfterSetup(t *testing.T) {
	a := startApp(t)
	a.setupAdmin(t, phone)

	_, other := a.newPage(t, phone)
	must(t, goTo(other, a.setupURL))
	visible(t, other.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Setup is already done"}))
	noWideElements(t, other, "/setup (done)")
	shotScreen(t, other, "setup-done")
	must(t, other.GetByTestId("setup-done").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Sign in"}).Click())
	must(t, other.WaitForURL("**/login"))
	fillLogin(t, other, "admin@example.com", adminPassword)
	visible(t, other.GetByTestId("dashboard"))
}
