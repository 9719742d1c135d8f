package sampleapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fixedNow is the clock of test servers, so timestamps are predictable.
var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// startServer runs a sample API on a loopback httptest server.
func startServer(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return fixedNow }
	}
	s := New(opts)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// response is what a test needs from one exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

// decode unmarshals the body into v, failing the test on bad JSON.
func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %q: %v", r.body, err)
	}
}

// errorCode returns the code of a JSON error body.
func (r response) errorCode(t *testing.T) string {
	t.Helper()
	var e errorBody
	r.decode(t, &e)
	return e.Error.Code
}

// call sends one authenticated request; body "" sends none. Extra headers
// come as "Name: value" strings.
func call(t *testing.T, ts *httptest.Server, method, path, body string, headers ...string) response {
	t.Helper()
	return callWith(t, ts.Client(), ts.URL, method, path, body, append([]string{"Authorization: Bearer " + DefaultToken}, headers...)...)
}

// callWith sends a request with exactly the given headers.
func callWith(t *testing.T, c *http.Client, base, method, path, body string, headers ...string) response {
	t.Helper()
	res, err := tryCall(c, base, method, path, body, headers...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return res
}

func tryCall(c *http.Client, base, method, path, body string, headers ...string) (response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return response{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Set(name, strings.TrimSpace(value))
	}
	resp, err := c.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// wantStatus fails the test unless r has status want.
func wantStatus(t *testing.T, r response, want int) {
	t.Helper()
	if r.status != want {
		t.Fatalf("status = %d, want %d; body %s", r.status, want, r.body)
	}
}

const orderBody = `{"customer":"ada@example.com","items":[{"sku":"BOOK-042","quantity":2,"unit_price_cents":1999}]}`

// createOrder creates an order and returns it.
func createOrder(t *testing.T, ts *httptest.Server) Order {
	t.Helper()
	r := call(t, ts, "POST", "/orders", orderBody)
	wantStatus(t, r, http.StatusCreated)
	var o Order
	r.decode(t, &o)
	return o
}
