package bundle

import (
	"encoding/json"
	"time"
)

// The wire types below are the signed payload exactly as doc.go specifies
// it, member for member: the canonical encoder (encode.go) writes them and
// Verify decodes into them. They are deliberately not the domain types
// (Bundle, policy.Policy, risk.Class, ...) the rest of toolgate works with:
// a field added to a domain type must not change the wire format of the
// running major by accident (STYLE.md: types that cross a process boundary are wire types). wire_convert.go maps each
// of them to and from its domain type, field by field, and
// TestWireConversionCoversEveryField fails when a domain field is added and
// not mapped.
//
// The member names are the json tags; encode.go writes the same members in
// the same order (TestEncoderMatchesJCSOnRandomBundles). Members of later
// compatible revisions of the major are not here: a verifier ignores them
// (see "Versioning" in doc.go).

// wireBundle is the payload's top-level object.
type wireBundle struct {
	Schema    string       `json:"schema"`
	Version   int64        `json:"version"`
	IssuedAt  time.Time    `json:"issued_at"`
	ExpiresAt time.Time    `json:"expires_at"`
	Sources   []wireSource `json:"sources"`
	Tools     []wireTool   `json:"tools"`
}

// wireSource is one source object.
type wireSource struct {
	Name     string     `json:"name"`
	Origin   string     `json:"origin"`
	BasePath string     `json:"base_path"`
	Auth     []wireAuth `json:"auth"`
}

// wireAuth is one member of a source's auth list.
type wireAuth struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Scheme string `json:"scheme,omitempty"`
	In     string `json:"in,omitempty"`
	Param  string `json:"param,omitempty"`
}

// wireTool is one tool object.
type wireTool struct {
	Name        string          `json:"name"`
	Source      string          `json:"source"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Description string          `json:"description"`
	Params      []wireParam     `json:"params"`
	Body        *wireBody       `json:"body,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Risk and a reason's Class are the class names (READ, WRITE,
	// DESTRUCTIVE, PRIVILEGED); a name this runtime does not know is
	// refused, never read as some other class.
	Risk        string          `json:"risk"`
	Reasons     []wireReason    `json:"reasons"`
	Annotations wireAnnotations `json:"annotations"`
	Policy      wirePolicy      `json:"policy"`
	Approvals   []wireApproval  `json:"approvals,omitempty"`
	Digest      string          `json:"digest"`
}

// wireParam is one member of a tool's params list.
type wireParam struct {
	Name     string `json:"name"`
	In       string `json:"in"`
	Arg      string `json:"arg"`
	Required bool   `json:"required"`
}

// wireBody is a tool's optional body object.
type wireBody struct {
	Arg       string `json:"arg"`
	Required  bool   `json:"required"`
	MediaType string `json:"media_type"`
}

// wireAnnotations are a tool's MCP hints.
type wireAnnotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
}

// wireReason is one member of a tool's reasons list.
type wireReason struct {
	Code  string `json:"code"`
	Class string `json:"class"`
	Text  string `json:"text"`
}

// wireApproval is one member of a tool's approvals list.
type wireApproval struct {
	ChangeRequest int64     `json:"change_request"`
	ApprovedBy    string    `json:"approved_by"`
	ApprovedAt    time.Time `json:"approved_at"`
	Summary       string    `json:"summary"`
}

// wirePolicy is a tool's effective policy.
type wirePolicy struct {
	Exposed          bool                `json:"exposed"`
	TimeoutMS        int                 `json:"timeout_ms"`
	DeadlineMS       int                 `json:"deadline_ms"`
	MaxResponseBytes int64               `json:"max_response_bytes"`
	Retry            wireRetry           `json:"retry"`
	Idempotent       bool                `json:"idempotent"`
	IdempotencyKey   *wireIdempotencyKey `json:"idempotency_key"`
	Breaker          wireBreaker         `json:"circuit_breaker"`
	// Groups and Conditions are toolgate.bundle/v2 members, absent when
	// empty: a tool that uses neither has the same bytes in both majors.
	Groups     []string        `json:"groups,omitempty"`
	Conditions []wireCondition `json:"conditions,omitempty"`
	// PerCall is a v2 member too, absent when no one is asked (R16).
	PerCall string `json:"per_call,omitempty"`
}

// wireCondition is one member of a policy's conditions list (v2).
type wireCondition struct {
	Effect  string `json:"effect"`
	Expr    string `json:"expr"`
	Message string `json:"message"`
}

// wireRetry is a policy's retry object.
type wireRetry struct {
	Attempts   int     `json:"attempts"`
	BackoffMS  int     `json:"backoff_ms"`
	Multiplier float64 `json:"multiplier"`
	Jitter     bool    `json:"jitter"`
	RetryOn    []int   `json:"retry_on"`
}

// wireIdempotencyKey is a policy's idempotency_key object (null when no key
// is sent).
type wireIdempotencyKey struct {
	Header   string `json:"header"`
	Source   string `json:"source"`
	Argument string `json:"argument,omitempty"`
}

// wireBreaker is a policy's circuit_breaker object.
type wireBreaker struct {
	Threshold int `json:"threshold"`
	ResetMS   int `json:"reset_ms"`
}
