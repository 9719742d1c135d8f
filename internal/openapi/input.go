package openapi

import (
	"encoding/json"
	"fmt"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// DefaultMaxSchemaBytes bounds one operation's input schema when
// Options.MaxSchemaBytes is zero. It was 256 KiB, which cut the body of a
// real Square operation (270 KB expanded); the store keeps a schema shared
// by many operations once (content-addressed), so 1 MiB costs little, and
// the import as a whole is bounded by Options.MaxTotalSchemaBytes.
const DefaultMaxSchemaBytes = 1 << 20

// paramSchema converts a parameter's schema, carrying the parameter's
// description onto it when the schema has none (agents read it there).
func (b *builder) paramSchema(sp *base.SchemaProxy, desc string) (json.RawMessage, []string) {
	c := &schemaConv{}
	v := c.proxy(sp, 0, nil)
	return b.withDescription(v, desc, c.cut), c.gaps
}

func (b *builder) withDescription(v any, desc string, cut bool) json.RawMessage {
	if m, ok := v.(map[string]any); ok && desc != "" {
		if _, has := m["description"]; !has || cut {
			m["description"] = desc
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return raw
}

// addOperation fills the derived fields of o and appends it. body is the
// 3.x (or 2.0 "in: body") schema; form is a 2.0 formData object schema.
func (b *builder) addOperation(o Operation, body *base.SchemaProxy, form map[string]any, at *yaml.Node) {
	if b.err != nil {
		return
	}
	if o.RequestBody != nil {
		switch {
		case body != nil:
			c := &schemaConv{}
			raw, err := json.Marshal(c.proxy(body, 0, nil))
			if err == nil {
				o.RequestBody.Schema = raw
			}
			o.SchemaGaps = append(o.SchemaGaps, c.gaps...)
		case form != nil:
			o.RequestBody.Schema, _ = json.Marshal(form)
		}
	}
	if o.Parameters == nil {
		o.Parameters = []Parameter{}
	}
	if o.Security == nil {
		o.Security = []SecurityAlternative{}
	}
	bodyArg := assignArgs(o.Parameters)
	if o.RequestBody != nil {
		o.RequestBody.Arg = bodyArg
	}
	o.IdempotencyKeyHeader = idempotencyHeader(o.Parameters)
	o.InputSchema = b.inputSchema(&o)
	o.SchemaGaps = uniqueStrings(o.SchemaGaps)
	for _, g := range o.SchemaGaps {
		b.warnf("%s %s: input schema incomplete, flagged: %s", o.Method, o.PathKey, g)
	}
	b.overBudget(&o, at)
	if b.err == nil {
		b.doc.Operations = append(b.doc.Operations, o)
	}
}

// inputSchema builds the one object schema an agent fills in. When it is
// over the size bound, the body and then the parameter schemas are replaced
// by permissive stand-ins, with a warning naming the operation.
func (b *builder) inputSchema(o *Operation) json.RawMessage {
	limit := b.opts.MaxSchemaBytes
	if limit <= 0 {
		limit = DefaultMaxSchemaBytes
	}
	build := func(stubBody, stubParams bool) json.RawMessage {
		props := map[string]any{}
		required := []string{}
		for _, p := range o.Parameters {
			var s any = p.Schema
			if len(p.Schema) == 0 || stubParams {
				s = map[string]any{"description": p.Description}
			}
			props[p.Arg] = s
			if p.Required {
				required = append(required, p.Arg)
			}
		}
		if rb := o.RequestBody; rb != nil {
			var s any = rb.Schema
			if len(rb.Schema) == 0 || stubBody {
				s = cutSchema("request body schema too large")
			}
			props[rb.Arg] = s
			if rb.Required {
				required = append(required, rb.Arg)
			}
		}
		raw, _ := json.Marshal(map[string]any{
			"type": "object", "properties": props, "required": required, "additionalProperties": false,
		})
		return raw
	}
	raw := build(false, false)
	if len(raw) <= limit {
		return raw
	}
	o.SchemaGaps = append(o.SchemaGaps, fmt.Sprintf("input schema over %d bytes: request body schema not expanded", limit))
	if raw = build(true, false); len(raw) <= limit {
		return raw
	}
	o.SchemaGaps = append(o.SchemaGaps, "parameter schemas not expanded either")
	return build(true, true)
}

// uniqueStrings drops repeats, keeping the first of each in order.
func uniqueStrings(in []string) []string {
	if len(in) < 2 {
		return in
	}
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
