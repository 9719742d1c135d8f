// Package policy holds the tool policy (exposure, timeouts, response ceiling,
// retry, idempotency, circuit breaker), its defaults and validation, the
// effective policy a runtime enforces (rule R1), worst-case durations (R5) and
// which changes need a security approver (R2, R10).
package policy

// Policy is the stored policy of one tool. Field names are the wire names
// used in forms, change-request diffs and bundles.
type Policy struct {
	Exposed bool `json:"exposed"`
	// TimeoutMS bounds one attempt, including reading the body.
	TimeoutMS int `json:"timeout_ms"`
	// DeadlineMS bounds the whole call: every attempt and every wait.
	DeadlineMS       int   `json:"deadline_ms"`
	MaxResponseBytes int64 `json:"max_response_bytes"`
	Retry            Retry `json:"retry"`
	// Idempotent is the admin's assertion that the API treats repeated
	// calls as one; it does not add deduplication to the API.
	Idempotent bool `json:"idempotent"`
	// IdempotencyKey is nil when no key is sent.
	IdempotencyKey *IdempotencyKey `json:"idempotency_key"`
	Breaker        Breaker         `json:"circuit_breaker"`
	// Groups names the principal groups allowed to call the tool; empty
	// means every caller the runtime admits. Enforced by runtimes on bundle
	// format v2 only (see internal/bundle's doc).
	Groups []string `json:"groups,omitempty"`
	// Conditions are argument rules the runtime evaluates, in order, before
	// any request is sent; the first that refuses decides. Bundle v2 only.
	Conditions []Condition `json:"conditions,omitempty"`
	// PerCall asks a person before each call (R16): "" (no one: the
	// call runs once the tool is exposed), PerCallConfirm or
	// PerCallApprove. Bundle v2 only.
	PerCall string `json:"per_call,omitempty"`
}

// Per-call modes (R16), weakest first: PerCallRank orders them.
const (
	// PerCallConfirm: the principal (the person the agent acts for)
	// confirms this exact call, a defence against prompt injection.
	PerCallConfirm = "confirm"
	// PerCallApprove: a security approver who is not the principal
	// decides on this exact call (four eyes, R10).
	PerCallApprove = "approve"
)

// PerCallRank orders per-call modes by how much they ask: 0 for none,
// 1 for confirm, 2 for approve; -1 for a value that is not a mode.
func PerCallRank(mode string) int {
	switch mode {
	case "":
		return 0
	case PerCallConfirm:
		return 1
	case PerCallApprove:
		return 2
	}
	return -1
}

// Condition effects.
const (
	// ConditionDeny refuses the call when Expr is true.
	ConditionDeny = "deny"
	// ConditionAllowOnly refuses the call unless Expr is true.
	ConditionAllowOnly = "allow_only"
	// ConditionConfirm asks the principal to confirm the call when Expr
	// is true (R16), whatever the tool's PerCall.
	ConditionConfirm = "confirm"
	// ConditionApprove asks a security approver when Expr is true (R16).
	ConditionApprove = "approve"
)

// ConditionEffects are the effects a condition may have, in the order the
// console offers them.
var ConditionEffects = []string{ConditionDeny, ConditionAllowOnly, ConditionConfirm, ConditionApprove}

// ConditionAsks reports whether a condition's effect asks a person rather
// than refusing: confirm or approve.
func ConditionAsks(effect string) bool {
	return effect == ConditionConfirm || effect == ConditionApprove
}

// Condition is one argument rule: a CEL expression over args (typed from
// the tool's input schema) and principal, with the message an agent gets
// when the rule refuses a call.
type Condition struct {
	Effect  string `json:"effect"`
	Expr    string `json:"expr"`
	Message string `json:"message"`
}

// Retry configures automatic retries (R3, R4).
type Retry struct {
	// Attempts is the total number of attempts, 1..5.
	Attempts   int     `json:"attempts"`
	BackoffMS  int     `json:"backoff_ms"`
	Multiplier float64 `json:"multiplier"`
	Jitter     bool    `json:"jitter"`
	// RetryOn lists the HTTP statuses treated as transient: a subset of
	// 408, 429, 502, 503, 504, optionally extended with 500 and 501.
	// Connection failures and attempt timeouts are always transient.
	RetryOn []int `json:"retry_on"`
}

// Key sources for IdempotencyKey.Source.
const (
	KeyGenerated = "generated"
	KeyArgument  = "argument"
)

// IdempotencyKey configures the key sent on every attempt of one call (R6).
type IdempotencyKey struct {
	Header string `json:"header"` // default "Idempotency-Key"
	Source string `json:"source"` // KeyGenerated or KeyArgument
	// Argument names the tool argument holding the key when Source is
	// KeyArgument (default "idempotency_key").
	Argument string `json:"argument,omitempty"`
}

// Breaker configures the per-tool circuit breaker (R7).
type Breaker struct {
	Threshold int `json:"threshold"`
	ResetMS   int `json:"reset_ms"`
}
