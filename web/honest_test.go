package web

import (
	"context"
	"database/sql"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/store"
)

// accessLine returns the access-log line of the request to path.
func (a *testApp) accessLine(path string) string {
	a.t.Helper()
	re := regexp.MustCompile(`(?m)^.*msg=request .*path=` + regexp.QuoteMeta(path) + ` .*$`)
	line := re.FindString(a.log.String())
	if line == "" {
		a.t.Fatalf("no access-log line for %s in:\n%s", path, a.log.String())
	}
	return line
}

// TestAccessLogRecordsStatusSent: the access log has the status the client
// got, with the error class, also when the error handler wrote it.
func TestAccessLogRecordsStatusSent(t *testing.T) {
	a := newTestApp(t, true)
	viewer, admin := a.sessionCookie("viewer"), a.sessionCookie("admin")
	for _, tc := range []struct {
		path   string
		cookie *http.Cookie
		status int
		want   string
	}{
		{"/tools", viewer, 200, "status=200 "},
		{"/users", viewer, 403, "status=403 .*error=forbidden"},
		{"/tools/no_such_tool", viewer, 404, "status=404 .*error=not_found"},
		{"/no/such/page", viewer, 404, "status=404 .*error=not_found"},
	} {
		wantStatus(t, a.do(request{method: "GET", path: tc.path, cookie: tc.cookie}), tc.status)
		if line := a.accessLine(tc.path); !regexp.MustCompile(tc.want).MatchString(line) {
			t.Errorf("%s: access log %q, want %q", tc.path, line, tc.want)
		}
	}
	// A database that fails makes a 500: logged as sent, class internal.
	if err := a.db.Close(); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a.do(request{method: "GET", path: "/approvals", cookie: admin}), 500)
	if line := a.accessLine("/approvals"); !regexp.MustCompile(`status=500 .*error=internal`).MatchString(line) {
		t.Errorf("access log %q, want status=500 error=internal", line)
	}
}

// TestSignedInPagesAreNotStored: pages for a signed-in user say no-store;
// static files keep their long-lived caching.
func TestSignedInPagesAreNotStored(t *testing.T) {
	a := newTestApp(t, true)
	viewer := a.sessionCookie("viewer")
	for _, path := range []string{"/", "/tools", "/audit", "/bundles", "/no/such/page"} {
		rec := a.do(request{method: "GET", path: path, cookie: viewer})
		if got := rec.Header().Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s (%d): Cache-Control %q, want no-store", path, rec.Code, got)
		}
	}
	rec := a.do(request{method: "GET", path: a.srv.assets.url("htmx.min.js"), cookie: viewer})
	if got := rec.Header().Get("Cache-Control"); !strings.Contains(got, "immutable") {
		t.Errorf("static file for a signed-in user: Cache-Control %q", got)
	}
}

// TestBusyWriteIs503: a write that waits out the busy timeout because
// another process holds the write lock is answered 503 "try again" (never
// 500), logged as such; reads meanwhile answer normally.
func TestBusyWriteIs503(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "toolgate.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	a := newTestAppWith(t, db, true)
	admin := a.sessionCookie("admin")

	raw, err := sql.Open("sqlite", store.DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tx, err := raw.Begin() // takes the write lock (IMMEDIATE)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()

	start := time.Now()
	wantStatus(t, a.do(request{method: "GET", path: "/tools", cookie: admin}), 200)
	if d := time.Since(start); d > store.BusyTimeout/2 {
		t.Errorf("a page view waited %v for the write lock", d)
	}
	rec := a.do(request{method: "POST", path: "/logout", cookie: admin, csrf: true})
	wantStatus(t, rec, http.StatusServiceUnavailable)
	wantPage(t, rec, in(tid("error-page")+" h1", hasText("Busy, please try again")), in(tid("error-page"), hasText("try again in a moment")))
	if line := a.accessLine("/logout"); !strings.Contains(line, "status=503") || !strings.Contains(line, "error=unavailable") {
		t.Errorf("access log %q", line)
	}
	if strings.Contains(a.log.String(), "internal error") {
		t.Errorf("a busy database was logged as an internal error:\n%s", a.log.String())
	}
}
