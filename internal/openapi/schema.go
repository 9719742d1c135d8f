package openapi

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// Bounds for one converted schema. Depth cuts recursion that never repeats
// a $ref (deeply nested inline schemas); maxSchemaNodes keeps a single
// operation's schema small even when a document's components are huge.
const (
	maxSchemaDepth = 10
	maxSchemaNodes = 3000
)

// positionRe matches the "file:line:col: " an unresolved ref's warning
// starts with.
var positionRe = regexp.MustCompile(`^[^\n]*?:\d+:\d+: `)

// gapTooLarge is the SchemaGaps entry of a schema cut at maxSchemaNodes.
const gapTooLarge = "schema larger than the expansion bound: the rest is not expanded"

// schemaConv turns libopenapi schemas into plain JSON Schema (2020-12)
// values: $refs inlined, recursion cut, OpenAPI-only keywords translated or
// dropped so a standard validator compiles the result.
type schemaConv struct {
	nodes int
	cut   bool // something was cut for depth, recursion or size
	// gaps names what was left unconstrained for a reason other than
	// bounded recursion: an unresolved $ref, the node bound.
	gaps []string
}

// cutSchema accepts anything: a bounded stand-in for what was not expanded.
func cutSchema(why string) map[string]any {
	return map[string]any{"description": "not expanded: " + why}
}

func (c *schemaConv) proxy(sp *base.SchemaProxy, depth int, stack []string) any {
	if sp == nil {
		return map[string]any{}
	}
	if ref := sp.GetReference(); ref != "" {
		if slices.Contains(stack, ref) {
			c.cut = true
			return cutSchema("recursive reference to " + refName(ref))
		}
		stack = append(stack, ref)
	}
	if depth >= maxSchemaDepth {
		c.cut = true
		return cutSchema("nested deeper than the schema depth bound")
	}
	if c.nodes >= maxSchemaNodes {
		c.cut = true
		if len(c.gaps) == 0 || c.gaps[len(c.gaps)-1] != gapTooLarge {
			c.gaps = append(c.gaps, gapTooLarge)
		}
		return cutSchema("schema too large")
	}
	s := sp.Schema()
	if s == nil {
		return map[string]any{}
	}
	return c.schema(s, depth, stack)
}

func refName(ref string) string {
	return ref[strings.LastIndexAny(ref, "/#")+1:]
}

func (c *schemaConv) schema(s *base.Schema, depth int, stack []string) any {
	if s.BooleanSchema != nil {
		return *s.BooleanSchema
	}
	if msg := unresolvedOf(s.Extensions); msg != "" {
		c.gaps = append(c.gaps, msg)
		// Without the position: what an agent reads (and the pinned
		// definition digest covers) must not change when lines move.
		return map[string]any{"description": "unconstrained: " + positionRe.ReplaceAllString(msg, "")}
	}
	c.nodes++
	out := map[string]any{}
	c.types(out, s)
	setStr(out, "title", s.Title)
	setStr(out, "description", s.Description)
	setStr(out, "format", s.Format)
	if s.Pattern != "" {
		// Patterns that Go's regexp cannot compile would make the whole
		// schema fail to compile; keep them as documentation only.
		if _, err := regexp.Compile(s.Pattern); err == nil {
			out["pattern"] = s.Pattern
		} else {
			appendDesc(out, "pattern: "+s.Pattern)
		}
	}
	c.numbers(out, s)
	if len(s.Enum) > 0 {
		vals := make([]any, 0, len(s.Enum))
		for _, n := range s.Enum {
			vals = append(vals, nodeValue(n))
		}
		if slices.Contains(s.Type, "null") || (s.Nullable != nil && *s.Nullable) {
			if !slices.Contains(vals, any(nil)) {
				vals = append(vals, nil)
			}
		}
		out["enum"] = vals
	}
	if s.Const != nil {
		out["const"] = nodeValue(s.Const)
	}
	if s.Default != nil {
		out["default"] = nodeValue(s.Default)
	}
	if len(s.Required) > 0 {
		out["required"] = s.Required
	}
	for k, b := range map[string]*bool{"readOnly": s.ReadOnly, "writeOnly": s.WriteOnly, "deprecated": s.Deprecated, "uniqueItems": s.UniqueItems} {
		if b != nil && *b {
			out[k] = true
		}
	}
	c.children(out, s, depth, stack)
	return out
}

