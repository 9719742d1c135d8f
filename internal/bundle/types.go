package bundle

import (
	"encoding/json"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// The bundle format's majors (doc.go, "Versioning"). Build writes the
// lowest major that carries the bundle: v1 unless a tool's policy has
// groups or conditions. KnownSchemas are the ones Verify reads.
const (
	SchemaV1 = "toolgate.bundle/v1"
	// SchemaV2 is v1 plus the policy's groups and conditions.
	SchemaV2 = "toolgate.bundle/v2"
	// Schema is the newest major this toolgate reads and writes.
	Schema = SchemaV2
)

// Bundle is the signed, versioned snapshot of the exposed tools and their
// effective policies. It carries no secrets: credentials live in the runtime.
//
// These are the domain types the console and the runtime work with. The
// signed payload is their wire form (wire.go), converted field by field;
// the json tags here only serve the console's own records and must not be
// taken for the wire format.
type Bundle struct {
	Schema    string    `json:"schema"`
	Version   int64     `json:"version"`
	IssuedAt  time.Time `json:"issued_at"`  // UTC, whole seconds
	ExpiresAt time.Time `json:"expires_at"` // UTC, whole seconds
	Sources   []Source  `json:"sources"`    // sorted by Name
	Tools     []Tool    `json:"tools"`      // sorted by Name
}

// Source is an imported API as a runtime needs it: where to send requests
// and how they authenticate (described, never the secret itself).
type Source struct {
	Name string `json:"name"`
	// Origin is scheme://host[:port]; a runtime never sends a request of
	// this source anywhere else.
	Origin   string       `json:"origin"`
	BasePath string       `json:"base_path"` // "" or "/v2"
	Auth     []AuthScheme `json:"auth"`
}

// AuthScheme describes how a source authenticates.
type AuthScheme struct {
	Name   string `json:"name"`
	Type   string `json:"type"`             // apiKey, http, oauth2, openIdConnect, mutualTLS, basic
	Scheme string `json:"scheme,omitempty"` // for http: bearer, basic
	In     string `json:"in,omitempty"`     // for apiKey: header, query, cookie
	Param  string `json:"param,omitempty"`  // for apiKey: header/query/cookie name
}

// Tool is one exposed tool with everything the executor needs to build its
// request and enforce its policy.
type Tool struct {
	Name        string  `json:"name"`
	Source      string  `json:"source"`
	Method      string  `json:"method"`
	Path        string  `json:"path"` // template relative to the source's BasePath, e.g. "/orders/{id}"
	Description string  `json:"description"`
	Params      []Param `json:"params"`
	Body        *Body   `json:"body,omitempty"`
	// InputSchema is the JSON Schema of the arguments (MCP inputSchema).
	InputSchema json.RawMessage `json:"input_schema"`
	Risk        risk.Class      `json:"risk"`
	Reasons     []risk.Reason   `json:"reasons"`
	Annotations Annotations     `json:"annotations"`
	// Policy is the effective policy (policy.Effective applied), not the
	// stored one.
	Policy    policy.Policy `json:"policy"`
	Approvals []Approval    `json:"approvals,omitempty"`
	// Digest is the tool's definition digest (DefinitionDigest, R13):
	// Validate refuses a tool whose digest is not that of its content.
	Digest string `json:"digest"`
}

// Param maps one tool argument to its place in the HTTP request.
type Param struct {
	Name     string `json:"name"` // name on the wire
	In       string `json:"in"`   // path, query, header, cookie
	Arg      string `json:"arg"`  // property name in InputSchema
	Required bool   `json:"required"`
}

// Body says how the request body is built from the arguments.
type Body struct {
	Arg       string `json:"arg"` // property name in InputSchema, usually "body"
	Required  bool   `json:"required"`
	MediaType string `json:"media_type"` // e.g. application/json
}

// Annotations are MCP tool annotations derived from the risk class and the
// effective policy.
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
}

// Approval records who approved which change request for a tool, when.
type Approval struct {
	ChangeRequest int64     `json:"change_request"`
	ApprovedBy    string    `json:"approved_by"`
	ApprovedAt    time.Time `json:"approved_at"`
	Summary       string    `json:"summary"`
}
