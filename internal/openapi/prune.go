package openapi

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/pb33f/go-yaml"
)

// A batch's build indexes every component the root holds, not only those
// its path items use: in a document whose components are as large as its
// paths (Vault's 559 request and response schemas) five batches indexed
// them five times, and the batched import was 1.13× slower than the whole
// one. componentScope narrows the components each batch's build sees to
// those its path items reach, directly or through other components, the
// way it narrows the paths; between batches the sections are whole again.
//
// It is conservative: a document it cannot read with certainty (aliases, a
// discriminator, whose mapping names schemas without a $ref; $id, $anchor
// or $dynamicRef; a $ref with a fragment that is not a local pointer into a
// component it can find) keeps every component in every batch, as before. Anything it
// misses a reference through would only reach the library as a missing
// component, which TestFixturesBatchedMatchWhole would see.
type componentScope struct {
	prefix   string                // "#/components/" (3.x) or "#/" (2.0)
	sections map[string]*yaml.Node // the prunable name maps, by section
	whole    map[string][]*yaml.Node
	// index finds a component's key position in its section's whole content.
	index map[component]int
	// uses lists the components each component refers to.
	uses map[component][]component
	// always are the components the root reaches outside paths and the
	// component sections (webhooks, the last batch reads them).
	always []component
}

type component struct{ section, name string }

// prunableV3 are the 3.x component sections referred to only by $ref:
// securitySchemes are named by security requirements and stay whole.
var prunableV3 = []string{"schemas", "responses", "parameters", "examples", "requestBodies", "headers", "links",
	"callbacks", "pathItems"}

// prunableV2 are their 2.0 counterparts at the root.
var prunableV2 = []string{"definitions", "parameters", "responses"}

// newComponentScope reads the root's components and the references among
// them, or returns nil when batches must see them all.
func newComponentScope(root *yaml.Node, data []byte) *componentScope {
	if root == nil || root.Kind != yaml.MappingNode || hasAliases(root) {
		return nil
	}
	for _, word := range []string{"discriminator", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor"} {
		if bytes.Contains(data, []byte(word)) {
			return nil
		}
	}
	s := &componentScope{sections: map[string]*yaml.Node{}, whole: map[string][]*yaml.Node{},
		index: map[component]int{}, uses: map[component][]component{}}
	container, names := root, prunableV2
	if mapGet(root, "openapi") != nil {
		container, names, s.prefix = valueOf(mapGet(root, "components")), prunableV3, "#/components/"
	} else {
		s.prefix = "#/"
	}
	if container == nil || container.Kind != yaml.MappingNode {
		return nil
	}
	for _, name := range names {
		sec := valueOf(mapGet(container, name))
		if sec == nil || sec.Kind != yaml.MappingNode {
			continue
		}
		s.sections[name], s.whole[name] = sec, sec.Content
		for i := 0; i+1 < len(sec.Content); i += 2 {
			s.index[component{name, sec.Content[i].Value}] = i
		}
	}
	if len(s.sections) == 0 {
		return nil
	}
	for c, i := range s.index {
		uses, ok := s.refsIn(s.sections[c.section].Content[i+1])
		if !ok {
			return nil
		}
		s.uses[c] = uses
	}
	// What the root reaches outside the paths and the pruned sections is
	// reachable in every batch.
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i].Value, root.Content[i+1]
		if k == "paths" || (s.prefix == "#/" && s.sections[k] != nil) {
			continue
		}
		if k == "components" {
			for j := 0; v != nil && v.Kind == yaml.MappingNode && j+1 < len(v.Content); j += 2 {
				if s.sections[v.Content[j].Value] == nil {
					uses, ok := s.refsIn(v.Content[j+1])
					if !ok {
						return nil
					}
					s.always = append(s.always, uses...)
				}
			}
			continue
		}
		uses, ok := s.refsIn(v)
		if !ok {
			return nil
		}
		s.always = append(s.always, uses...)
	}
	return s
}

// refsIn returns the components every "$ref" with a fragment under n
// names, data included (more than the library follows is only more kept);
// false when one names anything else.
func (s *componentScope) refsIn(n *yaml.Node) ([]component, bool) {
	var out []component
	ok := true
	var visit func(*yaml.Node)
	visit = func(n *yaml.Node) {
		if n == nil || !ok {
			return
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				// A value without a fragment is a whole file: in a single
				// file (the only kind built in batches) that is data, or a
				// ref the checker already rewrote as unresolved.
				if v := n.Content[i+1]; n.Content[i].Value == "$ref" && v.Kind == yaml.ScalarNode && strings.Contains(v.Value, "#") {
					c, found := s.target(v.Value)
					if !found {
						ok = false
						return
					}
					out = append(out, c)
				}
			}
		}
		for _, c := range n.Content {
			visit(c)
		}
	}
	visit(n)
	return out, ok
}

// target finds the component a local reference points into
// ("#/components/schemas/A/properties/b" → schemas A).
func (s *componentScope) target(ref string) (component, bool) {
	rest, ok := strings.CutPrefix(ref, s.prefix)
	if !ok {
		return component{}, false
	}
	section, name, _ := strings.Cut(rest, "/")
	name, _, _ = strings.Cut(name, "/")
	name, err := url.PathUnescape(name)
	if err != nil {
		return component{}, false
	}
	c := component{section, strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")}
	_, found := s.index[c]
	return c, found
}

// narrow leaves in each section only what the path items reach, in the
// order of the document; false (and nothing narrowed) when a path item
// refers to something it cannot place. widen undoes it.
func (s *componentScope) narrow(items []*yaml.Node) bool {
	if s == nil {
		return false
	}
	reached := map[component]bool{}
	queue := append([]component(nil), s.always...)
	for _, it := range items {
		uses, ok := s.refsIn(it)
		if !ok {
			return false
		}
		queue = append(queue, uses...)
	}
	for len(queue) > 0 {
		c := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if !reached[c] {
			reached[c] = true
			queue = append(queue, s.uses[c]...)
		}
	}
	for name, sec := range s.sections {
		whole := s.whole[name]
		kept := make([]*yaml.Node, 0, 2*len(reached))
		for i := 0; i+1 < len(whole); i += 2 {
			if k := whole[i].Value; reached[component{name, k}] || isExtensionKey(k) {
				kept = append(kept, whole[i], whole[i+1])
			}
		}
		sec.Content = kept
	}
	return true
}

func (s *componentScope) widen() {
	if s == nil {
		return
	}
	for name, sec := range s.sections {
		sec.Content = s.whole[name]
	}
}
