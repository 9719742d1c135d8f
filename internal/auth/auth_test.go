package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

func TestThrottleMemoryBound(t *testing.T) {
	ctx := context.Background()
	cfg := ThrottleConfig{PairBurst: 3, PairEvery: time.Minute, AccountBurst: 6, AccountEvery: time.Minute,
		AddressBurst: 5, AddressEvery: time.Minute, KnownFor: time.Hour, MaxKeys: 100, Hashers: 4}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	fail := func(th *Throttle, account, address string, now time.Time) {
		if c, why, _, _ := th.Begin(ctx, account, address, now); why == NotRefused {
			c.Failed()
		}
	}
	th := NewThrottle(cfg)
	mem := th.buckets.(*memoryBuckets)
	for i := range 1000 {
		fail(th, fmt.Sprintf("u%d", i), fmt.Sprintf("ip%d", i), now.Add(time.Duration(i)*time.Millisecond))
	}
	for name, s := range map[string]*limiterSet{"pair": mem.pair, "account": mem.account, "address": mem.address} {
		if n := s.size(); n > cfg.MaxKeys {
			t.Errorf("tracking %d %s keys, bound is %d", n, name, cfg.MaxKeys)
		}
	}
	// The most recent offender is still tracked.
	for range 3 {
		fail(th, "u999", "ip999", now.Add(time.Second))
	}
	if _, why, _, _ := th.Begin(ctx, "u999", "ip999", now.Add(time.Second)); why != Throttled {
		t.Error("recent offender forgotten by eviction")
	}
}
