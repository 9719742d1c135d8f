package web

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// authzCase is the expected status of one route for each kind of caller,
// given a valid CSRF token and an empty form.
type authzCase struct {
	Method, Path                       string
	Anonymous, Viewer, Approver, Admin int
}

// authzCases collects every feature's expectations. Each feature keeps its
// own authz_<feature>_test.go with
//
//	func init() { authzCases = append(authzCases, []authzCase{...}...) }
//
// so features never edit the same lines. In paths, :id is replaced by the
// viewer's user id and :name by "app.css".
var authzCases []authzCase

func expandPath(p string, a *testApp) string {
	p = strings.ReplaceAll(p, ":id", fmt.Sprint(a.users["viewer"].ID))
	return strings.ReplaceAll(p, ":name", "app.css")
}

// TestAuthorizationMatrix requests every registered route as anonymous,
// viewer, approver and admin and compares the status with the table. A
// route without an entry, or an entry without a route, fails the test.
func TestAuthorizationMatrix(t *testing.T) {
	routes := map[string]bool{}
	for _, r := range newTestApp(t, true).srv.Echo().Routes() {
		routes[r.Method+" "+r.Path] = true
	}
	cases := map[string]authzCase{}
	for _, c := range authzCases {
		key := c.Method + " " + c.Path
		if _, dup := cases[key]; dup {
			t.Errorf("two matrix entries for %s", key)
		}
		cases[key] = c
		if !routes[key] {
			t.Errorf("matrix entry %s matches no registered route", key)
		}
	}
	var missing []string
	for r := range routes {
		if _, ok := cases[r]; !ok {
			missing = append(missing, r)
		}
	}
	sort.Strings(missing)
	for _, r := range missing {
		t.Errorf("route %s has no entry in the authorization matrix (add one in an authz_*_test.go)", r)
	}
	for key, c := range cases {
		t.Run(key, func(t *testing.T) {
			a := newTestApp(t, true) // fresh state: an admin POST must not change what the next caller sees
			for _, who := range []struct {
				role string
				want int
			}{{"anonymous", c.Anonymous}, {"viewer", c.Viewer}, {"approver", c.Approver}, {"admin", c.Admin}} {
				var form url.Values
				if c.Method != "GET" {
					form = url.Values{}
				}
				rec := a.do(request{method: c.Method, path: expandPath(c.Path, a), form: form, cookie: a.sessionCookie(who.role), csrf: true})
				if rec.Code != who.want {
					t.Errorf("%s: status %d, want %d", who.role, rec.Code, who.want)
				}
			}
		})
	}
}

// TestCSRFOnEveryStateChange sends every POST/PUT/PATCH/DELETE route a
// request from a signed-in admin without a token, with a wrong token, and
// as a cross-site browser request; each must be refused with 403.
func TestCSRFOnEveryStateChange(t *testing.T) {
	a := newTestApp(t, true)
	admin := a.sessionCookie("admin")
	n := 0
	for _, r := range a.srv.Echo().Routes() {
		switch r.Method {
		case "POST", "PUT", "PATCH", "DELETE":
		default:
			continue
		}
		n++
		path := expandPath(r.Path, a)
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			for _, tc := range []struct {
				name   string
				header map[string]string
			}{
				{"no token", nil},
				{"wrong token", map[string]string{"X-CSRF-Token": "forged"}},
				{"cross-site", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}},
			} {
				rec := a.do(request{method: r.Method, path: path, form: url.Values{"email": {"x@example.com"}}, cookie: admin, header: tc.header})
				if rec.Code != 403 {
					t.Errorf("%s: status %d, want 403 CSRF refusal", tc.name, rec.Code)
				}
				wantPage(t, rec, in(tid("error-page")+", "+tid("error-fragment"), hasText("did not come from this console")))
			}
		})
	}
	if n == 0 {
		t.Fatal("no state-changing routes found")
	}
}
