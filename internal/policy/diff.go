package policy

import (
	"slices"
	"strconv"
	"strings"
)

// FieldChange is one changed field of a policy, with dotted wire names
// ("retry.attempts", "idempotency_key.header") and values as text, for
// display and for the exact-diff check of change requests (R10).
type FieldChange struct {
	Field  string `json:"field"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// Field names used by Diff, Explicit and validation messages.
const (
	FieldExposed          = "exposed"
	FieldTimeoutMS        = "timeout_ms"
	FieldDeadlineMS       = "deadline_ms"
	FieldMaxResponseBytes = "max_response_bytes"
	FieldAttempts         = "retry.attempts"
	FieldBackoffMS        = "retry.backoff_ms"
	FieldMultiplier       = "retry.multiplier"
	FieldJitter           = "retry.jitter"
	FieldRetryOn          = "retry.retry_on"
	FieldIdempotent       = "idempotent"
	FieldKey              = "idempotency_key"
	FieldKeyHeader        = "idempotency_key.header"
	FieldKeySource        = "idempotency_key.source"
	FieldKeyArgument      = "idempotency_key.argument"
	FieldBreakerThreshold = "circuit_breaker.threshold"
	FieldBreakerResetMS   = "circuit_breaker.reset_ms"
	FieldGroups           = "groups"
	// FieldConditions is the prefix of one condition's field,
	// "conditions[0]", "conditions[1]" …
	FieldConditions = "conditions"
	FieldPerCall    = "per_call"
)

// Diff lists the fields that differ between two stored policies, in a fixed
// order. RetryOn is compared as a set; nil ("default") and empty ("none")
// differ because they mean different things. A key switched on or off shows
// as idempotency_key off/on followed by its fields.
func Diff(before, after Policy) []FieldChange {
	var out []FieldChange
	add := func(field, b, a string) {
		if b != a {
			out = append(out, FieldChange{Field: field, Before: b, After: a})
		}
	}
	add(FieldExposed, strconv.FormatBool(before.Exposed), strconv.FormatBool(after.Exposed))
	add(FieldTimeoutMS, strconv.Itoa(before.TimeoutMS), strconv.Itoa(after.TimeoutMS))
	add(FieldDeadlineMS, strconv.Itoa(before.DeadlineMS), strconv.Itoa(after.DeadlineMS))
	add(FieldMaxResponseBytes, strconv.FormatInt(before.MaxResponseBytes, 10), strconv.FormatInt(after.MaxResponseBytes, 10))
	add(FieldAttempts, strconv.Itoa(before.Retry.Attempts), strconv.Itoa(after.Retry.Attempts))
	add(FieldBackoffMS, strconv.Itoa(before.Retry.BackoffMS), strconv.Itoa(after.Retry.BackoffMS))
	add(FieldMultiplier, formatFloat(before.Retry.Multiplier), formatFloat(after.Retry.Multiplier))
	add(FieldJitter, strconv.FormatBool(before.Retry.Jitter), strconv.FormatBool(after.Retry.Jitter))
	add(FieldRetryOn, retryOnText(before.Retry.RetryOn), retryOnText(after.Retry.RetryOn))
	add(FieldIdempotent, strconv.FormatBool(before.Idempotent), strconv.FormatBool(after.Idempotent))
	bk, ak := before.IdempotencyKey, after.IdempotencyKey
	add(FieldKey, onOff(bk != nil), onOff(ak != nil))
	add(FieldKeyHeader, keyField(bk, func(k *IdempotencyKey) string { return k.Header }), keyField(ak, func(k *IdempotencyKey) string { return k.Header }))
	add(FieldKeySource, keyField(bk, func(k *IdempotencyKey) string { return k.Source }), keyField(ak, func(k *IdempotencyKey) string { return k.Source }))
	add(FieldKeyArgument, keyField(bk, func(k *IdempotencyKey) string { return k.Argument }), keyField(ak, func(k *IdempotencyKey) string { return k.Argument }))
	add(FieldBreakerThreshold, strconv.Itoa(before.Breaker.Threshold), strconv.Itoa(after.Breaker.Threshold))
	add(FieldBreakerResetMS, strconv.Itoa(before.Breaker.ResetMS), strconv.Itoa(after.Breaker.ResetMS))
	add(FieldGroups, groupsText(before.Groups), groupsText(after.Groups))
	for i := range max(len(before.Conditions), len(after.Conditions)) {
		add(ConditionField(i), conditionText(before.Conditions, i), conditionText(after.Conditions, i))
	}
	add(FieldPerCall, perCallText(before.PerCall), perCallText(after.PerCall))
	return out
}

// Equal reports whether two stored policies are the same in every field
// Diff compares; an approval is void unless the tool's current policy is
// Equal to the request's "before" (R10).
func Equal(a, b Policy) bool { return len(Diff(a, b)) == 0 }

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func keyField(k *IdempotencyKey, f func(*IdempotencyKey) string) string {
	if k == nil {
		return ""
	}
	return f(k)
}

// retryOnText renders a status set sorted and deduplicated: "default" for
// nil (the R3 set), "none" for an empty list.
func retryOnText(on []int) string {
	if on == nil {
		return "default"
	}
	if len(on) == 0 {
		return "none"
	}
	s := slices.Clone(on)
	slices.Sort(s)
	s = slices.Compact(s)
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

// groupsText is a group list as a set: sorted, comma separated, "any"
// when empty.
func groupsText(groups []string) string {
	if len(groups) == 0 {
		return "any"
	}
	s := slices.Clone(groups)
	slices.Sort(s)
	return strings.Join(slices.Compact(s), ", ")
}

// conditionText is condition i as "effect: expr — message", "none" past
// the end.
func conditionText(cs []Condition, i int) string {
	if i >= len(cs) {
		return "none"
	}
	c := cs[i]
	return c.Effect + ": " + c.Expr + " — " + c.Message
}

// perCallText is a per-call mode as Diff shows it.
func perCallText(mode string) string {
	if mode == "" {
		return "none"
	}
	return mode
}
