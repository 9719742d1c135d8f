package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// hostUser adds a user as code on the host does (no console actor), so it
// is independent of everybody.
func hostUser(t *testing.T, a *testApp, name string, roles ...auth.Role) *store.User {
	t.Helper()
	u, err := a.db.CreateUser(context.Background(), "test", store.NewUser{Email: name + "@example.com", PasswordHash: testHash(), Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
	a.users[name] = u
	return u
}

// riskyTool seeds a DESTRUCTIVE tool named name.
func riskyTool(t *testing.T, a *testApp, name string) *store.PolicyRecord {
	t.Helper()
	return storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: name, Method: "DELETE", Path: "/" + name + "/{id}", Class: risk.Destructive})
}

// signIn signs email in through the sign-in form and returns the cookie.
func (a *testApp) signIn(email, password string) *http.Cookie {
	a.t.Helper()
	form := url.Values{"email": {email}, "password": {password}}
	rec := a.do(request{method: "POST", path: "/login", form: form, csrf: true})
	if rec.Code != 303 {
		a.t.Fatalf("sign-in of %s: %d", email, rec.Code)
	}
	c := sessionFrom(a.t, rec.Result())
	if c == nil {
		a.t.Fatalf("sign-in of %s: no session", email)
	}
	return c
}

func (a *testApp) post(cookie *http.Cookie, path string, form url.Values) *httptest.ResponseRecorder {
	a.t.Helper()
	return a.do(request{method: "POST", path: path, form: form, cookie: cookie, csrf: true})
}

func newUserForm(email string, roles ...string) url.Values {
	return url.Values{"email": {email}, "role": roles, "password": {testPassword}, "password_confirm": {testPassword}}
}

func userPath(u *store.User, action string) string { return "/users/" + itoa(u.ID) + "/" + action }

func wantPending(t *testing.T, a *testApp, cr *store.ChangeRequest) {
	t.Helper()
	if got, err := a.db.ChangeRequest(context.Background(), cr.ID); err != nil || got.Status != store.StatusPending {
		t.Fatalf("request %d: %+v %v, want still pending", cr.ID, got, err)
	}
}

// TestApproverPowersNeedAnApprover: an admin who is not an approver can
// neither give the approver role, nor re-enable an approver, nor reset an
// approver's password, through any form.
func TestApproverPowersNeedAnApprover(t *testing.T) {
	a := newTestApp(t, true)
	admin := a.sessionCookie("admin")
	viewer, approver := a.users["viewer"], a.users["approver"]
	for _, tc := range []struct {
		name, path string
		form       url.Values
		want       string
	}{
		{"add an approver", "/users", newUserForm("sock@example.com", "approver"), "give the approver role"},
		{"promote", userPath(viewer, "roles"), url.Values{"role": {"viewer", "approver"}}, "give the approver role"},
		{"reset an approver's password", userPath(approver, "password"),
			url.Values{"password": {"a brand new password"}, "password_confirm": {"a brand new password"}}, "reset an approver's password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := a.post(admin, tc.path, tc.form)
			wantStatus(t, rec, 403)
			// The form again, with the reason on it.
			wantPage(t, rec, in(tid("form-error"), hasText("Only a security approver can "+tc.want)))
		})
	}
	if _, err := a.db.UserByEmail(context.Background(), "sock@example.com"); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("refused add created the user: %v", err)
	}
	if u, _ := a.db.UserByID(context.Background(), viewer.ID); u.Has(auth.RoleApprover) {
		t.Error("refused promotion changed the roles")
	}
	// Disabling an approver is allowed; re-enabling is an approver power.
	wantStatus(t, a.post(admin, userPath(approver, "disabled"), url.Values{"disabled": {"true"}}), 303)
	rec := a.post(admin, userPath(approver, "disabled"), url.Values{"disabled": {"false"}})
	wantStatus(t, rec, 403)
	wantPage(t, rec, in(tid("error-page"), hasAttr("data-status", "403"), hasText("Only a security approver can re-enable an approver")))
	if u, _ := a.db.UserByID(context.Background(), approver.ID); !u.Disabled {
		t.Error("refused re-enable enabled the approver")
	}
}

