package e2e

import (
	"testing"

	"github.com/playwright-community/playwright-go"
)

const adminPassword = "the first admin password"

func hasSessionCookie(t *testing.T, bc playwright.BrowserContext) bool {
	t.Helper()
	cookies, err := bc.Cookies()
	must(t, err)
	for _, c := range cookies {
		if c.Name == "toolgate_session" {
			return true
		}
	}
	return false
}

// TestFoundation walks README "Where to log in": first-run setup, sign-out, a refused
// sign-in, sign-in, adding a viewer, the viewer setting their own password
// at the first sign-in, the viewer refused the users page, and sign-out
// ending the session for a copied cookie too.
func TestFoundation(t *testing.T) {
	a := startApp(t)
	if a.setupURL == "" {
		t.Fatal("first run printed no setup link")
	}
	admin, page := a.newPage(t, desktop)

	// First-run setup creates an admin and signs them in.
	must(t, goTo(page, a.setupURL))
	visible(t, page.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Create the first admin"}))
	shot(t, page, "01-setup")
	fillSetup(t, page)
	visible(t, page.GetByTestId("dashboard"))
	shot(t, page, "02-dashboard")

	// The setup link is dead now: it says so and creates nothing.
	resp, err := page.Goto(a.setupURL)
	must(t, err)
	if resp.Status() != 200 {
		t.Errorf("setup link after setup: status %d, want 200", resp.Status())
	}
	visible(t, page.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Setup is already done"}))

	// Sign out.
	must(t, goTo(page, "/"))
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Sign out"}).Click())
	visible(t, page.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Sign in"}))
	if hasSessionCookie(t, admin) {
		t.Error("session cookie still set after sign-out")
	}

	// A wrong password shows an error and creates no session.
	fillLogin(t, page, "admin@example.com", "not the password")
	visible(t, page.GetByTestId("form-error").GetByText("Email or password is incorrect."))
	shot(t, page, "03-login-refused")
	if hasSessionCookie(t, admin) {
		t.Error("refused sign-in set a session cookie")
	}

	// The right password leads to the dashboard.
	fillLogin(t, page, "admin@example.com", adminPassword)
	visible(t, page.GetByTestId("dashboard"))

	// The admin adds a viewer through the users page.
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Users"}).Click())
	visible(t, page.GetByTestId("users-table"))
	must(t, page.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Add user"}).Click())
	must(t, page.GetByLabel("Email").Fill("viewer@example.com"))
	must(t, page.GetByLabel("Initial password", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)}).Fill("viewer password 1"))
	must(t, page.GetByLabel("Repeat Initial password").Fill("viewer password 1"))
	shot(t, page, "04-add-user")
	must(t, page.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Add user"}).Click())
	visible(t, page.GetByTestId("notice").GetByText("User added."))
	shot(t, page, "05-user-added")
	must(t, goTo(page, "/users"))
	visible(t, page.GetByRole("cell", playwright.PageGetByRoleOptions{Name: "viewer@example.com"}))
	shot(t, page, "06-users")

	// The admin chose the viewer's password, so it works for this sign-in
	// only: the viewer sets their own before anything else (R10).
	viewer, vpage := a.newPage(t, desktop)
	must(t, goTo(vpage, "/login"))
	fillLogin(t, vpage, "viewer@example.com", "viewer password 1")
	visible(t, vpage.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Set your password"}))
	shot(t, vpage, "07-set-password")
	must(t, vpage.GetByLabel("New password", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)}).Fill("the viewer's own password"))
	must(t, vpage.GetByLabel("Repeat new password").Fill("the viewer's own password"))
	must(t, vpage.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Set password"}).Click())
	visible(t, vpage.GetByTestId("dashboard"))

	// The viewer sees no admin navigation and is refused the users page.
	if n, err := vpage.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Users"}).Count(); err != nil || n != 0 {
		t.Errorf("viewer sees %d Users links (%v)", n, err)
	}
	shot(t, vpage, "08-viewer-dashboard")
	resp, err = vpage.Goto("/users")
	must(t, err)
	if resp.Status() != 403 {
		t.Errorf("viewer GET /users: status %d, want 403", resp.Status())
	}
	visible(t, vpage.GetByTestId("error-page"))
	shot(t, vpage, "09-viewer-forbidden")

	// Sign-out ends the session on the server: a copy of the cookie is useless.
	stolen, err := viewer.Cookies()
	must(t, err)
	must(t, goTo(vpage, "/"))
	must(t, vpage.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Sign out"}).Click())
	visible(t, vpage.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Sign in"}))
	thief, tpage := a.newPage(t, desktop)
	var replay []playwright.OptionalCookie
	for _, c := range stolen {
		replay = append(replay, c.ToOptionalCookie())
	}
	must(t, thief.AddCookies(replay))
	must(t, goTo(tpage, "/"))
	visible(t, tpage.GetByRole("heading", playwright.PageGetByRoleOptions{Name: "Sign in"}))
	if url := tpage.URL(); url == a.baseURL+"/" {
		t.Errorf("old cookie still reaches the dashboard")
	}
}

// TestNarrowScreens checks the pages fit a phone: no horizontal scrolling.
func TestNarrowScreens(t *testing.T) {
	a := startApp(t)
	a.addUser(t, "admin@example.com", "admin")
	a.addUser(t, "approver@example.com", "approver", "viewer")
	_, page := a.signIn(t, narrow, "admin@example.com", "e2e password 1234")
	for _, p := range []struct{ path, name string }{{"/", "dashboard"}, {"/users", "users"}, {"/account", "account"}} {
		must(t, goTo(page, p.path))
		shot(t, page, p.name)
		overflow, err := page.Evaluate(`() => document.documentElement.scrollWidth > window.innerWidth`)
		must(t, err)
		if overflow == true {
			t.Errorf("%s scrolls sideways at 375px", p.path)
		}
	}
	// The HTMX disable button swaps its row in place.
	row := page.GetByTestId("user-row").Filter(playwright.LocatorFilterOptions{HasText: "approver@example.com"})
	must(t, goTo(page, "/users"))
	must(t, row.GetByRole("button", playwright.LocatorGetByRoleOptions{Name: "Disable"}).Click())
	visible(t, row.GetByText("disabled"))
	shot(t, page, "users-after-disable")
}
