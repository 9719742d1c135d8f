package openapi

import (
	"github.com/pb33f/go-yaml"
)

// Amplification caps. A description is small on disk and large once
// expanded: 100,000 path items, or a few schemas that $ref each other so
// every operation expands to megabytes. Each cap refuses the import with its
// own one-line error before anything is stored.
const (
	// DefaultMaxOperations bounds the operations of one import, counted on
	// the decoded tree before the model is built, so a huge document is
	// refused in the time it takes to decode it.
	DefaultMaxOperations = 20_000
	// DefaultMaxTotalSchemaBytes bounds the input schemas of one import
	// together, as expanded; the import stops as soon as it is passed.
	DefaultMaxTotalSchemaBytes int64 = 64 << 20
)

func (o Options) maxOperations() int {
	if o.MaxOperations > 0 {
		return o.MaxOperations
	}
	return DefaultMaxOperations
}

func (o Options) maxTotalSchemaBytes() int64 {
	if o.MaxTotalSchemaBytes > 0 {
		return o.MaxTotalSchemaBytes
	}
	return DefaultMaxTotalSchemaBytes
}

// operationKeys are the method keys of a path item, in 2.0 and 3.x.
var operationKeys = map[string]bool{
	"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true,
}

// countOperations counts the root's operations on the checked tree (path
// item $refs followed one level, as they are all the counting rule allows)
// and refuses a document over Options.MaxOperations.
func countOperations(rc *refChecker, opts Options) error {
	root := rc.src.parsed[rc.root]
	paths := valueOf(mapGet(root.root, "paths"))
	if paths == nil {
		return nil
	}
	limit, count := opts.maxOperations(), 0
	for i := 0; i+1 < len(paths.Content); i += 2 {
		item := valueOf(paths.Content[i+1])
		if ref := mapGet(item, "$ref"); ref != nil && ref.Kind == yaml.ScalarNode {
			item = rc.pathItemTarget(ref.Value)
		}
		if item == nil || item.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			if operationKeys[item.Content[j].Value] {
				count++
			}
		}
	}
	if count > limit {
		key := mapKeyNode(root.root, "paths")
		return importErr(KindTooManyOperations, rc.root, key.Line, key.Column,
			"%d operations is over the limit of %d per import: refused", count, limit)
	}
	return nil
}

// pathItemTarget resolves a root path item $ref already rewritten by the
// checker (relative to the set's top, or a local pointer).
func (rc *refChecker) pathItemTarget(ref string) *yaml.Node {
	file, frag, _ := cutRef(ref)
	if file == "" {
		file = rc.root
	}
	pf, ok := rc.src.parsed[file]
	if !ok {
		return nil
	}
	n, _ := resolvePointer(pf.root, frag)
	return valueOf(n)
}

// mapKeyNode returns the key node of key in a mapping (for its position).
func mapKeyNode(n *yaml.Node, key string) *yaml.Node {
	for i := 0; n != nil && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return &yaml.Node{}
}