// TestApproverIndependence walks every way one person could make their own
// approver: each account the requester created, promoted, re-enabled or
// reset is refused with a message naming the act; an independent approver
// is not, and neither is the sockpuppet once the window has passed.
func TestApproverIndependence(t *testing.T) {
	a := newTestApp(t, true)
	ctx := context.Background()
	boss := hostUser(t, a, "boss", auth.RoleAdmin, auth.RoleApprover)
	bossC := a.sessionCookie("boss")
	admin := a.sessionCookie("admin")

	// The requester uses their approver powers on four accounts.
	wantStatus(t, a.post(bossC, "/users", newUserForm("sock@example.com", "approver")), 303)
	promo := hostUser(t, a, "promo", auth.RoleViewer)
	wantStatus(t, a.post(bossC, userPath(promo, "roles"), url.Values{"role": {"viewer", "approver"}}), 303)
	revived := hostUser(t, a, "revived", auth.RoleApprover)
	wantStatus(t, a.post(admin, userPath(revived, "disabled"), url.Values{"disabled": {"true"}}), 303)
	wantStatus(t, a.post(bossC, userPath(revived, "disabled"), url.Values{"disabled": {"false"}}), 303)
	reset := hostUser(t, a, "reset", auth.RoleApprover)
	const newPW = "a password boss knows"
	wantStatus(t, a.post(bossC, userPath(reset, "password"), url.Values{"password": {newPW}, "password_confirm": {newPW}}), 303)

	cr := exposeRequest(t, a, boss, riskyTool(t, a, "orders_delete"))
	approve := "/approvals/" + itoa(cr.ID) + "/approve"
	for _, tc := range []struct {
		email, password, want string
	}{
		{"sock@example.com", testPassword, "its requester boss@example.com created your account"},
		{"promo@example.com", testPassword, "its requester boss@example.com gave the approver role to your account"},
		{"revived@example.com", testPassword, "its requester boss@example.com re-enabled your account"},
		{"reset@example.com", newPW, "its requester boss@example.com reset the password of your account"},
	} {
		t.Run(tc.email, func(t *testing.T) {
			cookie := a.signInAs(tc.email, tc.password)
			// Approvals says so in place of the Approve button.
			rec := a.do(request{method: "GET", path: "/approvals", cookie: cookie})
			wantPage(t, rec, in(tid("not-independent"), hasText("You cannot approve this request: "+tc.want)),
				in(`button[data-testid="reject"]`),
				none(tid("approve"))) // an approver who is not independent sees no Approve button
			// Refused at the Approve button, and again at the confirmed form.
			for _, confirm := range []string{"", "yes"} {
				rec := a.post(cookie, approve, url.Values{"comment": {"ok"}, "confirm": {confirm}})
				wantStatus(t, rec, 403)
				wantPage(t, rec, in(tid("approvals"), hasText("You cannot approve this request: "+tc.want),
					hasText("less than 7 days ago"), hasText("another approver must decide it")))
				wantPending(t, a, cr)
			}
		})
	}

	t.Run("added by another approver at the requester's request", func(t *testing.T) {
		hostUser(t, a, "peer", auth.RoleAdmin, auth.RoleApprover)
		peer := a.sessionCookie("peer")
		form := newUserForm("helper@example.com", "approver")
		form.Set("requested_by", "nobody@example.com")
		rec := a.post(peer, "/users", form)
		wantStatus(t, rec, 400)
		wantPage(t, rec, in(tid("form-error"), hasText("No console user has the email nobody@example.com")),
			in(`input[name="requested_by"]`, hasAttr("value", "nobody@example.com")))
		if _, err := a.db.UserByEmail(ctx, "helper@example.com"); apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("refused add created the user: %v", err)
		}
		form.Set("requested_by", "Boss@example.com")
		wantStatus(t, a.post(peer, "/users", form), 303)
		rec = a.post(a.signInAs("helper@example.com", testPassword), approve, url.Values{"confirm": {"yes"}})
		wantStatus(t, rec, 403)
		wantPage(t, rec, in(tid("not-independent"), hasText("peer@example.com created your account at the request of its requester boss@example.com")))
		wantPending(t, a, cr)
	})

	t.Run("the other direction: an account the approver created asks", func(t *testing.T) {
		wantStatus(t, a.post(bossC, "/users", newUserForm("deputy@example.com", "admin")), 303)
		deputy, err := a.db.UserByEmail(ctx, "deputy@example.com")
		if err != nil {
			t.Fatal(err)
		}
		dcr := exposeRequest(t, a, deputy, riskyTool(t, a, "users_delete"))
		rec := a.post(bossC, "/approvals/"+itoa(dcr.ID)+"/approve", url.Values{"confirm": {"yes"}})
		wantStatus(t, rec, 403)
		wantPage(t, rec, in(tid("not-independent"), hasText("you created the account of its requester deputy@example.com")))
		wantPending(t, a, dcr)
	})

	t.Run("an independent approver", func(t *testing.T) {
		page := a.do(request{method: "GET", path: "/approvals", cookie: a.sessionCookie("approver")})
		wantPage(t, page, in(`button[data-testid="approve"]`),
			none(tid("not-independent"))) // an independent approver is not told they are not
		rec := a.post(a.sessionCookie("approver"), approve, url.Values{"comment": {"fine"}, "confirm": {"yes"}})
		wantStatus(t, rec, 303)
		if got, _ := a.db.ChangeRequest(ctx, cr.ID); got.Status != store.StatusApproved {
			t.Fatalf("status %s", got.Status)
		}
	})

	t.Run("after the window", func(t *testing.T) {
		later := time.Now().Add(store.DefaultApproverIndependence + time.Hour)
		a.db.Now = func() time.Time { return later }
		cr2 := exposeRequest(t, a, boss, riskyTool(t, a, "carts_delete"))
		rec := a.post(a.signInAs("sock@example.com", testPassword), "/approvals/"+itoa(cr2.ID)+"/approve", url.Values{"confirm": {"yes"}})
		wantStatus(t, rec, 303)
		if got, _ := a.db.ChangeRequest(ctx, cr2.ID); got.Status != store.StatusApproved {
			t.Fatalf("status %s", got.Status)
		}
	})

	t.Run("a configured window", func(t *testing.T) {
		a.db.Now = time.Now
		a.db.ApproverIndependence = 24 * time.Hour
		wantStatus(t, a.post(bossC, "/users", newUserForm("sock2@example.com", "approver")), 303)
		cr3 := exposeRequest(t, a, boss, riskyTool(t, a, "items_delete"))
		path := "/approvals/" + itoa(cr3.ID) + "/approve"
		rec := a.post(a.signInAs("sock2@example.com", testPassword), path, url.Values{})
		wantStatus(t, rec, 403)
		wantPage(t, rec, in(tid("not-independent"), hasText("less than 1 day ago")))
		later := time.Now().Add(25 * time.Hour)
		a.db.Now = func() time.Time { return later }
		wantStatus(t, a.post(a.signInAs("sock2@example.com", testPassword), path, url.Values{"confirm": {"yes"}}), 303)
	})
}

