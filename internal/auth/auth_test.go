package auth

import (
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

func TestThrottle(t *testing.T) {
	cfg := ThrottleConfig{AccountBurst: 3, AccountEvery: time.Minute, AddressBurst: 5, AddressEvery: time.Minute, MaxKeys: 100}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t.Run("per account", func(t *testing.T) {
		th := NewThrottle(cfg)
		for i := range 3 {
			if !th.Allowed("a@x", "ip1", now) {
				t.Fatalf("attempt %d refused before the burst was used", i+1)
			}
			th.Failed("a@x", "ip1", now)
		}
		if th.Allowed("a@x", "ip2", now) {
			t.Error("account not throttled after 3 failures, even from another address")
		}
		if !th.Allowed("b@x", "ip1", now) {
			t.Error("another account from the same address throttled too early")
		}
		if !th.Allowed("a@x", "ip1", now.Add(time.Minute)) {
			t.Error("account still throttled after the refill interval")
		}
	})
	t.Run("per address", func(t *testing.T) {
		th := NewThrottle(cfg)
		for i := range 5 {
			th.Failed(fmt.Sprintf("user%d@x", i), "ip1", now)
		}
		if th.Allowed("fresh@x", "ip1", now) {
			t.Error("address not throttled after 5 failures across accounts")
		}
		if !th.Allowed("fresh@x", "ip2", now) {
			t.Error("other address throttled")
		}
	})
	t.Run("memory bound", func(t *testing.T) {
		th := NewThrottle(cfg)
		for i := range 1000 {
			th.Failed(fmt.Sprintf("u%d", i), fmt.Sprintf("ip%d", i), now.Add(time.Duration(i)*time.Millisecond))
		}
		if n := th.account.size(); n > cfg.MaxKeys {
			t.Errorf("tracking %d accounts, bound is %d", n, cfg.MaxKeys)
		}
		// The most recent offender is still tracked.
		th.Failed("u999", "ip999", now.Add(time.Second))
		th.Failed("u999", "ip999", now.Add(time.Second))
		if th.Allowed("u999", "other", now.Add(time.Second)) {
			t.Error("recent offender forgotten by eviction")
		}
	})
}
