package openapi

import (
	"slices"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v2 "github.com/pb33f/libopenapi/datamodel/high/v2"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// Bounds of the response-property walk. The risk engine only needs to know
// whether a success response can carry credential material, so the walk
// stops at a shallow depth (vendor envelopes such as {"data": {"attributes":
// …}} fit) and at a fixed number of properties per operation.
const (
	maxResponseDepth  = 6
	maxResponseFields = 400
)

// successResponseFields lists the properties of every 2xx response schema
// of a 3.x operation (see Operation.ResponseFields).
func (b *builder) successResponseFieldsV3(rs *v3.Responses) []string {
	if rs == nil || rs.Codes == nil {
		return nil
	}
	if f, ok := b.successResponseFieldsNodes(rs); ok {
		return f
	}
	w := responseWalk{cache: b.fieldCache()}
	for code, r := range rs.Codes.FromOldest() {
		if !isSuccessCode(code) || r == nil || r.Content == nil {
			continue
		}
		for _, mt := range r.Content.FromOldest() {
			if mt != nil {
				w.proxy(mt.Schema, "", 0, nil)
			}
		}
	}
	return w.done()
}

// successResponseFieldsNodes is successResponseFieldsV3 read from the
// node tree (nodeWalk); ok is false when the model must be walked.
func (b *builder) successResponseFieldsNodes(rs *v3.Responses) ([]string, bool) {
	if b.rootData == nil || b.opts.modelWalk {
		return nil, false
	}
	if b.nodeFields == nil {
		b.nodeFields = map[fieldKey][]string{}
	}
	var w nodeWalk
	w.cache = b.nodeFields
	for code, r := range rs.Codes.FromOldest() {
		if !isSuccessCode(code) || r == nil || r.Content == nil {
			continue
		}
		for _, mt := range r.Content.FromOldest() {
			if mt == nil || mt.Schema == nil {
				continue
			}
			if w.root == nil {
				if low := mt.Schema.GoLow(); low != nil && low.GetIndex() != nil {
					w.root = low.GetIndex().GetRootNode()
				}
				if w.root == nil {
					return nil, false
				}
			}
			n := nodeOf(mt.Schema)
			if n == nil {
				return nil, false
			}
			// For a $ref with siblings the library hands over the
			// target's node: walk it under its reference, as the model
			// walk does, so a cycle back to it is cut at the same place.
			if ref := mt.Schema.GetReference(); ref != "" && n.Kind == yaml.MappingNode {
				if r, bad := refOf(n); !bad && r == "" {
					w.cached(n, ref, "", 0, nil)
					if w.bad {
						return nil, false
					}
					continue
				}
			}
			w.proxy(n, "", 0, nil)
			if w.bad {
				return nil, false
			}
		}
	}
	return sortedFields(w.fields), true
}

// successResponseFieldsV2 is successResponseFieldsV3 for Swagger 2.0.
func (b *builder) successResponseFieldsV2(rs *v2.Responses) []string {
	if rs == nil || rs.Codes == nil {
		return nil
	}
	w := responseWalk{cache: b.fieldCache()}
	for code, r := range rs.Codes.FromOldest() {
		if isSuccessCode(code) && r != nil {
			w.proxy(r.Schema, "", 0, nil)
		}
	}
	return w.done()
}

// isSuccessCode accepts 200–299 and the 2XX range key.
func isSuccessCode(code string) bool {
	return len(code) == 3 && code[0] == '2' && (strings.EqualFold(code[1:], "xx") ||
		(code[1] >= '0' && code[1] <= '9' && code[2] >= '0' && code[2] <= '9'))
}

// requestBodyFields lists the property paths of a request body schema and
// the string enum values of its properties (see Operation.RequestFields).
func requestBodyFields(sp *base.SchemaProxy) ([]string, map[string][]string) {
	if sp == nil {
		return nil, nil
	}
	w := responseWalk{enums: map[string][]string{}}
	w.proxy(sp, "", 0, nil)
	if len(w.enums) == 0 {
		w.enums = nil
	}
	return w.done(), w.enums
}

// responseWalk collects dotted property paths; "[]" marks array items and
// "{}" additionalProperties values, so "keys[].d" is the member d of every
// element of keys. When enums is not nil it also records the string enum
// values of every property.
type responseWalk struct {
	fields []string
	enums  map[string][]string
	// cache, when set, memoises the properties below a $ref at a depth:
	// a schema shared by many operations is walked once per document.
	cache map[fieldKey][]string
}

// fieldKey names one memoised walk: a $ref entered at a depth.
type fieldKey struct {
	ref   string
	depth int
}

func (b *builder) fieldCache() map[fieldKey][]string {
	if b.fields == nil {
		b.fields = map[fieldKey][]string{}
	}
	return b.fields
}

func (w *responseWalk) done() []string { return sortedFields(w.fields) }

// sortedFields is a walk's result: its field paths sorted, each once.
func sortedFields(fields []string) []string {
	slices.Sort(fields)
	return slices.Compact(fields)
}

func (w *responseWalk) full() bool { return len(w.fields) >= maxResponseFields }

func (w *responseWalk) proxy(sp *base.SchemaProxy, prefix string, depth int, stack []string) {
	if sp == nil || depth > maxResponseDepth || w.full() {
		return
	}
	if ref := sp.GetReference(); ref != "" {
		if slices.Contains(stack, ref) {
			return
		}
		if w.cache != nil {
			w.cached(sp, ref, prefix, depth, stack)
			return
		}
		stack = append(stack, ref)
	}
	w.walk(sp, prefix, depth, stack)
}

// cached walks a referenced schema once per depth and re-uses the relative
// paths under every prefix. The recursion guard of the first walk decides
// where a cycle is cut; depth bounds the result either way.
func (w *responseWalk) cached(sp *base.SchemaProxy, ref, prefix string, depth int, stack []string) {
	key := fieldKey{ref, depth}
	rel, ok := w.cache[key]
	if !ok {
		sub := responseWalk{cache: w.cache}
		sub.walk(sp, "", depth, append(stack, ref))
		rel = sub.fields
		w.cache[key] = rel
	}
	w.fields = appendUnder(w.fields, prefix, rel)
}

// appendUnder appends a referenced schema's relative field paths under
// prefix to fields, up to maxResponseFields: the memoised part of both
// walks.
func appendUnder(fields []string, prefix string, rel []string) []string {
	for _, r := range rel {
		if len(fields) >= maxResponseFields {
			break
		}
		fields = append(fields, joinField(prefix, r))
	}
	return fields
}

// joinField puts a referenced schema's relative field path under prefix:
// array and map markers ("[]", "{}") attach directly, names after a dot.
func joinField(prefix, rel string) string {
	switch {
	case prefix == "":
		return rel
	case strings.HasPrefix(rel, "[]") || strings.HasPrefix(rel, "{}"):
		return prefix + rel
	default:
		return prefix + "." + rel
	}
}

func (w *responseWalk) walk(sp *base.SchemaProxy, prefix string, depth int, stack []string) {
	s := sp.Schema()
	if s == nil {
		return
	}
	w.properties(s.Properties, prefix, depth, stack)
	if ap := s.AdditionalProperties; ap != nil && ap.IsA() {
		w.proxy(ap.A, prefix+"{}", depth+1, stack)
	}
	if it := s.Items; it != nil && it.IsA() {
		w.proxy(it.A, prefix+"[]", depth+1, stack)
	}
	for _, group := range [][]*base.SchemaProxy{s.AllOf, s.OneOf, s.AnyOf} {
		for _, p := range group {
			w.proxy(p, prefix, depth+1, stack)
		}
	}
}

func (w *responseWalk) properties(props *orderedmap.Map[string, *base.SchemaProxy], prefix string, depth int, stack []string) {
	if props == nil {
		return
	}
	for name, p := range props.FromOldest() {
		if w.full() {
			return
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		w.fields = append(w.fields, path)
		if w.enums != nil {
			w.enum(p, path)
		}
		w.proxy(p, path, depth+1, stack)
	}
}

// enum records the string enum values of a property (bounded: an enum of
// thousands of country codes says nothing about risk).
func (w *responseWalk) enum(sp *base.SchemaProxy, path string) {
	if sp == nil {
		return
	}
	s := sp.Schema()
	if s == nil {
		return
	}
	vals := s.Enum
	if it := s.Items; len(vals) == 0 && it != nil && it.IsA() && it.A != nil {
		if is := it.A.Schema(); is != nil {
			vals = is.Enum
		}
	}
	for _, v := range vals {
		if v != nil && v.Kind == yaml.ScalarNode && len(w.enums[path]) < 64 {
			w.enums[path] = append(w.enums[path], v.Value)
		}
	}
}
