package auth

import (
	"context"
	"math"
	"sync"
	"time"
)

// memoryBuckets keeps the buckets of one process, under one lock.
type memoryBuckets struct {
	mu      sync.Mutex
	pair    *limiterSet
	account *limiterSet
	address *limiterSet
	known   *knownPairs
}

func newMemoryBuckets(cfg ThrottleConfig) *memoryBuckets {
	return &memoryBuckets{
		pair:    newLimiterSet(cfg.PairEvery, cfg.PairBurst, cfg.MaxKeys),
		account: newLimiterSet(cfg.AccountEvery, cfg.AccountBurst, cfg.MaxKeys),
		address: newLimiterSet(cfg.AddressEvery, cfg.AddressBurst, cfg.MaxKeys),
		known:   &knownPairs{ttl: cfg.KnownFor, max: cfg.MaxKeys, at: map[string]time.Time{}},
	}
}

// sets returns the limiter sets and keys a check of (account, address)
// takes from.
func (m *memoryBuckets) sets(account, address string, withAccount bool) ([]*limiterSet, []string) {
	sets, keys := []*limiterSet{m.pair, m.address}, []string{pairKey(account, address), address}
	if withAccount {
		sets, keys = append(sets, m.account), append(keys, account)
	}
	return sets, keys
}

// Take implements Buckets.
func (m *memoryBuckets) Take(_ context.Context, account, address string, now time.Time) (bool, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	withAccount := !m.known.has(pairKey(account, address), now)
	sets, keys := m.sets(account, address, withAccount)
	var wait time.Duration
	for i, s := range sets {
		wait = max(wait, s.wait(keys[i], now))
	}
	if wait > 0 {
		return false, wait, nil
	}
	for i, s := range sets {
		s.take(keys[i], now)
	}
	return withAccount, 0, nil
}

// Refund implements Buckets. A bucket evicted meanwhile was full or
// forgotten: there is nothing to give back to.
func (m *memoryBuckets) Refund(_ context.Context, account, address string, accountTaken bool, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	sets, keys := m.sets(account, address, accountTaken)
	for i, s := range sets {
		if b, ok := s.entries[keys[i]]; ok {
			b.refund(now)
		}
	}
	return nil
}

// Remember implements Buckets.
func (m *memoryBuckets) Remember(_ context.Context, account, address string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.known.add(pairKey(account, address), now)
	return nil
}

// bucket is a token bucket: burst tokens, one more every `every`. Unlike
// golang.org/x/time/rate's Limiter it can give a token back exactly
// (Limiter.CancelAt restores nothing once the reservation's time has
// passed, which it has after a 30 ms hash), and that is all a sign-in
// throttle needs besides taking one.
type bucket struct {
	tokens   float64
	at       time.Time // when tokens was last brought up to date
	every    time.Duration
	burst    int
	lastTake time.Time
}

func (b *bucket) tokensAt(now time.Time) float64 {
	if b.every <= 0 {
		return b.tokens
	}
	if now.Before(b.at) {
		now = b.at
	}
	return min(float64(b.burst), b.tokens+float64(now.Sub(b.at))/float64(b.every))
}

func (b *bucket) settle(now time.Time) {
	if now.After(b.at) {
		b.tokens, b.at = b.tokensAt(now), now
	}
}

func (b *bucket) refund(now time.Time) {
	b.settle(now)
	b.tokens = min(float64(b.burst), b.tokens+1)
}

// limiterSet is a bounded map of token buckets. When full, buckets that have
// refilled completely (they carry no information) are dropped; if none has,
// the set resets the oldest half rather than growing, which errs on the side
// of letting a few more attempts through instead of running out of memory.
// memoryBuckets' lock guards it.
type limiterSet struct {
	every   time.Duration
	burst   int
	max     int
	entries map[string]*bucket
}

func newLimiterSet(every time.Duration, burst, maxKeys int) *limiterSet {
	return &limiterSet{every: every, burst: burst, max: max(maxKeys, 1), entries: map[string]*bucket{}}
}

// wait returns how long until key has a token, 0 when it has one now.
func (s *limiterSet) wait(key string, now time.Time) time.Duration {
	tokens := float64(s.burst)
	if b, ok := s.entries[key]; ok {
		tokens = b.tokensAt(now)
	}
	switch {
	case tokens >= 1:
		return 0
	case s.every <= 0:
		return time.Duration(math.MaxInt64)
	}
	return time.Duration((1 - tokens) * float64(s.every))
}

// take takes a token from key's bucket (the caller checked there is one).
func (s *limiterSet) take(key string, now time.Time) *bucket {
	b, ok := s.entries[key]
	if !ok {
		if len(s.entries) >= s.max {
			s.evict(now)
		}
		b = &bucket{tokens: float64(s.burst), at: now, every: s.every, burst: s.burst}
		s.entries[key] = b
	}
	b.settle(now)
	b.tokens--
	b.lastTake = now
	return b
}

// evict drops full buckets, then, if still at the bound, the older half.
func (s *limiterSet) evict(now time.Time) {
	for k, b := range s.entries {
		if b.tokensAt(now) >= float64(s.burst) {
			delete(s.entries, k)
		}
	}
	if len(s.entries) < s.max {
		return
	}
	var newest, oldest time.Time
	for _, b := range s.entries {
		if oldest.IsZero() || b.lastTake.Before(oldest) {
			oldest = b.lastTake
		}
		if b.lastTake.After(newest) {
			newest = b.lastTake
		}
	}
	mid := oldest.Add(newest.Sub(oldest) / 2)
	for k, b := range s.entries {
		if !b.lastTake.After(mid) {
			delete(s.entries, k)
		}
	}
}

// size returns how many keys are tracked (for tests of the memory bound).
func (s *limiterSet) size() int { return len(s.entries) }

// knownPairs remembers (account, address) pairs that signed in
// successfully, for KnownFor, bounded to max entries (the oldest go first).
type knownPairs struct {
	ttl time.Duration
	max int
	at  map[string]time.Time
}

func (k *knownPairs) has(key string, now time.Time) bool {
	t, ok := k.at[key]
	return ok && now.Sub(t) < k.ttl
}

func (k *knownPairs) add(key string, now time.Time) {
	if _, ok := k.at[key]; !ok && len(k.at) >= k.max {
		var oldestKey string
		var oldest time.Time
		for kk, t := range k.at {
			if oldestKey == "" || t.Before(oldest) {
				oldestKey, oldest = kk, t
			}
		}
		delete(k.at, oldestKey)
	}
	k.at[key] = now
}
