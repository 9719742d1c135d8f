package openapi

import (
	"fmt"

	"github.com/pb33f/go-yaml"
)

// dropDuplicateKeys settles every mapping of a file that names a key twice
// (two `/a:` path items, two `get:` in one item, a JSON object with a
// repeated member): the later entry is kept, as JSON.parse and most
// OpenAPI tools do, the earlier one is removed from the tree, and a warning
// names both positions. Nothing is dropped silently. It reports whether it
// changed the tree.
func dropDuplicateKeys(file string, n *yaml.Node, warnings *[]string) bool {
	return dedupe(file, n, warnings, map[string]int{})
}

// dedupe is dropDuplicateKeys with a scratch map reused by every mapping.
func dedupe(file string, n *yaml.Node, warnings *[]string, scratch map[string]int) bool {
	if n == nil {
		return false
	}
	changed := false
	for _, c := range n.Content {
		if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
			changed = dedupe(file, c, warnings, scratch) || changed
		}
	}
	if n.Kind != yaml.MappingNode || len(n.Content) < 4 {
		return changed
	}
	last := lastKeyIndex(n, scratch)
	if last == nil {
		return changed
	}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if j, ok := last[k.Value]; ok && j != i && k.Kind == yaml.ScalarNode {
			later := n.Content[j]
			*warnings = append(*warnings, fmt.Sprintf("%s:%d:%d: duplicate key %q (again at %d:%d): the later one is used, this one is ignored",
				file, k.Line, k.Column, k.Value, later.Line, later.Column))
			continue
		}
		kept = append(kept, k, n.Content[i+1])
	}
	n.Content = kept
	return true
}

// lastKeyIndex maps each scalar key of a mapping to the index of its last
// occurrence, or returns nil when no key repeats (the common case, checked
// without allocating for small mappings).
func lastKeyIndex(n *yaml.Node, scratch map[string]int) map[string]int {
	pairs := len(n.Content) / 2
	if pairs <= 16 {
		dup := false
		for i := 0; i < len(n.Content) && !dup; i += 2 {
			for j := i + 2; j < len(n.Content); j += 2 {
				if n.Content[i].Value == n.Content[j].Value && n.Content[i].Kind == yaml.ScalarNode && n.Content[j].Kind == yaml.ScalarNode {
					dup = true
					break
				}
			}
		}
		if !dup {
			return nil
		}
	}
	clear(scratch)
	last := scratch
	dup := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode {
			if _, seen := last[k.Value]; seen {
				dup = true
			}
			last[k.Value] = i
		}
	}
	if !dup {
		return nil
	}
	return last
}
