package auth

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestHashAndCheckPassword(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q lacks the expected PHC prefix", h)
	}
	h2, _ := HashPassword("correct horse battery")
	if h == h2 {
		t.Error("two hashes of the same password are equal: salt not random")
	}
	tests := []struct {
		name     string
		encoded  string
		password string
		want     error // nil, ErrMismatch, or errAny
	}{
		{"right", h, "correct horse battery", nil},
		{"wrong", h, "correct horse batterx", ErrMismatch},
		{"empty", h, "", ErrMismatch},
		{"garbage hash", "$2a$10$abc", "x", errAny},
		{"bad params", "$argon2id$v=19$m=x$c2FsdA$a2V5", "x", errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPassword(tt.encoded, tt.password)
			switch tt.want {
			case nil:
				if err != nil {
					t.Fatalf("CheckPassword = %v, want nil", err)
				}
			case errAny:
				if err == nil || errors.Is(err, ErrMismatch) {
					t.Fatalf("CheckPassword = %v, want a format error", err)
				}
			default:
				if !errors.Is(err, tt.want) {
					t.Fatalf("CheckPassword = %v, want %v", err, tt.want)
				}
			}
		})
	}
}

var errAny = errors.New("any error")

func TestPasswordPolicy(t *testing.T) {
	for _, tt := range []struct {
		pw string
		ok bool
	}{{"short", false}, {"exactly12chr", true}, {strings.Repeat("x", 257), false}} {
		if got := CheckPasswordPolicy(tt.pw) == ""; got != tt.ok {
			t.Errorf("CheckPasswordPolicy(%d chars) ok=%v, want %v", len(tt.pw), got, tt.ok)
		}
	}
	p, err := GeneratePassword()
	if err != nil || CheckPasswordPolicy(p) != "" {
		t.Errorf("generated password %q (%v) fails the policy", p, err)
	}
}

func TestNormalizeRoles(t *testing.T) {
	got, err := NormalizeRoles([]string{"viewer", "admin", "viewer"})
	if err != nil || fmt.Sprint(got) != "[admin viewer]" {
		t.Errorf("NormalizeRoles = %v, %v", got, err)
	}
	if _, err := NormalizeRoles([]string{"root"}); err == nil {
		t.Error("unknown role accepted")
	}
}

// fail admits a check and records it as a wrong password; it reports
// whether the check was admitted.
func fail(th *Throttle, account, address string, now time.Time) bool {
	c, why, _ := th.Begin(account, address, now)
	if why != NotRefused {
		return false
	}
	c.Failed()
	return true
}

