package policy

import (
	"slices"

	"github.com/toolgate/toolgate/internal/risk"
)

// ProjectDefaults are the values a new tool policy starts from and what
// "apply defaults" resets. By construction they can never make a non-safe
// tool retry, mark anything idempotent, configure an idempotency key, or
// expose a DESTRUCTIVE or PRIVILEGED tool (R2, R10): they have no field
// that could say so.
type ProjectDefaults struct {
	// Safe applies to tools that are safe by method (GET, HEAD, OPTIONS).
	Safe SafeDefaults `json:"safe"`
	// All applies to every tool.
	All AllDefaults `json:"all"`
	// ExposeNewReadTools exposes newly imported READ tools at once.
	ExposeNewReadTools bool `json:"expose_new_read_tools"`
}

// SafeDefaults is the retry and timeout of tools that are safe by method.
type SafeDefaults struct {
	Attempts   int     `json:"attempts"`
	BackoffMS  int     `json:"backoff_ms"`
	Multiplier float64 `json:"multiplier"`
	Jitter     bool    `json:"jitter"`
	RetryOn    []int   `json:"retry_on"`
	// TimeoutMS replaces All.TimeoutMS for safe tools: reads are expected
	// to answer quickly.
	TimeoutMS int `json:"timeout_ms"`
}

// AllDefaults is what every tool starts from, safe or not.
type AllDefaults struct {
	TimeoutMS        int     `json:"timeout_ms"`
	DeadlineMS       int     `json:"deadline_ms"`
	MaxResponseBytes int64   `json:"max_response_bytes"`
	Breaker          Breaker `json:"circuit_breaker"`
}

// BuiltinDefaults returns the project defaults a new project starts with:
// safe tools get 2 attempts, 300 ms backoff, multiplier 2, jitter and a
// 5000 ms timeout (the seed's suggestion for an availability read); every
// tool gets an 8000 ms timeout, a 30000 ms deadline, a 1 MiB response
// ceiling and a breaker opening after 5 failures for 30000 ms. New tools are
// not exposed.
func BuiltinDefaults() ProjectDefaults {
	return ProjectDefaults{
		Safe: SafeDefaults{
			Attempts:   2,
			BackoffMS:  300,
			Multiplier: DefaultMultiplier,
			Jitter:     true,
			RetryOn:    DefaultRetryOn(),
			TimeoutMS:  5000,
		},
		All: AllDefaults{
			TimeoutMS:        DefaultTimeoutMS,
			DeadlineMS:       DefaultDeadlineMS,
			MaxResponseBytes: DefaultMaxResponseBytes,
			Breaker:          Breaker{Threshold: DefaultBreakerThreshold, ResetMS: DefaultBreakerResetMS},
		},
	}
}

// NewToolPolicy returns the policy a freshly imported tool gets from the
// project defaults d. Tools safe by method get d.Safe's retry and timeout;
// every other tool gets one attempt, is not idempotent and sends no key,
// whatever d says (R2). Only READ tools are exposed, and only when
// d.ExposeNewReadTools is on; DESTRUCTIVE and PRIVILEGED never are (R10).
// Unset (zero) fields of d fall back to the built-in values, so even a zero
// ProjectDefaults yields a complete policy.
func NewToolPolicy(method string, class risk.Class, d ProjectDefaults) Policy {
	p := Policy{
		Exposed: d.ExposeNewReadTools && class == risk.Read,
		// One attempt (DefaultAttempts): only applyAll gives safe tools more.
		Retry: DefaultRetry(),
	}
	p = applyAll(method, p, d)
	return withDefaults(p)
}

// ApplyDefaults is the bulk "apply defaults" action on one tool: it resets
// the timeout, deadline, response ceiling and breaker to d, and the retry of
// a tool that is safe by method to d.Safe. It never touches Exposed,
// Idempotent, IdempotencyKey or the retry of a tool that is not safe by
// method (R2: those are explicit per-tool acts, possibly approved under
// R10). class is taken so callers pass the same tool description as to
// NewToolPolicy; exposure is deliberately not derived from it here.
func ApplyDefaults(method string, _ risk.Class, current Policy, d ProjectDefaults) Policy {
	p := current
	p.Retry.RetryOn = slices.Clone(current.Retry.RetryOn)
	if current.IdempotencyKey != nil {
		k := *current.IdempotencyKey
		p.IdempotencyKey = &k
	}
	return applyAll(method, p, d)
}

// applyAll copies the defaults that a bulk action may change into p.
func applyAll(method string, p Policy, d ProjectDefaults) Policy {
	d = d.filled()
	p.TimeoutMS = d.All.TimeoutMS
	p.DeadlineMS = d.All.DeadlineMS
	p.MaxResponseBytes = d.All.MaxResponseBytes
	p.Breaker = d.All.Breaker
	if IsSafeMethod(method) {
		p.TimeoutMS = d.Safe.TimeoutMS
		p.Retry = Retry{
			Attempts:   d.Safe.Attempts,
			BackoffMS:  d.Safe.BackoffMS,
			Multiplier: d.Safe.Multiplier,
			Jitter:     d.Safe.Jitter,
			RetryOn:    slices.Clone(d.Safe.RetryOn),
		}
	}
	return p
}

// ToolState is one tool as the defaults page sees it.
type ToolState struct {
	Method string
	Class  risk.Class
	Policy Policy
}

// ChangedByDefaults returns the indexes of the tools whose stored policy
// ApplyDefaults with d would change, so the defaults page can say how many
// tools a change affects before it is saved.
func ChangedByDefaults(tools []ToolState, d ProjectDefaults) []int {
	var changed []int
	for i, t := range tools {
		if !Equal(t.Policy, ApplyDefaults(t.Method, t.Class, t.Policy, d)) {
			changed = append(changed, i)
		}
	}
	return changed
}

// CountChanged returns how many tools ApplyDefaults with d would change.
func CountChanged(tools []ToolState, d ProjectDefaults) int {
	return len(ChangedByDefaults(tools, d))
}

// filled returns d with every unset (zero) value replaced by the built-in
// one, so that applying even a zero ProjectDefaults stores a complete
// policy. A nil Safe.RetryOn takes the R3 set; an empty one stays empty.
func (d ProjectDefaults) filled() ProjectDefaults {
	b := BuiltinDefaults()
	fill := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	fill(&d.All.TimeoutMS, b.All.TimeoutMS)
	fill(&d.All.DeadlineMS, max(b.All.DeadlineMS, d.All.TimeoutMS))
	if d.All.MaxResponseBytes <= 0 {
		d.All.MaxResponseBytes = b.All.MaxResponseBytes
	}
	fill(&d.All.Breaker.Threshold, b.All.Breaker.Threshold)
	fill(&d.All.Breaker.ResetMS, b.All.Breaker.ResetMS)
	fill(&d.Safe.TimeoutMS, min(b.Safe.TimeoutMS, d.All.DeadlineMS))
	fill(&d.Safe.Attempts, 1)
	d.Safe.Attempts = min(d.Safe.Attempts, MaxAttempts)
	d.Safe.BackoffMS = max(d.Safe.BackoffMS, 0)
	if !(d.Safe.Multiplier >= 1) {
		d.Safe.Multiplier = b.Safe.Multiplier
	}
	if d.Safe.RetryOn == nil {
		d.Safe.RetryOn = DefaultRetryOn()
	}
	return d
}
