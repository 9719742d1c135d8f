package auth

import (
	"math"
	"runtime"
	"sync"
	"time"
)

// ThrottleConfig sets how many password checks are tolerated. Each kind of
// key gets a token bucket of Burst checks refilled at one per Every.
type ThrottleConfig struct {
	// PairBurst/PairEvery limit checks per (account, address): the limit a
	// person typing their own password meets.
	PairBurst int
	PairEvery time.Duration
	// AccountBurst/AccountEvery are the global ceiling per account, over all
	// addresses, against guessing spread over many addresses. It does not
	// apply from an address the account signed in from successfully within
	// KnownFor, so a flood of wrong guesses elsewhere cannot lock the person
	// out of their usual address.
	AccountBurst int
	AccountEvery time.Duration
	// AddressBurst/AddressEvery limit checks per client address, over all
	// accounts.
	AddressBurst int
	AddressEvery time.Duration
	// KnownFor is how long a successful sign-in keeps its (account, address)
	// exempt from the account ceiling.
	KnownFor time.Duration
	// MaxKeys bounds the memory of each kind of key.
	MaxKeys int
	// Hashers bounds how many password checks run at once (each argon2id
	// check holds 19 MiB); 0 means one per core (GOMAXPROCS).
	Hashers int
}

// DefaultThrottle allows 5 checks per (account, address), then one per
// 30 s; 20 per account over all addresses, then one per 30 s (120 an hour,
// far too slow to guess a 12-character password); and 20 per client
// address, then one per 6 s. A function, not a variable, so no package can
// change the defaults of every other.
func DefaultThrottle() ThrottleConfig {
	return ThrottleConfig{PairBurst: 5, PairEvery: 30 * time.Second,
		AccountBurst: 20, AccountEvery: 30 * time.Second,
		AddressBurst: 20, AddressEvery: 6 * time.Second,
		KnownFor: 30 * 24 * time.Hour, MaxKeys: 10000}
}

// Throttle limits password checks. Every check takes its tokens before the
// password is hashed, under one lock, so concurrent guesses cannot all pass
// a check that only counted finished failures; a check that succeeds gives
// its tokens back. A bounded number of checks hash at once.
type Throttle struct {
	mu       sync.Mutex
	pair     *limiterSet
	account  *limiterSet
	address  *limiterSet
	known    *knownPairs
	hashSlot chan struct{}
}

// NewThrottle returns a Throttle with cfg.
func NewThrottle(cfg ThrottleConfig) *Throttle {
	n := cfg.Hashers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return &Throttle{
		pair:     newLimiterSet(cfg.PairEvery, cfg.PairBurst, cfg.MaxKeys),
		account:  newLimiterSet(cfg.AccountEvery, cfg.AccountBurst, cfg.MaxKeys),
		address:  newLimiterSet(cfg.AddressEvery, cfg.AddressBurst, cfg.MaxKeys),
		known:    &knownPairs{ttl: cfg.KnownFor, max: cfg.MaxKeys, at: map[string]time.Time{}},
		hashSlot: make(chan struct{}, n),
	}
}

// Refusal says why Begin refused a check.
type Refusal int

// The outcomes of Begin.
const (
	// NotRefused: the check may run.
	NotRefused Refusal = iota
	// Throttled: a bucket of the account, the address or the pair is empty.
	Throttled
	// Busy: every hashing slot is taken; try again in a moment.
	Busy
)

// Check is one admitted password check: it holds its tokens and a hashing
// slot until Succeeded or Failed.
type Check struct {
	t       *Throttle
	pairKey string
	taken   []*bucket
	done    bool
}

func pairKey(account, address string) string { return account + "\x00" + address }

// Begin admits one password check for account from address at time now,
// or says why not and how long to wait. The tokens are taken here, before
// any hashing; the caller must end an admitted check with Succeeded or
// Failed.
func (t *Throttle) Begin(account, address string, now time.Time) (*Check, Refusal, time.Duration) {
	pk := pairKey(account, address)
	t.mu.Lock()
	sets := []*limiterSet{t.pair, t.address}
	keys := []string{pk, address}
	if !t.known.has(pk, now) {
		sets, keys = append(sets, t.account), append(keys, account)
	}
	var wait time.Duration
	for i, s := range sets {
		wait = max(wait, s.wait(keys[i], now))
	}
	if wait > 0 {
		t.mu.Unlock()
		return nil, Throttled, wait
	}
	c := &Check{t: t, pairKey: pk}
	for i, s := range sets {
		c.taken = append(c.taken, s.take(keys[i], now))
	}
	t.mu.Unlock()
	select {
	case t.hashSlot <- struct{}{}:
		return c, NotRefused, 0
	default:
		c.giveBack(now)
		return nil, Busy, time.Second
	}
}

// Succeeded ends a check whose password was right: its tokens are given
// back (a success costs nothing, and does not refill what failures took)
// and the (account, address) becomes known.
func (c *Check) Succeeded(now time.Time) {
	if c.end() {
		c.t.mu.Lock()
		c.giveBackLocked(now)
		c.t.known.add(c.pairKey, now)
		c.t.mu.Unlock()
	}
}

// Failed ends a check whose password was wrong: its tokens stay taken.
func (c *Check) Failed() { c.end() }

func (c *Check) end() bool {
	if c.done {
		return false
	}
	c.done = true
	<-c.t.hashSlot
	return true
}

func (c *Check) giveBack(now time.Time) {
	c.t.mu.Lock()
	c.giveBackLocked(now)
	c.t.mu.Unlock()
}

func (c *Check) giveBackLocked(now time.Time) {
	for _, b := range c.taken {
		b.refund(now)
	}
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
// The Throttle's lock guards it.
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
