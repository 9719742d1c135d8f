package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
)

// TestLocalLoginOffAllowsOnlyBreakGlass: with --local-login=false a local
// account's right password is refused like a wrong one, a break-glass
// account signs in, loudly (audit + dashboard), and a managed account never
// signs in with a password.
func TestLocalLoginOffAllowsOnlyBreakGlass(t *testing.T) {
	a := newSSOApp(t, ssoOpts{localOff: true})
	ctx := context.Background()
	rec := a.do(request{method: "GET", path: "/login"})
	wantPage(t, rec, in("a"+tid("sso-sign-in"), hasText("Sign in with")),
		in("details"+tid("break-glass")+" summary", hasText("Break-glass sign-in")),
		in(tid("break-glass")+` form[method="post"][action="/login"] input[name="password"]`))

	form := url.Values{"email": {"viewer@example.com"}, "password": {testPassword}}
	rec = a.do(request{method: "POST", path: "/login", form: form, csrf: true})
	wantStatus(t, rec, http.StatusUnauthorized)
	wantPage(t, rec, in(tid("form-error"), hasText(msgBadLogin)))
	if e := a.lastAudit("login.failure"); e == nil || !strings.Contains(e.After, "local sign-in off") {
		t.Fatalf("refusal audit %+v", e)
	}

	if _, err := a.db.SetBreakGlass(ctx, store.OperatorActor, "viewer@example.com", true); err != nil {
		t.Fatal(err)
	}
	rec = a.do(request{method: "POST", path: "/login", form: form, csrf: true})
	wantStatus(t, rec, http.StatusSeeOther)
	if e := a.lastAudit("login.break_glass"); e == nil || e.Actor != "viewer@example.com" {
		t.Fatalf("break-glass audit %+v", e)
	}
	if !strings.Contains(a.log.String(), "break-glass sign-in") {
		t.Error("no warning in the server log")
	}
	// Every role sees it on the dashboard.
	rec = a.do(request{method: "GET", path: "/", cookie: a.sessionCookie("approver")})
	wantPage(t, rec, in(tid("break-glass-sign-ins"), hasText("viewer@example.com")))

	// A managed account has no password to sign in with.
	a.ssoSignIn("ann", "ann-pw")
	rec = a.do(request{method: "POST", path: "/login", form: url.Values{"email": {"ann@example.com"}, "password": {""}}, csrf: true})
	wantStatus(t, rec, http.StatusUnauthorized)
	if e := a.lastAudit("login.failure"); e == nil || !strings.Contains(e.After, "managed by identity provider") {
		t.Fatalf("managed refusal audit %+v", e)
	}
}

// TestLocalLoginStaysWithSSO: with the default --local-login, local
// accounts sign in with their password next to single sign-on, and no
// dashboard warns of anything.
func TestLocalLoginStaysWithSSO(t *testing.T) {
	a := newSSOApp(t, ssoOpts{})
	c := a.signIn("viewer@example.com", testPassword)
	rec := a.do(request{method: "GET", path: "/", cookie: c})
	wantStatus(t, rec, http.StatusOK)
	wantPage(t, rec, none(tid("break-glass-sign-ins"))) // no warning of break-glass sign-ins nobody made
	rec = a.do(request{method: "GET", path: "/login"})
	// No break-glass section while local sign-in is on: the password form is the page's own.
	wantPage(t, rec, in(tid("sso-sign-in")), none(tid("break-glass")), in(`form[action="/login"] input[name="password"]`))
}

// TestManagedAccountEditsRefused: the console refuses to set a managed
// account's roles or password (the store does, whatever the form), and
// with single sign-on no admin, even an approver, can grant the approver
// role to a local account.
func TestManagedAccountEditsRefused(t *testing.T) {
	a := newSSOApp(t, ssoOpts{})
	ann := a.ssoSignIn("ann", "ann-pw")
	u, err := a.db.UserByEmail(context.Background(), "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	hostUser(t, a.testApp, "boss", auth.RoleAdmin, auth.RoleApprover)
	bc := a.sessionCookie("boss")
	rec := a.post(bc, userPath(u, "roles"), url.Values{"role": {"admin"}})
	wantStatus(t, rec, http.StatusBadRequest)
	wantPage(t, rec, in(tid("form-error"), hasText("managed by")))
	rec = a.post(bc, userPath(u, "password"), url.Values{"password": {testPassword}, "password_confirm": {testPassword}})
	wantStatus(t, rec, http.StatusBadRequest)
	rec = a.post(ann, "/account/password", url.Values{"current": {"x"}, "password": {testPassword}, "password_confirm": {testPassword}})
	wantStatus(t, rec, http.StatusBadRequest)
	wantPage(t, rec, in(tid("form-error"), hasText("managed by "+ssoName)))
	wantPage(t, a.do(request{method: "GET", path: "/account", cookie: ann}), in(tid("managed-by")+" strong", textIs(ssoName)))

	rec = a.post(bc, userPath(a.users["viewer"], "roles"), url.Values{"role": {"approver"}})
	wantStatus(t, rec, http.StatusForbidden)
	wantPage(t, rec, in(tid("form-error"), hasText("comes from the groups at "+ssoName)))
	rec = a.post(bc, "/users", newUserForm("new@example.com", "approver"))
	wantStatus(t, rec, http.StatusForbidden)
}

// TestSSOAuthorization: with a provider configured, starting a sign-in is
// open to everyone (303 to the provider) and a callback without a flow is
// refused (400) for everyone; neither needs or accepts a session.
func TestSSOAuthorization(t *testing.T) {
	a := newSSOApp(t, ssoOpts{})
	for _, role := range []string{"anonymous", "viewer", "approver", "admin"} {
		rec := a.do(request{method: "GET", path: "/login/oidc", cookie: a.sessionCookie(role)})
		wantStatus(t, rec, http.StatusSeeOther)
		if !strings.HasPrefix(rec.Header().Get("Location"), a.idp.Issuer+"/") {
			t.Errorf("%s: sent to %q", role, rec.Header().Get("Location"))
		}
		rec = a.do(request{method: "GET", path: ssoCallbackPath + "?code=x&state=y", cookie: a.sessionCookie(role)})
		wantStatus(t, rec, http.StatusBadRequest)
	}
}
