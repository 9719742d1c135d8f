package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/audit"
	"github.com/toolgate/toolgate/internal/sso"
	"github.com/toolgate/toolgate/internal/testing/oidctest"
)

// ssoApp is the console with single sign-on against a real provider
// (internal/testing/oidctest) holding ann (approver, staff), bob (admin, email not
// verified) and carl (in no mapped group).
type ssoApp struct {
	*testApp
	idp *oidctest.Provider
}

const ssoName = "Test IdP"

type ssoOpts struct {
	localOff      bool
	requireVerify bool
}

func newSSOApp(t *testing.T, o ssoOpts) *ssoApp {
	t.Helper()
	idp := oidctest.Start(t,
		oidctest.User{ID: "u-ann", Username: "ann", Password: "ann-pw", Email: "ann@example.com", EmailVerified: true,
			Groups: []string{"tg-approvers", "staff"}},
		oidctest.User{ID: "u-bob", Username: "bob", Password: "bob-pw", Email: "bob@example.com", Groups: []string{"tg-admins"}},
		oidctest.User{ID: "u-carl", Username: "carl", Password: "carl-pw", Email: "carl@example.com", EmailVerified: true,
			Groups: []string{"sales"}})
	redirect := testConfig().BaseURL + ssoCallbackPath
	idp.AddClient("toolgate", "s3cret", redirect)
	idp.AddClient("other-app", "other", "http://127.0.0.1:2/cb")
	client, err := sso.New(sso.Settings{Name: ssoName, Issuer: idp.Issuer, ClientID: "toolgate", ClientSecret: "s3cret",
		RedirectURL: redirect, Scopes: []string{"email", "profile"}, RequireVerifiedEmail: o.requireVerify,
		Roles: sso.RoleMapping{Admin: []string{"tg-admins"}, Approver: []string{"tg-approvers"}, Viewer: []string{"staff"}}})
	if err != nil {
		t.Fatal(err)
	}
	a := newTestApp(t, true, func(d *Deps) {
		d.SSO = client
		d.Config.OIDC.Issuer = idp.Issuer
		d.Config.LocalLogin = !o.localOff
	})
	return &ssoApp{testApp: a, idp: idp}
}

// begin starts a sign-in: the provider URL and the flow cookie.
func (a *ssoApp) begin(next string) (string, *http.Cookie) {
	a.t.Helper()
	rec := a.do(request{method: "GET", path: "/login/oidc?next=" + url.QueryEscape(next)})
	wantStatus(a.t, rec, http.StatusSeeOther)
	for _, c := range rec.Result().Cookies() {
		if strings.HasPrefix(c.Name, ssoFlowCookie+"_") && c.Value != "" {
			return rec.Header().Get("Location"), c
		}
	}
	a.t.Fatal("no flow cookie")
	return "", nil
}

// atProvider signs user in at the provider and returns the callback query.
func (a *ssoApp) atProvider(authURL, user, password string) url.Values {
	a.t.Helper()
	cb, err := a.idp.SignIn(authURL, user, password)
	if err != nil {
		a.t.Fatal(err)
	}
	if cb.Path != ssoCallbackPath {
		a.t.Fatalf("provider sent the browser to %s", cb)
	}
	return cb.Query()
}

// callback requests the console's callback with q and the given cookies.
func (a *ssoApp) callback(q url.Values, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	a.t.Helper()
	req := httptest.NewRequest("GET", ssoCallbackPath+"?"+q.Encode(), nil)
	for _, c := range cookies {
		if c != nil {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
	}
	rec := httptest.NewRecorder()
	a.srv.ServeHTTP(rec, req)
	return rec
}

// ssoSignIn signs user in through the provider; returns the session cookie.
func (a *ssoApp) ssoSignIn(user, password string) *http.Cookie {
	a.t.Helper()
	u, flow := a.begin("/")
	rec := a.callback(a.atProvider(u, user, password), flow)
	wantStatus(a.t, rec, http.StatusSeeOther)
	c := sessionFrom(a.t, rec.Result())
	if c == nil {
		a.t.Fatal("no session after single sign-on")
	}
	return c
}

// lastAudit returns the newest audit entry with action.
func (a *ssoApp) lastAudit(action string) *audit.Entry {
	a.t.Helper()
	es, err := a.db.AuditEntries(context.Background())
	if err != nil {
		a.t.Fatal(err)
	}
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Action == action {
			return &es[i]
		}
	}
	return nil
}

// isApprover tells from the approve route whether cookie's user holds the
// approver role: 403 without it, 404 (no such request) with it.
func (a *ssoApp) isApprover(cookie *http.Cookie) bool {
	a.t.Helper()
	rec := a.do(request{method: "POST", path: "/approvals/999/approve", form: url.Values{}, cookie: cookie, csrf: true})
	switch rec.Code {
	case http.StatusForbidden:
		return false
	case http.StatusNotFound:
		return true
	}
	a.t.Fatalf("approve as probe: status %d", rec.Code)
	return false
}

func noSecrets(t *testing.T, body string, q url.Values) {
	t.Helper()
	for _, s := range []string{"eyJ", "Traceback", "goroutine", "panic"} {
		if strings.Contains(body, s) {
			t.Errorf("page shows %q", s)
		}
	}
	if code := q.Get("code"); code != "" && strings.Contains(body, code) {
		t.Error("page shows the authorization code")
	}
}
