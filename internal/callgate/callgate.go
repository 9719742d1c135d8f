// Package callgate is the wire contract of per-call decisions (R16): the
// call request a runtime files with the console when a tool's policy (or
// one of its conditions) asks a person before a call, the status the
// console answers with, and the consume call that spends a grant once.
// The grant itself is internal/bundle's (Grant, SignGrant, VerifyGrant):
// it is signed with the bundle key, so a runtime checks it offline with
// the keys it already trusts.
//
// The flow: the runtime files a Request (POST PathRequests) and does not
// contact the upstream. The console stores it (pending), notifies
// approvers and answers a Status. The runtime waits for the decision
// (GET PathRequests/{id}?wait=SECONDS, a long poll, up to its
// --decision-wait) and answers the agent with the result, POLICY_DENIED
// with the decider's comment, or APPROVAL_PENDING with the request id and
// its console URL. Filing is idempotent on the call's identity (principal,
// tool, definition digest, arguments digest, bundle version): an agent
// that calls again with the same arguments gets the same request, and
// once it is approved, its grant; different arguments are a new request.
// Before the call runs, the runtime verifies the grant, checks it Binds
// this call, and consumes it (POST PathConsume): the console answers 204
// once per grant, fleet-wide, in a transaction, and 409 after; a runtime
// that cannot reach the console fails the call closed.
//
// Versioning (STYLE habit 15): RequestSchema is "toolgate.call-request/v1";
// an optional member keeps it, anything else is v2.
package callgate

import (
	"time"

	"github.com/toolgate/toolgate/internal/callrecord"
)

// RequestSchema is the schema of a Request.
const RequestSchema = "toolgate.call-request/v1"

// Runtime API paths (authenticated with the runtime's bearer token).
const (
	// PathRequests: POST files a Request and answers a Status (201 for a
	// new request, 200 for an existing one with the same identity);
	// GET PathRequests + "/" + id answers its Status, waiting up to the
	// "wait" query parameter (seconds, at most MaxWait) while pending.
	PathRequests = "/api/v1/call-requests"
	// PathConsume: POST a Consume; 204 the first time, 409 Conflict when
	// the grant was used, 410 Gone when it expired or its request was
	// withdrawn, 400 for a grant that does not verify.
	PathConsume = "/api/v1/call-grants/consume"
)

// MaxWait bounds one long poll on a request's status.
const MaxWait = 60 * time.Second

// MaxArgumentsBytes bounds a request's (masked) arguments as JSON.
const MaxArgumentsBytes = 64 << 10

// Masked is the value that replaces a secret argument in a Request
// (MaskSecrets): the console shows it as it is and never learns the value.
const Masked = "[masked]"

// Principal is who a call is for: the recorded form plus the groups the
// console checks independence against where SSO groups are configured.
type Principal struct {
	callrecord.Principal
	Groups []string `json:"groups,omitempty"`
}

// Request is what a runtime files: one call that needs a person.
type Request struct {
	Schema           string `json:"schema"`
	Tool             string `json:"tool"`
	DefinitionDigest string `json:"definition_digest"`
	// ArgumentsDigest is callrecord.ArgumentsDigest of the unmasked
	// arguments: what the grant binds.
	ArgumentsDigest string `json:"arguments_digest"`
	// Arguments are the call's arguments with secrets masked
	// (MaskSecrets), for the person deciding.
	Arguments map[string]any `json:"arguments"`
	// Mode is policy.PerCallConfirm or policy.PerCallApprove.
	Mode string `json:"mode"`
	// Reason says why a person is asked: the condition's message when a
	// condition asked, "" when the tool's per-call mode did.
	Reason        string    `json:"reason,omitempty"`
	Principal     Principal `json:"principal"`
	BundleVersion int64     `json:"bundle_version"`
	// Instance is the runtime instance filing it (as on the fetch path).
	Instance string `json:"instance"`
	// Confirmed says the principal confirmed this exact call in their MCP
	// client (an elicitation the runtime sent). Only for mode confirm: the
	// console records the request as decided by the principal and answers
	// Approved with a grant at once. Refused (400) for mode approve.
	Confirmed bool `json:"confirmed,omitempty"`
}

// States of a call request.
const (
	Pending  = "pending"
	Approved = "approved"
	Denied   = "denied"
	// Expired: nobody decided before the request's expiry, or the grant
	// was not used before its not_after.
	Expired = "expired"
	// Consumed: the grant was spent; the call ran (or was attempted).
	Consumed = "consumed"
)

// Status is the console's answer about one request.
type Status struct {
	ID    string `json:"id"`
	State string `json:"state"`
	// URL is the console page where the request is decided (the
	// principal's own page for confirm).
	URL string `json:"url"`
	// Comment is the decider's comment (for POLICY_DENIED).
	Comment   string    `json:"comment,omitempty"`
	DecidedBy string    `json:"decided_by,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
	// Grant is the compact JWS of the bundle.Grant while State is
	// Approved; empty otherwise.
	Grant string `json:"grant,omitempty"`
}

// Consume is the body of POST PathConsume.
type Consume struct {
	Grant    string `json:"grant"`
	Instance string `json:"instance"`
}
