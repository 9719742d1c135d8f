package importer

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/internal/openapi"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// The fields of an operation a re-import compares and shows (beside the
// definition digest's own diff, R13); TestDiffFieldsCoverOperation keeps
// the list honest.
const (
	FieldMethod     = "method"
	FieldPath       = "path"
	FieldParameters = "parameters"
	FieldSecurity   = "security"
	FieldRiskClass  = "risk class"
)

// diffFields lists the compared fields that differ, as text for the diff
// page and the audit log, in the same type as a policy's diff.
func diffFields(s *Stored, op *openapi.Operation, a risk.Assessment) []policy.FieldChange {
	var out []policy.FieldChange
	add := func(field, before, after string) {
		if before != after {
			out = append(out, policy.FieldChange{Field: field, Before: before, After: after})
		}
	}
	add(FieldMethod, s.Op.Method, op.Method)
	add(FieldPath, s.Op.PathKey, op.PathKey)
	add(FieldParameters, ParametersText(s.Op.Parameters, s.Op.RequestBody), ParametersText(op.Parameters, op.RequestBody))
	add(FieldSecurity, SecurityText(s.Op.Security), SecurityText(op.Security))
	add(FieldRiskClass, s.DetectedClass.String(), a.Class.String())
	return out
}

// ParametersText summarises parameters and body in a stable order, e.g.
// "path:id* query:limit body(application/json)*" (* = required). Only the
// shape an agent's call depends on counts, not descriptions.
func ParametersText(params []openapi.Parameter, body *openapi.RequestBody) string {
	parts := make([]string, 0, len(params)+1)
	for _, p := range params {
		s := p.In + ":" + p.Name + schemaType(p.Schema)
		if p.Required {
			s += "*"
		}
		parts = append(parts, s)
	}
	sort.Strings(parts)
	if body != nil {
		s := "body(" + strings.Join(body.MediaTypes, ",") + ")"
		if body.Required {
			s += "*"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// schemaType renders the top-level "type" of a parameter schema, "(array)"
// or "(string|null)": a changed type changes what an agent must send. The
// schema is decoded rather than searched, because a nested "type" (under
// "items" or "properties") sorts before the top-level one in the JSON the
// openapi package writes.
func schemaType(schema []byte) string {
	var s struct {
		Type json.RawMessage `json:"type"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil || len(s.Type) == 0 {
		return ""
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil && one != "" {
		return "(" + one + ")"
	}
	var many []string
	if json.Unmarshal(s.Type, &many) == nil && len(many) > 0 {
		return "(" + strings.Join(many, "|") + ")"
	}
	return ""
}

// SecurityText summarises security alternatives in a stable order:
// "oauth2[read,write] | api_key", or "none".
func SecurityText(alts []openapi.SecurityAlternative) string {
	out := make([]string, 0, len(alts))
	for _, alt := range alts {
		parts := make([]string, 0, len(alt))
		for _, s := range alt {
			scopes := append([]string(nil), s.Scopes...)
			sort.Strings(scopes)
			p := s.Scheme
			if len(scopes) > 0 {
				p += "[" + strings.Join(scopes, ",") + "]"
			}
			parts = append(parts, p)
		}
		sort.Strings(parts)
		out = append(out, strings.Join(parts, " + "))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " | ")
}
