package openapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/orderedmap"
)

// builder accumulates one Document while walking a libopenapi model.
type builder struct {
	file string
	opts Options
	doc  Document
	// fields memoises response-property walks by $ref (responses.go).
	fields map[fieldKey][]string
	// nodeFields is fields for the node-tree walk (responses_nodes.go).
	nodeFields map[fieldKey][]string
	// schemaBytes sums the input schemas built so far; err is set, and
	// the walk stops, once it passes Options.MaxTotalSchemaBytes.
	schemaBytes int64
	err         error
	// rootData and batchOps split the model's build (eachBatch); batchOps
	// 0 builds it whole.
	rootData []byte
	batchOps int
	// docSecurity is the document's default security, read with the
	// first batch.
	docSecurity []SecurityAlternative
}

func newBuilder(file string, opts Options) *builder {
	return &builder{file: file, opts: opts}
}

func (b *builder) warnf(format string, args ...any) {
	b.doc.Warnings = append(b.doc.Warnings, fmt.Sprintf(format, args...))
}

// finish names the tools and sets the origin once every operation is known.
func (b *builder) finish() *Document {
	d := &b.doc
	AssignToolNames(d.Operations)
	if len(d.Servers) > 0 {
		d.Origin, d.BasePath = splitServer(expandServer(d.Servers[0]))
		if d.Origin == "" {
			b.warnf("the first server URL %q is relative: the origin must be given when the source is imported", d.Servers[0].URL)
		}
	} else {
		b.warnf("the document names no server: the origin must be given when the source is imported")
	}
	if len(d.Operations) == 0 {
		if len(d.Skipped) > 0 {
			b.warnf("no callable operations: the document only describes %d webhooks/callbacks", len(d.Skipped))
		} else {
			b.warnf("no operations: the document has no paths")
		}
	}
	if n := len(d.Skipped); n > 0 && len(d.Operations) > 0 {
		b.warnf("%d webhooks/callbacks skipped: they are not callable operations", n)
	}
	return d
}

// expandServer replaces {variables} in a server URL by their defaults.
func expandServer(s Server) string {
	u := s.URL
	for k, v := range s.Variables {
		u = strings.ReplaceAll(u, "{"+k+"}", v)
	}
	return u
}

// splitServer splits an absolute server URL into origin and base path; a
// relative one has no origin.
func splitServer(raw string) (origin, basePath string) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", strings.TrimRight(raw, "/")
	}
	return u.Scheme + "://" + u.Host, strings.TrimRight(u.Path, "/")
}

// derivedOperationID names an operation without operationId from its method
// and path key, e.g. GET /users/{user_id} -> get_users_user_id.
func derivedOperationID(method, pathKey string) string {
	return sanitizeName(strings.ToLower(method) + "_" + strings.Trim(sanitizeName(pathKey), "_"))
}

// extensions converts x-… values to raw JSON for storage and display.
func extensions(m *orderedmap.Map[string, *yaml.Node]) map[string]json.RawMessage {
	if m == nil || m.Len() == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, m.Len())
	for k, n := range m.FromOldest() {
		if raw, err := json.Marshal(nodeValue(n)); err == nil {
			out[k] = raw
		}
	}
	return out
}

// mergeExtensions applies the path item's x-… keys to each of its
// operations, the operation's own value winning: a path-level marker such
// as x-requires-admin describes every method under it, and the risk engine
// must see it.
func mergeExtensions(pathLevel, opLevel map[string]json.RawMessage) map[string]json.RawMessage {
	if len(pathLevel) == 0 {
		return opLevel
	}
	out := make(map[string]json.RawMessage, len(pathLevel)+len(opLevel))
	for k, v := range pathLevel {
		out[k] = v
	}
	for k, v := range opLevel {
		out[k] = v
	}
	return out
}

// nodeValue decodes a YAML node into JSON-compatible Go values, the
// "$ref" keys of literal data the ref checker renamed (literalRefKey)
// restored: what toolgate reads.
func nodeValue(n *yaml.Node) any { return decodeNode(n, true) }

// libraryValue is nodeValue for a tree libopenapi reads again: literal
// data keeps literalRefKey, so the library does not follow it.
func libraryValue(n *yaml.Node) any { return decodeNode(n, false) }

func decodeNode(n *yaml.Node, restore bool) any {
	if n == nil {
		return nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value
	}
	return jsonable(v, restore)
}

// jsonable converts YAML's map[any]any (non-string keys, e.g. response
// codes) into map[string]any so encoding/json accepts it and, when restore
// is set, turns literalRefKey back into "$ref".
func jsonable(v any, restore bool) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonable(e, restore)
		}
		restoreLiteralRef(t, restore)
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = jsonable(e, restore)
		}
		restoreLiteralRef(m, restore)
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonable(e, restore)
		}
		return t
	}
	return v
}

func restoreLiteralRef(m map[string]any, restore bool) {
	if e, ok := m[literalRefKey]; ok && restore {
		delete(m, literalRefKey)
		m["$ref"] = e
	}
}

// idempotencyHeader names a declared header that carries an idempotency key.
func idempotencyHeader(params []Parameter) string {
	for _, p := range params {
		if p.In != "header" {
			continue
		}
		switch strings.ToLower(p.Name) {
		case "idempotency-key", "x-idempotency-key", "idempotency_key", "x-idempotency_key":
			return p.Name
		}
	}
	return ""
}

// assignArgs names each parameter's input property: the wire name, or
// location_name when two locations share a name. It returns the property
// name of the request body: "body", or "request_body" when a parameter is
// itself called body.
func assignArgs(params []Parameter) string {
	count := map[string]int{}
	for _, p := range params {
		count[p.Name]++
	}
	for i := range params {
		p := &params[i]
		p.Arg = p.Name
		if count[p.Name] > 1 {
			p.Arg = p.In + "_" + p.Name
		}
	}
	for _, p := range params {
		if p.Arg == "body" {
			return "request_body"
		}
	}
	return "body"
}

// mergeParams applies OpenAPI's rule that an operation-level parameter
// overrides a path-level one with the same name and location: params lists
// the path level first, and a later entry takes the place of an earlier one
// with the same key.
func mergeParams[P any](params []P, key func(P) string) []P {
	seen := map[string]int{}
	var out []P
	for _, p := range params {
		k := key(p)
		if i, ok := seen[k]; ok {
			out[i] = p
			continue
		}
		seen[k] = len(out)
		out = append(out, p)
	}
	return out
}

// paramKey is a parameter's identity under mergeParams.
func paramKey(p Parameter) string { return p.In + "\x00" + p.Name }

// securityOf converts libopenapi requirements; an empty requirement object
// ({}) is an alternative needing nothing, kept as an empty alternative.
func securityOf(reqs []*base.SecurityRequirement) []SecurityAlternative {
	out := make([]SecurityAlternative, 0, len(reqs))
	for _, r := range reqs {
		alt := SecurityAlternative{}
		if r.Requirements != nil {
			for name, scopes := range r.Requirements.FromOldest() {
				s := append([]string{}, scopes...)
				sort.Strings(s)
				alt = append(alt, SchemeScopes{Scheme: name, Scopes: s})
			}
		}
		out = append(out, alt)
	}
	return out
}
