package openapi

import "encoding/json"

// Document is one parsed API description: its identity, where it is served,
// and every callable operation.
type Document struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	SpecVersion string `json:"spec_version"` // e.g. "2.0", "3.0.3", "3.1.0"
	// Origin is scheme://host[:port] of the first document-level server with
	// variables replaced by their defaults; "" when the document names none
	// or only a relative one.
	Origin string `json:"origin"`
	// BasePath is the path prefix of that server ("" or "/v2").
	BasePath        string           `json:"base_path"`
	Servers         []Server         `json:"servers"`
	SecuritySchemes []SecurityScheme `json:"security_schemes"`
	Operations      []Operation      `json:"operations"`
	Skipped         []Skipped        `json:"skipped"`
	Warnings        []string         `json:"warnings"`
	// Files names the files of the set the import read, root first, then
	// in the order its $refs reached them: what a digest of the import
	// must cover (a root file's siblings, not its whole directory).
	Files []string `json:"files,omitempty"`
}

// Operation is one method + path of a document, with everything the risk
// engine, the console and the executor need to know about it.
type Operation struct {
	// Tool is the agent-facing name: ^[a-zA-Z0-9_-]{1,64}$, unique within
	// the document, stable across re-imports of the same document.
	Tool   string `json:"tool"`
	Method string `json:"method"` // upper case: GET, POST, ...
	// Path is the path template as written under `paths`, with any
	// "#fragment" suffix removed (Box uses those to tell variants apart).
	Path string `json:"path"`
	// PathKey is the key exactly as written in the document (may keep a
	// #fragment); it identifies the operation across re-imports.
	PathKey     string `json:"path_key"`
	OperationID string `json:"operation_id"`
	// OperationIDDerived is true when the document has no operationId and
	// OperationID was derived from method and path.
	OperationIDDerived bool                       `json:"operation_id_derived"`
	Summary            string                     `json:"summary"`
	Description        string                     `json:"description"`
	Tags               []string                   `json:"tags"`
	Deprecated         bool                       `json:"deprecated"`
	Parameters         []Parameter                `json:"parameters"`
	RequestBody        *RequestBody               `json:"request_body,omitempty"`
	Security           []SecurityAlternative      `json:"security"`
	Servers            []Server                   `json:"servers"`
	Extensions         map[string]json.RawMessage `json:"extensions,omitempty"`
	// IdempotencyKeyHeader is the name of a declared header parameter that
	// carries an idempotency key (e.g. "Idempotency-Key"), or "".
	IdempotencyKeyHeader string `json:"idempotency_key_header"`
	// InputSchema is one JSON Schema object (draft 2020-12 compatible)
	// describing the arguments an agent passes: one property per parameter
	// (named by Parameter.Arg) and "body" for the request body. $refs are
	// resolved and recursion is bounded.
	InputSchema json.RawMessage `json:"input_schema"`
	// ResponseFields lists the property paths of every success (2xx)
	// response schema, refs followed to a bounded depth ("data.token",
	// "keys[].d"; "[]" marks array items, "{}" map values). The risk engine
	// reads them to see whether a response carries credential material.
	ResponseFields []string `json:"response_fields,omitempty"`
	// RequestFields lists the property paths of the request body schema
	// the same way, and RequestEnums the string enum values of those that
	// have one ("type" → ["reboot", "rebuild"]): a discriminator whose
	// values include "rebuild" makes an action operation destructive.
	RequestFields []string            `json:"request_fields,omitempty"`
	RequestEnums  map[string][]string `json:"request_enums,omitempty"`
	// SchemaGaps names each part of InputSchema toolgate could not expand
	// (an unresolved $ref, a schema over the expansion bounds): that part
	// accepts any value. A tool with gaps is flagged in the console and
	// needs an explicit acknowledgement to be exposed.
	SchemaGaps []string `json:"schema_gaps,omitempty"`
}

// Parameter is a path, query, header or cookie parameter after path-level
// and operation-level parameters were merged.
type Parameter struct {
	Name string `json:"name"` // the name on the wire
	In   string `json:"in"`   // path, query, header, cookie
	// Arg is the property name in InputSchema; usually Name, prefixed with
	// the location when two locations share a name.
	Arg         string          `json:"arg"`
	Required    bool            `json:"required"`
	Description string          `json:"description,omitempty"`
	Style       string          `json:"style,omitempty"`
	Explode     *bool           `json:"explode,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
}

// RequestBody describes the body an operation accepts.
type RequestBody struct {
	// Arg is the body's property name in InputSchema: "body", or
	// "request_body" when a parameter is itself named "body".
	Arg        string          `json:"arg"`
	Required   bool            `json:"required"`
	MediaTypes []string        `json:"media_types"`
	Schema     json.RawMessage `json:"schema,omitempty"` // of the first JSON media type, else the first
}

// SecurityAlternative is one entry of an OpenAPI security requirement list:
// all of its schemes are needed together. An operation's Security lists the
// alternatives (any one suffices); an empty list means no authentication.
type SecurityAlternative []SchemeScopes

// SchemeScopes names a security scheme and the scopes required from it.
type SchemeScopes struct {
	Scheme string   `json:"scheme"`
	Scopes []string `json:"scopes"`
}

// SecurityScheme describes how a scheme authenticates; never a secret.
type SecurityScheme struct {
	Name   string `json:"name"`
	Type   string `json:"type"`             // apiKey, http, oauth2, openIdConnect, mutualTLS, basic (2.0)
	Scheme string `json:"scheme,omitempty"` // for http: bearer, basic, ...
	In     string `json:"in,omitempty"`     // for apiKey: header, query, cookie
	Param  string `json:"param,omitempty"`  // for apiKey: the header/query/cookie name
}

// Server is a server URL with its variables' default values.
type Server struct {
	URL         string            `json:"url"`
	Description string            `json:"description,omitempty"`
	Variables   map[string]string `json:"variables,omitempty"`
}

// Skipped is something in the document that is not a callable operation.
type Skipped struct {
	Kind   string `json:"kind"` // "webhook" or "callback"
	Name   string `json:"name"`
	Method string `json:"method,omitempty"`
	Reason string `json:"reason"`
}
