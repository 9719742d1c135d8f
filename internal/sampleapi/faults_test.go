package sampleapi

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
)

// setFaults configures faults over HTTP, as a person or e2e test would.
func setFaults(t *testing.T, ts *httptest.Server, body string) Faults {
	t.Helper()
	r := callWith(t, ts.Client(), ts.URL, "POST", "/_faults", body)
	wantStatus(t, r, http.StatusOK)
	var f Faults
	r.decode(t, &f)
	return f
}

func TestFailNext(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantStatus int
	}{
		{"default 503", `{"fail_next":{"count":2}}`, 503},
		{"explicit 502", `{"fail_next":{"count":2,"status":502}}`, 502},
		{"500", `{"fail_next":{"count":2,"status":500}}`, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ts := startServer(t, Options{})
			setFaults(t, ts, tt.body)
			for i := range 2 {
				r := call(t, ts, "POST", "/orders", orderBody)
				wantStatus(t, r, tt.wantStatus)
				if c := r.errorCode(t); c != codeInjected {
					t.Errorf("attempt %d: code = %q, want %q", i, c, codeInjected)
				}
			}
			wantStatus(t, call(t, ts, "POST", "/orders", orderBody), http.StatusCreated)
			if n := s.Hits("POST /orders"); n != 3 {
				t.Errorf("hits = %d, want 3: failed requests still reached the upstream", n)
			}
			// Only the third request was applied.
			if o := createOrder(t, ts); o.ID != "ord_0002" {
				t.Errorf("next id = %s, want ord_0002", o.ID)
			}
			if f := s.Faults(); f.FailNext != nil {
				t.Errorf("spent fail_next still armed: %+v", f.FailNext)
			}
		})
	}
}

func TestRateLimit(t *testing.T) {
	_, ts := startServer(t, Options{Faults: Faults{RateLimit: &RateLimit{Count: 1, RetryAfterS: 7}}})
	r := call(t, ts, "GET", "/orders", "")
	wantStatus(t, r, http.StatusTooManyRequests)
	if got := r.header.Get("Retry-After"); got != "7" {
		t.Errorf("Retry-After = %q, want 7", got)
	}
	if c := r.errorCode(t); c != codeRateLimited {
		t.Errorf("code = %q, want %q", c, codeRateLimited)
	}
	wantStatus(t, call(t, ts, "GET", "/orders", ""), http.StatusOK)
}

func TestDelay(t *testing.T) {
	_, ts := startServer(t, Options{})
	setFaults(t, ts, `{"delay_ms":150}`)
	start := time.Now()
	wantStatus(t, call(t, ts, "GET", "/orders", ""), http.StatusOK)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("response after %v, want at least 150ms", d)
	}
	// Control routes are never delayed, so a test can always switch it off.
	start = time.Now()
	setFaults(t, ts, `{"delay_ms":0}`)
	if d := time.Since(start); d >= 150*time.Millisecond {
		t.Errorf("POST /_faults took %v: control routes must not be delayed", d)
	}
	start = time.Now()
	wantStatus(t, call(t, ts, "GET", "/orders", ""), http.StatusOK)
	if d := time.Since(start); d >= 150*time.Millisecond {
		t.Errorf("response after %v with the delay switched off", d)
	}
}

func TestDelayGivesUpWithTheClient(t *testing.T) {
	_, ts := startServer(t, Options{Faults: Faults{DelayMS: 60_000}})
	c := &http.Client{Timeout: 100 * time.Millisecond}
	start := time.Now()
	if _, err := tryCall(c, ts.URL, "GET", "/orders", "", "Authorization: Bearer "+DefaultToken); err == nil {
		t.Fatal("want a client timeout")
	}
	// ts.Close in cleanup would block for the full delay if the handler kept
	// sleeping after the client left; the test finishing fast proves it stops.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestDropAfterApply(t *testing.T) {
	s, ts := startServer(t, Options{})
	setFaults(t, ts, `{"drop_after_apply":{"count":1,"method":"post"}}`)

	// GET does not match the method filter and is answered normally.
	wantStatus(t, call(t, ts, "GET", "/orders", ""), http.StatusOK)

	// A fresh client: the connection is new, so net/http cannot silently
	// replay the request on another one.
	fresh := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(fresh.CloseIdleConnections)
	_, err := tryCall(fresh, ts.URL, "POST", "/orders", orderBody, "Authorization: Bearer "+DefaultToken)
	if err == nil {
		t.Fatal("POST /orders got a response; want the connection dropped")
	}
	t.Logf("client saw: %v", err)

	var list orderList
	call(t, ts, "GET", "/orders", "").decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != "ord_0001" {
		t.Fatalf("orders after the lost response = %+v, want ord_0001 applied", list.Data)
	}
	if n := s.Hits("POST /orders"); n != 1 {
		t.Errorf("POST /orders hits = %d, want exactly 1", n)
	}
	// The switch is spent: the next POST is answered.
	wantStatus(t, call(t, ts, "POST", "/orders", orderBody), http.StatusCreated)
}

