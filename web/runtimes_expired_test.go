package web

import (
	"testing"
	"time"
)

// TestRuntimesPageSaysTheCurrentBundleExpired: once the current bundle's
// expiry passes, every runtime refuses all of its tools (R11); the
// Runtimes page says so with the time and the way out, and while it is
// valid it says nothing. The runtime's own report shows in its row.
func TestRuntimesPageSaysTheCurrentBundleExpired(t *testing.T) {
	a := newPublishApp(t)
	a.exposeTool("list_orders")
	token := a.token("edge")
	rec := a.publish("first")
	valid := a.do(request{method: "GET", path: "/runtimes", cookie: a.sessionCookie("viewer")})
	wantStatus(t, valid, 200)
	wantHTML(t, valid.Body.String(), none(`[data-testid="bundle-expired"]`))

	a.db.Now = func() time.Time { return rec.ExpiresAt.Add(time.Minute) }
	report := "expired: bundle v1 expired at " + rec.ExpiresAt.UTC().Format(time.RFC3339) + ", every tool withdrawn"
	h := bearer(token, "If-None-Match", rec.ETag, "X-Toolgate-Instance-Id", "pod-1", "X-Toolgate-Runtime-Name", "checkout",
		"X-Toolgate-Bundle-Version", "1", "X-Toolgate-Refused", report)
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: h}), 304)
	a.api.Flush(t.Context())
	page := a.do(request{method: "GET", path: "/runtimes", cookie: a.sessionCookie("viewer")}) // signed in after the clock moved
	wantStatus(t, page, 200)
	wantHTML(t, page.Body.String(),
		in(`[data-testid="bundle-expired"]`, hasText("The current bundle v1 expired at "+consoleTime(rec.ExpiresAt)),
			hasText("Publish again")),
		in(`[data-testid="runtime-row"] [data-testid="refused"]`, hasText(report)))
}
