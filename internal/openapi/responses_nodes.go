package openapi

import (
	"slices"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// nodeWalk is responseWalk over the YAML node tree the model was built
// from: it reads properties, items, additionalProperties and the
// allOf/oneOf/anyOf lists without making libopenapi build each schema
// (about a third of an import's allocations did). It follows only
// local "#/…" references of a single-file document and gives up (ok =
// false) on anything whose meaning the library decides — an empty $ref,
// merge keys, aliases, escaped pointers, non-mapping schemas — so the
// caller then walks the built model as before. A $ref's siblings are
// ignored, as the library ignores them (refOf).
type nodeWalk struct {
	root   *yaml.Node
	fields []string
	cache  map[fieldKey][]string
	bad    bool
}

func (w *nodeWalk) full() bool { return len(w.fields) >= maxResponseFields }

// nodeOf is the schema node of a proxy, or nil.
func nodeOf(sp *base.SchemaProxy) *yaml.Node {
	if sp == nil {
		return nil
	}
	low := sp.GoLow()
	if low == nil {
		return nil
	}
	return low.GetValueNode()
}

// refOf returns the node's $ref; bad when the mapping is not one the walk
// reads like the library does. Siblings of a $ref (description, nullable,
// readOnly …) are ignored, as the library ignores them when it is not told
// to transform them (newLibDocument leaves TransformSiblingRefs and
// MergeReferencedProperties off): the schema is the target's.
func refOf(n *yaml.Node) (ref string, bad bool) {
	found := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value == "<<" {
			return "", true
		}
		if k.Value == "$ref" && !found {
			// An empty $ref ("$ref: #/…" unquoted in YAML is a comment)
			// makes the library refuse the whole schema.
			v := n.Content[i+1]
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || v.Value == "" {
				return "", true
			}
			ref, found = v.Value, true
		}
	}
	return ref, false
}

// resolve finds a local "#/a/b" target in the document root.
func (w *nodeWalk) resolve(ref string) *yaml.Node {
	if !strings.HasPrefix(ref, "#/") || strings.ContainsAny(ref, "~%") {
		return nil
	}
	n := w.root
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	for _, part := range strings.Split(ref[2:], "/") {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return n
}

func (w *nodeWalk) proxy(n *yaml.Node, prefix string, depth int, stack []string) {
	if w.bad || n == nil || depth > maxResponseDepth || w.full() {
		return
	}
	if n.Kind != yaml.MappingNode {
		w.bad = true
		return
	}
	ref, bad := refOf(n)
	if bad {
		w.bad = true
		return
	}
	if ref != "" {
		if slices.Contains(stack, ref) {
			return
		}
		target := w.resolve(ref)
		if target == nil || target.Kind != yaml.MappingNode {
			w.bad = true
			return
		}
		w.cached(target, ref, prefix, depth, stack)
		return
	}
	w.walk(n, prefix, depth, stack)
}

func (w *nodeWalk) cached(n *yaml.Node, ref, prefix string, depth int, stack []string) {
	key := fieldKey{ref, depth}
	rel, ok := w.cache[key]
	if !ok {
		sub := nodeWalk{root: w.root, cache: w.cache}
		// The library builds the target like any schema: a $ref
		// target that is itself a $ref is resolved again.
		sub.proxyTarget(n, depth, append(stack, ref))
		if sub.bad {
			w.bad = true
			return
		}
		rel = sub.fields
		w.cache[key] = rel
	}
	w.fields = appendUnder(w.fields, prefix, rel)
}

// proxyTarget walks a reference's target; a target that is a reference
// again is left to the model walk.
func (w *nodeWalk) proxyTarget(n *yaml.Node, depth int, stack []string) {
	if ref, bad := refOf(n); bad || ref != "" {
		w.bad = true
		return
	}
	w.walk(n, "", depth, stack)
}

func (w *nodeWalk) walk(n *yaml.Node, prefix string, depth int, stack []string) {
	var props, ap, items *yaml.Node
	var groups [3]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "<<" || v.Kind == yaml.AliasNode {
			w.bad = true
			return
		}
		switch k.Value {
		case "properties":
			props = v
		case "additionalProperties":
			ap = v
		case "items":
			items = v
		case "allOf":
			groups[0] = v
		case "oneOf":
			groups[1] = v
		case "anyOf":
			groups[2] = v
		}
	}
	if props != nil {
		if props.Kind != yaml.MappingNode {
			w.bad = true
			return
		}
		for i := 0; i+1 < len(props.Content); i += 2 {
			if w.full() || w.bad {
				return
			}
			k := props.Content[i]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				w.bad = true
				return
			}
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			w.fields = append(w.fields, path)
			w.proxy(props.Content[i+1], path, depth+1, stack)
		}
	}
	for _, sub := range []struct {
		n      *yaml.Node
		suffix string
	}{{ap, "{}"}, {items, "[]"}} {
		switch {
		case sub.n == nil:
		case sub.n.Kind == yaml.ScalarNode && (sub.n.Tag == "!!bool"):
		case sub.n.Kind == yaml.MappingNode:
			w.proxy(sub.n, prefix+sub.suffix, depth+1, stack)
		default:
			w.bad = true
			return
		}
	}
	for _, g := range groups {
		if g == nil {
			continue
		}
		if g.Kind != yaml.SequenceNode {
			w.bad = true
			return
		}
		for _, p := range g.Content {
			w.proxy(p, prefix, depth+1, stack)
		}
	}
}
