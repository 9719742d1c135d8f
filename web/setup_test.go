package web

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/store/storetest"
)

// setupToken reads the token out of a's printed setup link.
func (a *testApp) setupToken() string {
	a.t.Helper()
	link := a.srv.SetupURL()
	_, tok, ok := strings.Cut(link, "/setup?token=")
	if !ok || tok == "" {
		a.t.Fatalf("no setup link: %q", link)
	}
	return tok
}

// setupForm is a filled-in first-admin form for link token tok.
func setupForm(tok, email string) url.Values {
	return url.Values{"token": {tok}, "email": {email}, "password": {testPassword}, "password_confirm": {testPassword}}
}

// TestSetupOnASharedDatabase: two consoles start on one empty database and
// each prints its own link. The first link used creates the admin; the
// other console's link, opened or posted afterwards (even from a form
// loaded before), says "Setup is already done" with a way to sign in, and
// creates no one. A link neither console knows is still "not valid".
func TestSetupOnASharedDatabase(t *testing.T) {
	ctx := context.Background()
	db := storetest.MustOpen(t)
	first, second := newTestAppWith(t, db, false), newTestAppWith(t, db, false)
	tokA, tokB := first.setupToken(), second.setupToken()
	if tokA == tokB {
		t.Fatal("two consoles printed the same setup link")
	}
	wantStatus(t, second.do(request{method: "GET", path: "/setup?token=" + tokA}), 404) // A's link means nothing to B
	// B's form is open in a browser while A's link is used.
	wantStatus(t, second.do(request{method: "GET", path: "/setup?token=" + tokB}), 200)
	wantStatus(t, first.do(request{method: "POST", path: "/setup", form: setupForm(tokA, "first@example.com"), csrf: true}), 303)

	rec := second.do(request{method: "POST", path: "/setup", form: setupForm(tokB, "second@example.com"), csrf: true})
	wantStatus(t, rec, 409)
	done := []check{
		in("[data-testid=setup-done] h1", textIs("Setup is already done")),
		in("[data-testid=setup-done] a[href='/login']", textIs("Sign in")),
		none("form[action='/setup']"),
	}
	wantHTML(t, rec.Body.String(), done...)
	if second.srv.SetupURL() != "" {
		t.Error("the second console still offers its setup link after the first admin exists")
	}
	for _, path := range []string{"/setup?token=" + tokB, "/setup?token=" + tokA, "/setup?token=wrong", "/setup"} {
		for _, a := range []*testApp{first, second} {
			rec := a.do(request{method: "GET", path: path})
			wantStatus(t, rec, 200)
			wantHTML(t, rec.Body.String(), done...)
		}
	}
	users, err := db.ListUsers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 1 || users[0].Email != "first@example.com" {
		t.Errorf("users %v, want only first@example.com", users)
	}
}
