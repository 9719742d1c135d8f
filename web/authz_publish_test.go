package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Publishing's console routes. The test app has no key directory, so an
// admin's publish is a 409 ("no signing key") here; bundles_test.go covers
// publishing with keys.
func init() {
	const (
		ok       = 200
		see      = 303
		bad      = 400
		unauth   = 401
		forbid   = 403
		gone     = 404
		conflict = 409
	)
	authzCases = append(authzCases, []authzCase{
		{"GET", "/bundles", see, ok, ok, ok},
		{"GET", "/bundles/compare", see, bad, bad, bad}, // no versions chosen
		{"GET", "/bundles/next", see, ok, ok, ok},
		{"GET", "/bundles/:version/download", see, gone, gone, gone},
		{"GET", "/keys", see, ok, ok, ok},
		{"GET", "/runtimes", see, ok, ok, ok},
		{"GET", "/calls", see, ok, ok, ok},
		{"POST", "/bundles", unauth, forbid, forbid, conflict},
		{"GET", "/bundles/:version/rollback", see, forbid, forbid, gone},
		{"POST", "/bundles/:version/rollback", unauth, forbid, forbid, gone},
		{"POST", "/bundles/:version/push", unauth, forbid, forbid, gone}, // no registry configured
		{"POST", "/keys/rotate", unauth, forbid, forbid, bad},            // not confirmed
		{"POST", "/keys/:kid/retire", unauth, forbid, forbid, bad},
		{"GET", "/tokens", see, forbid, forbid, ok},
		{"POST", "/tokens", unauth, forbid, forbid, bad}, // no name
		{"POST", "/tokens/:name/revoke", unauth, forbid, forbid, bad},
		{"GET", "/webhooks", see, forbid, forbid, ok},
		{"POST", "/webhooks", unauth, forbid, forbid, 422}, // nothing filled in
		{"GET", "/webhooks/:id", see, forbid, forbid, gone},
		{"POST", "/webhooks/:id/delete", unauth, forbid, forbid, bad}, // not confirmed
	}...)
}

// TestRuntimeAPIAuthorization is the runtime API's own matrix: console
// cookies of every role are worth nothing there (401), only a valid bearer
// token opens the bundle routes, the keys are public. Every answer is JSON
// or a JWS, never HTML, and never sets a cookie.
func TestRuntimeAPIAuthorization(t *testing.T) {
	a := newPublishApp(t)
	a.exposeTool("list_orders")
	a.publish("first")
	token := a.token("edge")
	revoked := a.token("old")
	if _, err := a.db.RevokeRuntimeToken(t.Context(), "test", "old"); err != nil {
		t.Fatal(err)
	}
	routes := []struct {
		path       string
		bearer, pk int // with a valid token; public
	}{
		{"/api/v1/bundle", 200, 401},
		{"/api/v1/bundles/1", 200, 401},
		{"/api/v1/bundles/7", 404, 401},
		{"/api/v1/keys", 200, 200},
		{"/api/v1/metrics", 200, 401},
		{"/api/v1/nope", 404, 404},
	}
	for _, r := range routes {
		t.Run(r.path, func(t *testing.T) {
			callers := []struct {
				who    string
				want   int
				cookie *http.Cookie
				auth   string
			}{
				{"anonymous", r.pk, nil, ""},
				{"viewer cookie", r.pk, a.sessionCookie("viewer"), ""},
				{"admin cookie", r.pk, a.sessionCookie("admin"), ""},
				{"revoked token", r.pk, nil, "Bearer " + revoked},
				{"wrong token", r.pk, nil, "Bearer tgr_wrongwrongwrongwrongwrong"},
				{"basic auth", r.pk, nil, "Basic " + token},
				{"valid token", r.bearer, nil, "Bearer " + token},
			}
			for _, c := range callers {
				h := map[string]string{"Accept": "text/html"}
				if c.auth != "" {
					h["Authorization"] = c.auth
				}
				rec := a.do(request{method: "GET", path: r.path, cookie: c.cookie, header: h})
				if rec.Code != c.want {
					t.Errorf("%s: status %d, want %d: %s", c.who, rec.Code, c.want, rec.Body.String())
				}
				ct := rec.Header().Get("Content-Type")
				if strings.Contains(ct, "html") || strings.Contains(rec.Body.String(), "<html") {
					t.Errorf("%s: served HTML (%s)", c.who, ct)
				}
				if rec.Header().Get("Set-Cookie") != "" {
					t.Errorf("%s: the API set a cookie", c.who)
				}
				if rec.Code >= 400 {
					var body struct{ Error, Message string }
					if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error == "" || body.Message == "" {
						t.Errorf("%s: error body %q is not the JSON error", c.who, rec.Body.String())
					}
				}
				if rec.Code == 401 && !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("%s: 401 without WWW-Authenticate: Bearer", c.who)
				}
			}
		})
	}
}
