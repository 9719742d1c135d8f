package web

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
)

// countingHasher stands in for auth.CheckPassword, counting checks and the
// most that ran at once. hold, when set, makes every check wait for it.
type countingHasher struct {
	checks, inFlight, peak atomic.Int64
	hold                   chan struct{}
}

func (h *countingHasher) check(encoded, password string) error {
	h.checks.Add(1)
	n := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for p := h.peak.Load(); n > p && !h.peak.CompareAndSwap(p, n); p = h.peak.Load() {
	}
	if h.hold != nil {
		<-h.hold
	} else {
		time.Sleep(20 * time.Millisecond) // keep checks overlapping
	}
	// The test users' hash is testHash(): compare without argon2, which is
	// slow under the race detector. Any other hash (the dummy checked for
	// unknown accounts) is checked for real.
	if encoded == testHash() {
		if password == testPassword {
			return nil
		}
		return auth.ErrMismatch
	}
	return auth.CheckPassword(encoded, password)
}

func withHasher(h *countingHasher, cfg auth.ThrottleConfig) func(*Deps) {
	return func(d *Deps) {
		d.CheckPassword = h.check
		d.Throttle = auth.NewThrottle(cfg)
	}
}

func (a *testApp) loginFrom(email, password, addr string) (int, string) {
	form := url.Values{"email": {email}, "password": {password}}
	rec := a.do(request{method: "POST", path: "/login", form: form, csrf: true, addr: addr})
	return rec.Code, rec.Header().Get("Retry-After")
}

// parallel runs f(i) for i in 0..n-1 at once and counts the statuses.
func parallel(n int, f func(i int) int) map[int]int {
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			code := f(i)
			mu.Lock()
			statuses[code]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return statuses
}

// TestParallelGuessesMakeAtMostTheConfiguredChecks: 100 parallel wrong
// guesses at one account from one address reach the password check at most
// PairBurst times; the others are refused with 429 and Retry-After before
// any hashing. Hashing slots are plentiful here, so only the token count
// limits the checks.
func TestParallelGuessesMakeAtMostTheConfiguredChecks(t *testing.T) {
	h := &countingHasher{}
	cfg := auth.DefaultThrottle()
	cfg.Hashers = 100
	a := newTestApp(t, true, withHasher(h, cfg))
	statuses := parallel(100, func(int) int {
		code, retry := a.loginFrom("viewer@example.com", "wrong password!", "10.9.0.1:5000")
		if code == 429 && retry == "" {
			t.Error("429 without Retry-After")
		}
		return code
	})
	if n := h.checks.Load(); n > int64(cfg.PairBurst) {
		t.Errorf("%d password checks for 100 parallel guesses, want at most %d", n, cfg.PairBurst)
	}
	if statuses[401] != int(h.checks.Load()) || statuses[401]+statuses[429] != 100 {
		t.Errorf("statuses %v for %d checks", statuses, h.checks.Load())
	}
	// The person still signs in from their own address at once.
	if code, _ := a.loginFrom("viewer@example.com", testPassword, "10.9.0.2:5000"); code != 303 {
		t.Errorf("the right password from another address after the flood: %d", code)
	}
}

// TestParallelAnonymousGuessesAreBoundedByHashingSlots: 100 parallel
// guesses at 100 unknown accounts from 100 addresses pass every token
// bucket, but no more than one check per core hashes at once (each holds
// 19 MiB); the excess is refused with 429 at once.
func TestParallelAnonymousGuessesAreBoundedByHashingSlots(t *testing.T) {
	h := &countingHasher{}
	cfg := auth.DefaultThrottle() // Hashers 0: one per core
	a := newTestApp(t, true, withHasher(h, cfg))
	statuses := parallel(100, func(i int) int {
		code, _ := a.loginFrom(fmt.Sprintf("ghost%d@example.com", i), "wrong password!", fmt.Sprintf("10.8.0.%d:1", i))
		return code
	})
	if p, cores := h.peak.Load(), int64(runtime.GOMAXPROCS(0)); p > cores {
		t.Errorf("%d password checks ran at once, want at most %d (cores)", p, cores)
	}
	if statuses[401]+statuses[429] != 100 || statuses[429] == 0 {
		t.Errorf("statuses %v, want only 401 and 429, some 429", statuses)
	}
}

