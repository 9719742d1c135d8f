package web

import (
	"context"
	"strings"
	"testing"
)

// TestClientClosedIsNotAnInternalError: a request whose client went away
// (its context canceled) while the handler read the database is logged as
// status 499, error client_closed, at info level: no "internal error" at
// error level, no 500.
func TestClientClosedIsNotAnInternalError(t *testing.T) {
	a := newTestApp(t, true)
	admin := a.sessionCookie("admin")
	for _, path := range []string{"/users", "/tools", "/audit"} {
		t.Run(path, func(t *testing.T) {
			a.log.Reset()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			rec := a.do(request{method: "GET", path: path, cookie: admin, ctx: ctx})
			wantStatus(t, rec, 499)
			logs := a.log.String()
			if strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, "status=499") || !strings.Contains(logs, "error=client_closed") {
				t.Errorf("log for a client that went away:\n%s", logs)
			}
		})
	}
}
