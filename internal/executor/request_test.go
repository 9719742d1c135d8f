package executor

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
)

// TestHostilePathArguments: whatever the agent passes, the request goes to
// the configured origin, under the configured path, with exactly the
// template's segments; or nothing is sent at all.
func TestHostilePathArguments(t *testing.T) {
	hostile := []string{
		"..", ".", "../admin", "a/b", "/etc/passwd", "//evil.example", "http://evil.example/",
		"%2e%2e", "%2E%2E%2Fadmin", "%252e%252e%252f", "%25252e%25252e", "a%2fb", "a%2Fb", "a%5cb", "a\\b",
		"a?admin=1", "a#frag", "a\r\nX-Injected: 1", "a\x00b", "a\tb", ".%2e", "%2e",
		"@evil.example", ";x=y", "a b", "é", "%", "50%off", "~user", "a:b",
	}
	up := newUpstream(t, status(200))
	b := testBundle(up.URL, testTool("get_file", "GET", "/files/{name}/raw", retrying(1),
		bundle.Param{Name: "name", In: "path", Arg: "name", Required: true}))
	b.Sources[0].BasePath = "/v1"
	e := newExecutor(t, b, Options{})
	host := strings.TrimPrefix(up.URL, "http://")
	for _, v := range hostile {
		t.Run(v, func(t *testing.T) {
			before := up.count.Load()
			r := e.Call(context.Background(), "get_file", map[string]any{"name": v})
			if up.count.Load() == before {
				wantClass(t, r, ClassInvalidArguments)
				return
			}
			req := up.Requests()[before]
			segs := strings.Split(req.URL.EscapedPath(), "/")
			if req.Host != host || len(segs) != 5 || segs[1] != "v1" || segs[2] != "files" || segs[4] != "raw" || req.URL.RawQuery != "" {
				t.Fatalf("request escaped its template: host %q path %q query %q", req.Host, req.URL.EscapedPath(), req.URL.RawQuery)
			}
			if got, _ := url.PathUnescape(segs[3]); got != v {
				t.Errorf("value arrived as %q, want %q", got, v)
			}
			if req.Header.Get("X-Injected") != "" {
				t.Errorf("a header was injected")
			}
		})
	}
}

func TestQueryHeaderAndCookieArgumentsStayInPlace(t *testing.T) {
	up := newUpstream(t, status(200))
	e := newExecutor(t, testBundle(up.URL, testTool("search", "GET", "/search", retrying(1),
		bundle.Param{Name: "q", In: "query", Arg: "q"},
		bundle.Param{Name: "tag", In: "query", Arg: "tags"},
		bundle.Param{Name: "X-Trace", In: "header", Arg: "trace"},
		bundle.Param{Name: "session", In: "cookie", Arg: "session"},
	)), Options{})
	r := e.Call(context.Background(), "search", map[string]any{
		"q": "a&admin=true#x", "tags": []any{"b", 2.5, true}, "trace": "t-1", "session": "s1",
	})
	wantClass(t, r, "")
	req := up.Requests()[0]
	if got := req.URL.RawQuery; got != "q=a%26admin%3Dtrue%23x&tag=b&tag=2.5&tag=true" {
		t.Errorf("query = %q", got)
	}
	if req.Header.Get("X-Trace") != "t-1" || req.Header.Get("Cookie") != "session=s1" {
		t.Errorf("headers = %v", req.Header)
	}
	for name, args := range map[string]map[string]any{
		"CRLF in header":   {"trace": "a\r\nX-Evil: 1"},
		"semicolon cookie": {"session": "a; admin=1"},
		"object in query":  {"q": map[string]any{"a": 1}},
	} {
		if r := e.Call(context.Background(), "search", args); r.Err == nil || r.Err.Class != ClassInvalidArguments {
			t.Errorf("%s: got %+v, want INVALID_ARGUMENTS", name, r.Err)
		}
	}
	if up.count.Load() != 1 {
		t.Errorf("refused calls reached the upstream")
	}
}

// TestRequestIsDeterministic: the same arguments give the same bytes on
// the wire (URL, headers, body with sorted keys).
func TestRequestIsDeterministic(t *testing.T) {
	bt := withBody(testTool("create", "POST", "/orders/{id}", retrying(1),
		bundle.Param{Name: "id", In: "path", Arg: "id"},
		bundle.Param{Name: "z", In: "query", Arg: "z"},
		bundle.Param{Name: "a", In: "query", Arg: "a"}))
	e := newExecutor(t, testBundle("https://api.example", bt), Options{})
	args := map[string]any{"id": 7.0, "z": "last", "a": "first",
		"body": map[string]any{"zeta": 1.0, "alpha": []any{"x", map[string]any{"b": 2.0, "a": 1.0}}}}
	var first *prepared
	for range 20 {
		p, err := e.tools["create"].prepare(args)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = p
			continue
		}
		if p.url.String() != first.url.String() || string(p.body) != string(first.body) {
			t.Fatalf("request changed between builds: %s %s vs %s %s", p.url.String(), p.body, first.url.String(), first.body)
		}
	}
	if got := first.url.String(); got != "https://api.example/orders/7?a=first&z=last" {
		t.Errorf("url = %s", got)
	}
	if got := string(first.body); got != `{"alpha":["x",{"a":1,"b":2}],"zeta":1}` {
		t.Errorf("body = %s", got)
	}
	if first.header.Get("Content-Type") != "application/json" {
		t.Errorf("content type = %q", first.header.Get("Content-Type"))
	}
}

