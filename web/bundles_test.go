package web

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

func TestBundlesPublishFlow(t *testing.T) {
	a := newPublishApp(t)
	admin, viewer := a.sessionCookie("admin"), a.sessionCookie("viewer")
	a.exposeTool("list_orders")

	// The page renders without the preview, which loads afterwards: with
	// HTMX as a fragment, without JavaScript through the link as a page.
	rec := a.do(request{method: "GET", path: "/bundles", cookie: admin})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(`[hx-get="/bundles/next"]`, hasAttr("hx-trigger", "load"), hasText("Show the next bundle")),
		in(tid("next-bundle-loading")+` a[href="/bundles/next"]`),
		in(tid("current-version"), hasText("Nothing has been published yet")),
		none(tid("preview"))) // the page did not compute the preview before rendering
	rec = a.do(request{method: "GET", path: "/bundles/next", cookie: admin, header: map[string]string{"HX-Request": "true"}})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("preview")+" "+tid("tool-added"), textIs("Tool added: list_orders")),
		in(`form[method="post"][action="/bundles"]`+tid("publish-form")))
	wantFragment(t, rec)
	rec = a.do(request{method: "GET", path: "/bundles/next", cookie: admin})
	wantDocument(t, rec)
	wantPage(t, rec, in(tid("bundles-next")+" "+tid("tool-added"), hasText("list_orders")),
		in(tid("bundles-next")+" "+tid("publish-form")))
	rec = a.do(request{method: "GET", path: "/bundles/next", cookie: viewer})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("preview")), none(tid("publish-form")), none(`form[action="/bundles"]`)) // a viewer is not offered the publish form

	rec = a.do(request{method: "POST", path: "/bundles", cookie: admin, csrf: true, form: url.Values{"note": {"first <publish>"}}})
	wantStatus(t, rec, 303)
	rec = a.do(request{method: "GET", path: "/bundles?done=published", cookie: admin})
	wantPage(t, rec, in(tid("current-version"), textIs("v1")), in(`td[data-label="Note"]`, textIs("first <publish>")),
		in(tid("notice"), hasText("Published.")))
	wantPage(t, a.do(request{method: "GET", path: "/bundles/next", cookie: admin}), in(tid("no-changes")), none(tid("tool-added")))

	// A policy change shows up as a policy field change in the preview.
	if _, err := a.db.Publish(t.Context(), store.PublishRequest{}); err == nil {
		t.Fatal("publish without key accepted")
	}
	storetest.MustAddTool(t, a.db, storetest.FixtureTool{Source: "billing", Name: "list_invoices", Method: "GET", Path: "/invoices", Class: risk.Read, Exposed: true})
	rec = a.do(request{method: "GET", path: "/bundles/next", cookie: admin})
	wantPage(t, rec, in(tid("publish-problem"), hasText("billing"), hasText("has no origin")), none(tid("publish-form")))
	rec = a.do(request{method: "POST", path: "/bundles", cookie: admin, csrf: true, form: url.Values{"note": {"kept"}}})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(tid("form-error"), hasText("billing")))
}

func TestBundlesDownloadCompareRollback(t *testing.T) {
	a := newPublishApp(t)
	admin := a.sessionCookie("admin")
	a.exposeTool("list_orders")
	v1 := a.publish("one")
	a.exposeTool("get_order")
	a.publish("two")

	rec := a.do(request{method: "GET", path: "/bundles/1/download", cookie: a.sessionCookie("viewer")})
	wantStatus(t, rec, 200)
	if rec.Header().Get("Content-Type") != "application/jose" ||
		rec.Header().Get("Content-Disposition") != `attachment; filename="toolgate-bundle-v1.jws"` || rec.Body.String() != v1.Signed {
		t.Fatalf("download headers %v", rec.Header())
	}
	if _, _, err := bundle.Verify(rec.Body.Bytes(), a.keySet(), bundle.VerifyOptions{Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, a.do(request{method: "GET", path: "/bundles/9/download", cookie: admin}), 404)

	rec = a.do(request{method: "GET", path: "/bundles/compare?from=1&to=2", cookie: admin})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("tool-added"), textIs("Tool added: get_order")), none(tid("tool-removed")))
	rec = a.do(request{method: "GET", path: "/bundles/compare?from=2&to=1", cookie: admin})
	wantPage(t, rec, in(tid("tool-removed"), textIs("Tool removed: get_order")), none(tid("tool-added")))

	wantStatus(t, a.do(request{method: "POST", path: "/bundles/1/rollback", cookie: admin, csrf: true, form: url.Values{}}), 400)
	rec = a.do(request{method: "POST", path: "/bundles/1/rollback", cookie: admin, csrf: true, form: url.Values{"confirm": {"yes"}}})
	wantStatus(t, rec, 303)
	latest, err := a.db.LatestBundle(t.Context())
	if err != nil || latest.Version != 3 || latest.RollbackOf != 1 || latest.ToolCount != 1 {
		t.Fatalf("after rollback: %+v, %v", latest, err)
	}
	wantPage(t, a.do(request{method: "GET", path: "/bundles", cookie: admin}),
		in(tid("history-row"), in(`td[data-label="Note"] .badge`, textIs("rollback of v1"))))
}

