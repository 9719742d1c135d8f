package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
)

// TestSSOSignInCreatesUserJustInTime: the full code flow through the real
// provider creates a managed account with the groups' roles, audited with
// the provider subject and the roles granted.
func TestSSOSignInCreatesUserJustInTime(t *testing.T) {
	a := newSSOApp(t, ssoOpts{requireVerify: true})
	rec := a.do(request{method: "GET", path: "/login"})
	wantPage(t, rec, in("a"+tid("sso-sign-in"), textIs("Sign in with "+ssoName)))
	authURL, flow := a.begin("/tools")
	if q, _ := url.Parse(authURL); q.Query().Get("code_challenge_method") != "S256" || q.Query().Get("nonce") == "" {
		t.Fatalf("authorization URL without PKCE or nonce: %s", authURL)
	}
	if flow.Path != ssoCallbackPath || !flow.HttpOnly || flow.SameSite != http.SameSiteLaxMode || flow.MaxAge != 600 {
		t.Fatalf("flow cookie %+v", flow)
	}
	rec = a.callback(a.atProvider(authURL, "ann", "ann-pw"), flow)
	wantStatus(t, rec, http.StatusSeeOther)
	if loc := rec.Header().Get("Location"); loc != "/tools" {
		t.Fatalf("redirect to %q, want /tools", loc)
	}
	if a.idp.LastCodeChallengeMethod() != "S256" {
		t.Fatal("provider saw no PKCE challenge")
	}
	u, err := a.db.UserByEmail(context.Background(), "ann@example.com")
	if err != nil || !u.Managed() || u.Subject != "u-ann" || !u.Has(auth.RoleApprover) || !u.Has(auth.RoleViewer) || u.Has(auth.RoleAdmin) {
		t.Fatalf("JIT user %+v, %v", u, err)
	}
	e := a.lastAudit("login.success")
	if e == nil || !strings.Contains(e.After, `"provider_subject":"u-ann"`) || !strings.Contains(e.After, `"roles":["approver","viewer"]`) ||
		!strings.Contains(e.After, `"method":"oidc"`) {
		t.Fatalf("login audit %+v", e)
	}
	// The session works, and the Users page shows who manages the account.
	wantStatus(t, a.do(request{method: "GET", path: "/", cookie: sessionFrom(t, rec.Result())}), http.StatusOK)
	rec = a.do(request{method: "GET", path: "/users", cookie: a.sessionCookie("admin")})
	wantPage(t, rec, in(tid("user-row")+" "+tid("managed-badge"), hasText("managed by "+ssoName)))
	rec = a.do(request{method: "GET", path: "/users/" + itoa(u.ID), cookie: a.sessionCookie("admin")})
	wantPage(t, rec, in(tid("managed-by")+" strong", textIs(ssoName)))
	// The edit page of a managed account offers no role or password form.
	wantPage(t, rec, none(`form[action$="/roles"]`), in("main", lacks("Reset password")))
}

// TestSSOGroupRemovalTakesTheRoleAway: removed from the approver group at
// the provider, ann's next sign-in has no approver role, and her older
// session loses it at once too (roles are read on every request).
func TestSSOGroupRemovalTakesTheRoleAway(t *testing.T) {
	a := newSSOApp(t, ssoOpts{})
	first := a.ssoSignIn("ann", "ann-pw")
	if !a.isApprover(first) {
		t.Fatal("ann is not an approver after her first sign-in")
	}
	a.idp.SetGroups("u-ann", "staff")
	second := a.ssoSignIn("ann", "ann-pw")
	if a.isApprover(second) || a.isApprover(first) {
		t.Fatal("ann is still an approver after leaving the group")
	}
	if e := a.lastAudit("user.roles"); e == nil || e.Actor != "sso:"+a.idp.Issuer {
		t.Fatalf("role change audit %+v", e)
	}
	// Out of every mapped group: refused, and every session ends.
	a.idp.SetGroups("u-ann", "sales")
	u, flow := a.begin("/")
	rec := a.callback(a.atProvider(u, "ann", "ann-pw"), flow)
	wantStatus(t, rec, http.StatusForbidden)
	wantPage(t, rec, in(tid("sso-failure"), hasText("none of the groups")))
	wantStatus(t, a.do(request{method: "GET", path: "/", cookie: second}), http.StatusSeeOther)
}

