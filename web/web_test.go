package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/store"
)

func sessionFrom(t *testing.T, resp *http.Response) *http.Cookie {
	t.Helper()
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie && c.MaxAge >= 0 && c.Value != "" {
			return c
		}
	}
	return nil
}

func TestSecurityHeaders(t *testing.T) {
	a := newTestApp(t, true)
	rec := a.do(request{method: "GET", path: "/login"})
	h := rec.Header()
	for name, want := range map[string]string{
		"Content-Security-Policy": "script-src 'self'",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "same-origin",
	} {
		if !strings.Contains(h.Get(name), want) {
			t.Errorf("%s = %q, want it to contain %q", name, h.Get(name), want)
		}
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	wantPage(t, rec, in("script[src]"), none("script:not([src])")) // no inline script
}

func TestStaticCaching(t *testing.T) {
	a := newTestApp(t, true)
	url := a.srv.assets.url("htmx.min.js")
	tests := []struct {
		path, cache string
		status      int
	}{
		{url, "public, max-age=31536000, immutable", 200},
		{"/static/htmx.min.js?v=old", "no-cache", 200},
		{"/static/nope.js", "", 404},
		{"/static/static.go", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rec := a.do(request{method: "GET", path: tt.path})
			wantStatus(t, rec, tt.status)
			if got := rec.Header().Get("Cache-Control"); tt.cache != "" && got != tt.cache {
				t.Errorf("Cache-Control %q, want %q", got, tt.cache)
			}
		})
	}
	wantPage(t, a.do(request{method: "GET", path: "/login"}), in(`script[src="`+url+`"]`))
}

func TestFirstRunSetup(t *testing.T) {
	a := newTestApp(t, false)
	link := a.srv.SetupURL()
	if !strings.HasPrefix(link, "http://127.0.0.1:1/setup?token=") {
		t.Fatalf("SetupURL = %q", link)
	}
	token := strings.TrimPrefix(link, "http://127.0.0.1:1/setup?token=")
	wantStatus(t, a.do(request{method: "GET", path: "/setup?token=wrong"}), 404)
	wantStatus(t, a.do(request{method: "GET", path: "/setup?token=" + token}), 200)

	form := url.Values{"token": {token}, "email": {"boss@example.com"}, "password": {testPassword}, "password_confirm": {"different password"}}
	rec := a.do(request{method: "POST", path: "/setup", form: form, csrf: true})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(tid("form-error"), hasText("The two passwords differ.")))

	form.Set("password_confirm", testPassword)
	rec = a.do(request{method: "POST", path: "/setup", form: form, csrf: true})
	wantStatus(t, rec, 303)
	cookie := sessionFrom(t, rec.Result())
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Secure {
		t.Fatalf("session cookie %+v", cookie)
	}
	rec = a.do(request{method: "GET", path: "/users", cookie: cookie})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("user-row")+" a", hasText("boss@example.com")))

	// The token died with its use.
	if a.srv.SetupURL() != "" {
		t.Error("setup link still offered")
	}
	// The used link now says setup is done, and a second POST creates no one.
	rec = a.do(request{method: "GET", path: "/setup?token=" + token})
	wantStatus(t, rec, 200)
	wantHTML(t, rec.Body.String(), in("[data-testid=setup-done] h1", textIs("Setup is already done")), none("form[action='/setup']"))
	form.Set("email", "second@example.com")
	wantStatus(t, a.do(request{method: "POST", path: "/setup", form: form, csrf: true}), 409)
	if n, err := a.db.CountUsers(context.Background()); err != nil || n != 1 {
		t.Errorf("%d users after a second setup POST (%v), want 1", n, err)
	}
}