func TestKeysRotateAndRetire(t *testing.T) {
	a := newPublishApp(t)
	admin := a.sessionCookie("admin")
	first, _ := a.srv.pub.keys.Active(context.Background())
	a.exposeTool("list_orders")
	a.publish("")

	rec := a.do(request{method: "GET", path: "/keys", cookie: a.sessionCookie("viewer")})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in("tr", in(`td[data-label="Key id"] code`, textIs(first.KeyID)),
		in(`td[data-label="Status"] .badge`, textIs("signs the current bundle"))))
	wantPage(t, rec, none(tid("rotate-form")), none(`form[action="/keys/rotate"]`)) // a viewer is not offered rotation
	wantStatus(t, a.do(request{method: "POST", path: "/keys/rotate", cookie: admin, csrf: true, form: url.Values{}}), 400)
	wantStatus(t, a.do(request{method: "POST", path: "/keys/rotate", cookie: admin, csrf: true, form: url.Values{"confirm": {"yes"}}}), 303)
	second, _ := a.srv.pub.keys.Active(context.Background())
	if second.KeyID == first.KeyID || len(a.keySet().Keys) != 2 {
		t.Fatalf("rotation: active %s, published %v", second.KeyID, a.keySet().KeyIDs())
	}
	retire := func(kid string) int {
		return a.do(request{method: "POST", path: "/keys/" + kid + "/retire", cookie: admin, csrf: true, form: url.Values{"confirm": {"yes"}}}).Code
	}
	if got := retire(first.KeyID); got != 409 {
		t.Fatalf("retiring the key of the current bundle: %d, want 409", got)
	}
	if got := retire(second.KeyID); got != 409 {
		t.Fatalf("retiring the active key: %d, want 409", got)
	}
	if got := retire("nope"); got != 404 {
		t.Fatalf("retiring an unknown key: %d", got)
	}
	rec = a.do(request{method: "POST", path: "/bundles", cookie: admin, csrf: true, form: url.Values{}})
	wantStatus(t, rec, 303)
	if latest, _ := a.db.LatestBundle(t.Context()); latest.KeyID != second.KeyID {
		t.Fatalf("v2 signed by %s, want the new key", latest.KeyID)
	}
	if got := retire(first.KeyID); got != 303 {
		t.Fatalf("retire: %d", got)
	}
	if ids := a.keySet().KeyIDs(); len(ids) != 1 || ids[0] != second.KeyID {
		t.Fatalf("published keys %v", ids)
	}
	entries, _ := a.db.AuditEntries(t.Context())
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	joined := strings.Join(actions, " ")
	for _, want := range []string{"key.create", "key.rotate", "key.retire", "bundle.publish"} {
		if !strings.Contains(joined, want) {
			t.Errorf("audit lacks %s: %v", want, actions)
		}
	}
}

func TestTokensAndRuntimesPages(t *testing.T) {
	a := newPublishApp(t)
	admin := a.sessionCookie("admin")
	rec := a.do(request{method: "POST", path: "/tokens", cookie: admin, csrf: true, form: url.Values{"name": {"checkout-prod"}}})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("new-token-value"), hasText("tgr_")))
	wantPage(t, rec, in(tid("new-token"), hasText("cannot be shown again")))
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Error("the page with the token may be cached")
	}
	secret := textOf(t, rec, tid("new-token-value"))
	rec = a.do(request{method: "GET", path: "/tokens", cookie: admin})
	if strings.Contains(rec.Body.String(), secret) {
		t.Fatal("the token is shown again")
	}
	wantPage(t, rec, in(tid("token-row"), in(`td[data-label="Name"]`, textIs("checkout-prod")),
		in(`td[data-label="Last used"]`, textIs("never"))), none(tid("new-token-value")))
	wantStatus(t, a.do(request{method: "POST", path: "/tokens", cookie: admin, csrf: true, form: url.Values{"name": {"checkout-prod"}}}), 409)

	a.exposeTool("list_orders")
	a.publish("")
	a.publish("")
	h := map[string]string{"Authorization": "Bearer " + secret, "X-Toolgate-Instance-Id": "pod-7", "X-Toolgate-Runtime-Name": "checkout", "X-Toolgate-Bundle-Version": "1"}
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: h}), 200)
	a.api.Flush(t.Context())
	rec = a.do(request{method: "GET", path: "/runtimes", cookie: a.sessionCookie("viewer")})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("runtime-row"), hasText("pod-7"), hasText("checkout")),
		in(tid("runtime-row")+" "+tid("behind"), textIs("1 behind")), in(tid("runtimes"), hasText("10m0s")),
		none(tid("stale"))) // an instance seen just now is not flagged stale
	a.db.Now = func() time.Time { return time.Now().Add(11 * time.Minute) }
	wantPage(t, a.do(request{method: "GET", path: "/runtimes", cookie: admin}), in(tid("runtime-row")+" "+tid("stale")))

	wantStatus(t, a.do(request{method: "POST", path: "/tokens/checkout-prod/revoke", cookie: admin, csrf: true, form: url.Values{"confirm": {"yes"}}}), 303)
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: h}), 401)
	wantPage(t, a.do(request{method: "GET", path: "/tokens", cookie: admin}),
		in(tid("token-row"), in(`td[data-label="Status"] .badge`, hasText("revoked")), none(`form[action="/tokens/checkout-prod/revoke"]`)))
}
