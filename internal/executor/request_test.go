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

// TestNewRefusesUnsafeBundles: origins with userinfo or paths, templates
// that do not match their parameters, reserved headers and schemas with
// external references never become an executor.
func TestNewRefusesUnsafeBundles(t *testing.T) {
	ok := testTool("t", "GET", "/x/{id}", retrying(1), bundle.Param{Name: "id", In: "path", Arg: "id"})
	tests := map[string]func(b *bundle.Bundle){
		"userinfo":          func(b *bundle.Bundle) { b.Sources[0].Origin = "https://user:pw@api.example" },
		"origin path":       func(b *bundle.Bundle) { b.Sources[0].Origin = "https://api.example/v1" },
		"ftp":               func(b *bundle.Bundle) { b.Sources[0].Origin = "ftp://api.example" },
		"dot base path":     func(b *bundle.Bundle) { b.Sources[0].BasePath = "/v1/.." },
		"unknown source":    func(b *bundle.Bundle) { b.Tools[0].Source = "other" },
		"unknown path name": func(b *bundle.Bundle) { b.Tools[0].Path = "/x/{other}" },
		"unused path param": func(b *bundle.Bundle) { b.Tools[0].Path = "/x" },
		"host header param": func(b *bundle.Bundle) {
			b.Tools[0].Params = append(b.Tools[0].Params, bundle.Param{Name: "host", In: "header", Arg: "h"})
		},
		"external $ref": func(b *bundle.Bundle) {
			b.Tools[0].InputSchema = []byte(`{"$ref":"file:///etc/passwd"}`)
		},
		"reserved key header": func(b *bundle.Bundle) {
			b.Tools[0].Policy.IdempotencyKey = &policy.IdempotencyKey{Header: "Content-Length"}
		},
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			b := testBundle("https://api.example", ok)
			b.Tools = []bundle.Tool{ok}
			b.Tools[0].Params = append([]bundle.Param(nil), ok.Params...)
			mutate(b)
			if _, err := New(b, Options{}); err == nil {
				t.Fatal("New accepted the bundle")
			}
		})
	}
	if _, err := New(testBundle("https://api.example", ok), Options{}); err != nil {
		t.Fatalf("New refused the unmodified bundle: %v", err)
	}
}
