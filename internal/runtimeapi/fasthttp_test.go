package runtimeapi

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// serveRuntimeAPI serves a's RuntimeAPI on a loopback listener of its own,
// as `serve --runtime-api-addr` does, and returns its base URL.
func serveRuntimeAPI(t *testing.T, a *testApp) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fs := &fasthttp.Server{Handler: a.srv.FastHTTP(), NoDefaultServerHeader: true, NoDefaultContentType: true}
	go func() { _ = fs.Serve(ln) }()
	t.Cleanup(func() { _ = fs.Shutdown() })
	return "http://" + ln.Addr().String()
}

// answer is what a runtime can observe of a response.
type answer struct {
	status int
	header map[string]string
	body   string
}

// comparedHeaders are the response headers both listeners must agree on.
var comparedHeaders = []string{"Content-Type", "ETag", "Cache-Control", "X-Content-Type-Options",
	"Content-Security-Policy", "X-Toolgate-Bundle-Version", "WWW-Authenticate", "Set-Cookie", headerPreferenceApplied}

func ask(t *testing.T, method, url string, header map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: map[string]string{}, body: string(body)}
	for _, k := range comparedHeaders {
		a.header[k] = strings.Join(resp.Header.Values(k), ", ")
	}
	return a
}

// TestRuntimeAPIListenerAnswersAsTheConsole sends the same requests to the
// console's listener (net/http, echo) and to the runtime API listener
// (fasthttp): statuses, headers and bodies must be the same, for the fast
// path (304, 200) and everything it hands to echo (errors, other paths).
func TestRuntimeAPIListenerAnswersAsTheConsole(t *testing.T) {
	a := newPublishApp(t)
	console := httptest.NewServer(a.srv)
	t.Cleanup(console.Close)
	api := serveRuntimeAPI(t, a)
	token := a.token("edge")
	a.exposeTool("list_orders")
	v1 := a.publish("first")
	bearer := "Bearer " + token

	tests := []struct {
		name, method, path string
		header             map[string]string
		want               int
	}{
		{"bundle", "GET", "/api/v1/bundle", map[string]string{"Authorization": bearer}, 200},
		{"not modified", "GET", "/api/v1/bundle", map[string]string{"Authorization": bearer, "If-None-Match": v1.ETag}, 304},
		{"weak tag in a list", "GET", "/api/v1/bundle", map[string]string{"Authorization": bearer, "If-None-Match": `"x", W/` + v1.ETag}, 304},
		{"star", "GET", "/api/v1/bundle", map[string]string{"Authorization": bearer, "If-None-Match": "*"}, 304},
		{"other tag", "GET", "/api/v1/bundle", map[string]string{"Authorization": bearer, "If-None-Match": `"0"`}, 200},
		{"lower-case scheme", "GET", "/api/v1/bundle", map[string]string{"Authorization": "bearer " + token, "If-None-Match": v1.ETag}, 304},
		{"no token", "GET", "/api/v1/bundle", nil, 401},
		{"no token, current tag", "GET", "/api/v1/bundle", map[string]string{"If-None-Match": v1.ETag}, 401},
		{"unknown token", "GET", "/api/v1/bundle", map[string]string{"Authorization": "Bearer tgr_" + strings.Repeat("x", 40), "If-None-Match": v1.ETag}, 401},
		{"basic scheme", "GET", "/api/v1/bundle", map[string]string{"Authorization": "Basic " + token}, 401},
		{"query string", "GET", "/api/v1/bundle?x=1", map[string]string{"Authorization": bearer, "If-None-Match": v1.ETag}, 304},
		{"a version", "GET", "/api/v1/bundles/1", map[string]string{"Authorization": bearer}, 200},
		{"a version, not modified", "GET", "/api/v1/bundles/1", map[string]string{"Authorization": bearer, "If-None-Match": v1.ETag}, 304},
		{"no such version", "GET", "/api/v1/bundles/9", map[string]string{"Authorization": bearer}, 404},
		{"not a version", "GET", "/api/v1/bundles/x", map[string]string{"Authorization": bearer}, 404},
		{"keys", "GET", "/api/v1/keys", nil, 200},
		{"post", "POST", "/api/v1/bundle", map[string]string{"Authorization": bearer}, 405},
		{"no such endpoint", "GET", "/api/v1/nothing", map[string]string{"Authorization": bearer}, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := ask(t, tt.method, console.URL+tt.path, tt.header)
			got := ask(t, tt.method, api+tt.path, tt.header)
			if want.status != tt.want {
				t.Fatalf("console answered %d, want %d", want.status, tt.want)
			}
			if got.status != want.status || got.body != want.body {
				t.Errorf("runtime API: %d %q\nconsole:     %d %q", got.status, trim(got.body), want.status, trim(want.body))
			}
			for _, k := range comparedHeaders {
				if got.header[k] != want.header[k] {
					t.Errorf("%s: runtime API %q, console %q", k, got.header[k], want.header[k])
				}
			}
		})
	}
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TestRuntimeAPIListenerState: the runtime API listener sees a publish and
// a revocation made through the console at the next request, records the
// fleet like the console does, logs the status it sent, and serves no
// console page.
func TestRuntimeAPIListenerState(t *testing.T) {
	a := newPublishApp(t)
	api := serveRuntimeAPI(t, a)
	token := a.token("edge")
	a.exposeTool("list_orders")
	v1 := a.publish("first")
	h := map[string]string{"Authorization": "Bearer " + token, "If-None-Match": v1.ETag, headerInstanceID: "i-1",
		headerRuntimeName: "checkout", headerBundleVersion: "1"}
	if got := ask(t, "GET", api+"/api/v1/bundle", h); got.status != 304 {
		t.Fatalf("current tag: %d", got.status)
	}
	// Header names in any case, as HTTP allows (Go's client always sends
	// them canonical).
	raw := "GET /api/v1/bundle HTTP/1.1\r\nhost: x\r\nauthorization: Bearer " + token + "\r\nif-none-match: " + v1.ETag +
		"\r\nx-toolgate-instance-id: i-1\r\nx-toolgate-runtime-name: checkout\r\nconnection: close\r\n\r\n"
	if head := rawHTTP(t, strings.TrimPrefix(api, "http://"), raw); !strings.HasPrefix(head, "HTTP/1.1 304 ") {
		t.Fatalf("lower-case header names: %q", head)
	}
	a.exposeTool("get_order")
	v2 := a.publish("second")
	got := ask(t, "GET", api+"/api/v1/bundle", h)
	if got.status != 200 || got.header["ETag"] != v2.ETag || got.body != v2.Signed || got.header["X-Toolgate-Bundle-Version"] != "2" {
		t.Fatalf("after a publish: %d %v", got.status, got.header)
	}

	a.srv.fleet.flush(t.Context())
	list, err := a.db.ListRuntimeInstances(t.Context())
	if err != nil || len(list) != 1 || list[0].InstanceID != "i-1" || list[0].Name != "checkout" || list[0].Version != 1 ||
		list[0].RemoteAddr != "127.0.0.1" {
		t.Fatalf("fleet %+v, %v", list, err)
	}

	if _, err := a.db.RevokeRuntimeToken(t.Context(), "test", "edge"); err != nil {
		t.Fatal(err)
	}
	h["If-None-Match"] = v2.ETag
	if got := ask(t, "GET", api+"/api/v1/bundle", h); got.status != 401 {
		t.Fatalf("revoked token: %d", got.status)
	}
	if !bytes.Contains(a.log.Bytes(), []byte("path=/api/v1/bundle status=401")) {
		t.Errorf("401 not logged with its status:\n%s", a.log.String())
	}
	if got := ask(t, "GET", api+"/tools", nil); got.status != 404 || got.header["Set-Cookie"] != "" ||
		!strings.HasPrefix(got.header["Content-Type"], "application/json") {
		t.Errorf("console page on the runtime API: %d %v", got.status, got.header)
	}
}