func TestDropAfterApplyThenReplayWithSameKey(t *testing.T) {
	s, ts := startServer(t, Options{Faults: Faults{DropAfterApply: &DropAfterApply{Count: 1, Method: "POST"}}})
	fresh := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(fresh.CloseIdleConnections)
	headers := []string{"Authorization: Bearer " + DefaultToken, "Idempotency-Key: lost-1"}
	if _, err := tryCall(fresh, ts.URL, "POST", "/orders", orderBody, headers...); err == nil {
		t.Fatal("want the first POST's connection dropped")
	}
	r := callWith(t, fresh, ts.URL, "POST", "/orders", orderBody, headers...)
	wantStatus(t, r, http.StatusCreated)
	var o Order
	r.decode(t, &o)
	if o.ID != "ord_0001" || r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry got %s (replayed %q), want the order the lost request created",
			o.ID, r.header.Get("Idempotent-Replayed"))
	}
	if n := s.Hits("POST /orders"); n != 2 {
		t.Errorf("hits = %d, want 2", n)
	}
}

func TestDropAfterApplyAnyMethod(t *testing.T) {
	_, ts := startServer(t, Options{})
	createOrder(t, ts)
	setFaults(t, ts, `{"drop_after_apply":{"count":1}}`)
	fresh := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(fresh.CloseIdleConnections)
	if _, err := tryCall(fresh, ts.URL, "DELETE", "/orders/ord_0001", "", "Authorization: Bearer "+DefaultToken); err == nil {
		t.Fatal("want the DELETE's connection dropped")
	}
	wantStatus(t, call(t, ts, "GET", "/orders/ord_0001", ""), http.StatusNotFound)
}

func TestFaultsControl(t *testing.T) {
	s, ts := startServer(t, Options{})
	got := setFaults(t, ts, `{"fail_next":{"count":3},"delay_ms":5}`)
	want := Faults{FailNext: &FailNext{Count: 3, Status: 503}, DelayMS: 5}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after first POST: %+v, want %+v", got, want)
	}
	// A second POST merges: fail_next and delay_ms stay.
	got = setFaults(t, ts, `{"rate_limit":{"count":1,"retry_after_s":2}}`)
	want.RateLimit = &RateLimit{Count: 1, RetryAfterS: 2}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after merge: %+v, want %+v", got, want)
	}
	// Control routes are not subject to faults and do not count.
	for range 3 {
		wantStatus(t, callWith(t, ts.Client(), ts.URL, "GET", "/_faults", ""), http.StatusOK)
	}
	if st := s.Stats(); st.Total != 0 {
		t.Errorf("control requests counted: %+v", st)
	}
	// One API request consumes the rate limit first (it acts before fail_next).
	wantStatus(t, call(t, ts, "GET", "/orders", ""), http.StatusTooManyRequests)
	var seen Faults
	callWith(t, ts.Client(), ts.URL, "GET", "/_faults", "").decode(t, &seen)
	want.RateLimit = nil
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("GET /_faults = %+v, want %+v", seen, want)
	}

	for _, bad := range []string{
		`{"delay_ms":-1}`, `{"fail_next":{"count":1,"status":200}}`, `{"rate_limit":{"count":-1}}`,
		`{"drop_after_apply":{"count":1,"method":"PO ST"}}`, `{"unknown":1}`,
	} {
		r := callWith(t, ts.Client(), ts.URL, "POST", "/_faults", bad)
		if r.status != http.StatusUnprocessableEntity && r.status != http.StatusBadRequest {
			t.Errorf("POST /_faults %s = %d, want 4xx", bad, r.status)
		}
	}
	if !reflect.DeepEqual(s.Faults(), want) {
		t.Errorf("rejected updates changed the faults: %+v", s.Faults())
	}

	wantStatus(t, callWith(t, ts.Client(), ts.URL, "DELETE", "/_faults", ""), http.StatusOK)
	if f := s.Faults(); !reflect.DeepEqual(f, Faults{}) {
		t.Errorf("after DELETE: %+v", f)
	}
	wantStatus(t, call(t, ts, "GET", "/orders", ""), http.StatusOK)
}

func TestSetFaultsFromGo(t *testing.T) {
	s, ts := startServer(t, Options{})
	s.SetFaults(Faults{FailNext: &FailNext{Count: 1, Status: 504}})
	wantStatus(t, call(t, ts, "GET", "/orders", ""), http.StatusGatewayTimeout)
	wantStatus(t, call(t, ts, "GET", "/orders", ""), http.StatusOK)
	s.SetFaults(Faults{RateLimit: &RateLimit{Count: 5}})
	s.ResetFaults()
	wantStatus(t, call(t, ts, "GET", "/orders", ""), http.StatusOK)
}

func TestStats(t *testing.T) {
	s, ts := startServer(t, Options{})
	createOrder(t, ts)
	call(t, ts, "GET", "/orders/ord_0001", "")
	call(t, ts, "GET", "/orders/ord_0002", "")                      // 404 still reached the route
	callWith(t, ts.Client(), ts.URL, "GET", "/orders/ord_0001", "") // 401 too
	var rep StatsReport
	callWith(t, ts.Client(), ts.URL, "GET", "/_stats", "").decode(t, &rep)
	want := StatsReport{Routes: map[string]int{"POST /orders": 1, "GET /orders/{order_id}": 3}, Total: 4}
	if !reflect.DeepEqual(rep, want) {
		t.Errorf("GET /_stats = %+v, want %+v", rep, want)
	}
	if !reflect.DeepEqual(s.Stats(), want) {
		t.Errorf("Stats() = %+v, want %+v", s.Stats(), want)
	}
	wantStatus(t, callWith(t, ts.Client(), ts.URL, "DELETE", "/_stats", ""), http.StatusOK)
	if st := s.Stats(); st.Total != 0 || len(st.Routes) != 0 {
		t.Errorf("after reset: %+v", st)
	}
}
