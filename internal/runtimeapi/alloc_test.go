package runtimeapi

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// allocWriter is a ResponseWriter that reuses its header map, so that
// AllocsPerRun counts only what the handler allocates.
type allocWriter struct {
	h    http.Header
	code int
}

func (w *allocWriter) Header() http.Header         { return w.h }
func (w *allocWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *allocWriter) WriteHeader(code int)        { w.code = code }

// The fleet's poll, answered 304 with nothing changed, allocates nothing
// in toolgate's code: on a small heap every allocation there would set the
// garbage collector's pace, and the 304 rate with it. Both with the
// runtime's identification headers and without any (curl, wrk, a probe).
func TestNotModifiedFastPathAllocatesNothing(t *testing.T) {
	a, _ := newAPIApp(t, time.Hour)
	a.exposeTool("list_orders")
	token := a.token("edge")
	v1 := a.publish("first")
	tests := []struct {
		name   string
		header map[string]string
	}{
		{"runtime", map[string]string{headerInstanceID: "pod-1", headerRuntimeName: "checkout", headerBundleVersion: "1",
			headerBundleSchemas: "toolgate.bundle/v1, toolgate.bundle/v2"}},
		{"no identification", nil},
		{"malformed version", map[string]string{headerInstanceID: "pod-2", headerBundleVersion: "v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/v1/bundle", nil)
			r.Header.Set("Authorization", "Bearer "+token)
			r.Header.Set("If-None-Match", v1.ETag)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			w := &allocWriter{h: http.Header{}}
			if !a.srv.notModifiedFast(w, r) || w.code != 304 {
				t.Fatalf("fast path declined or answered %d", w.code)
			}
			a.srv.fleet.flush(t.Context()) // the report is written; repeats are not
			allocs := testing.AllocsPerRun(200, func() {
				clear(w.h)
				if !a.srv.notModifiedFast(w, r) {
					t.Fatal("fast path declined")
				}
			})
			if allocs != 0 {
				t.Fatalf("the 304 fast path allocates %v times per request", allocs)
			}
		})
	}
}

// headerValue skips canonicalising its key: a key it is given must already
// be canonical, or it would never find the header a client sent.
func TestHeaderKeysCanonical(t *testing.T) {
	for _, k := range []string{"If-None-Match", "Authorization", headerInstanceID, headerRuntimeName, headerRefused, headerBundleVersion,
		headerBundleSchemas, headerPrefer} {
		if c := http.CanonicalHeaderKey(k); c != k {
			t.Errorf("header key %q is not canonical (%q): headerValue would miss it", k, c)
		}
		h := http.Header{}
		h.Set(k, "v")
		if headerValue(h, k) != "v" {
			t.Errorf("headerValue(%q) misses the header", k)
		}
	}
}

// TestFastHTTPPathAllocatesNothing: the same for the runtime API
// listener's fast path (bundleFastHTTP) answering 304.
func TestFastHTTPPathAllocatesNothing(t *testing.T) {
	a, _ := newAPIApp(t, time.Hour)
	a.exposeTool("list_orders")
	token := a.token("edge")
	v1 := a.publish("first")
	for _, inm := range []string{v1.ETag, "W/" + v1.ETag} {
		var req fasthttp.Request
		req.SetRequestURI("/api/v1/bundle")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("If-None-Match", inm)
		req.Header.Set(headerInstanceID, "pod-1")
		req.Header.Set(headerRuntimeName, "checkout")
		req.Header.Set(headerBundleVersion, "1")
		req.Header.Set(headerBundleSchemas, "toolgate.bundle/v1, toolgate.bundle/v2")
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, nil)
		if !a.srv.bundleFastHTTP(&ctx) {
			t.Fatal("fast path declined")
		}
		a.srv.fleet.flush(t.Context())
		allocs := testing.AllocsPerRun(200, func() {
			ctx.Response.Reset()
			if !a.srv.bundleFastHTTP(&ctx) {
				t.Fatal("fast path declined")
			}
		})
		if allocs != 0 {
			t.Errorf("If-None-Match %s: the fast path allocates %v times per request", inm, allocs)
		}
	}
}
