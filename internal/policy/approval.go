package policy

import (
	"slices"

	"github.com/toolgate/toolgate/internal/risk"
)

// Action is a kind of change that needs a security approver other than the
// requester (R10). The values are stable: they are stored with change
// requests and shown in the approvals list.
type Action string

// The actions of R10.
const (
	// ExposeRisky exposes a DESTRUCTIVE or PRIVILEGED tool, or exposes one
	// more widely (R15): to more callers (LoosensScope: groups widened) or
	// with fewer argument limits (a condition changed or removed).
	ExposeRisky Action = "expose_risky"
	// EnableMutationRetry lets a tool that is not safe by method be retried:
	// asserting idempotency, configuring or changing an idempotency key, or
	// raising the effective attempts of such a tool.
	EnableMutationRetry Action = "enable_mutation_retry"
	// LowerRiskClass lowers a tool's risk class (see LowerRisk).
	LowerRiskClass Action = "lower_risk"
)

// Title is the action as the approvals page names it.
func (a Action) Title() string {
	switch a {
	case ExposeRisky:
		return "Expose a destructive or privileged tool (or widen its groups or conditions)"
	case EnableMutationRetry:
		return "Enable retry on a tool that is not safe by method"
	case LowerRiskClass:
		return "Lower the risk class"
	default:
		return string(a)
	}
}

// ApprovalNeeded returns the R10 actions a policy change of one tool
// contains, in a fixed order; none means an ordinary edit that applies at
// once. Changes that only take something away (unexposing, removing a key,
// fewer attempts, narrowing the groups, adding a condition) never need
// approval.
//
// Raising the effective attempts of a non-safe tool that is already Safe,
// or adding statuses to its retry_on while it retries, counts as
// EnableMutationRetry too: the approver approved a retry budget, and a
// later ordinary edit must not enlarge it.
func ApprovalNeeded(method string, class risk.Class, before, after Policy) []Action {
	var out []Action
	if class >= risk.Destructive && after.Exposed && (!before.Exposed || LoosensScope(before, after)) {
		out = append(out, ExposeRisky)
	}
	if enablesMutationRetry(method, before, after) {
		out = append(out, EnableMutationRetry)
	}
	return out
}

func enablesMutationRetry(method string, before, after Policy) bool {
	if IsSafeMethod(method) {
		return false
	}
	switch {
	case !Safe(method, before) && Safe(method, after):
		return true
	case after.IdempotencyKey != nil && !keysEqual(before.IdempotencyKey, after.IdempotencyKey):
		return true
	case !before.Idempotent && after.Idempotent:
		return true
	}
	eb, ea := Effective(method, before), Effective(method, after)
	if ea.Retry.Attempts > eb.Retry.Attempts {
		return true
	}
	// Retrying a mutation on more kinds of response is more retry too: a
	// 500 added to retry_on may resend a write the server applied.
	return ea.Retry.Attempts > 1 && !statusSubset(ea.Retry.RetryOn, eb.Retry.RetryOn)
}

// statusSubset reports whether every status of a is in b.
func statusSubset(a, b []int) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

// keysEqual compares two keys as stored, nil included.
func keysEqual(a, b *IdempotencyKey) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// LowerRisk reports whether changing a tool's class from one to another
// lowers it, which needs an approver (R10). Setting a class on a tool that
// had none (an invalid from) is not lowering.
func LowerRisk(from, to risk.Class) bool {
	return from.Valid() && to.Valid() && to < from
}

// Explicit returns the changed fields that R2 makes an explicit per-tool
// act on a tool that is not safe by method: marking it idempotent
// (FieldIdempotent), configuring or changing its key (FieldKey) and raising
// its stored attempts above 1 (FieldAttempts). Bulk actions and project
// defaults must refuse a change for which Explicit is not empty.
func Explicit(method string, before, after Policy) []string {
	if IsSafeMethod(method) {
		return nil
	}
	var out []string
	if !before.Idempotent && after.Idempotent {
		out = append(out, FieldIdempotent)
	}
	if after.IdempotencyKey != nil && !keysEqual(before.IdempotencyKey, after.IdempotencyKey) {
		out = append(out, FieldKey)
	}
	if after.Retry.Attempts > 1 && after.Retry.Attempts > before.Retry.Attempts {
		out = append(out, FieldAttempts)
	}
	return out
}