// TestRuntimeAPIFastPathAnswers checks that GET /api/v1/bundle with an
// active token is answered by the fast path itself (304 and 200), and
// everything else is left to echo — the parity test above cannot tell.
func TestRuntimeAPIFastPathAnswers(t *testing.T) {
	a := newPublishApp(t)
	token := a.token("edge")
	a.exposeTool("list_orders")
	v1 := a.publish("first")
	tests := []struct {
		name, method, uri, auth, inm string
		answered                     bool
		status                       int
	}{
		{"304", "GET", "/api/v1/bundle", "Bearer " + token, v1.ETag, true, 304},
		{"200", "GET", "/api/v1/bundle", "Bearer " + token, "", true, 200},
		{"no token", "GET", "/api/v1/bundle", "", v1.ETag, false, 0},
		{"bad token", "GET", "/api/v1/bundle", "Bearer tgr_nope", v1.ETag, false, 0},
		{"head", "HEAD", "/api/v1/bundle", "Bearer " + token, v1.ETag, false, 0},
		{"another path", "GET", "/api/v1/bundles/1", "Bearer " + token, v1.ETag, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req fasthttp.Request
			req.Header.SetMethod(tt.method)
			req.SetRequestURI(tt.uri)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			if tt.inm != "" {
				req.Header.Set("If-None-Match", tt.inm)
			}
			var ctx fasthttp.RequestCtx
			ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, nil)
			if got := a.srv.bundleFastHTTP(&ctx); got != tt.answered {
				t.Fatalf("answered %v, want %v", got, tt.answered)
			}
			if tt.answered && ctx.Response.StatusCode() != tt.status {
				t.Errorf("status %d, want %d", ctx.Response.StatusCode(), tt.status)
			}
			if tt.status == 200 && string(ctx.Response.Body()) != v1.Signed {
				t.Error("200 without the signed bundle")
			}
		})
	}
}

