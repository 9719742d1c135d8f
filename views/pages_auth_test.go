package views

import "testing"

// TestLoginPage: the password form posts to /login with CSRF and next; with
// SSO configured the SSO link keeps next; with local sign-in off the form
// sits in a break-glass section that opens when the last try failed.
func TestLoginPage(t *testing.T) {
	errs := []FormError{{Message: "Email or password is wrong."}}
	tests := []struct {
		name   string
		m      LoginView
		checks []check
	}{
		{"local", LoginView{Page: anonymous("Sign in"), Email: "ada@example.com", Next: "/tools"}, []check{
			none("[data-testid=menu]"),
			postForm("/login", in("input[type=hidden][name=next]", hasAttr("value", "/tools")),
				in("input#email[type=email][autocomplete=username][autofocus]", hasAttr("value", "ada@example.com")),
				in("input#password[type=password][autocomplete=current-password]")),
			none("[data-testid=sso-sign-in]"), none("[data-testid=break-glass]"), none("[data-testid=form-error]"),
		}},
		{"sso and local", LoginView{Page: anonymous("Sign in"), Next: "/tools?class=READ", SSOName: "Okta"}, []check{
			in("a[data-testid=sso-sign-in]", hasText("Sign in with Okta"), hasAttr("href", "/login/oidc?next=%2Ftools%3Fclass%3DREAD")),
			none("input#email[autofocus]"), postForm("/login"), none("[data-testid=break-glass]"),
		}},
		{"break-glass, failed", LoginView{Page: anonymous("Sign in"), SSOName: "Okta", LocalOff: true, Errors: errs}, []check{
			in("a[data-testid=sso-sign-in]", hasAttr("href", "/login/oidc")),
			in("details[data-testid=break-glass][open]", postForm("/login")),
			in("[data-testid=form-error][role=alert]", hasText("Email or password is wrong.")),
		}},
		{"break-glass, closed", LoginView{Page: anonymous("Sign in"), SSOName: "Okta", LocalOff: true}, []check{
			in("details[data-testid=break-glass]", postForm("/login")), none("details[data-testid=break-glass][open]"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantPage(t, LoginPage(tc.m), "Sign in", tc.checks...) })
	}
}

// TestSSOFailurePage shows the provider's refusal as text and links back.
func TestSSOFailurePage(t *testing.T) {
	m := SSOFailureView{Page: anonymous("Sign-in failed"), Status: 403, Provider: "Okta", Message: "Your account has no role here: " + evil}
	wantPage(t, SSOFailurePage(m), "Sign-in with Okta did not work",
		in("[data-testid=sso-failure]", hasAttr("data-status", "403"), hasText(evil)),
		in("a[href='/login']", hasText("Back to sign-in")))
}

// TestSetupPage: the first-admin form carries the one-time token and asks
// for the password twice; SetupDonePage only links to sign-in.
func TestSetupPage(t *testing.T) {
	m := SetupView{Page: anonymous("Setup"), Token: "setup-tok", Email: "ada@example.com",
		Errors: []FormError{{Message: "The passwords differ."}}}
	wantPage(t, SetupPage(m), "Create the first admin",
		postForm("/setup", in("input[type=hidden][name=token]", hasAttr("value", "setup-tok")),
			in("input#email", hasAttr("value", "ada@example.com")),
			in("input#password[type=password][autocomplete=new-password][minlength='12']", hasAttr("aria-describedby", "password-hint")),
			in("#password-hint", hasText("At least 12 characters")),
			in("input#password_confirm[type=password]")),
		in("[data-testid=form-error]", hasText("The passwords differ.")))
	wantPage(t, SetupDonePage(anonymous("Setup")), "Setup is already done",
		in("[data-testid=setup-done] a.button[href='/login']"), none("form[action='/setup']"))
}

// TestErrorPage shows a status and a message safe to show, escaped; the
// fragment HTMX swaps into #flash is an alert.
func TestErrorPage(t *testing.T) {
	m := ErrorView{Page: page("Not found"), Status: 404, Heading: "Not found", Message: "No tool " + evil + "."}
	wantPage(t, ErrorPage(m), "Not found",
		in("[data-testid=error-page]", hasAttr("data-status", "404"), hasText("No tool "+evil+".")),
		in("a[href='/']", hasText("Back to the dashboard")))
	wantFragment(t, ErrorFragment(m),
		in("[data-testid=error-fragment][role=alert]", hasAttr("data-status", "404"), hasText("Not found. No tool "+evil)))
}

// TestAccountPage: a local account changes its password (current, new
// twice); a managed one is told where it is managed and gets no form.
func TestAccountPage(t *testing.T) {
	local := AccountView{Page: page("Your account"), Notice: "Password changed."}
	wantPage(t, AccountPage(local), "Your account",
		in("main", hasText("ada@example.com · roles: admin")),
		in("[data-testid=notice][role=status]", hasText("Password changed.")),
		postForm("/account/password", in("input#current[type=password][autocomplete=current-password]"),
			in("input#password[autocomplete=new-password]"), in("input#password_confirm")))
	managed := AccountView{Page: page("Your account"), ManagedBy: "Okta"}
	wantPage(t, AccountPage(managed), "Your account",
		in("[data-testid=managed-by]", hasText("You sign in with Okta")), none("form[action='/account/password']"))
}

// TestSetPasswordPage: the session opened with an admin-set password asks
// for the person's own (R10): new password twice, CSRF, errors shown.
func TestSetPasswordPage(t *testing.T) {
	m := SetPasswordView{Page: page("Set your password"), Errors: []FormError{{Message: "Choose a password other than the one you were given."}}}
	wantPage(t, SetPasswordPage(m), "Set your password",
		in("[data-testid=set-password]", hasText("worked for this one sign-in only")),
		in("[data-testid=form-error]", hasText("Choose a password other than the one you were given.")),
		postForm("/account/set-password",
			in("input#password[type=password][autocomplete=new-password][minlength='12']"), in("input#password_confirm[type=password]"),
			in("button[type=submit]", hasText("Set password"))))
}

// TestLayout: the signed-in frame has the menu with the navigation (the
// active entry marked, badges counted), the account link and a sign-out
// form; HTMX gets the CSRF token as a header.
func TestLayout(t *testing.T) {
	p := page("Tools")
	p.User.Email = evil
	wantPage(t, AccountPage(AccountView{Page: p}), "Your account",
		in("body", hasAttr("hx-headers", `{"X-CSRF-Token":"`+csrf+`"}`)),
		in("details.menu[data-testid=menu] summary", hasText("Menu · Tools"), hasText("2")),
		in("nav[aria-label=Main] a[href='/tools'][aria-current=page]", hasText("Tools")),
		count("nav[aria-label=Main] [aria-current]", 1),
		in("nav[aria-label=Main] a[href='/approvals'] [data-testid=nav-count]", hasText("2"), hasAttr("aria-label", "2 pending")),
		in("a[data-testid=account-link][href='/account']", hasText(evil)),
		postForm("/logout", in("button[type=submit]", hasText("Sign out"))),
		in("a.skip[href='#main']"), in("title", hasText("Tools · toolgate")))
}
