// Package throttletest is the behaviour every sign-in throttle store must
// keep (auth.Buckets), as a test suite that the in-memory and the database
// implementations both run. It is test support: only tests import it.
package throttletest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
)

// fail admits a check and records it as a wrong password; it reports
// whether the check was admitted.
func fail(t *testing.T, th *auth.Throttle, account, address string, now time.Time) bool {
	t.Helper()
	c, why, _, err := th.Begin(context.Background(), account, address, now)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	if why != auth.NotRefused {
		return false
	}
	c.Failed()
	return true
}

// Run checks the Throttle semantics every Buckets implementation must
// keep: newThrottle builds a fresh throttle (with fresh, empty buckets)
// from a config. The in-memory throttle (auth.NewThrottle) and the
// database-backed one (store.LoginThrottle) both run it.
func Run(t *testing.T, newThrottle func(t *testing.T, cfg auth.ThrottleConfig) *auth.Throttle) {
	ctx := context.Background()
	cfg := auth.ThrottleConfig{PairBurst: 3, PairEvery: time.Minute, AccountBurst: 6, AccountEvery: time.Minute,
		AddressBurst: 5, AddressEvery: time.Minute, KnownFor: time.Hour, MaxKeys: 100, Hashers: 4}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t.Run("per account and address", func(t *testing.T) {
		th := newThrottle(t, cfg)
		for i := range 3 {
			if !fail(t, th, "a@x", "ip1", now) {
				t.Fatalf("check %d refused before the burst was used", i+1)
			}
		}
		if _, why, wait, _ := th.Begin(ctx, "a@x", "ip1", now); why != auth.Throttled || wait != time.Minute {
			t.Errorf("4th check from the same address: %v, wait %v; want Throttled, 1m", why, wait)
		}
		if !fail(t, th, "a@x", "ip2", now) {
			t.Error("the account is locked for another address after 3 failures from one")
		}
		if !fail(t, th, "b@x", "ip1", now.Add(time.Second)) {
			t.Error("another account from the same address throttled too early")
		}
		if !fail(t, th, "a@x", "ip1", now.Add(time.Minute)) {
			t.Error("still throttled after the refill interval")
		}
	})
	t.Run("per address", func(t *testing.T) {
		th := newThrottle(t, cfg)
		for i := range 5 {
			fail(t, th, fmt.Sprintf("user%d@x", i), "ip1", now)
		}
		if _, why, _, _ := th.Begin(ctx, "fresh@x", "ip1", now); why != auth.Throttled {
			t.Error("address not throttled after 5 failures across accounts")
		}
		if !fail(t, th, "fresh@x", "ip2", now) {
			t.Error("other address throttled")
		}
	})
	t.Run("account ceiling spares known addresses", func(t *testing.T) {
		th := newThrottle(t, cfg)
		c, why, _, _ := th.Begin(ctx, "a@x", "home", now)
		if why != auth.NotRefused {
			t.Fatal(why)
		}
		c.Succeeded(ctx, now)
		// A flood from many addresses empties the account's ceiling.
		for i := range 20 {
			fail(t, th, "a@x", fmt.Sprintf("bot%d", i), now)
		}
		if _, why, _, _ := th.Begin(ctx, "a@x", "new-laptop", now); why != auth.Throttled {
			t.Errorf("a new address passes an empty account ceiling: %v", why)
		}
		if c, why, _, _ := th.Begin(ctx, "a@x", "home", now); why != auth.NotRefused {
			t.Errorf("the person is locked out of the address they signed in from: %v", why)
		} else {
			c.Succeeded(ctx, now)
		}
		if !fail(t, th, "a@x", "new-laptop", now.Add(time.Minute)) {
			t.Error("the ceiling does not refill after its interval")
		}
	})
	t.Run("success gives its tokens back", func(t *testing.T) {
		th := newThrottle(t, cfg)
		for range 10 {
			c, why, _, _ := th.Begin(ctx, "a@x", "ip1", now)
			if why != auth.NotRefused {
				t.Fatalf("a run of right passwords was throttled: %v", why)
			}
			c.Succeeded(ctx, now.Add(30*time.Millisecond))
		}
	})
	t.Run("tokens are taken before the check, atomically", func(t *testing.T) {
		th := newThrottle(t, auth.ThrottleConfig{PairBurst: 5, PairEvery: time.Hour, AccountBurst: 50, AccountEvery: time.Hour,
			AddressBurst: 50, AddressEvery: time.Hour, KnownFor: time.Hour, MaxKeys: 100, Hashers: 100})
		var admitted atomic.Int64
		var wg sync.WaitGroup
		release := make(chan struct{})
		for range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if c, why, _, _ := th.Begin(ctx, "a@x", "ip1", now); why == auth.NotRefused {
					admitted.Add(1)
					<-release // every admitted check is still hashing
					c.Failed()
				}
			}()
		}
		for deadline := time.Now().Add(5 * time.Second); admitted.Load() < 5 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		close(release)
		wg.Wait()
		if n := admitted.Load(); n != 5 {
			t.Errorf("%d of 100 concurrent guesses admitted, want exactly the burst of 5", n)
		}
	})
	t.Run("hashing slots", func(t *testing.T) {
		th := newThrottle(t, auth.ThrottleConfig{PairBurst: 5, PairEvery: time.Hour, AccountBurst: 50, AccountEvery: time.Hour,
			AddressBurst: 50, AddressEvery: time.Hour, KnownFor: time.Hour, MaxKeys: 100, Hashers: 2})
		c1, _, _, _ := th.Begin(ctx, "a@x", "ip1", now)
		c2, _, _, _ := th.Begin(ctx, "b@x", "ip1", now)
		if _, why, wait, _ := th.Begin(ctx, "c@x", "ip1", now); why != auth.Busy || wait <= 0 {
			t.Fatalf("third concurrent check with 2 slots: %v, wait %v; want Busy", why, wait)
		}
		c1.Failed()
		c2.Succeeded(ctx, now)
		c2.Failed() // ending twice releases nothing twice
		if c, why, _, _ := th.Begin(ctx, "c@x", "ip1", now); why != auth.NotRefused {
			t.Fatalf("slot not released: %v", why)
		} else {
			c.Failed()
		}
		// The refused check took no tokens: c@x used one of its 5.
		for i := range 4 {
			if !fail(t, th, "c@x", "ip1", now) {
				t.Fatalf("check %d of c@x refused: a Busy refusal took a token", i+2)
			}
		}
	})
}