// TestSSOSessionsEndAfterIdleTime: an SSO session in constant use still
// ends after the idle time, so the groups are read again at the provider.
func TestSSOSessionsEndAfterIdleTime(t *testing.T) {
	a := newSSOApp(t, ssoOpts{})
	start := time.Now()
	a.db.Now = func() time.Time { return start }
	sso := a.ssoSignIn("ann", "ann-pw")
	for _, step := range []time.Duration{20 * time.Minute, 40 * time.Minute, 59 * time.Minute} {
		a.db.Now = func() time.Time { return start.Add(step) }
		wantStatus(t, a.do(request{method: "GET", path: "/", cookie: sso}), http.StatusOK)
	}
	a.db.Now = func() time.Time { return start.Add(61 * time.Minute) }
	wantStatus(t, a.do(request{method: "GET", path: "/", cookie: sso}), http.StatusSeeOther)
	if p := a.srv.ssoSessionPolicy(); p.Absolute != time.Hour || p.Idle != time.Hour {
		t.Fatalf("SSO session policy %+v, want absolute = idle = 1h", p)
	}
}

// TestSSOCallbackRefusals: every refused callback shows a clear page (no
// token, no code, no stack) with a fitting status and is audited with its
// reason; nobody is signed in.
func TestSSOCallbackRefusals(t *testing.T) {
	type flow = func(a *ssoApp) (url.Values, *http.Cookie)
	signIn := func(user, pw string) flow {
		return func(a *ssoApp) (url.Values, *http.Cookie) {
			u, c := a.begin("/")
			return a.atProvider(u, user, pw), c
		}
	}
	for _, tc := range []struct {
		name, reason string
		status       int
		opts         ssoOpts
		run          flow
	}{
		{"state missing", "state missing", 400, ssoOpts{}, func(a *ssoApp) (url.Values, *http.Cookie) {
			q, _ := signIn("ann", "ann-pw")(a)
			return q, nil // the browser lost its cookie, or never started this sign-in
		}},
		{"state mismatch", "state mismatch", 400, ssoOpts{}, func(a *ssoApp) (url.Values, *http.Cookie) {
			q, c := signIn("ann", "ann-pw")(a)
			q.Set("state", "forged")
			return q, c
		}},
		{"another browser's sign-in", "state mismatch", 400, ssoOpts{}, func(a *ssoApp) (url.Values, *http.Cookie) {
			q, _ := signIn("ann", "ann-pw")(a) // an attacker's own callback URL...
			_, victim := a.begin("/")          // ...replayed in a browser with its own sign-in
			return q, victim
		}},
		{"nonce mismatch", "nonce mismatch", 400, ssoOpts{}, func(a *ssoApp) (url.Values, *http.Cookie) {
			u, c := a.begin("/")
			pu, _ := url.Parse(u)
			v := pu.Query()
			v.Set("nonce", "someone-elses-nonce")
			pu.RawQuery = v.Encode()
			return a.atProvider(pu.String(), "ann", "ann-pw"), c
		}},
		{"wrong audience", "wrong audience", 400, ssoOpts{}, func(a *ssoApp) (url.Values, *http.Cookie) {
			a.idp.ForgeAudience("other-app")
			return signIn("ann", "ann-pw")(a)
		}},
		{"expired code", "code exchange failed: invalid_grant", 400, ssoOpts{}, func(a *ssoApp) (url.Values, *http.Cookie) {
			a.idp.SetCodeLifetime(time.Nanosecond)
			return signIn("ann", "ann-pw")(a)
		}},
		{"reused code", "code exchange failed: invalid_grant", 400, ssoOpts{}, func(a *ssoApp) (url.Values, *http.Cookie) {
			q, c := signIn("ann", "ann-pw")(a)
			wantStatus(a.t, a.callback(q, c), http.StatusSeeOther)
			return q, c // the same code (and a copy of the used cookie) again
		}},
		{"unverified email", "email not verified", 403, ssoOpts{requireVerify: true}, signIn("bob", "bob-pw")},
		{"no mapped group", "no role: groups sales", 403, ssoOpts{}, signIn("carl", "carl-pw")},
		{"provider error", "provider error: access_denied", 400, ssoOpts{}, func(a *ssoApp) (url.Values, *http.Cookie) {
			_, c := a.begin("/")
			return url.Values{"error": {"access_denied"}, "error_description": {"<script>x</script>"}}, c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newSSOApp(t, tc.opts)
			q, c := tc.run(a)
			rec := a.callback(q, c)
			wantStatus(t, rec, tc.status)
			wantPage(t, rec, in(tid("sso-failure"), hasText("Sign-in with "+ssoName+" did not work")))
			noSecrets(t, rec.Body.String(), q)
			wantPage(t, rec, none("main script")) // the provider's text did not reach the page as markup
			if sessionFrom(t, rec.Result()) != nil {
				t.Fatal("a refused sign-in got a session")
			}
			e := a.lastAudit("login.failure")
			if e == nil || !strings.Contains(e.After, `"reason":"`+tc.reason+`"`) || e.Subject != "oidc:"+a.idp.Issuer {
				t.Fatalf("audit %+v, want reason %q", e, tc.reason)
			}
		})
	}
}

