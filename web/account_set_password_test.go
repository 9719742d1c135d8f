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

// signInAs signs email in through the form. The first time an account
// whose password an admin set signs in, it chooses its own (given + " own")
// as a person must; later sign-ins use that.
func (a *testApp) signInAs(email, given string) *http.Cookie {
	a.t.Helper()
	if pw, ok := a.own[email]; ok {
		return a.signIn(email, pw)
	}
	cookie := a.signIn(email, given)
	u, err := a.db.UserByEmail(context.Background(), email)
	if err != nil {
		a.t.Fatal(err)
	}
	if u.MustSetPassword {
		own := given + " own"
		rec := a.post(cookie, setPasswordPath, url.Values{"password": {own}, "password_confirm": {own}})
		wantStatus(a.t, rec, 303)
		if a.own == nil {
			a.own = map[string]string{}
		}
		a.own[email] = own
	}
	return cookie
}

// TestFirstSignInSetsOwnPassword: an account an admin added in the console
// signs in once with the password the admin chose, reaches nothing but the
// set-password page, and then works with its own password only.
func TestFirstSignInSetsOwnPassword(t *testing.T) {
	a := newTestApp(t, true)
	ctx := context.Background()
	wantStatus(t, a.post(a.sessionCookie("admin"), "/users", newUserForm("new@example.com", "viewer")), 303)
	if u, _ := a.db.UserByEmail(ctx, "new@example.com"); !u.MustSetPassword {
		t.Fatal("an account added in the console may keep the admin's password")
	}
	cookie := a.signIn("new@example.com", testPassword)

	// Every page leads to the set-password page; nothing else is done.
	for _, path := range []string{"/", "/tools", "/account", "/approvals"} {
		rec := a.do(request{method: "GET", path: path, cookie: cookie})
		wantStatus(t, rec, 303)
		if loc := rec.Header().Get("Location"); loc != setPasswordPath {
			t.Errorf("GET %s leads to %q, want %s", path, loc, setPasswordPath)
		}
	}
	rec := a.post(cookie, "/account/password", url.Values{"current": {testPassword}, "password": {"x"}})
	wantStatus(t, rec, 403)
	wantPage(t, rec, in(tid("error-page"), hasText("Choose your own password first")))
	page := a.do(request{method: "GET", path: setPasswordPath, cookie: cookie})
	wantStatus(t, page, 200)
	wantHTML(t, page.Body.String(), in(`[data-testid="set-password"]`, hasText("Set your password")),
		count(`form[action="/account/set-password"] input[name="_csrf"]`, 1))

	// Not the given password, and both fields must match.
	rec = a.post(cookie, setPasswordPath, url.Values{"password": {testPassword}, "password_confirm": {testPassword}})
	wantStatus(t, rec, 400)
	wantHTML(t, rec.Body.String(), in(`[data-testid="form-error"]`, hasText("Choose a password of your own, not the one you were given.")))
	rec = a.post(cookie, setPasswordPath, url.Values{"password": {"my very own password"}, "password_confirm": {"another one entirely"}})
	wantStatus(t, rec, 400)

	rec = a.post(cookie, setPasswordPath, url.Values{"password": {"my very own password"}, "password_confirm": {"my very own password"}})
	wantStatus(t, rec, 303)
	wantStatus(t, a.do(request{method: "GET", path: "/", cookie: cookie}), 200)
	if u, _ := a.db.UserByEmail(ctx, "new@example.com"); u.MustSetPassword {
		t.Fatal("still must set a password after setting it")
	}
	rec = a.do(request{method: "POST", path: "/login", csrf: true,
		form: url.Values{"email": {"new@example.com"}, "password": {testPassword}}})
	wantStatus(t, rec, 401)
	a.signIn("new@example.com", "my very own password")
	// Once their own, the page sends them to the account page.
	rec = a.do(request{method: "GET", path: setPasswordPath, cookie: cookie})
	if rec.Code != 303 || rec.Header().Get("Location") != "/account" {
		t.Errorf("set-password page for an own password: %d %q", rec.Code, rec.Header().Get("Location"))
	}
}

// TestAdminSetPasswordWorksOnce: the password an admin chose opens one
// session; a second sign-in with it is refused with a sentence saying why.
// A reset by an admin is the same; people changing their own, and accounts
// added on the host, are not concerned.
func TestAdminSetPasswordWorksOnce(t *testing.T) {
	a := newTestApp(t, true)
	ctx := context.Background()
	admin := a.sessionCookie("admin")
	wantStatus(t, a.post(admin, "/users", newUserForm("once@example.com", "viewer")), 303)
	first := a.signIn("once@example.com", testPassword)
	login := url.Values{"email": {"once@example.com"}, "password": {testPassword}}
	rec := a.do(request{method: "POST", path: "/login", form: login, csrf: true})
	wantStatus(t, rec, 401)
	wantHTML(t, rec.Body.String(), in(`[data-testid="form-error"]`, hasText(msgInitialPasswordUsed)))
	if sessionFrom(t, rec.Result()) != nil {
		t.Error("a refused sign-in set a session")
	}
	entries, _, err := a.db.QueryAudit(ctx, store.AuditFilter{Action: "login.failure"})
	if err != nil || len(entries) == 0 || !strings.Contains(entries[0].After, "admin-set password used already") {
		t.Errorf("audit %+v %v, want the refusal's reason", entries, err)
	}
	// The first session still leads to the set-password page.
	wantStatus(t, a.do(request{method: "GET", path: setPasswordPath, cookie: first}), 200)

	// An admin's reset: the same.
	viewer := a.users["viewer"]
	const reset = "a reset the admin knows"
	wantStatus(t, a.post(admin, userPath(viewer, "password"), url.Values{"password": {reset}, "password_confirm": {reset}}), 303)
	c := a.signIn("viewer@example.com", reset)
	wantStatus(t, a.do(request{method: "GET", path: "/", cookie: c}), 303)

	// Accounts added on the host, and one's own change, are their own.
	host := hostUser(t, a, "host", auth.RoleViewer)
	if host.MustSetPassword {
		t.Error("an account added on the host must set a password")
	}
	c = a.signIn("host@example.com", testPassword)
	wantStatus(t, a.do(request{method: "GET", path: "/", cookie: c}), 200)
	const mine = "a password of my own"
	wantStatus(t, a.post(c, "/account/password", url.Values{"current": {testPassword}, "password": {mine}, "password_confirm": {mine}}), 303)
	wantStatus(t, a.do(request{method: "GET", path: "/", cookie: a.signIn("host@example.com", mine)}), 200)
}