func (c *schemaConv) types(out map[string]any, s *base.Schema) {
	types := slices.Clone(s.Type)
	for i, t := range types {
		if t == "file" { // OpenAPI 2.0 upload: the agent passes content
			types[i] = "string"
			out["format"] = "binary"
		}
	}
	if s.Nullable != nil && *s.Nullable && len(types) > 0 && !slices.Contains(types, "null") {
		types = append(types, "null")
	}
	switch len(types) {
	case 0:
	case 1:
		out["type"] = types[0]
	default:
		out["type"] = types
	}
}

func (c *schemaConv) numbers(out map[string]any, s *base.Schema) {
	setF := func(k string, v *float64) {
		if v != nil {
			out[k] = *v
		}
	}
	setI := func(k string, v *int64) {
		if v != nil {
			out[k] = *v
		}
	}
	setF("minimum", s.Minimum)
	setF("maximum", s.Maximum)
	setF("multipleOf", s.MultipleOf)
	setI("minLength", s.MinLength)
	setI("maxLength", s.MaxLength)
	setI("minItems", s.MinItems)
	setI("maxItems", s.MaxItems)
	setI("minProperties", s.MinProperties)
	setI("maxProperties", s.MaxProperties)
	// 3.0 writes exclusiveMinimum: true next to minimum; 2020-12 wants the
	// bound itself under exclusiveMinimum.
	exclusive := func(k, plain string, dv *base.DynamicValue[bool, float64]) {
		if dv == nil {
			return
		}
		if dv.IsB() {
			out[k] = dv.B
			return
		}
		if dv.A {
			if v, ok := out[plain]; ok {
				out[k] = v
				delete(out, plain)
			}
		}
	}
	exclusive("exclusiveMinimum", "minimum", s.ExclusiveMinimum)
	exclusive("exclusiveMaximum", "maximum", s.ExclusiveMaximum)
}

func (c *schemaConv) children(out map[string]any, s *base.Schema, depth int, stack []string) {
	if s.Properties != nil && s.Properties.Len() > 0 {
		props := make(map[string]any, s.Properties.Len())
		for name, p := range s.Properties.FromOldest() {
			props[name] = c.proxy(p, depth+1, stack)
		}
		out["properties"] = props
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.IsA() {
			out["additionalProperties"] = c.proxy(ap.A, depth+1, stack)
		} else {
			out["additionalProperties"] = ap.B
		}
	}
	if it := s.Items; it != nil {
		if it.IsA() {
			out["items"] = c.proxy(it.A, depth+1, stack)
		} else {
			out["items"] = it.B
		}
	}
	list := func(k string, in []*base.SchemaProxy) {
		if len(in) == 0 {
			return
		}
		l := make([]any, 0, len(in))
		for _, p := range in {
			l = append(l, c.proxy(p, depth+1, stack))
		}
		out[k] = l
	}
	list("allOf", s.AllOf)
	list("oneOf", s.OneOf)
	list("anyOf", s.AnyOf)
	list("prefixItems", s.PrefixItems)
	if s.Not != nil {
		out["not"] = c.proxy(s.Not, depth+1, stack)
	}
}

func setStr(out map[string]any, k, v string) {
	if v != "" {
		out[k] = v
	}
}

func appendDesc(out map[string]any, extra string) {
	if d, ok := out["description"].(string); ok && d != "" {
		out["description"] = d + " (" + extra + ")"
		return
	}
	out["description"] = extra
}
