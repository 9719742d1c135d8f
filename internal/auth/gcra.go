package auth

import "time"

// GCRA is a token bucket of Burst tokens refilled at one per Every, in the
// form a database keeps it: one number per bucket, the theoretical arrival
// time (TAT, unix milliseconds), instead of a token count and a time. The
// bucket is full when TAT <= now; each token taken pushes TAT one Every
// further. It is the same bucket as the in-memory one, so the shared
// throttle keeps the in-memory throttle's semantics exactly:
//
//	tokens(now) = Burst - (max(TAT, now) - now) / Every
//
// Every must be positive (a bucket that never refills has no TAT form).
type GCRA struct {
	Every time.Duration
	Burst int
}

// Wait returns how long until the bucket with tat has a token at now, 0
// when it has one.
func (g GCRA) Wait(tat, now int64) time.Duration {
	every := g.Every.Milliseconds()
	if w := tat - now - int64(g.Burst-1)*every; w > 0 {
		return time.Duration(w) * time.Millisecond
	}
	return 0
}

// Take returns the TAT after one token is taken (the caller checked Wait).
func (g GCRA) Take(tat, now int64) int64 { return max(tat, now) + g.Every.Milliseconds() }

// Refund returns the TAT after one token is given back: never above a full
// bucket.
func (g GCRA) Refund(tat, now int64) int64 { return max(tat-g.Every.Milliseconds(), now) }