func TestSchemaValidation(t *testing.T) {
	bt := testTool("get_order", "GET", "/orders/{id}", retrying(1), bundle.Param{Name: "id", In: "path", Arg: "id", Required: true})
	bt.InputSchema = []byte(`{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}`)
	up := newUpstream(t, status(200))
	e := newExecutor(t, testBundle(up.URL, bt), Options{})
	for name, args := range map[string]map[string]any{
		"missing": {}, "wrong type": {"id": "seven"}, "below minimum": {"id": 0.0},
	} {
		r := e.Call(context.Background(), "get_order", args)
		if r.Err == nil || r.Err.Class != ClassInvalidArguments {
			t.Errorf("%s: got %+v, want INVALID_ARGUMENTS", name, r.Err)
		}
	}
	wantClass(t, e.Call(context.Background(), "get_order", map[string]any{"id": 12.0}), "")
	if got := up.Requests()[0].URL.Path; got != "/orders/12" || up.count.Load() != 1 {
		t.Errorf("path = %q, requests = %d", got, up.count.Load())
	}
}

// TestNewWithholdsUnsafeTools: origins with userinfo or paths, templates
// that do not match their parameters, reserved headers and schemas with
// external references never run: New withholds the tool with its reason,
// a call to it is TOOL_NOT_EXPOSED with that reason and sends nothing, and
// the other tool of the bundle is served.
func TestNewWithholdsUnsafeTools(t *testing.T) {
	ok := testTool("t", "GET", "/x/{id}", retrying(1), bundle.Param{Name: "id", In: "path", Arg: "id"})
	good := testTool("good", "GET", "/y", retrying(1))
	tests := map[string]struct {
		mutate func(b *bundle.Bundle)
		reason string
	}{
		"userinfo":          {func(b *bundle.Bundle) { b.Sources[1].Origin = "https://user:pw@api.example" }, "user name or password"},
		"origin path":       {func(b *bundle.Bundle) { b.Sources[1].Origin = "https://api.example/v1" }, "origin"},
		"ftp":               {func(b *bundle.Bundle) { b.Sources[1].Origin = "ftp://api.example" }, "origin"},
		"dot base path":     {func(b *bundle.Bundle) { b.Sources[1].BasePath = "/v1/.." }, "base path"},
		"unknown source":    {func(b *bundle.Bundle) { b.Tools[0].Source = "other" }, `source "other" is not in the bundle`},
		"unknown path name": {func(b *bundle.Bundle) { b.Tools[0].Path = "/x/{other}" }, `no path parameter named "other"`},
		"unused path param": {func(b *bundle.Bundle) { b.Tools[0].Path = "/x" }, `does not appear in path`},
		"host header param": {func(b *bundle.Bundle) {
			b.Tools[0].Params = append(b.Tools[0].Params, bundle.Param{Name: "host", In: "header", Arg: "h"})
		}, `header parameter "host" is reserved`},
		"external $ref": {func(b *bundle.Bundle) {
			b.Tools[0].InputSchema = []byte(`{"$ref":"file:///etc/passwd"}`)
		}, "input schema"},
		"reserved key header": {func(b *bundle.Bundle) {
			b.Tools[0].Policy.IdempotencyKey = &policy.IdempotencyKey{Header: "Content-Length"}
		}, "reserved"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			up := newUpstream(t, status(200))
			b := testBundle(up.URL, good)
			// The tool under test has a source of its own, so a bad origin
			// withholds it and not the good tool.
			b.Sources = append(b.Sources, bundle.Source{Name: "own", Origin: "https://api.example"})
			bad := ok
			bad.Source = "own"
			bad.Params = append([]bundle.Param(nil), ok.Params...)
			b.Tools = []bundle.Tool{bad, good}
			tc.mutate(b)
			e := newExecutor(t, b, Options{})
			w := e.Withheld()
			if len(w) != 1 || w[0].Tool != "t" || !strings.Contains(w[0].Reason, tc.reason) {
				t.Fatalf("Withheld() = %+v, want tool t with a reason naming %q", w, tc.reason)
			}
			r := e.Call(context.Background(), "t", map[string]any{"id": "1"})
			wantClass(t, r, ClassToolNotExposed)
			if !strings.Contains(r.Err.Message, "withheld") || !strings.Contains(r.Err.Message, tc.reason) {
				t.Errorf("message %q does not say the tool is withheld and why", r.Err.Message)
			}
			if err := CompileTool(b.Sources[1], b.Tools[0]); err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("CompileTool = %v, want the reason %q", err, tc.reason)
			}
			wantClass(t, e.Call(context.Background(), "good", nil), "")
			if n := up.count.Load(); n != 1 {
				t.Errorf("upstream saw %d requests, want 1 (the good tool's)", n)
			}
		})
	}
	e := newExecutor(t, testBundle("https://api.example", ok), Options{})
	if w := e.Withheld(); len(w) != 0 {
		t.Fatalf("New withheld the unmodified tool: %+v", w)
	}
	if err := CompileTool(bundle.Source{Name: "api", Origin: "https://api.example"}, ok); err != nil {
		t.Fatalf("CompileTool refused the unmodified tool: %v", err)
	}
}