func TestLogin(t *testing.T) {
	a := newTestApp(t, true)
	login := func(email, pw, ip string) *http.Response {
		t.Helper()
		form := url.Values{"email": {email}, "password": {pw}, "next": {"/users"}}
		return a.do(request{method: "POST", path: "/login", form: form, csrf: true, addr: ip + ":1234"}).Result()
	}
	t.Run("wrong password and unknown email look the same", func(t *testing.T) {
		for _, email := range []string{"viewer@example.com", "ghost@example.com"} {
			resp := login(email, "wrong password!", "10.0.0.1")
			if resp.StatusCode != 401 || sessionFrom(t, resp) != nil {
				t.Errorf("%s: status %d, cookie %v", email, resp.StatusCode, sessionFrom(t, resp))
			}
		}
	})
	t.Run("success redirects to next with a new session", func(t *testing.T) {
		old := a.sessionCookie("admin")
		form := url.Values{"email": {"ADMIN@example.com"}, "password": {testPassword}, "next": {"/users"}}
		rec := a.do(request{method: "POST", path: "/login", form: form, csrf: true, cookie: old})
		wantStatus(t, rec, 303)
		if loc := rec.Header().Get("Location"); loc != "/users" {
			t.Errorf("Location %q", loc)
		}
		fresh := sessionFrom(t, rec.Result())
		if fresh == nil || fresh.Value == old.Value {
			t.Fatal("no new session cookie on sign-in")
		}
		wantStatus(t, a.do(request{method: "GET", path: "/users", cookie: fresh}), 200)
		wantStatus(t, a.do(request{method: "GET", path: "/users", cookie: old}), 303) // the previous session ended
	})
	t.Run("open redirect refused", func(t *testing.T) {
		for _, next := range []string{"//evil.example", "https://evil.example/", "/\\evil.example"} {
			if got := safeNext(next); got != "/" {
				t.Errorf("safeNext(%q) = %q", next, got)
			}
		}
	})
	t.Run("throttled per account and address", func(t *testing.T) {
		for range 5 {
			login("approver@example.com", "wrong password!", "10.0.1.1")
		}
		resp := login("approver@example.com", testPassword, "10.0.1.1")
		// One token comes back every 30 s: wait at most that.
		if wait, err := strconv.Atoi(resp.Header.Get("Retry-After")); resp.StatusCode != 429 || sessionFrom(t, resp) != nil ||
			err != nil || wait < 1 || wait > 30 {
			t.Fatalf("6th attempt with the right password: status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		// The guesses from 10.0.1.1 do not lock the person out elsewhere.
		if resp := login("approver@example.com", testPassword, "10.0.2.1"); resp.StatusCode != 303 {
			t.Fatalf("the right password from another address: status %d", resp.StatusCode)
		}
	})
	t.Run("only an email address is recorded as the account", func(t *testing.T) {
		typed := []string{testPassword, strings.Repeat("x", 10000) + "@example.com"}
		for _, email := range typed {
			if resp := login(email, "wrong password!", "10.0.3.1"); resp.StatusCode != 401 {
				t.Fatalf("status %d", resp.StatusCode)
			}
		}
		res, _, err := a.db.QueryAudit(context.Background(), store.AuditFilter{Action: "login.failure", Limit: len(typed)})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res {
			if e.Actor != notAnEmail || e.Subject != "email:"+notAnEmail ||
				strings.Contains(e.After, "horse") || strings.Contains(e.After, "xxx") {
				t.Errorf("audit entry records what was typed: actor %.40q subject %.40q after %.80q", e.Actor, e.Subject, e.After)
			}
		}
	})
	entries, err := a.db.AuditEntries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, e := range entries {
		counts[e.Action]++
	}
	if counts["login.failure"] < 8 || counts["login.success"] < 1 {
		t.Errorf("audit counts %v", counts)
	}
}

func TestLogoutEndsSession(t *testing.T) {
	a := newTestApp(t, true)
	cookie := a.sessionCookie("viewer")
	wantStatus(t, a.do(request{method: "GET", path: "/", cookie: cookie}), 200)
	rec := a.do(request{method: "POST", path: "/logout", form: url.Values{}, cookie: cookie, csrf: true})
	wantStatus(t, rec, 303)
	rec = a.do(request{method: "GET", path: "/", cookie: cookie}) // a copy of the old cookie
	wantStatus(t, rec, 303)
	if loc := rec.Header().Get("Location"); !strings.HasPrefix(loc, "/login") {
		t.Errorf("Location %q", loc)
	}
}

func TestErrorRendering(t *testing.T) {
	a := newTestApp(t, true)
	viewer := a.sessionCookie("viewer")
	t.Run("forbidden page", func(t *testing.T) {
		rec := a.do(request{method: "GET", path: "/users", cookie: viewer})
		wantStatus(t, rec, 403)
		wantPage(t, rec, in(tid("error-page"), hasAttr("data-status", "403"), hasText("Your roles do not allow this page.")),
			none(`a[href="/users"]`)) // the viewer sees no link to the users page
	})
	t.Run("htmx fragment", func(t *testing.T) {
		rec := a.do(request{method: "GET", path: "/users", cookie: viewer, header: map[string]string{"HX-Request": "true"}})
		wantStatus(t, rec, 403)
		wantPage(t, rec, in(tid("error-fragment"), hasAttr("data-status", "403")))
		if rec.Header().Get("HX-Retarget") != "#flash" {
			t.Errorf("fragment headers %v", rec.Header())
		}
		wantFragment(t, rec)
	})
	t.Run("not found", func(t *testing.T) {
		wantStatus(t, a.do(request{method: "GET", path: "/nope", cookie: viewer}), 404)
		wantStatus(t, a.do(request{method: "GET", path: "/users/abc", cookie: a.sessionCookie("admin")}), 404)
	})
	t.Run("internal error text is logged, not shown", func(t *testing.T) {
		admin := a.sessionCookie("admin")
		_ = a.db.Close()
		rec := a.do(request{method: "GET", path: "/users", cookie: admin})
		wantStatus(t, rec, 500)
		if strings.Contains(rec.Body.String(), "closed") || !strings.Contains(a.log.String(), "database is closed") {
			t.Errorf("body %q\nlog %q", rec.Body.String(), a.log.String())
		}
		wantStatus(t, a.do(request{method: "GET", path: "/readyz"}), 503)
	})
}

func TestUserAdministration(t *testing.T) {
	a := newTestApp(t, true)
	admin := a.sessionCookie("admin")
	post := func(path string, form url.Values, hdr map[string]string) *http.Response {
		return a.do(request{method: "POST", path: path, form: form, cookie: admin, csrf: true, header: hdr}).Result()
	}
	form := url.Values{"email": {"new@example.com"}, "role": {"viewer", "admin"}, "password": {testPassword}, "password_confirm": {testPassword}}
	if resp := post("/users", form, nil); resp.StatusCode != 303 {
		t.Fatalf("add: %d", resp.StatusCode)
	}
	if resp := post("/users", form, nil); resp.StatusCode != 409 {
		t.Fatalf("duplicate add: %d", resp.StatusCode)
	}
	u, err := a.db.UserByEmail(context.Background(), "new@example.com")
	if err != nil || len(u.Roles) != 2 {
		t.Fatalf("added user %+v, %v", u, err)
	}
	id := "/users/" + strconv.FormatInt(u.ID, 10)
	rec := a.do(request{method: "POST", path: id + "/disabled", form: url.Values{"disabled": {"true"}}, cookie: admin, csrf: true,
		header: map[string]string{"HX-Request": "true"}})
	wantStatus(t, rec, 200)
	// The fragment is a bare table row: parsed outside a table, HTML drops the <tr>.
	wantHTML(t, "<table>"+rec.Body.String()+"</table>", in("tr"+tid("user-row"), hasText("disabled")),
		in(tid("user-row")+" button", textIs("Enable")))
	if resp := post("/users/"+strconv.FormatInt(a.users["admin"].ID, 10)+"/roles", url.Values{"role": {"viewer"}}, nil); resp.StatusCode != 409 {
		t.Errorf("demoting the last admin: %d", resp.StatusCode)
	}
	if resp := post(id+"/password", url.Values{"password": {"short"}, "password_confirm": {"short"}}, nil); resp.StatusCode != 400 {
		t.Errorf("short password reset: %d", resp.StatusCode)
	}
	n, err := a.db.VerifyAudit(context.Background())
	if err != nil || n < 5 {
		t.Errorf("audit: %d entries, %v", n, err)
	}
}
