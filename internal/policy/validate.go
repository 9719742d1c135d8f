package policy

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Validation ranges (R4, R5, R7, R9).
const (
	MinTimeoutMS        = 100
	MaxTimeoutMS        = 300000
	MaxDeadlineMS       = 3600000
	MinMaxResponseBytes = 1 << 10
	MaxMaxResponseBytes = 64 << 20
	MaxBackoffMS        = 60000
	MaxMultiplier       = 10
	MaxBreakerThreshold = 100
	MinBreakerResetMS   = 1000
	MaxBreakerResetMS   = 3600000
)

// ValidationError lists what is wrong with a policy or with project
// defaults, one sentence per field, keyed by the dotted wire name
// ("retry.attempts"), so a form can show each message next to its input.
type ValidationError struct {
	// Subject is what was validated: "policy" or "project defaults".
	Subject string
	Fields  map[string]string
}

// Error lists every field's message, sorted by field name.
func (e *ValidationError) Error() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + e.Fields[k]
	}
	subject := e.Subject
	if subject == "" {
		subject = "policy"
	}
	return "invalid " + subject + ": " + strings.Join(parts, "; ")
}

// validation collects field messages; the first message for a field wins.
type validation map[string]string

func (v validation) add(field, format string, args ...any) {
	if _, ok := v[field]; !ok {
		v[field] = fmt.Sprintf(format, args...)
	}
}

func (v validation) intRange(field string, n, lo, hi int, unit string) {
	if n < lo || n > hi {
		v.add(field, "must be between %d and %d%s (got %d)", lo, hi, unit, n)
	}
}

func (v validation) err(subject string) error {
	if len(v) == 0 {
		return nil
	}
	return &ValidationError{Subject: subject, Fields: v}
}

// Validate checks a complete stored policy: every range of R4, R5, R7 and
// R9, retry_on within the statuses R3 allows, and a usable idempotency key.
// Zero is out of range wherever zero is not a meaningful value, because a
// stored policy is what an admin saw and saved. The error is a
// *ValidationError.
func (p Policy) Validate() error {
	v := validation{}
	v.intRange(FieldTimeoutMS, p.TimeoutMS, MinTimeoutMS, MaxTimeoutMS, " ms")
	switch {
	case p.DeadlineMS < p.TimeoutMS:
		v.add(FieldDeadlineMS, "must be at least the attempt timeout (%d ms), so one attempt fits (got %d)", p.TimeoutMS, p.DeadlineMS)
	case p.DeadlineMS > MaxDeadlineMS:
		v.add(FieldDeadlineMS, "must be at most %d ms, one hour (got %d)", MaxDeadlineMS, p.DeadlineMS)
	}
	validateMaxResponseBytes(v, FieldMaxResponseBytes, p.MaxResponseBytes)
	validateRetry(v, "retry.", p.Retry.Attempts, p.Retry.BackoffMS, p.Retry.Multiplier, p.Retry.RetryOn)
	if k := p.IdempotencyKey; k != nil {
		validateKey(v, *k)
	}
	validateBreaker(v, FieldBreakerThreshold, FieldBreakerResetMS, p.Breaker)
	validateScope(v, p)
	return v.err("policy")
}

func validateMaxResponseBytes(v validation, field string, n int64) {
	if n < MinMaxResponseBytes || n > MaxMaxResponseBytes {
		v.add(field, "must be between 1 KiB (1024) and 64 MiB (67108864) bytes (got %d)", n)
	}
}

// validateRetry checks the retry fields; prefix is "retry." for a policy
// and "safe." for project defaults.
func validateRetry(v validation, prefix string, attempts, backoffMS int, multiplier float64, retryOn []int) {
	v.intRange(prefix+"attempts", attempts, 1, MaxAttempts, " attempts in total")
	v.intRange(prefix+"backoff_ms", backoffMS, 0, MaxBackoffMS, " ms")
	if math.IsNaN(multiplier) || multiplier < 1 || multiplier > MaxMultiplier {
		v.add(prefix+"multiplier", "must be between 1 and %d (got %s)", MaxMultiplier, formatFloat(multiplier))
	}
	for _, s := range retryOn {
		if !AllowedRetryStatus(s) {
			v.add(prefix+"retry_on", "may only list 408, 429, 500, 501, 502, 503 and 504; %d is not a transient failure", s)
		}
	}
}

