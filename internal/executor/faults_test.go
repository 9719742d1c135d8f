package executor

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStatusSequences drives one GET tool through scripted upstream answers
// and checks class, attempts and requests (R3, R4, R7).
func TestStatusSequences(t *testing.T) {
	tests := []struct {
		name         string
		attempts     int
		steps        []http.HandlerFunc
		wantClass    Class
		wantAttempts int
		wantStatus   int
		wantBody     any
	}{
		{"503 then 200", 2, []http.HandlerFunc{status(503), jsonBody(200, `{"ok":true}`)}, "", 2, 200, map[string]any{"ok": true}},
		{"503 until attempts run out", 3, []http.HandlerFunc{status(503)}, ClassServerError, 3, 503, nil},
		{"502 504 408 then 200", 4, []http.HandlerFunc{status(502), status(504), status(408), jsonBody(200, `[1]`)}, "", 4, 200, []any{jsonNumber("1")}},
		{"401 is not retried", 3, []http.HandlerFunc{status(401)}, ClassAuthRejected, 1, 401, nil},
		{"403 is not retried", 3, []http.HandlerFunc{status(403)}, ClassAuthRejected, 1, 403, nil},
		{"409 is a conflict, not retried", 3, []http.HandlerFunc{jsonBody(409, `{"error":"exists"}`)}, ClassConflict, 1, 409, map[string]any{"error": "exists"}},
		{"422 is rejected", 3, []http.HandlerFunc{status(422)}, ClassRejected, 1, 422, nil},
		{"500 is not transient by default", 3, []http.HandlerFunc{status(500)}, ClassServerError, 1, 500, nil},
		{"501 is not transient by default", 3, []http.HandlerFunc{status(501)}, ClassServerError, 1, 501, nil},
		{"malformed JSON", 3, []http.HandlerFunc{jsonBody(200, `{"ok":`)}, ClassMalformedJSON, 1, 200, nil},
		{"trailing garbage after JSON", 1, []http.HandlerFunc{jsonBody(200, `{} x`)}, ClassMalformedJSON, 1, 200, nil},
		{"text stays text", 1, []http.HandlerFunc{textBody("hello")}, "", 1, 200, "hello"},
		{"204 is null", 1, []http.HandlerFunc{status(204)}, "", 1, 204, nil},
		{"problem+json is parsed", 1, []http.HandlerFunc{problem}, ClassRejected, 1, 400, map[string]any{"title": "bad"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t, tc.steps...)
			e := newExecutor(t, testBundle(up.URL, testTool("get_x", "GET", "/x", retrying(tc.attempts))), Options{})
			r := e.Call(context.Background(), "get_x", nil)
			wantClass(t, r, tc.wantClass)
			if r.Attempts != tc.wantAttempts || int(up.count.Load()) != tc.wantAttempts {
				t.Errorf("attempts = %d, upstream saw %d, want %d", r.Attempts, up.count.Load(), tc.wantAttempts)
			}
			if r.Status != tc.wantStatus {
				t.Errorf("status = %d, want %d", r.Status, tc.wantStatus)
			}
			if !equalJSON(r.Body, tc.wantBody) {
				t.Errorf("body = %#v, want %#v", r.Body, tc.wantBody)
			}
			if r.Err != nil && r.Err.MayHaveApplied {
				t.Errorf("a GET can never have applied anything: %+v", r.Err)
			}
		})
	}
}

func textBody(s string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(s))
	}
}

func problem(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(400)
	_, _ = w.Write([]byte(`{"title":"bad"}`))
}

func TestHeadIsNull(t *testing.T) {
	up := newUpstream(t, textBody("ignored"))
	e := newExecutor(t, testBundle(up.URL, testTool("head_x", "HEAD", "/x", retrying(1))), Options{})
	r := e.Call(context.Background(), "head_x", nil)
	wantClass(t, r, "")
	if r.Body != nil {
		t.Errorf("HEAD body = %#v, want nil", r.Body)
	}
}

// TestRetryAfter: a 429's Retry-After (seconds or HTTP-date) replaces a
// shorter backoff; one longer than the time left ends the call at once.
func TestRetryAfter(t *testing.T) {
	date := func(c *fakeClock, d time.Duration) string { return c.Now().Add(d).UTC().Format(http.TimeFormat) }
	tests := []struct {
		name       string
		deadlineMS int
		header     func(c *fakeClock) string
		wantClass  Class
		wantWait   time.Duration // minimum recorded wait; 0 = no wait at all
		wantCount  int
	}{
		{"seconds", 60000, func(*fakeClock) string { return "7" }, "", 7 * time.Second, 2},
		{"http date", 60000, func(c *fakeClock) string { return date(c, 9*time.Second) }, "", 8 * time.Second, 2},
		{"longer than the time left", 5000, func(*fakeClock) string { return "30" }, ClassRateLimited, 0, 1},
		{"date longer than the time left", 5000, func(c *fakeClock) string { return date(c, time.Hour) }, ClassRateLimited, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			up := newUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", tc.header(clock))
				w.WriteHeader(429)
			}, status(200))
			p := retrying(3)
			p.DeadlineMS = tc.deadlineMS
			e := newExecutor(t, testBundle(up.URL, testTool("get_x", "GET", "/x", p)), Options{Clock: clock})
			r := e.Call(context.Background(), "get_x", nil)
			wantClass(t, r, tc.wantClass)
			sleeps := clock.Sleeps()
			if tc.wantWait == 0 && len(sleeps) != 0 {
				t.Errorf("waited %v, want no wait", sleeps)
			}
			if tc.wantWait > 0 && (len(sleeps) != 1 || sleeps[0] < tc.wantWait) {
				t.Errorf("waits = %v, want one of at least %v", sleeps, tc.wantWait)
			}
			if int(up.count.Load()) != tc.wantCount {
				t.Errorf("upstream saw %d requests, want %d", up.count.Load(), tc.wantCount)
			}
			if tc.wantClass == ClassRateLimited && (r.Err.RetryAfterSeconds == 0 || !strings.Contains(r.Err.Instruction, "wait")) {
				t.Errorf("rate-limit error does not say how long to wait: %+v", r.Err)
			}
		})
	}
}

