package runtimeapi

import (
	"net"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// newSchemaApp publishes a v2 version: a plain tool, a group-scoped one
// and a conditioned one (its v1 form leaves the last two out).
func newSchemaApp(t *testing.T) (a *testApp, token string) {
	t.Helper()
	a = newPublishApp(t)
	a.exposeTool("list_orders")
	storetest.AddV2Tools(t, a.db)
	return a, a.token("fleet")
}

// TestBundleAPIServesTheFormARuntimeReads: every path that answers a
// fetch — the API, its 304 fast path, the runtime API listener's fast
// path and GET /api/v1/bundles/{version} — serves a v2 version to a
// runtime that lists toolgate.bundle/v2 and its v1 form to every other
// (none sent, or v1 only), each form with its own ETag, always with Vary.
func TestBundleAPIServesTheFormARuntimeReads(t *testing.T) {
	f, token := newSchemaApp(t)
	v2 := f.publish("groups and conditions")
	v1 := v2.Downgrade
	if v1 == nil {
		t.Fatal("no v1 form published")
	}
	both := bundle.SchemaV1 + ", " + bundle.SchemaV2
	tests := []struct {
		name, schemas, etag, signed string
	}{
		{"none sent", "", v1.ETag, v1.Signed},
		{"v1 only", bundle.SchemaV1, v1.ETag, v1.Signed},
		{"v1 and v2", both, v2.ETag, v2.Signed},
		{"v2 with spaces", " " + bundle.SchemaV2 + " ", v2.ETag, v2.Signed},
		{"unknown majors only", "toolgate.bundle/v3", v1.ETag, v1.Signed},
	}
	version := strconv.FormatInt(v2.Version, 10)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/api/v1/bundle", "/api/v1/bundles/" + version} {
				h := bearer(token)
				if tc.schemas != "" {
					h[headerBundleSchemas] = tc.schemas
				}
				rec := f.do(request{method: "GET", path: path, header: h})
				if rec.Code != 200 || rec.Body.String() != tc.signed || rec.Header().Get("ETag") != tc.etag || rec.Header().Get("Vary") != varyBundle {
					t.Errorf("%s: %d, ETag %s, Vary %q; want the form with ETag %s", path, rec.Code, rec.Header().Get("ETag"), rec.Header().Get("Vary"), tc.etag)
				}
				h["If-None-Match"] = tc.etag
				if rec := f.do(request{method: "GET", path: path, header: h}); rec.Code != 304 || rec.Header().Get("Vary") != varyBundle {
					t.Errorf("%s with its ETag: %d, Vary %q; want 304", path, rec.Code, rec.Header().Get("Vary"))
				}
			}
			r := httptest.NewRequest("GET", "/api/v1/bundle", nil)
			r.Header.Set("Authorization", "Bearer "+token)
			r.Header.Set("If-None-Match", tc.etag)
			if tc.schemas != "" {
				r.Header.Set(headerBundleSchemas, tc.schemas)
			}
			w := httptest.NewRecorder()
			if !f.srv.notModifiedFast(w, r) || w.Code != 304 || w.Header().Get("Vary") != varyBundle {
				t.Errorf("net/http fast path: %d, Vary %q; want 304", w.Code, w.Header().Get("Vary"))
			}
			for _, inm := range []string{tc.etag, ""} {
				var req fasthttp.Request
				req.SetRequestURI("/api/v1/bundle")
				req.Header.Set("Authorization", "Bearer "+token)
				if inm != "" {
					req.Header.Set("If-None-Match", inm)
				}
				if tc.schemas != "" {
					req.Header.Set(headerBundleSchemas, tc.schemas)
				}
				var ctx fasthttp.RequestCtx
				ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, nil)
				want := 304
				if inm == "" {
					want = 200
				}
				if !f.srv.bundleFastHTTP(&ctx) || ctx.Response.StatusCode() != want || string(ctx.Response.Header.Peek("Vary")) != varyBundle ||
					string(ctx.Response.Header.Peek("Etag")) != tc.etag || want == 200 && string(ctx.Response.Body()) != tc.signed {
					t.Errorf("fasthttp path, If-None-Match %q: %d ETag %s; want %d with the form's ETag %s", inm,
						ctx.Response.StatusCode(), ctx.Response.Header.Peek("Etag"), want, tc.etag)
				}
			}
		})
	}
}