// keyHeaderDenied are headers an idempotency key must not replace: they
// carry credentials, address the request or frame the body.
func keyHeaderDenied(h string) bool {
	switch strings.ToLower(h) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "host",
		"content-length", "content-type", "content-encoding", "transfer-encoding",
		"connection", "keep-alive", "upgrade", "te", "trailer", "expect",
		"proxy-connection", "forwarded", "x-forwarded-for", "x-forwarded-host",
		"x-forwarded-proto", "accept", "accept-encoding", "user-agent":
		return true
	}
	return false
}

// argumentName is the tool-argument rule: the name rule of LLM function
// calling, which tool names also follow.
var argumentName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func validateKey(v validation, k IdempotencyKey) {
	switch {
	case k.Header == "":
		v.add(FieldKeyHeader, "is required (for example %s)", DefaultKeyHeader)
	case !isToken(k.Header):
		v.add(FieldKeyHeader, "%q is not a valid HTTP header name", k.Header)
	case keyHeaderDenied(k.Header):
		v.add(FieldKeyHeader, "%s is reserved for the request itself and cannot carry an idempotency key", k.Header)
	}
	switch k.Source {
	case KeyGenerated:
		if k.Argument != "" {
			v.add(FieldKeyArgument, "is only used when the key comes from an argument")
		}
	case KeyArgument:
		if k.Argument != "" && !argumentName.MatchString(k.Argument) {
			v.add(FieldKeyArgument, "%q must be 1 to 64 letters, digits, _ or -", k.Argument)
		}
	default:
		v.add(FieldKeySource, "must be %q or %q (got %q)", KeyGenerated, KeyArgument, k.Source)
	}
}

func validateBreaker(v validation, thresholdField, resetField string, b Breaker) {
	v.intRange(thresholdField, b.Threshold, 1, MaxBreakerThreshold, " failures")
	v.intRange(resetField, b.ResetMS, MinBreakerResetMS, MaxBreakerResetMS, " ms")
}

// isToken reports whether s is an RFC 9110 token, the syntax of a header
// field name.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// Validate checks project defaults with the same ranges as a tool policy,
// and that the safe-tool timeout fits in the deadline. The error is a
// *ValidationError with fields such as "safe.attempts" and
// "all.deadline_ms".
func (d ProjectDefaults) Validate() error {
	v := validation{}
	validateRetry(v, "safe.", d.Safe.Attempts, d.Safe.BackoffMS, d.Safe.Multiplier, d.Safe.RetryOn)
	v.intRange("safe.timeout_ms", d.Safe.TimeoutMS, MinTimeoutMS, MaxTimeoutMS, " ms")
	v.intRange("all.timeout_ms", d.All.TimeoutMS, MinTimeoutMS, MaxTimeoutMS, " ms")
	longest := max(d.All.TimeoutMS, d.Safe.TimeoutMS)
	switch {
	case d.All.DeadlineMS < longest:
		v.add("all.deadline_ms", "must be at least the longest attempt timeout (%d ms), so one attempt fits (got %d)", longest, d.All.DeadlineMS)
	case d.All.DeadlineMS > MaxDeadlineMS:
		v.add("all.deadline_ms", "must be at most %d ms, one hour (got %d)", MaxDeadlineMS, d.All.DeadlineMS)
	}
	validateMaxResponseBytes(v, "all.max_response_bytes", d.All.MaxResponseBytes)
	validateBreaker(v, "all.circuit_breaker.threshold", "all.circuit_breaker.reset_ms", d.All.Breaker)
	return v.err("project defaults")
}
