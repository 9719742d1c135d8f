package policy

import (
	"slices"
	"strings"
)

// Built-in values of a tool policy (R4, R5, R6, R7, R9). A stored policy
// starts from project defaults; these fill whatever a stored policy leaves
// unset and are the seed of BuiltinDefaults.
const (
	DefaultTimeoutMS        = 8000
	DefaultDeadlineMS       = 30000
	DefaultMaxResponseBytes = 1 << 20
	DefaultAttempts         = 1
	DefaultBackoffMS        = 500
	DefaultMultiplier       = 2.0
	DefaultJitter           = true
	DefaultKeyHeader        = "Idempotency-Key"
	DefaultKeyArgument      = "idempotency_key"
	DefaultBreakerThreshold = 5
	DefaultBreakerResetMS   = 30000

	// MaxAttempts is the schema's cap on retry.attempts (R4).
	MaxAttempts = 5
	// MaxDelayMS caps the computed backoff before jitter is applied (R4).
	MaxDelayMS = 60000
)

// DefaultRetryOn returns the R3 transient statuses retried by default. It
// returns a fresh slice so callers may keep or modify it.
func DefaultRetryOn() []int { return []int{408, 429, 502, 503, 504} }

// IsSafeMethod reports whether an HTTP method is safe by itself under R1:
// GET, HEAD or OPTIONS, in any letter case.
func IsSafeMethod(method string) bool {
	switch strings.ToUpper(strings.TrimSpace(method)) {
	case "GET", "HEAD", "OPTIONS":
		return true
	}
	return false
}

// Safe reports whether automatic retry is allowed for a tool (R1): its method
// is safe, or the admin asserted idempotency, or an idempotency key is sent.
func Safe(method string, p Policy) bool {
	return IsSafeMethod(method) || p.Idempotent || p.IdempotencyKey != nil
}

// Effective returns what a runtime does with a stored policy: unset (zero)
// fields take the built-in defaults, attempts are clamped to 1..MaxAttempts
// and timeout and deadline to their maximums,
// and a tool that is not Safe gets exactly one attempt whatever is stored
// (R1: "attempts: 3 alone on a POST still means one attempt").
//
// "Unset" means zero where zero is not a meaningful value: timeout, deadline,
// response ceiling, attempts, multiplier and the breaker fields. A Retry
// that is entirely zero takes every retry default (including jitter on and
// a 500 ms backoff); inside a partly set Retry a zero backoff means "retry at
// once" and jitter false means no jitter, because both are valid choices. A
// nil RetryOn means the R3 default set, while an empty non-nil RetryOn means
// "connection failures and timeouts only". An unset deadline is at least
// the attempt timeout, so one attempt always fits.
//
// p is not modified; the result shares no memory with it.
func Effective(method string, p Policy) Policy {
	e := withDefaults(p)
	if !Safe(method, e) {
		e.Retry.Attempts = 1
	}
	return e
}

// withDefaults fills unset fields and clamps attempts, without applying R1.
func withDefaults(p Policy) Policy {
	e := p
	if e.TimeoutMS <= 0 {
		e.TimeoutMS = DefaultTimeoutMS
	}
	if e.DeadlineMS <= 0 {
		e.DeadlineMS = max(DefaultDeadlineMS, e.TimeoutMS)
	}
	// A runtime never honours more than the schema allows, whatever a
	// corrupt store or bundle holds; this also keeps durations from
	// overflowing.
	e.TimeoutMS = min(e.TimeoutMS, MaxTimeoutMS)
	e.DeadlineMS = min(e.DeadlineMS, MaxDeadlineMS)
	if e.MaxResponseBytes <= 0 {
		e.MaxResponseBytes = DefaultMaxResponseBytes
	}
	e.Retry = retryWithDefaults(p.Retry)
	if p.IdempotencyKey != nil {
		k := *p.IdempotencyKey
		if k.Header == "" {
			k.Header = DefaultKeyHeader
		}
		if k.Source == "" {
			k.Source = KeyGenerated
		}
		if k.Source == KeyArgument && k.Argument == "" {
			k.Argument = DefaultKeyArgument
		}
		e.IdempotencyKey = &k
	}
	if e.Breaker.Threshold <= 0 {
		e.Breaker.Threshold = DefaultBreakerThreshold
	}
	if e.Breaker.ResetMS <= 0 {
		e.Breaker.ResetMS = DefaultBreakerResetMS
	}
	return e
}

// DefaultRetry returns the built-in retry settings (R4): one attempt, 500 ms
// backoff, multiplier 2, jitter on, the R3 statuses.
func DefaultRetry() Retry {
	return Retry{
		Attempts:   DefaultAttempts,
		BackoffMS:  DefaultBackoffMS,
		Multiplier: DefaultMultiplier,
		Jitter:     DefaultJitter,
		RetryOn:    DefaultRetryOn(),
	}
}

func retryWithDefaults(r Retry) Retry {
	if r.Attempts == 0 && r.BackoffMS == 0 && r.Multiplier == 0 && !r.Jitter && r.RetryOn == nil {
		return DefaultRetry()
	}
	r.Attempts = min(max(r.Attempts, 1), MaxAttempts)
	if r.BackoffMS < 0 {
		r.BackoffMS = 0
	}
	switch {
	case r.Multiplier == 0:
		r.Multiplier = DefaultMultiplier
	case !(r.Multiplier >= 1): // below 1 or NaN: never let waits shrink
		r.Multiplier = 1
	}
	if r.RetryOn == nil {
		r.RetryOn = DefaultRetryOn()
	} else {
		r.RetryOn = slices.Clone(r.RetryOn)
	}
	return r
}
