package executor

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestResponseCeiling: the ceiling counts decoded bytes, so a small gzip
// body that inflates past it (a gzip bomb) is RESPONSE_TOO_LARGE too.
func TestResponseCeiling(t *testing.T) {
	const ceiling = 64 << 10
	big := strings.Repeat("a", ceiling+1)
	tests := []struct {
		name      string
		step      http.HandlerFunc
		wantClass Class
	}{
		{"plain, one byte over", textBody(big), ClassResponseTooLarge},
		{"plain, exactly at the ceiling", textBody(big[:ceiling]), ""},
		{"gzip bomb (16 MiB of zeros)", gzipped(bytes.Repeat([]byte{0}, 16<<20), "application/octet-stream"), ClassResponseTooLarge},
		{"gzip JSON under the ceiling", gzipped([]byte(`{"n":1}`), "application/json"), ""},
		{"corrupt gzip", corruptGzip, ClassMalformedJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, tc.step)
			p := retrying(1)
			p.MaxResponseBytes = ceiling
			e := newExecutor(t, testBundle(up.URL, testTool("get_x", "GET", "/x", p)), Options{})
			r := e.Call(context.Background(), "get_x", nil)
			wantClass(t, r, tc.wantClass)
			if tc.wantClass != "" && r.Body != nil {
				t.Errorf("an unusable body was returned: %T", r.Body)
			}
			if up.Requests()[0].Header.Get("Accept-Encoding") != "gzip" {
				t.Errorf("Accept-Encoding = %q", up.Requests()[0].Header.Get("Accept-Encoding"))
			}
		})
	}
}

func gzipped(data []byte, contentType string) http.HandlerFunc {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(data)
	_ = zw.Close()
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(buf.Bytes())
	}
}

func corruptGzip(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Encoding", "gzip")
	_, _ = w.Write([]byte("this is not gzip"))
}

// TestAttemptTimeoutCoversHeadersAndBody: slow headers and a body that
// drips slower than the timeout both end as TIMEOUT after the timeout.
func TestAttemptTimeoutCoversHeadersAndBody(t *testing.T) {
	drip := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for range 100 {
			_, _ = w.Write([]byte(" "))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	for name, step := range map[string]http.HandlerFunc{"slow headers": hang, "dripping body": drip} {
		t.Run(name, func(t *testing.T) {
			up := newUpstream(t, step)
			p := retrying(1)
			p.TimeoutMS = 200
			e := newExecutor(t, testBundle(up.URL, testTool("get_x", "GET", "/x", p)), Options{Clock: realClock{}})
			start := time.Now()
			r := e.Call(context.Background(), "get_x", nil)
			took := time.Since(start)
			wantClass(t, r, ClassTimeout)
			if took < 190*time.Millisecond || took > 2*time.Second {
				t.Errorf("call took %v with a 200 ms attempt timeout", took)
			}
		})
	}
}

// TestConnectionReset: a GET is retried after a reset; a POST is not and
// its outcome is unknown (the request was sent).
func TestConnectionReset(t *testing.T) {
	tests := []struct {
		method    string
		wantClass Class
		wantCount int64
	}{
		{"GET", "", 2},
		{"POST", ClassOutcomeUnknown, 1},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			up := newUpstream(t, reset, jsonBody(200, `{}`))
			e := newExecutor(t, testBundle(up.URL, testTool("t", tc.method, "/x", retrying(3))), Options{})
			r := e.Call(context.Background(), "t", nil)
			wantClass(t, r, tc.wantClass)
			if up.count.Load() != tc.wantCount {
				t.Errorf("upstream saw %d requests, want %d", up.count.Load(), tc.wantCount)
			}
			if tc.wantClass == ClassOutcomeUnknown && !r.Err.MayHaveApplied {
				t.Errorf("may_have_applied = false after a sent POST was reset")
			}
		})
	}
}