// TestApproverBootstrap: the first admin of a fresh console may make the
// first approver; after that only approvers can, and taking every
// approver's role away does not reopen the bootstrap.
func TestApproverBootstrap(t *testing.T) {
	a := newTestApp(t, false)
	first, err := a.db.CreateFirstAdmin(context.Background(), "first@example.com", testHash())
	if err != nil {
		t.Fatal(err)
	}
	a.users["first"] = first
	firstC := a.sessionCookie("first")
	wantStatus(t, a.post(firstC, "/users", newUserForm("appr@example.com", "approver")), 303)
	wantStatus(t, a.post(firstC, "/users", newUserForm("second@example.com", "admin")), 303)
	rec := a.post(a.signInAs("second@example.com", testPassword), "/users", newUserForm("sock@example.com", "approver"))
	wantStatus(t, rec, 403)
	appr, err := a.db.UserByEmail(context.Background(), "appr@example.com")
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a.post(firstC, userPath(appr, "roles"), url.Values{"role": {"viewer"}}), 303)
	rec = a.post(firstC, "/users", newUserForm("sock@example.com", "approver"))
	wantStatus(t, rec, 403)
	wantPage(t, rec, in(tid("form-error"), hasText("toolgate user add")))
}

// TestIndependenceThroughChainsInTheConsole: accounts made through the
// add-user form control each other through chains. X (admin and approver)
// adds admin A, A adds admin B: X cannot approve B's request. X adds an
// approver P and an admin Q: P cannot approve Q's. Approvals says so in
// place of the Approve button, and the form refuses.
func TestIndependenceThroughChainsInTheConsole(t *testing.T) {
	a := newTestApp(t, true)
	ctx := context.Background()
	hostUser(t, a, "x", auth.RoleAdmin, auth.RoleApprover)
	x := a.sessionCookie("x")
	added := func(by *http.Cookie, email string, roles ...string) *store.User {
		t.Helper()
		wantStatus(t, a.post(by, "/users", newUserForm(email, roles...)), 303)
		u, err := a.db.UserByEmail(ctx, email)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	added(x, "a@example.com", "admin")
	b := added(a.signInAs("a@example.com", testPassword), "b@example.com", "admin")
	p := added(x, "p@example.com", "approver")
	q := added(x, "q@example.com", "admin")
	for _, tc := range []struct {
		name      string
		approver  *http.Cookie
		requester *store.User
		tool      string
		want      string
	}{
		{"two hops", x, b, "orders_delete",
			"You cannot approve this request: you control the account of its requester b@example.com through a@example.com (you created a@example.com on "},
		{"a shared controller", a.signInAs(p.Email, testPassword), q, "users_delete",
			"You cannot approve this request: x@example.com controls both your account and the account of its requester q@example.com (x@example.com created your account on "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr := exposeRequest(t, a, tc.requester, riskyTool(t, a, tc.tool))
			page := a.do(request{method: "GET", path: "/approvals", cookie: tc.approver})
			wantHTML(t, page.Body.String(), in(`[data-testid="not-independent"]`, hasText(tc.want)))
			rec := a.post(tc.approver, "/approvals/"+itoa(cr.ID)+"/approve", url.Values{"comment": {"ok"}, "confirm": {"yes"}})
			wantStatus(t, rec, 403)
			wantPage(t, rec, in(tid("not-independent"), hasText(tc.want)))
			wantPending(t, a, cr)
		})
	}
}