// TestSSOTwoSignInsInOneBrowser: two tabs start signing in before either
// comes back; each callback finds its own sign-in (one cookie per state)
// and clears only that cookie.
func TestSSOTwoSignInsInOneBrowser(t *testing.T) {
	a := newSSOApp(t, ssoOpts{})
	u1, c1 := a.begin("/tools")
	u2, c2 := a.begin("/audit")
	if c1.Name == c2.Name {
		t.Fatalf("both sign-ins use the cookie %s", c1.Name)
	}
	q1, q2 := a.atProvider(u1, "ann", "ann-pw"), a.atProvider(u2, "ann", "ann-pw")
	// An answer for a sign-in neither tab started is refused, and both tabs'
	// sign-ins stay in the browser.
	forged := url.Values{"state": {"forged"}, "code": q1["code"]}
	rec := a.callback(forged, c1, c2)
	wantStatus(t, rec, http.StatusBadRequest)
	for _, ck := range rec.Result().Cookies() {
		if strings.HasPrefix(ck.Name, ssoFlowCookie) {
			t.Errorf("a forged callback changed the sign-in cookie %s", ck.Name)
		}
	}
	for _, tc := range []struct {
		q            url.Values
		used, kept   *http.Cookie
		wantLocation string
	}{{q1, c1, c2, "/tools"}, {q2, c2, nil, "/audit"}} {
		rec := a.callback(tc.q, tc.used, tc.kept) // the browser still holds the sign-ins not yet finished
		wantStatus(t, rec, http.StatusSeeOther)
		if loc := rec.Header().Get("Location"); loc != tc.wantLocation {
			t.Errorf("sign-in went to %s, want %s", loc, tc.wantLocation)
		}
		for _, ck := range rec.Result().Cookies() {
			if tc.kept != nil && ck.Name == tc.kept.Name {
				t.Errorf("the other tab's sign-in cookie %s was cleared", ck.Name)
			}
		}
		if !clears(rec, tc.used.Name) {
			t.Errorf("the used sign-in cookie %s was not cleared", tc.used.Name)
		}
	}
}

// clears reports whether rec tells the browser to drop the cookie name.
func clears(rec *httptest.ResponseRecorder, name string) bool {
	for _, ck := range rec.Result().Cookies() {
		if ck.Name == name && ck.MaxAge < 0 {
			return true
		}
	}
	return false
}
