package executor

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
)

// dropper is an upstream that answers the first request of every
// connection with 204 and, when armed, reads the second request of a
// kept-alive connection and closes the connection without answering — the
// server side of a keep-alive race, and exactly the failure that makes
// http.Transport replay a "replayable" request on a fresh connection.
type dropper struct {
	*httptest.Server
	armed    atomic.Bool
	requests atomic.Int64 // requests received while armed
	dropped  atomic.Int64
	mu       sync.Mutex
	perConn  map[string]int
}

func newDropper(t *testing.T) *dropper {
	t.Helper()
	d := &dropper{perConn: map[string]int{}}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.perConn[r.RemoteAddr]++
		n := d.perConn[r.RemoteAddr]
		d.mu.Unlock()
		if !d.armed.Load() {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		d.requests.Add(1)
		if n == 2 {
			d.dropped.Add(1)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			_ = conn.Close()
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(d.Close)
	return d
}

// TestTransportNeverReplaysBehindTheExecutor: every request that reaches
// the upstream is one attempt the executor counted and decided on (R3, R9).
// net/http's Transport re-sends a GET/HEAD/OPTIONS request, or any bodyless
// request with an Idempotency-Key or X-Idempotency-Key header, when a reused
// connection closes before the response; the executor must not let it.
func TestTransportNeverReplaysBehindTheExecutor(t *testing.T) {
	keyed := func(header string, attempts int) policy.Policy {
		p := retrying(attempts)
		p.IdempotencyKey = &policy.IdempotencyKey{Source: policy.KeyGenerated, Header: header}
		return p
	}
	tests := []struct {
		name         string
		method       string
		p            policy.Policy
		wantClass    Class
		wantAttempts int
		wantApplied  bool
	}{
		{"GET retried by the executor", "GET", retrying(3), "", 2, false},
		{"GET with one attempt", "GET", retrying(1), ClassNetwork, 1, false},
		{"HEAD retried by the executor", "HEAD", retrying(3), "", 2, false},
		{"OPTIONS with one attempt", "OPTIONS", retrying(1), ClassNetwork, 1, false},
		{"bodyless POST with a key, retried", "POST", keyed("Idempotency-Key", 3), "", 2, false},
		{"bodyless POST with a key, one attempt", "POST", keyed("Idempotency-Key", 1), ClassOutcomeUnknown, 1, true},
		{"bodyless DELETE with X-Idempotency-Key, one attempt", "DELETE", keyed("X-Idempotency-Key", 1), ClassOutcomeUnknown, 1, true},
		{"bodyless PUT with a lower-case key header, one attempt", "PUT", keyed("idempotency-key", 1), ClassOutcomeUnknown, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := newDropper(t)
			e := newExecutor(t, testBundle(up.URL, testTool("op", tc.method, "/orders/1/cancel", tc.p)), Options{})
			// Warm the connection: the next attempt goes out on a reused one.
			wantClass(t, e.Call(context.Background(), "op", nil), "")
			up.armed.Store(true)

			r := e.Call(context.Background(), "op", nil)
			wantClass(t, r, tc.wantClass)
			if up.dropped.Load() != 1 {
				t.Fatalf("the upstream dropped %d connections, want 1 (was the warm connection reused?)", up.dropped.Load())
			}
			if got := up.requests.Load(); got != int64(r.Attempts) || r.Attempts != tc.wantAttempts {
				t.Fatalf("upstream saw %d requests, executor reported %d attempts, want %d of both",
					got, r.Attempts, tc.wantAttempts)
			}
			if r.Err != nil && r.Err.MayHaveApplied != tc.wantApplied {
				t.Errorf("may_have_applied = %v, want %v", r.Err.MayHaveApplied, tc.wantApplied)
			}
		})
	}
}

// rawRequest captures the bytes of the head of one request the executor
// sends, answering 204.
func rawRequest(t *testing.T, method string, p policy.Policy, args map[string]any, body bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	got := make(chan string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			got <- ""
			return
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		br := bufio.NewReader(conn)
		var head strings.Builder
		for {
			line, err := br.ReadString('\n')
			head.WriteString(line)
			if err != nil || line == "\r\n" {
				break
			}
		}
		got <- head.String()
		_, _ = conn.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
	}()
	bt := testTool("op", method, "/orders/1", p)
	if body {
		bt = withBody(bt)
	}
	e := newExecutor(t, testBundle("http://"+ln.Addr().String(), bt), Options{NewIdempotencyKey: func() string { return "k-1" }})
	wantClass(t, e.Call(context.Background(), "op", args), "")
	return <-got
}

// TestUnreplayableRequestsKeepTheirWireForm: the changes of replay.go do
// not change what a request means on the wire — no body framing on a
// bodyless GET/HEAD/DELETE, "Content-Length: 0" on a bodyless POST/PUT/PATCH,
// the key under a (case-insensitive) header name.
func TestUnreplayableRequestsKeepTheirWireForm(t *testing.T) {
	keyed := retrying(1)
	keyed.IdempotencyKey = &policy.IdempotencyKey{Source: policy.KeyGenerated, Header: "Idempotency-Key"}
	tests := []struct {
		method  string
		p       policy.Policy
		args    map[string]any
		body    bool
		want    []string // header lines that must be present (lower-cased)
		wantNot []string // header names that must be absent
	}{
		{"GET", retrying(1), nil, false, nil, []string{"content-length", "transfer-encoding"}},
		{"HEAD", retrying(1), nil, false, nil, []string{"content-length", "transfer-encoding"}},
		{"OPTIONS", retrying(1), nil, false, nil, []string{"content-length", "transfer-encoding"}},
		{"DELETE", keyed, nil, false, []string{"idempotency-key: k-1"}, []string{"content-length", "transfer-encoding"}},
		{"POST", keyed, nil, false, []string{"content-length: 0", "idempotency-key: k-1"}, []string{"transfer-encoding"}},
		{"PUT", retrying(1), nil, false, []string{"content-length: 0"}, []string{"transfer-encoding"}},
		{"POST", keyed, map[string]any{"body": map[string]any{"a": 1}}, true, []string{"content-length: 7", "idempotency-key: k-1"}, []string{"transfer-encoding"}},
	}
	for _, tc := range tests {
		t.Run(tc.method+"/"+strings.Join(tc.want, ","), func(t *testing.T) {
			head := strings.ToLower(rawRequest(t, tc.method, tc.p, tc.args, tc.body))
			lines := strings.Split(head, "\r\n")
			for _, w := range tc.want {
				if !slices.Contains(lines, w) {
					t.Errorf("missing %q in\n%s", w, head)
				}
			}
			for _, name := range tc.wantNot {
				if strings.Contains(head, "\r\n"+name+":") {
					t.Errorf("unexpected %s header in\n%s", name, head)
				}
			}
		})
	}
}

// TestUnreplayableRequestsOverHTTP2: over HTTP/2 the empty body of a GET
// is an empty DATA frame ending the stream; the upstream still reads no
// content, and a bodyless POST keeps its content-length 0.
func TestUnreplayableRequestsOverHTTP2(t *testing.T) {
	type seen struct {
		proto     string
		bodyBytes int
		header    http.Header
	}
	got := make(chan seen, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Proto, len(b), r.Header.Clone()}
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	for _, method := range []string{"GET", "HEAD", "POST"} {
		t.Run(method, func(t *testing.T) {
			e := newExecutor(t, testBundle(srv.URL, testTool("op", method, "/x", retrying(1))),
				Options{Transport: srv.Client().Transport})
			wantClass(t, e.Call(context.Background(), "op", nil), "")
			s := <-got
			if s.proto != "HTTP/2.0" || s.bodyBytes != 0 {
				t.Errorf("upstream saw %s with %d body bytes, want HTTP/2.0 with none", s.proto, s.bodyBytes)
			}
			if method == "POST" && s.header.Get("Content-Length") != "0" {
				t.Errorf("POST content-length = %q, want 0", s.header.Get("Content-Length"))
			}
		})
	}
}
