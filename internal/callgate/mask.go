package callgate

import (
	"encoding/json"
	"regexp"
)

// secretName is an argument name that holds a secret whatever its schema
// says: password, secret, token, api key, credential, private key (any
// case, as a word within the name: "client_secret", "X-Api-Key",
// "accessToken").
var secretName = regexp.MustCompile(`(?i)(pass(word|wd|phrase)?|secret|token|api[-_]?key|credential|private[-_]?key|authorization)`)

// schemaNode is the part of a JSON Schema masking reads.
type schemaNode struct {
	WriteOnly  bool                   `json:"writeOnly"`
	Format     string                 `json:"format"`
	Properties map[string]*schemaNode `json:"properties"`
	Items      *schemaNode            `json:"items"`
}

// MaskSecrets returns a copy of args in which every value the input
// schema marks as a secret (writeOnly, format "password") or whose name
// is a secret's (secretName) is replaced by Masked, at any depth of
// objects and arrays. args is not modified; a schema that does not parse
// masks by name only.
func MaskSecrets(args map[string]any, inputSchema json.RawMessage) map[string]any {
	var root schemaNode
	_ = json.Unmarshal(inputSchema, &root) // by name only when it does not parse
	out, _ := maskValue(args, &root).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

func maskValue(v any, s *schemaNode) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for name, val := range v {
			var prop *schemaNode
			if s != nil {
				prop = s.Properties[name]
			}
			if secretName.MatchString(name) || prop != nil && (prop.WriteOnly || prop.Format == "password") {
				out[name] = Masked
				continue
			}
			out[name] = maskValue(val, prop)
		}
		return out
	case []any:
		var items *schemaNode
		if s != nil {
			items = s.Items
		}
		out := make([]any, len(v))
		for i, val := range v {
			if items != nil && (items.WriteOnly || items.Format == "password") {
				out[i] = Masked
				continue
			}
			out[i] = maskValue(val, items)
		}
		return out
	}
	return v
}
