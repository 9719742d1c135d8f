package auth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// ThrottleConfig sets how many failed sign-ins are tolerated. Each key gets
// a token bucket of Burst failures refilled at one per Every.
type ThrottleConfig struct {
	AccountBurst int
	AccountEvery time.Duration
	AddressBurst int
	AddressEvery time.Duration
	MaxKeys      int // memory bound per kind of key
}

// DefaultThrottle allows 5 failures per account (then one per 30 s) and 20
// per client address (then one per 6 s): enough for typos, far too slow to
// guess a 12-character password. A function, not a variable, so no package
// can change the defaults of every other.
func DefaultThrottle() ThrottleConfig {
	return ThrottleConfig{AccountBurst: 5, AccountEvery: 30 * time.Second,
		AddressBurst: 20, AddressEvery: 6 * time.Second, MaxKeys: 10000}
}

// Throttle limits failed sign-ins per account (the email as typed, whether
// or not it exists, so the limit reveals nothing) and per client address.
// Only failures consume tokens; a success does not reset them, so an
// attacker who knows one password cannot use it to keep guessing others.
type Throttle struct {
	account *limiterSet
	address *limiterSet
}

// NewThrottle returns a Throttle with cfg.
func NewThrottle(cfg ThrottleConfig) *Throttle {
	return &Throttle{
		account: newLimiterSet(rate.Every(cfg.AccountEvery), cfg.AccountBurst, cfg.MaxKeys),
		address: newLimiterSet(rate.Every(cfg.AddressEvery), cfg.AddressBurst, cfg.MaxKeys),
	}
}

// Allowed reports whether a sign-in attempt for account from address may be
// checked at all at time now.
func (t *Throttle) Allowed(account, address string, now time.Time) bool {
	return t.account.allowed(account, now) && t.address.allowed(address, now)
}

// Failed records a failed attempt.
func (t *Throttle) Failed(account, address string, now time.Time) {
	t.account.consume(account, now)
	t.address.consume(address, now)
}

// limiterSet is a bounded map of token buckets. When full, buckets that have
// refilled completely (they carry no information) are dropped; if none has,
// the set resets the oldest half rather than growing, which errs on the side
// of letting a few more attempts through instead of running out of memory.
type limiterSet struct {
	mu      sync.Mutex
	limit   rate.Limit
	burst   int
	max     int
	entries map[string]*limiterEntry
}

type limiterEntry struct {
	lim      *rate.Limiter
	lastFail time.Time
}

func newLimiterSet(limit rate.Limit, burst, maxKeys int) *limiterSet {
	return &limiterSet{limit: limit, burst: burst, max: maxKeys, entries: map[string]*limiterEntry{}}
}

func (s *limiterSet) allowed(key string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[key]
	return !ok || e.lim.TokensAt(now) >= 1
}

func (s *limiterSet) consume(key string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[key]
	if !ok {
		if len(s.entries) >= s.max {
			s.evict(now)
		}
		e = &limiterEntry{lim: rate.NewLimiter(s.limit, s.burst)}
		s.entries[key] = e
	}
	e.lim.AllowN(now, 1)
	e.lastFail = now
}

// evict drops full buckets, then, if still at the bound, the older half.
func (s *limiterSet) evict(now time.Time) {
	for k, e := range s.entries {
		if e.lim.TokensAt(now) >= float64(s.burst) {
			delete(s.entries, k)
		}
	}
	if len(s.entries) < s.max {
		return
	}
	var newest, oldest time.Time
	for _, e := range s.entries {
		if oldest.IsZero() || e.lastFail.Before(oldest) {
			oldest = e.lastFail
		}
		if e.lastFail.After(newest) {
			newest = e.lastFail
		}
	}
	mid := oldest.Add(newest.Sub(oldest) / 2)
	for k, e := range s.entries {
		if !e.lastFail.After(mid) {
			delete(s.entries, k)
		}
	}
}

// size returns how many keys are tracked (for tests of the memory bound).
func (s *limiterSet) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}
