package auth

import (
	"context"
	"fmt"
	"runtime"
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
// password is hashed, in one atomic step over all its buckets, so
// concurrent guesses cannot all pass a check that only counted finished
// failures; a check that succeeds gives its tokens back. A bounded number of
// checks hash at once in this process (the bound is about this process's
// memory, so it is never shared).
//
// The buckets live in memory (NewThrottle: one console) or wherever a
// Buckets implementation keeps them (NewSharedThrottle: the database, so
// guesses spread over several consoles meet the same limits).
type Throttle struct {
	buckets  Buckets
	hashSlot chan struct{}
}

// Buckets keeps a Throttle's token buckets and known pairs. Take and Refund
// must each be atomic over the buckets they touch.
type Buckets interface {
	// Take takes one token from the (account, address) bucket, the
	// address's bucket and — unless the pair signed in within KnownFor —
	// the account's bucket, all or none. It returns whether the account's
	// bucket was among them, or, when one is empty, how long until all
	// have a token (and takes nothing).
	Take(ctx context.Context, account, address string, now time.Time) (accountTaken bool, wait time.Duration, err error)
	// Refund gives back one token to each bucket Take took from.
	Refund(ctx context.Context, account, address string, accountTaken bool, now time.Time) error
	// Remember marks (account, address) as having signed in at now.
	Remember(ctx context.Context, account, address string, now time.Time) error
}

// NewThrottle returns a Throttle with cfg, its buckets in memory.
func NewThrottle(cfg ThrottleConfig) *Throttle {
	return NewSharedThrottle(cfg, newMemoryBuckets(cfg))
}

// NewSharedThrottle returns a Throttle with cfg's hashing bound whose
// buckets are b (built with the same cfg).
func NewSharedThrottle(cfg ThrottleConfig, b Buckets) *Throttle {
	n := cfg.Hashers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return &Throttle{buckets: b, hashSlot: make(chan struct{}, n)}
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
	t                *Throttle
	account, address string
	accountTaken     bool
	done             bool
}

func pairKey(account, address string) string { return account + "\x00" + address }

// Begin admits one password check for account from address at time now,
// or says why not and how long to wait. The tokens are taken here, before
// any hashing; the caller must end an admitted check with Succeeded or
// Failed. An error (the shared buckets could not be read) admits nothing.
func (t *Throttle) Begin(ctx context.Context, account, address string, now time.Time) (*Check, Refusal, time.Duration, error) {
	accountTaken, wait, err := t.buckets.Take(ctx, account, address, now)
	if err != nil {
		return nil, NotRefused, 0, fmt.Errorf("sign-in throttle: %w", err)
	}
	if wait > 0 {
		return nil, Throttled, wait, nil
	}
	c := &Check{t: t, account: account, address: address, accountTaken: accountTaken}
	select {
	case t.hashSlot <- struct{}{}:
		return c, NotRefused, 0, nil
	default:
		if err := t.buckets.Refund(ctx, account, address, accountTaken, now); err != nil {
			return nil, NotRefused, 0, fmt.Errorf("sign-in throttle: %w", err)
		}
		return nil, Busy, time.Second, nil
	}
}

// Succeeded ends a check whose password was right: its tokens are given
// back (a success costs nothing, and does not refill what failures took)
// and the (account, address) becomes known.
func (c *Check) Succeeded(ctx context.Context, now time.Time) error {
	if !c.end() {
		return nil
	}
	if err := c.t.buckets.Refund(ctx, c.account, c.address, c.accountTaken, now); err != nil {
		return fmt.Errorf("sign-in throttle: %w", err)
	}
	if err := c.t.buckets.Remember(ctx, c.account, c.address, now); err != nil {
		return fmt.Errorf("sign-in throttle: %w", err)
	}
	return nil
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
