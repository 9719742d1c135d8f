package runtimeapi

import (
	"context"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

func TestPreferWait(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"wait=10", 10 * time.Second},
		{"WAIT = 7", 7 * time.Second},
		{`wait="3"`, 3 * time.Second},
		{"respond-async, wait=5", 5 * time.Second},
		{"handling=lenient; x=y, wait=2;p", 2 * time.Second},
		{"wait=3600", 30 * time.Second}, // the server's bound
		{"wait=0", 0},
		{"wait=-1", 0},
		{"wait=ten", 0},
		{"wait", 0},
		{"respond-async", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := preferWait(tt.in, 30*time.Second); got != tt.want {
				t.Fatalf("preferWait(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
	if got := preferWait("wait=5", -1); got != 0 {
		t.Fatalf("long polling off: %v", got)
	}
}

// pending is a request served on its own goroutine.
type pending struct {
	rec  *httptest.ResponseRecorder
	done chan struct{}
}

func (a *testApp) start(r request) *pending {
	p := &pending{rec: httptest.NewRecorder(), done: make(chan struct{})}
	req := httptest.NewRequest(r.method, r.path, nil)
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	go func() { defer close(p.done); a.srv.ServeHTTP(p.rec, req) }()
	return p
}

// heldApp is a runtime API with v1 published and a token, and a bundle
// request held on it (Prefer: wait=20 with v1's ETag), once it waits.
func heldApp(t *testing.T) (*testApp, string, *store.BundleRecord, *pending) {
	t.Helper()
	a := newPublishApp(t)
	a.exposeTool("list_orders")
	token := a.token("edge")
	v1 := a.publish("first")
	p := a.hold(t, token, v1.ETag)
	return a, token, v1, p
}

// hold starts a bundle request with Prefer: wait=20 and etag, and fails
// unless it is still waiting once everything else has settled.
func (a *testApp) hold(t *testing.T, token, etag string) *pending {
	t.Helper()
	p := a.start(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", etag, "Prefer", "wait=20")})
	synctest.Wait()
	if p.answered() {
		t.Fatalf("answered at once: %d", p.rec.Code)
	}
	return p
}

func (p *pending) answered() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// TestBundleLongPollWaitsThenAnswers304: a conditional GET with Prefer:
// wait and the current ETag is held for the wait, then answered 304; one
// without Prefer is answered at once, as before. Fake time (synctest):
// nothing here sleeps.
func TestBundleLongPollWaitsThenAnswers304(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newPublishApp(t)
		a.exposeTool("list_orders")
		token := a.token("edge")
		v1 := a.publish("first")

		plain := a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v1.ETag)})
		wantStatus(t, plain, 304)
		if got := plain.Header().Get(headerPreferenceApplied); got != "" {
			t.Fatalf("Preference-Applied %q on a request that asked for no wait", got)
		}
		for _, tt := range []struct {
			prefer  string
			wait    time.Duration
			applied string
		}{{"wait=5", 5 * time.Second, "wait=5"}, {"wait=3600", DefaultLongPollMax, "wait=30"}} {
			start := time.Now()
			p := a.start(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v1.ETag, "Prefer", tt.prefer)})
			synctest.Wait()
			if p.answered() || a.srv.LongPollWaiters() != 1 {
				t.Fatalf("%s: answered before the wait (waiters %d)", tt.prefer, a.srv.LongPollWaiters())
			}
			time.Sleep(tt.wait - time.Millisecond)
			synctest.Wait()
			if p.answered() {
				t.Fatalf("%s: answered after %v, before the wait ended", tt.prefer, time.Since(start))
			}
			<-p.done
			wantStatus(t, p.rec, 304)
			if got := p.rec.Header().Get(headerPreferenceApplied); got != tt.applied || time.Since(start) != tt.wait {
				t.Fatalf("%s: Preference-Applied %q after %v, want %q after %v", tt.prefer, got, time.Since(start), tt.applied, tt.wait)
			}
		}
	})
}

// TestBundleLongPollWakesOnPublishAndRollback: a held request is answered
// with the new bundle as soon as it is published (or rolled back to), in
// both forms of the echo path: the fast path's (current ETag) and the
// full API's.
func TestBundleLongPollWakesOnPublishAndRollback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, token, v1, p := heldApp(t)
		time.Sleep(3 * time.Second)
		a.exposeTool("get_order")
		v2 := a.publish("second")
		synctest.Wait()
		if !p.answered() {
			t.Fatal("a publish did not end the wait")
		}
		wantStatus(t, p.rec, 200)
		if p.rec.Header().Get("ETag") != v2.ETag || p.rec.Body.String() != v2.Signed || p.rec.Header().Get(headerPreferenceApplied) != "wait=20" {
			t.Fatalf("answer %v, want v2", p.rec.Header())
		}

		p = a.hold(t, token, v2.ETag)
		key, err := a.keys.Active(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		back, err := a.db.Rollback(context.Background(), store.PublishRequest{Actor: "admin", Key: key}, v1.Version)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !p.answered() || p.rec.Code != 200 || p.rec.Header().Get("ETag") != back.ETag {
			t.Fatalf("rollback: answered %v code %d", p.answered(), p.rec.Code)
		}
	})
}

// TestBundleLongPollTokenRevokedWhileWaiting: the new bundle goes only to
// a token still active when it is there.
func TestBundleLongPollTokenRevokedWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, _, _, p := heldApp(t)
		if _, err := a.db.RevokeRuntimeToken(context.Background(), "admin", "edge"); err != nil {
			t.Fatal(err)
		}
		a.publish("second")
		synctest.Wait()
		if !p.answered() {
			t.Fatal("still waiting")
		}
		wantStatus(t, p.rec, 401)
	})
}

