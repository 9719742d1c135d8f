package runtimeapi

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
)

func TestRuntimeAPIBundleETag(t *testing.T) {
	a := newPublishApp(t)
	token := a.token("edge")
	auth := map[string]string{"Authorization": "Bearer " + token}
	rec := a.do(request{method: "GET", path: "/api/v1/bundle", header: auth})
	wantStatus(t, rec, 404) // nothing published yet
	a.exposeTool("list_orders")
	v1 := a.publish("first")

	rec = a.do(request{method: "GET", path: "/api/v1/bundle", header: auth})
	wantStatus(t, rec, 200)
	h := rec.Header()
	if h.Get("Content-Type") != "application/jose" || h.Get("ETag") != v1.ETag || h.Get("Cache-Control") != apiCacheControl {
		t.Fatalf("headers %v", h)
	}
	if rec.Body.String() != v1.Signed {
		t.Fatal("body is not the stored JWS")
	}
	if _, _, err := bundle.Verify(rec.Body.Bytes(), a.keySet(), bundle.VerifyOptions{Now: time.Now()}); err != nil {
		t.Fatalf("served bundle does not verify with the served keys: %v", err)
	}

	tests := []struct {
		name, inm string
		want      int
	}{
		{"same etag", v1.ETag, 304},
		{"weak form of it", "W/" + v1.ETag, 304},
		{"in a list", `"other", ` + v1.ETag, 304},
		{"star", "*", 304},
		{"other etag", `"0000"`, 200},
		{"unquoted", strings.Trim(v1.ETag, `"`), 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := a.do(request{method: "GET", path: "/api/v1/bundle", header: map[string]string{"Authorization": "Bearer " + token, "If-None-Match": tt.inm}})
			wantStatus(t, rec, tt.want)
			if tt.want == 304 && (rec.Body.Len() != 0 || rec.Header().Get("ETag") != v1.ETag) {
				t.Errorf("304 with body %q, etag %q", rec.Body.String(), rec.Header().Get("ETag"))
			}
		})
	}

	// A new publish changes the answer to the old tag; old versions stay fetchable.
	a.exposeTool("get_order")
	v2 := a.publish("second")
	rec = a.do(request{method: "GET", path: "/api/v1/bundle", header: map[string]string{"Authorization": "Bearer " + token, "If-None-Match": v1.ETag}})
	wantStatus(t, rec, 200)
	if rec.Header().Get("ETag") != v2.ETag || rec.Header().Get("X-Toolgate-Bundle-Version") != "2" {
		t.Fatalf("after publish: %v", rec.Header())
	}
	rec = a.do(request{method: "GET", path: "/api/v1/bundles/1", header: auth})
	wantStatus(t, rec, 200)
	if rec.Body.String() != v1.Signed || rec.Header().Get("ETag") != v1.ETag {
		t.Fatal("/bundles/1 is not v1")
	}
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundles/x", header: auth}), 404)

	// Revocation takes effect on the next request, 304 path included.
	if _, err := a.db.RevokeRuntimeToken(t.Context(), "test", "edge"); err != nil {
		t.Fatal(err)
	}
	rec = a.do(request{method: "GET", path: "/api/v1/bundle", header: map[string]string{"Authorization": "Bearer " + token, "If-None-Match": v2.ETag}})
	wantStatus(t, rec, 401)
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Errorf("401 content type %q", rec.Header().Get("Content-Type"))
	}
}

func TestRuntimeAPIKeysAndFleet(t *testing.T) {
	a := newPublishApp(t)
	rec := a.do(request{method: "GET", path: "/api/v1/keys"})
	wantStatus(t, rec, 200)
	ks, err := bundle.ParseKeySet(rec.Body.Bytes())
	if err != nil || len(ks.Keys) != 1 || rec.Header().Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("keys %s: %v", rec.Body.String(), err)
	}
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/keys", header: map[string]string{"If-None-Match": rec.Header().Get("ETag")}}), 304)

	a.exposeTool("list_orders")
	a.publish("")
	token := a.token("edge")
	fetch := func(instance, version string) {
		t.Helper()
		h := map[string]string{"Authorization": "Bearer " + token, headerInstanceID: instance, headerRuntimeName: "checkout\x00<b>", headerBundleVersion: version}
		if rec := a.do(request{method: "GET", path: "/api/v1/bundle", header: h}); rec.Code != http.StatusOK {
			t.Fatalf("fetch: %d", rec.Code)
		}
	}
	fetch("i-1", "0")
	fetch("i-1", "1") // version changed: written despite the rate limit
	fetch("i-2", "junk")
	a.srv.fleet.flush(t.Context())
	list, err := a.db.ListRuntimeInstances(t.Context())
	if err != nil || len(list) != 2 {
		t.Fatalf("instances %+v, %v", list, err)
	}
	for _, in := range list {
		want := map[string]int64{"i-1": 1, "i-2": 0}[in.InstanceID]
		if in.Version != want || in.Name != "checkout<b>" || in.TokenName != "edge" {
			t.Errorf("instance %+v", in)
		}
	}
	tok, _ := a.db.ListRuntimeTokens(t.Context())
	if tok[0].LastUsedAt == nil {
		t.Error("token last use not recorded")
	}
}
