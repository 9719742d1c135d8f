package web

import (
	"net/url"
	"testing"
)

// The next-bundle preview is built once per change of publishable state.
func TestBundlesPreviewCached(t *testing.T) {
	a := newPublishApp(t)
	admin := a.sessionCookie("admin")
	hx := map[string]string{"HX-Request": "true"}
	a.exposeTool("list_orders")
	builds := func() int {
		a.srv.pub.preview.mu.Lock()
		defer a.srv.pub.preview.mu.Unlock()
		return a.srv.pub.preview.builds
	}
	for range 3 {
		wantPage(t, a.do(request{method: "GET", path: "/bundles/next", cookie: admin, header: hx}), in(tid("tool-added"), hasText("list_orders")))
	}
	if builds() != 1 {
		t.Fatalf("three views built the preview %d times", builds())
	}
	a.exposeTool("get_order") // a change by plain SQL: the triggers see it too
	wantPage(t, a.do(request{method: "GET", path: "/bundles/next", cookie: admin, header: hx}), in(tid("tool-added"), hasText("get_order")))
	if builds() != 2 {
		t.Fatalf("builds after a change: %d, want 2", builds())
	}
	wantStatus(t, a.do(request{method: "POST", path: "/keys/rotate", cookie: admin, csrf: true, form: url.Values{"confirm": {"yes"}}}), 303)
	a.do(request{method: "GET", path: "/bundles/next", cookie: admin, header: hx})
	if builds() != 3 {
		t.Fatalf("builds after a key rotation: %d, want 3", builds())
	}
	wantStatus(t, a.do(request{method: "POST", path: "/bundles", cookie: admin, csrf: true, form: url.Values{"note": {"n"}}}), 303)
	wantPage(t, a.do(request{method: "GET", path: "/bundles/next", cookie: admin, header: hx}), in(tid("no-changes")))
	if builds() != 4 {
		t.Fatalf("builds after a publish: %d, want 4", builds())
	}
}