func TestThrottle(t *testing.T) {
	cfg := ThrottleConfig{PairBurst: 3, PairEvery: time.Minute, AccountBurst: 6, AccountEvery: time.Minute,
		AddressBurst: 5, AddressEvery: time.Minute, KnownFor: time.Hour, MaxKeys: 100, Hashers: 4}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t.Run("per account and address", func(t *testing.T) {
		th := NewThrottle(cfg)
		for i := range 3 {
			if !fail(th, "a@x", "ip1", now) {
				t.Fatalf("check %d refused before the burst was used", i+1)
			}
		}
		if _, why, wait := th.Begin("a@x", "ip1", now); why != Throttled || wait != time.Minute {
			t.Errorf("4th check from the same address: %v, wait %v; want Throttled, 1m", why, wait)
		}
		if !fail(th, "a@x", "ip2", now) {
			t.Error("the account is locked for another address after 3 failures from one")
		}
		if !fail(th, "b@x", "ip1", now.Add(time.Second)) {
			t.Error("another account from the same address throttled too early")
		}
		if !fail(th, "a@x", "ip1", now.Add(time.Minute)) {
			t.Error("still throttled after the refill interval")
		}
	})
	t.Run("per address", func(t *testing.T) {
		th := NewThrottle(cfg)
		for i := range 5 {
			fail(th, fmt.Sprintf("user%d@x", i), "ip1", now)
		}
		if _, why, _ := th.Begin("fresh@x", "ip1", now); why != Throttled {
			t.Error("address not throttled after 5 failures across accounts")
		}
		if !fail(th, "fresh@x", "ip2", now) {
			t.Error("other address throttled")
		}
	})
	t.Run("account ceiling spares known addresses", func(t *testing.T) {
		th := NewThrottle(cfg)
		c, why, _ := th.Begin("a@x", "home", now)
		if why != NotRefused {
			t.Fatal(why)
		}
		c.Succeeded(now)
		// A flood from many addresses empties the account's ceiling.
		for i := range 20 {
			fail(th, "a@x", fmt.Sprintf("bot%d", i), now)
		}
		if _, why, _ := th.Begin("a@x", "new-laptop", now); why != Throttled {
			t.Errorf("a new address passes an empty account ceiling: %v", why)
		}
		if c, why, _ := th.Begin("a@x", "home", now); why != NotRefused {
			t.Errorf("the person is locked out of the address they signed in from: %v", why)
		} else {
			c.Succeeded(now)
		}
		if !fail(th, "a@x", "new-laptop", now.Add(time.Minute)) {
			t.Error("the ceiling does not refill after its interval")
		}
	})
	t.Run("success gives its tokens back", func(t *testing.T) {
		th := NewThrottle(cfg)
		for range 10 {
			c, why, _ := th.Begin("a@x", "ip1", now)
			if why != NotRefused {
				t.Fatalf("a run of right passwords was throttled: %v", why)
			}
			c.Succeeded(now.Add(30 * time.Millisecond))
		}
	})
	t.Run("tokens are taken before the check, atomically", func(t *testing.T) {
		th := NewThrottle(ThrottleConfig{PairBurst: 5, PairEvery: time.Hour, AccountBurst: 50, AccountEvery: time.Hour,
			AddressBurst: 50, AddressEvery: time.Hour, KnownFor: time.Hour, MaxKeys: 100, Hashers: 100})
		var admitted atomic.Int64
		var wg sync.WaitGroup
		release := make(chan struct{})
		for range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if c, why, _ := th.Begin("a@x", "ip1", now); why == NotRefused {
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
		th := NewThrottle(ThrottleConfig{PairBurst: 5, PairEvery: time.Hour, AccountBurst: 50, AccountEvery: time.Hour,
			AddressBurst: 50, AddressEvery: time.Hour, KnownFor: time.Hour, MaxKeys: 100, Hashers: 2})
		c1, _, _ := th.Begin("a@x", "ip1", now)
		c2, _, _ := th.Begin("b@x", "ip1", now)
		if _, why, wait := th.Begin("c@x", "ip1", now); why != Busy || wait <= 0 {
			t.Fatalf("third concurrent check with 2 slots: %v, wait %v; want Busy", why, wait)
		}
		c1.Failed()
		c2.Succeeded(now)
		c2.Failed() // ending twice releases nothing twice
		if c, why, _ := th.Begin("c@x", "ip1", now); why != NotRefused {
			t.Fatalf("slot not released: %v", why)
		} else {
			c.Failed()
		}
		// The refused check took no tokens: c@x used one of its 5.
		for i := range 4 {
			if !fail(th, "c@x", "ip1", now) {
				t.Fatalf("check %d of c@x refused: a Busy refusal took a token", i+2)
			}
		}
	})
	t.Run("memory bound", func(t *testing.T) {
		th := NewThrottle(cfg)
		for i := range 1000 {
			fail(th, fmt.Sprintf("u%d", i), fmt.Sprintf("ip%d", i), now.Add(time.Duration(i)*time.Millisecond))
		}
		for name, s := range map[string]*limiterSet{"pair": th.pair, "account": th.account, "address": th.address} {
			if n := s.size(); n > cfg.MaxKeys {
				t.Errorf("tracking %d %s keys, bound is %d", n, name, cfg.MaxKeys)
			}
		}
		// The most recent offender is still tracked.
		for range 3 {
			fail(th, "u999", "ip999", now.Add(time.Second))
		}
		if _, why, _ := th.Begin("u999", "ip999", now.Add(time.Second)); why != Throttled {
			t.Error("recent offender forgotten by eviction")
		}
	})
}
