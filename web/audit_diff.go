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
//
// A change request's entry wraps its proposal ({"request":…, "kind":…,
// "after": policy}) while its before is the bare policy: the wrapper's own
// fields are listed first as context and the policy is compared with the
// policy, field by field, instead of every field showing as new.
func auditDiff(before, after string) []views.DiffRowVM {
	bv, av := parseJSON(before), parseJSON(after)
	var context []views.DiffRowVM
	if bm, ok := bv.(map[string]any); ok {
		if am, ok := av.(map[string]any); ok {
			if inner, ok := am["after"].(map[string]any); ok {
				if _, wrapped := bm["after"]; !wrapped {
					rest := map[string]any{}
					for k, v := range am {
						if k != "after" {
							rest[k] = v
						}
					}
					context = diffFlat(map[string]string{}, flatten(rest))
					av = inner
				}
			}
		}
	}
	return append(context, diffFlat(flatten(bv), flatten(av))...)
}

// diffFlat lists the paths whose text differs between b and a, sorted.
func diffFlat(b, a map[string]string) []views.DiffRowVM {
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

// absent stands for an empty side (nothing before a creation).
type absent struct{}

// parseJSON decodes s keeping numbers exact; text that is not JSON stays a
// string, and "" is absent.
func parseJSON(s string) any {
	if strings.TrimSpace(s) == "" {
		return absent{}
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return s
	}
	return v
}

// flatten maps each leaf of v to its text. A value that is not an object is
// one leaf named "value".
func flatten(v any) map[string]string {
	out := map[string]string{}
	if _, ok := v.(absent); !ok {
		flattenInto(out, "", v)
	}
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