// TestRedirectsRejected: no 3xx is followed; the Location is never asked.
func TestRedirectsRejected(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/elsewhere" {
					t.Errorf("the Location was requested")
				}
				http.Redirect(w, r, "/elsewhere", code)
			})
			e := newExecutor(t, testBundle(up.URL, testTool("get_x", "GET", "/x", retrying(3))), Options{})
			r := e.Call(context.Background(), "get_x", nil)
			wantClass(t, r, ClassRedirectRejected)
			if up.count.Load() != 1 || r.Status != code {
				t.Errorf("requests = %d status = %d, want 1 and %d", up.count.Load(), r.Status, code)
			}
		})
	}
}

func TestToolNotExposedTouchesNoNetwork(t *testing.T) {
	up := newUpstream(t, status(200))
	hidden := testTool("hidden", "GET", "/h", retrying(1))
	hidden.Policy.Exposed = false
	e := newExecutor(t, testBundle(up.URL, testTool("get_x", "GET", "/x", retrying(1)), hidden), Options{})
	for _, name := range []string{"nope", "hidden", ""} {
		r := e.Call(context.Background(), name, nil)
		wantClass(t, r, ClassToolNotExposed)
		if r.Attempts != 0 {
			t.Errorf("%q: attempts = %d", name, r.Attempts)
		}
	}
	if up.count.Load() != 0 {
		t.Errorf("upstream saw %d requests, want 0", up.count.Load())
	}
}

// TestConnectionRefusedIsNetwork: nothing was sent, so even a POST did not
// apply anything.
func TestConnectionRefusedIsNetwork(t *testing.T) {
	up := newUpstream(t, status(200))
	origin := up.URL
	up.Close()
	for _, method := range []string{"GET", "POST"} {
		e := newExecutor(t, testBundle(origin, testTool("t", method, "/x", retrying(2))), Options{})
		r := e.Call(context.Background(), "t", nil)
		wantClass(t, r, ClassNetwork)
		if r.Err.MayHaveApplied {
			t.Errorf("%s: may_have_applied after connection refused", method)
		}
		want := map[string]int{"GET": 2, "POST": 1}[method]
		if r.Attempts != want {
			t.Errorf("%s: attempts = %d, want %d", method, r.Attempts, want)
		}
	}
}

func TestContextCancelAbortsAtOnce(t *testing.T) {
	up := newUpstream(t, hang)
	e := newExecutor(t, testBundle(up.URL, testTool("get_x", "GET", "/x", retrying(3))), Options{Clock: realClock{}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for up.count.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	r := e.Call(ctx, "get_x", nil)
	wantClass(t, r, ClassAborted)
	// The request reached the upstream before the cancel, so this measures
	// how fast cancellation ends the in-flight attempt.
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("cancel took %v", took)
	}
	if r.Attempts != 1 {
		t.Errorf("attempts = %d, want 1", r.Attempts)
	}
}

func TestCallerDeadlineBoundsTheCall(t *testing.T) {
	up := newUpstream(t, hang)
	p := retrying(3)
	p.TimeoutMS = 5000
	e := newExecutor(t, testBundle(up.URL, testTool("get_x", "GET", "/x", p)), Options{Clock: realClock{}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := e.Call(ctx, "get_x", nil)
	wantClass(t, r, ClassDeadlineExceeded)
	if took := time.Since(start); took > time.Second {
		t.Errorf("call took %v with a 100 ms caller deadline", took)
	}
	// R5: the 5 s attempt timeout does not fit in 100 ms, so nothing is sent.
	if n := up.count.Load(); n != 0 || r.Attempts != 0 {
		t.Errorf("upstream saw %d requests (attempts %d), want none", n, r.Attempts)
	}
}

func TestUnknownArgumentsSendNothing(t *testing.T) {
	up := newUpstream(t, status(200))
	e := newExecutor(t, testBundle(up.URL, testTool("get_x", "GET", "/x", retrying(1))), Options{})
	r := e.Call(context.Background(), "get_x", map[string]any{"surprise": 1})
	wantClass(t, r, ClassInvalidArguments)
	if up.count.Load() != 0 || r.Attempts != 0 {
		t.Errorf("a request was sent for invalid arguments")
	}
}
