package web

import (
	"context"
	"net/url"
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

func defaultsValues(d policy.ProjectDefaults, version int64) url.Values {
	f := defaultsForm(d)
	v := url.Values{"version": {strconv.FormatInt(version, 10)}, "safe.attempts": {f.SafeAttempts}, "safe.backoff_ms": {f.SafeBackoffMS},
		"safe.multiplier": {f.SafeMultiplier}, "safe.timeout_ms": {f.SafeTimeoutMS}, "all.timeout_ms": {f.AllTimeoutMS},
		"all.deadline_ms": {f.AllDeadlineMS}, "all.max_response_bytes": {f.AllMaxResponse},
		"all.circuit_breaker.threshold": {f.BreakerThreshold}, "all.circuit_breaker.reset_ms": {f.BreakerResetMS}}
	if f.SafeJitter {
		v.Set("safe.jitter", "true")
	}
	for _, s := range f.SafeRetryOn {
		v.Add("safe.retry_on", strconv.Itoa(s))
	}
	return v
}

func TestDefaultsPreviewSaveConflict(t *testing.T) {
	ctx := context.Background()
	a := newTestApp(t, true)
	seedTools(t, a)
	admin := a.sessionCookie("admin")
	rec := a.do(request{method: "GET", path: "/defaults", cookie: a.sessionCookie("viewer")})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in("dl"+tid("defaults-facts")), none(`form[action="/defaults"]`))

	v := defaultsValues(policy.BuiltinDefaults(), 0)
	v.Set("all.deadline_ms", "20000") // changes both tools under "apply defaults"
	rec = a.do(request{method: "POST", path: "/defaults/preview", form: v, cookie: admin, csrf: true, header: map[string]string{"HX-Request": "true"}})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("defaults-changed"), textIs("2")), in("p:has("+tid("defaults-changed")+")", hasText("2 of 2 existing tools")))

	// Posting fields defaults do not have changes nothing R2/R10 reserves.
	v.Set("expose_new_read_tools", "true")
	v.Set("idempotent", "true")
	v.Set("safe.exposed", "true")
	rec = a.do(request{method: "POST", path: "/defaults", form: v, cookie: admin, csrf: true})
	wantStatus(t, rec, 303)
	post := storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: "orders_create", Method: "POST", Path: "/orders", Class: risk.Write})
	priv := storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: "admin_get", Method: "GET", Path: "/admin", Class: risk.Privileged})
	read := storetest.MustSeedTool(t, a.db, storetest.SeedTool{Name: "orders_get", Method: "GET", Path: "/orders/{id}", Class: risk.Read})
	if post.Policy.Exposed || post.Policy.Idempotent || post.Policy.Retry.Attempts != 1 || priv.Policy.Exposed || !read.Policy.Exposed {
		t.Fatalf("new tools under saved defaults: post %+v priv exposed %v read exposed %v", post.Policy, priv.Policy.Exposed, read.Policy.Exposed)
	}
	if read.Policy.DeadlineMS != 20000 {
		t.Fatalf("new READ tool deadline %d, want the saved 20000", read.Policy.DeadlineMS)
	}

	// A second save from version 0 is a conflict showing what changed.
	v = defaultsValues(policy.BuiltinDefaults(), 0)
	v.Set("safe.attempts", "4")
	rec = a.do(request{method: "POST", path: "/defaults", form: v, cookie: admin, csrf: true})
	wantStatus(t, rec, 409)
	wantPage(t, rec, in(tid("defaults-conflict")+" code", textIs("all.deadline_ms")),
		in(`form[action="/defaults"] input[name="version"]`, hasAttr("value", "1")))

	v.Set("version", "1")
	v.Set("safe.attempts", "9")
	rec = a.do(request{method: "POST", path: "/defaults", form: v, cookie: admin, csrf: true})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(`[id="pf-safe.attempts"]`, hasAttr("aria-invalid", "true")), in(`[id="pf-safe.attempts-error"]`+tid("field-error")))
	if cur, _ := a.db.ProjectDefaults(ctx); cur.Version != 1 {
		t.Fatalf("version %d after refused saves, want 1", cur.Version)
	}
}
