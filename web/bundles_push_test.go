package web

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/oci"
	"github.com/toolgate/toolgate/internal/pusher"
	"github.com/toolgate/toolgate/internal/testing/ocitest"
)

// newPushApp is newPublishApp whose console pushes to reg (not started).
func newPushApp(t *testing.T, reg *ocitest.Registry) (*testApp, *pusher.Pusher) {
	t.Helper()
	var p *pusher.Pusher
	a := newTestApp(t, true, func(d *Deps) {
		d.Keys = &keyring.Files{Dir: bundle.KeyDir{Path: filepath.Join(t.TempDir(), "keys")}, DB: d.Store}
		c, err := oci.New(reg.Target("toolgate/bundles"), oci.Options{PlainHTTP: true, Credentials: reg.Credentials})
		if err != nil {
			t.Fatal(err)
		}
		p = pusher.New(d.Store, c, d.Logger, pusher.Options{})
		d.Pusher = p
	})
	return a, p
}

// TestPublishWhileRegistryDown: the publish succeeds although the registry
// is down, the Bundles page shows the failure with its reason, and "Retry
// push now" (HTMX) once the registry is up gets the version pushed. The
// registry password is in no page and no log line.
func TestPublishWhileRegistryDown(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{Auth: true})
	a, p := newPushApp(t, reg)
	admin, viewer := a.sessionCookie("admin"), a.sessionCookie("viewer")
	a.exposeTool("list_orders")
	wantStatus(t, a.do(request{method: "POST", path: "/bundles", cookie: admin, csrf: true}), 303)
	if err := p.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := a.do(request{method: "GET", path: "/bundles", cookie: admin})
	wantStatus(t, rec, 200)
	wantHTML(t, rec.Body.String(), in(tid("registry")),
		in(`[data-testid="push-status"][data-state="failed"]`, hasText("push failed"), hasText("connection refused"), hasText("retrying")),
		in(`form[data-testid="retry-push"]`, hasAttr("method", "post"), hasAttr("action", "/bundles/1/push"),
			hasAttr("hx-post", "/bundles/1/push"), hasAttr("hx-target", "#push-v1"), hasAttr("hx-swap", "outerHTML")),
		in(`form[data-testid="retry-push"] input[type="hidden"]`, hasAttr("name", "_csrf")))
	// A viewer sees the push state and is not offered the retry.
	wantPage(t, a.do(request{method: "GET", path: "/bundles", cookie: viewer}),
		in(`[data-testid="push-status"][data-state="failed"]`), none(tid("retry-push")), none(`form[action="/bundles/1/push"]`))
	// Without the CSRF token the retry changes nothing.
	wantStatus(t, a.do(request{method: "POST", path: "/bundles/1/push", cookie: admin}), 403)

	reg.Start()
	rec = a.do(request{method: "POST", path: "/bundles/1/push", cookie: admin, csrf: true, header: map[string]string{"HX-Request": "true"}})
	wantStatus(t, rec, 200)
	wantFragment(t, rec)
	wantPage(t, rec, in(`#push-v1`+tid("push-status")))
	if err := p.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec = a.do(request{method: "GET", path: "/bundles", cookie: admin})
	wantPage(t, rec, in(`[data-testid="push-status"][data-state="pushed"]`, in(".badge", textIs("pushed")),
		in("code", textIs("oci://"+reg.Addr+"/toolgate/bundles"))))
	// A pushed version cannot be retried; an unknown one is not found.
	wantStatus(t, a.do(request{method: "POST", path: "/bundles/1/push", cookie: admin, csrf: true}), 400)
	wantStatus(t, a.do(request{method: "POST", path: "/bundles/7/push", cookie: admin, csrf: true}), 404)

	if strings.Contains(rec.Body.String(), reg.Credentials.Password) || strings.Contains(a.log.String(), reg.Credentials.Password) {
		t.Error("the registry password leaked into the page or the log")
	}
	if !strings.Contains(a.log.String(), "bundle pushed to the registry") {
		t.Errorf("the push outcome is not logged:\n%s", a.log.String())
	}
}

// TestPushRetryPlainForm: without JavaScript the retry is a POST and a
// redirect back to the page.
func TestPushRetryPlainForm(t *testing.T) {
	reg := ocitest.New(t, ocitest.Options{})
	a, p := newPushApp(t, reg)
	admin := a.sessionCookie("admin")
	a.exposeTool("list_orders")
	a.publish("one")
	if err := p.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := a.do(request{method: "POST", path: "/bundles/1/push", cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	if loc := rec.Header().Get("Location"); loc != "/bundles?done=retrying" {
		t.Fatalf("redirect to %q", loc)
	}
	wantPage(t, a.do(request{method: "GET", path: "/bundles?done=retrying", cookie: admin}), in(tid("notice"), hasText("retried now")))
}