// TestBusyRefusalIsImmediate: with every hashing slot held, the next
// sign-in is answered 429 with Retry-After at once, and it takes no token
// from the account.
func TestBusyRefusalIsImmediate(t *testing.T) {
	h := &countingHasher{hold: make(chan struct{})}
	cfg := auth.DefaultThrottle()
	cfg.Hashers = 2
	a := newTestApp(t, true, withHasher(h, cfg))
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.loginFrom(fmt.Sprintf("slow%d@example.com", i), "wrong password!", "10.7.0.1:1")
		}()
	}
	for h.inFlight.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	form := url.Values{"email": {"admin@example.com"}, "password": {testPassword}}
	rec := a.do(request{method: "POST", path: "/login", form: form, csrf: true, addr: "10.7.0.2:1"})
	took := time.Since(start)
	close(h.hold)
	wg.Wait()
	wantStatus(t, rec, 429)
	wantPage(t, rec, in(tid("form-error"), hasText("The server is busy checking other sign-ins.")))
	if rec.Header().Get("Retry-After") != "1" || took > time.Second {
		t.Errorf("Retry-After %q after %v, want 1 at once", rec.Header().Get("Retry-After"), took)
	}
	for i := range cfg.PairBurst {
		if code, _ := a.loginFrom("admin@example.com", "wrong password!", "10.7.0.2:1"); code != 401 {
			t.Fatalf("guess %d after a busy refusal: %d; the refusal took a token", i+1, code)
		}
	}
}

// TestFloodDoesNotLockOutAKnownAddress: wrong guesses from many addresses
// empty the account's ceiling, which then refuses new addresses, but the
// address the person signed in from keeps working.
func TestFloodDoesNotLockOutAKnownAddress(t *testing.T) {
	h := &countingHasher{}
	a := newTestApp(t, true, withHasher(h, auth.DefaultThrottle()))
	if code, _ := a.loginFrom("viewer@example.com", testPassword, "10.6.0.1:1"); code != 303 {
		t.Fatalf("first sign-in: %d", code)
	}
	for i := range 40 {
		a.loginFrom("viewer@example.com", "wrong password!", fmt.Sprintf("10.5.%d.1:1", i))
	}
	if n := h.checks.Load(); n > 1+int64(auth.DefaultThrottle().AccountBurst) {
		t.Errorf("%d checks: the account ceiling did not hold", n)
	}
	if code, _ := a.loginFrom("viewer@example.com", testPassword, "10.6.0.99:1"); code != 429 {
		t.Errorf("a new address during the flood: %d, want 429", code)
	}
	if code, _ := a.loginFrom("viewer@example.com", testPassword, "10.6.0.1:1"); code != 303 {
		t.Errorf("the known address during the flood: %d, want 303", code)
	}
}

// BenchmarkParallelAnonymousSignIn measures the peak resident memory of 100
// parallel sign-ins at unknown accounts with the real argon2id hasher. Run
// alone (the peak is the process's):
//
//	go test -run '^$' -bench ParallelAnonymousSignIn -benchtime 1x ./web
func BenchmarkParallelAnonymousSignIn(b *testing.B) {
	keys := [][]byte{bytes.Repeat([]byte{1}, 64), bytes.Repeat([]byte{2}, 32)}
	srv, err := New(context.Background(), Deps{Store: storetest.MustOpen(b), Logger: slog.New(slog.DiscardHandler),
		Config: testConfig(), SessionKeys: keys})
	if err != nil {
		b.Fatal(err)
	}
	signIn := func(i int) int {
		form := url.Values{"email": {fmt.Sprintf("ghost%d@example.com", i)}, "password": {"wrong password!"}}
		req := httptest.NewRequest("POST", "/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: "toolgate_csrf", Value: testCSRF})
		req.Header.Set("X-CSRF-Token", testCSRF)
		req.RemoteAddr = fmt.Sprintf("10.%d.0.1:1", i)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code
	}
	signIn(1000) // the dummy hash for unknown accounts is made once
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Fatalf("resetting the peak RSS: %v", err)
	}
	base := peakRSS(b)
	b.ResetTimer()
	var statuses map[int]int
	for range b.N {
		statuses = parallel(100, signIn)
	}
	b.StopTimer()
	b.ReportMetric(float64(peakRSS(b)-base)/(1<<20), "peak-MiB-over-idle")
	b.ReportMetric(float64(statuses[401]), "checked")
	b.ReportMetric(float64(statuses[429]), "refused")
}