// TestKeysLongPollWakesOnRotation: GET /api/v1/keys long polls too, woken
// by a key rotation.
func TestKeysLongPollWakesOnRotation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newPublishApp(t)
		first := a.do(request{method: "GET", path: "/api/v1/keys"})
		wantStatus(t, first, 200)
		etag := first.Header().Get("ETag")
		p := a.start(request{method: "GET", path: "/api/v1/keys", header: map[string]string{"If-None-Match": etag, "Prefer": "wait=20"}})
		synctest.Wait()
		if p.answered() {
			t.Fatal("answered at once")
		}
		if _, err := a.keys.Rotate(context.Background(), "admin"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !p.answered() || p.rec.Code != 200 || p.rec.Header().Get("ETag") == etag {
			t.Fatalf("rotation: answered %v code %d", p.answered(), p.rec.Code)
		}
	})
}

// TestStopWaitingAnswersHeldRequests: at shutdown, held requests are
// answered at once (304), so they do not hold up the listener's stop.
func TestStopWaitingAnswersHeldRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, _, _, p := heldApp(t)
		a.srv.StopWaiting()
		synctest.Wait()
		if !p.answered() {
			t.Fatal("still waiting after StopWaiting")
		}
		wantStatus(t, p.rec, 304)
	})
}

// TestBundleLongPollWakesAcrossConsoles: two consoles on one PostgreSQL
// database; a runtime waits on the first, the second publishes, and the
// waiter gets the bundle at once — not at the first console's database
// poll, set to an hour here (LISTEN/NOTIFY).
func TestBundleLongPollWakesAcrossConsoles(t *testing.T) {
	one, two := storetest.MustOpenShared(t, store.Postgres)
	took := wakesOnPublishBy(t, newAppOver(t, one, time.Hour), two)
	t.Logf("publish on console two → answer on console one: %v", took.Round(time.Millisecond))
}

// wakesOnPublishBy holds a bundle request on a, publishes through other
// (another process's handle on a's database), and returns how long after
// the publish the request was answered with the new bundle.
func wakesOnPublishBy(t *testing.T, a *testApp, other *store.DB) time.Duration {
	t.Helper()
	a.exposeTool("list_orders")
	token := a.token("edge")
	v1 := a.publish("first")
	p := a.start(request{method: "GET", path: "/api/v1/bundle", header: bearer(token, "If-None-Match", v1.ETag, "Prefer", "wait=25")})
	waitFor(t, "the request to wait", func() bool { return a.srv.LongPollWaiters() == 1 })
	key, err := a.keys.Active(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	v2, err := other.Publish(context.Background(), store.PublishRequest{Actor: "other-process", Key: key})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the other process's publish did not wake the waiter within 10 s")
	}
	took := time.Since(start)
	wantStatus(t, p.rec, 200)
	if p.rec.Header().Get("ETag") != v2.ETag {
		t.Fatalf("ETag %q, want v2's", p.rec.Header().Get("ETag"))
	}
	return took
}

// waitFor polls cond (a state the test cannot be told about), failing
// after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}

// TestBundleLongPollOnTheRuntimeAPIListener: the fasthttp listener holds
// a request the same way: answered 304 with Preference-Applied when the
// wait ends, and with the new bundle as soon as one is published.
func TestBundleLongPollOnTheRuntimeAPIListener(t *testing.T) {
	a := newPublishApp(t)
	base := serveRuntimeAPI(t, a)
	a.exposeTool("list_orders")
	token := a.token("edge")
	v1 := a.publish("first")

	start := time.Now()
	got := askHeaders(t, base+"/api/v1/bundle", bearer(token, "If-None-Match", v1.ETag, "Prefer", "wait=1"))
	if got.status != 304 || got.applied != "wait=1" || time.Since(start) < time.Second {
		t.Fatalf("wait=1: %d, Preference-Applied %q after %v", got.status, got.applied, time.Since(start))
	}

	done := make(chan answerLP, 1)
	go func() {
		done <- askHeaders(t, base+"/api/v1/bundle", bearer(token, "If-None-Match", v1.ETag, "Prefer", "wait=25"))
	}()
	waitFor(t, "the request to wait", func() bool { return a.srv.LongPollWaiters() == 1 })
	start = time.Now()
	a.exposeTool("get_order")
	v2 := a.publish("second")
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the publish did not end the wait within 10 s")
	}
	t.Logf("publish → answer on the runtime API listener: %v", time.Since(start).Round(time.Millisecond))
	if got.status != 200 || got.etag != v2.ETag || got.body != v2.Signed || got.applied != "wait=25" {
		t.Fatalf("answer %d %q %q, want v2", got.status, got.etag, got.applied)
	}
}

// answerLP is what TestBundleLongPollOnTheRuntimeAPIListener reads of an
// answer.
type answerLP struct {
	status              int
	etag, applied, body string
}

func askHeaders(t *testing.T, url string, header map[string]string) answerLP {
	t.Helper()
	a := ask(t, "GET", url, header)
	return answerLP{status: a.status, etag: a.header["ETag"], applied: a.header[headerPreferenceApplied], body: a.body}
}

// TestBundleLongPollWakesOnAnotherProcessOnSQLite: on SQLite another
// process (the CLI) cannot notify; the database poll that finds its
// version wakes the waiters.
func TestBundleLongPollWakesOnAnotherProcessOnSQLite(t *testing.T) {
	a, path := newAPIApp(t, 50*time.Millisecond)
	wakesOnPublishBy(t, a, openDB(t, path))
}