// rawHTTP sends raw on a new connection and returns what came back.
func rawHTTP(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

// TestRuntimeAPIFastPathKeepsNoBorrowedBytes: the fast path reads header
// values without copying them (borrow); what the fleet recorder keeps must
// be its own copy, unchanged when fasthttp reuses the request's buffers.
func TestRuntimeAPIFastPathKeepsNoBorrowedBytes(t *testing.T) {
	a := newPublishApp(t)
	token := a.token("edge")
	a.exposeTool("list_orders")
	v1 := a.publish("first")
	var req fasthttp.Request
	req.SetRequestURI("/api/v1/bundle")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("If-None-Match", v1.ETag)
	req.Header.Set(headerInstanceID, "instance-aaaa")
	req.Header.Set(headerRuntimeName, "name-aaaa")
	req.Header.Set(headerRefused, "refused-aaaa")
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 9}, nil)
	if !a.srv.bundleFastHTTP(&ctx) || ctx.Response.StatusCode() != 304 {
		t.Fatalf("not answered 304: %d", ctx.Response.StatusCode())
	}
	// Same lengths: fasthttp overwrites the values in place (ctx holds a
	// copy of req).
	ctx.Request.Header.Set(headerInstanceID, "instance-bbbb")
	ctx.Request.Header.Set(headerRuntimeName, "name-bbbb")
	ctx.Request.Header.Set(headerRefused, "refused-bbbb")
	f := a.srv.fleet
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pending) != 1 {
		t.Fatalf("pending %v", f.pending)
	}
	for k, fe := range f.pending {
		if k.instance != "instance-aaaa" || fe.InstanceID != "instance-aaaa" || fe.Name != "name-aaaa" ||
			fe.Refused != "refused-aaaa" || fe.RemoteAddr != "10.1.2.3" {
			t.Errorf("kept %+v / %+v: changed with the request's buffer", k, fe)
		}
	}
}

// TestRuntimeAPIClosesRefusedConnections: a request refused for its token
// (401) is answered with Connection: close and its connection closed, on
// both listeners, so a flood of clients without a token cannot hold idle
// connections; a runtime with a valid token keeps its connection.
func TestRuntimeAPIClosesRefusedConnections(t *testing.T) {
	a := newPublishApp(t)
	console := httptest.NewServer(a.srv)
	t.Cleanup(console.Close)
	api := serveRuntimeAPI(t, a)
	token := a.token("edge")
	a.exposeTool("list_orders")
	a.publish("first")
	for name, base := range map[string]string{"console": console.URL, "runtime API": api} {
		t.Run(name, func(t *testing.T) {
			for _, tt := range []struct {
				auth      string
				status    int
				wantClose bool
			}{
				{"", 401, true},
				{"Bearer tgr_" + strings.Repeat("x", 40), 401, true},
				{"Bearer " + token, 200, false},
			} {
				status, closed := askOnce(t, strings.TrimPrefix(base, "http://"), tt.auth)
				if status != tt.status || closed != tt.wantClose {
					t.Errorf("Authorization %q: status %d, connection closed %v; want %d, %v", trim(tt.auth), status, closed, tt.status, tt.wantClose)
				}
			}
		})
	}
}

// askOnce sends one GET /api/v1/bundle on a fresh connection to addr and
// reports the status and whether the server then closed the connection
// (within a second).
func askOnce(t *testing.T, addr, authorization string) (int, bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "GET /api/v1/bundle HTTP/1.1\r\nHost: toolgate\r\n"
	if authorization != "" {
		req += "Authorization: " + authorization + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	_, err = br.ReadByte()
	return resp.StatusCode, errors.Is(err, io.EOF)
}
