package web

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/views"
)

// auditDiff turns an audit entry's before and after (JSON of whatever shape
// the action records) into the rows the approvals page shows: one per leaf
// field, by dotted path, where the two sides differ. A side that is absent
// shows "—". Lists are compared whole, as compact JSON.
func auditDiff(before, after string) []views.DiffRowVM {
	b, a := flattenJSON(before), flattenJSON(after)
	keys := make([]string, 0, len(b)+len(a))
	for k := range b {
		keys = append(keys, k)
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []views.DiffRowVM
	for _, k := range keys {
		bv, bok := b[k]
		av, aok := a[k]
		if bok && aok && bv == av {
			continue
		}
		row := views.DiffRowVM{Field: k, Before: "—", After: "—"}
		if bok {
			row.Before = bv
		}
		if aok {
			row.After = av
		}
		out = append(out, row)
	}
	return out
}

// flattenJSON maps each leaf of a JSON document to its text. A value that is
// not an object (or not JSON at all) is one leaf named "value".
func flattenJSON(s string) map[string]string {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		out["value"] = s
		return out
	}
	flattenInto(out, "", v)
	return out
}

func flattenInto(out map[string]string, path string, v any) {
	name := path
	if name == "" {
		name = "value"
	}
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			out[name] = "{}"
		}
		for k, x := range t {
			if path != "" {
				k = path + "." + k
			}
			flattenInto(out, k, x)
		}
	case string:
		out[name] = t
	case nil:
		out[name] = "null"
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(t); err != nil {
			out[name] = "?"
			return
		}
		out[name] = strings.TrimSpace(buf.String())
	}
}
