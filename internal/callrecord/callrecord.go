// Package callrecord is the wire format of call records: one entry per
// tools/call decision a runtime made (allowed and executed, or denied, and
// why), sent to the console in batches on the fetch path and stored there
// for a configurable time (README "Call records").
//
// A record names the principal (kind, subject, client id), the tool, its
// definition digest (R13) and a digest of the call's arguments — SHA-256
// of their canonical JSON (RFC 8785) — never the arguments themselves: two
// calls with the same arguments have the same digest, so a person can tell
// repeats apart from new calls, but nothing a tool was sent is kept.
//
// Versioning (STYLE habit 15): Batch.Schema is "toolgate.call-records/v1".
// A compatible addition (a new optional field) keeps it; anything else is
// v2, and a console refuses a schema it does not know (the runtime keeps
// the records and drops the oldest when its buffer is full).
package callrecord

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gowebpki/jcs"
)

// Schema is the batch format this package writes and reads.
const Schema = "toolgate.call-records/v1"

// MaxBatch is the most records one batch carries: a batch is at most a
// few tens of KiB, under the runtime API's request body limit.
const MaxBatch = 100

// Decisions a runtime makes on a tools/call.
const (
	// Allowed: the call was handed to the executor; Class says how it
	// ended (OK, an upstream failure, or the executor's own refusal such
	// as INVALID_ARGUMENTS or CIRCUIT_OPEN).
	Allowed = "allowed"
	// DeniedExposure: not in the bundle in force, withheld, the bundle
	// expired, or a DESTRUCTIVE/PRIVILEGED tool while stale (R11).
	DeniedExposure = "denied_exposure"
	// DeniedGroup: the principal is in none of the tool's groups (R15).
	DeniedGroup = "denied_group"
	// DeniedCondition: an argument condition refused the call (R15).
	DeniedCondition = "denied_condition"
	// AwaitingDecision: a person must decide the call (R16) and had not
	// when the runtime stopped waiting (APPROVAL_PENDING); nothing was sent.
	AwaitingDecision = "awaiting_decision"
	// DeniedPerCall: the per-call decision refused the call (R16): the
	// decider denied it, the principal declined it, its grant was refused
	// (spent, expired, not for this call), or no console could be asked
	// (fail closed). Class POLICY_DENIED; nothing was sent.
	DeniedPerCall = "denied_per_call"
)

// ClassOK is the class of a call that succeeded (the executor's classes
// name failures only).
const ClassOK = "OK"

// deniedBy maps the class of a runtime's refusal to its decision; any
// other class is a call the runtime allowed. A refusal by groups has the
// class of an unknown tool (the agent learns nothing about a tool it may
// not call) and the decision DeniedGroup (GoesWith).
var deniedBy = map[string]string{
	"TOOL_NOT_EXPOSED": DeniedExposure,
	"POLICY_DENIED":    DeniedCondition,
	"APPROVAL_PENDING": AwaitingDecision,
}

// GoesWith reports whether a record's decision fits its class: the
// decision of the class, DeniedGroup for TOOL_NOT_EXPOSED, or
// DeniedPerCall for POLICY_DENIED.
func GoesWith(decision, class string) bool {
	return decision == DecisionOf(class) || decision == DeniedGroup && class == "TOOL_NOT_EXPOSED" ||
		decision == DeniedPerCall && class == "POLICY_DENIED"
}

// DecisionOf is the decision behind a call that ended with class.
func DecisionOf(class string) string {
	if d, ok := deniedBy[class]; ok {
		return d
	}
	return Allowed
}

// Principal is who a call was for, as recorded (groups are not: they are
// the identity provider's, and can be many).
type Principal struct {
	Kind     string `json:"kind"`
	Subject  string `json:"subject,omitempty"`
	ClientID string `json:"client_id,omitempty"`
}

// Record is one tools/call decision.
type Record struct {
	// ID is random (NewID): a batch sent again after a lost answer is
	// stored once.
	ID               string    `json:"id"`
	Tool             string    `json:"tool"`
	DefinitionDigest string    `json:"definition_digest,omitempty"` // "" when the tool is not in the bundle in force
	ArgumentsDigest  string    `json:"arguments_digest"`
	Principal        Principal `json:"principal"`
	Decision         string    `json:"decision"`
	Class            string    `json:"class"`
	Status           int       `json:"status,omitempty"`   // the upstream's last HTTP status; 0 when none
	Attempts         int       `json:"attempts,omitempty"` // requests sent upstream
	At               time.Time `json:"at"`
	DurationMS       int64     `json:"duration_ms"`
}

// Batch is what a runtime sends: POST /api/v1/call-records.
type Batch struct {
	Schema  string   `json:"schema"`
	Records []Record `json:"records"`
}

// NewID returns a random record id (32 hex digits).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// ArgumentsDigest is "sha256:" and the hex SHA-256 of args as canonical
// JSON (RFC 8785); nil and empty arguments have the digest of {}.
func ArgumentsDigest(args map[string]any) (string, error) {
	if args == nil {
		args = map[string]any{}
	}
	canon, ok := appendCanonical(make([]byte, 0, 256), args)
	if !ok {
		var err error
		if canon, err = marshalCanonical(args); err != nil {
			return "", fmt.Errorf("arguments digest: %w", err)
		}
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// marshalCanonical is the general path of the canonical form: any value
// json.Marshal takes, transformed by RFC 8785.
func marshalCanonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(raw)
}