// peakRSS reads VmHWM from /proc/self/status, in bytes.
func peakRSS(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// TestThrottledSignInsAuditOneSummary: 300 wrong sign-ins at one account
// from one address, on both engines, add at most PairBurst+1 audit
// entries: one login.failure per password check the throttle let through
// (PairBurst), and one login.throttled summary counting every 429 of the
// window, written when the window closes (here: when the server closes).
// The audit chain still verifies.
func TestThrottledSignInsAuditOneSummary(t *testing.T) {
	for _, engine := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			cfg := auth.DefaultThrottle()
			a := newTestAppWith(t, storetest.MustOpenEngine(t, engine), true, withHasher(&countingHasher{}, cfg))
			before, err := a.db.AuditEntries(ctx)
			if err != nil {
				t.Fatal(err)
			}
			statuses := map[int]int{}
			for range 300 {
				code, _ := a.loginFrom("viewer@example.com", "wrong password!", "10.9.0.1:5000")
				statuses[code]++
			}
			if statuses[401] > cfg.PairBurst || statuses[401]+statuses[429] != 300 {
				t.Fatalf("statuses %v", statuses)
			}
			a.srv.Close(ctx)
			all, err := a.db.AuditEntries(ctx)
			if err != nil {
				t.Fatal(err)
			}
			added := all[len(before):]
			if len(added) > cfg.PairBurst+1 {
				t.Errorf("300 refused sign-ins added %d audit entries, want at most %d", len(added), cfg.PairBurst+1)
			}
			var failures, summaries int
			for _, e := range added {
				switch e.Action {
				case "login.failure":
					failures++
				case "login.throttled":
					summaries++
					if want := fmt.Sprintf(`"count":"%d"`, statuses[429]); !strings.Contains(e.After, want) || !strings.Contains(e.After, "10.9.0.1") || e.Actor != "viewer@example.com" {
						t.Errorf("summary %s by %s, want %s from 10.9.0.1 by viewer@example.com", e.After, e.Actor, want)
					}
				}
			}
			if failures != statuses[401] || summaries != 1 {
				t.Errorf("%d login.failure and %d login.throttled entries for statuses %v", failures, summaries, statuses)
			}
			if _, err := a.db.VerifyAudit(ctx); err != nil {
				t.Errorf("audit chain: %v", err)
			}
		})
	}
}

// TestThrottledSignInsSummaryAtWindowEnd: the summary is written once its
// window closes, without waiting for the server to stop.
func TestThrottledSignInsSummaryAtWindowEnd(t *testing.T) {
	cfg := auth.DefaultThrottle()
	cfg.PairBurst = 1
	a := newTestApp(t, true, withHasher(&countingHasher{}, cfg), func(d *Deps) { d.RefusalWindow = time.Second })
	for range 3 {
		a.loginFrom("viewer@example.com", "wrong password!", "10.9.0.1:5000")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		entries, err := a.db.AuditEntries(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if e := entries[len(entries)-1]; e.Action == "login.throttled" {
			if !strings.Contains(e.After, `"count":"2"`) {
				t.Errorf("summary %s, want a count of 2", e.After)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no login.throttled entry 10 s after a 1 s window opened")
		}
	}
}
