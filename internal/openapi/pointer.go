package openapi

import (
	"strings"

	"github.com/pb33f/go-yaml"
)

// backslashStandIn replaces "\" in component names and in the pointers
// that name them, in the trees libopenapi reads. RFC 6901 gives "\" no
// meaning (only ~0 and ~1 are special), so `#/components/schemas/a\B`
// names the component "a\B"; the library treats "\" as a Windows path
// separator and misses it. The stand-in (U+29F5, reverse solidus operator)
// reads the same in messages.
const backslashStandIn = "\u29f5"

// componentMaps are the top-level maps of a root document whose entries
// are named by $refs; component names are never shown to agents, unlike
// property names, which are left as written.
var componentMaps = []string{"definitions", "parameters", "responses"}

// standInBackslashes renames the keys with "\" among the components a $ref
// can name: every section of components (and 2.0's definitions,
// parameters and responses) in a root, and also the top-level keys of any
// other file (a fragment file such as "schemas.yaml#/a\B"). It reports
// whether it renamed one.
func standInBackslashes(pf *parsedFile, isRoot bool) bool {
	root := valueOf(pf.root)
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	changed := false
	rename := func(m *yaml.Node) {
		if m = valueOf(m); m == nil || m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k := m.Content[i]; strings.Contains(k.Value, `\`) {
				k.Value = strings.ReplaceAll(k.Value, `\`, backslashStandIn)
				changed = true
			}
		}
	}
	if !isRoot {
		rename(root)
	}
	if comps := valueOf(mapGet(root, "components")); comps != nil && comps.Kind == yaml.MappingNode {
		for i := 1; i < len(comps.Content); i += 2 {
			rename(comps.Content[i])
		}
	}
	for _, k := range componentMaps {
		rename(mapGet(root, k))
	}
	return changed
}

// standInRef applies backslashStandIn to the pointer of a $ref.
func standInRef(ref string) string {
	file, frag, ok := strings.Cut(ref, "#")
	if !ok || !strings.Contains(frag, `\`) {
		return ref
	}
	return file + "#" + strings.ReplaceAll(frag, `\`, backslashStandIn)
}
