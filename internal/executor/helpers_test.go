package executor

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// fakeClock is a Clock whose Sleep returns at once after moving time
// forward; it records every wait.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// upstream is an httptest server that answers request i with step i (the
// last step repeats) and records what it received.
type upstream struct {
	*httptest.Server
	mu       sync.Mutex
	steps    []http.HandlerFunc
	requests []*http.Request
	count    atomic.Int64
}

func newUpstream(t *testing.T, steps ...http.HandlerFunc) *upstream {
	t.Helper()
	u := &upstream{steps: steps}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(u.count.Add(1)) - 1
		u.mu.Lock()
		u.requests = append(u.requests, r.Clone(context.Background()))
		step := u.steps[min(i, len(u.steps)-1)]
		u.mu.Unlock()
		step(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) Requests() []*http.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*http.Request(nil), u.requests...)
}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

func jsonBody(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

// reset reads the request and then drops the connection with a TCP RST, so
// the client sees a failure after its request was sent.
func reset(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// hang waits until the client gives up (or 5 s, so a broken test ends).
func hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

// testTool is a tool of source "api" with an open input schema built from
// its params and body.
func testTool(name, method, path string, p policy.Policy, params ...bundle.Param) bundle.Tool {
	props := map[string]any{}
	for _, prm := range params {
		props[prm.Arg] = map[string]any{}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	p.Exposed = true
	return bundle.Tool{
		Name: name, Source: "api", Method: method, Path: path, Params: params,
		InputSchema: schema, Risk: risk.Read, Policy: p,
	}
}

func withBody(t bundle.Tool) bundle.Tool {
	t.Body = &bundle.Body{Arg: "body", MediaType: "application/json"}
	var s map[string]any
	_ = json.Unmarshal(t.InputSchema, &s)
	s["properties"].(map[string]any)["body"] = map[string]any{"type": "object"}
	t.InputSchema, _ = json.Marshal(s)
	return t
}

func testBundle(origin string, tools ...bundle.Tool) *bundle.Bundle {
	return &bundle.Bundle{
		Schema: bundle.Schema, Version: 1,
		Sources: []bundle.Source{{Name: "api", Origin: origin}},
		Tools:   tools,
	}
}

// retrying is a policy with n attempts, a short backoff and the default
// transient set.
func retrying(n int) policy.Policy {
	return policy.Policy{TimeoutMS: 2000, DeadlineMS: 60000,
		Retry: policy.Retry{Attempts: n, BackoffMS: 100, Multiplier: 2, Jitter: true}}
}

func newExecutor(t *testing.T, b *bundle.Bundle, opts Options) *Executor {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = newFakeClock()
	}
	e, err := New(b, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

func wantClass(t *testing.T, r *Result, c Class) {
	t.Helper()
	if c == "" {
		if r.Err != nil || !r.OK {
			t.Fatalf("want success, got %+v (error %+v)", r, r.Err)
		}
		return
	}
	if r.Err == nil || r.Err.Class != c || r.OK {
		t.Fatalf("want %s, got %+v (error %+v)", c, r, r.Err)
	}
	if r.Err.Instruction == "" || r.Err.Message == "" {
		t.Fatalf("error without message or instruction: %+v", r.Err)
	}
}

func jsonNumber(s string) json.Number { return json.Number(s) }

// equalJSON compares two values by their JSON encoding.
func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
