package openapi

import (
	"bytes"
	"encoding/json"
	"io"

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
		if isExtensionKey(paths.Content[i].Value) {
			continue
		}
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

// methodTokens are the quoted method names whose count bounds the
// operations of a JSON document from above.
var methodTokens = func() [][]byte {
	var out [][]byte
	for k := range operationKeys {
		out = append(out, []byte(`"`+k+`"`))
	}
	return out
}()

// precountOperations refuses a single JSON document with more operations
// than Options.MaxOperations before it is decoded into a node tree, which
// for a 15 MB document of 100,000 path items holds about 400 MiB. The
// quoted method names bound the count from above in a few milliseconds;
// only a document over the cap by that bound is counted exactly, by a
// streaming pass that keeps nothing. Path items that are $refs are not
// followed here, so the count can only be low: a document it lets through
// is counted again on the checked tree (countOperations).
func precountOperations(name string, data []byte, limit int) error {
	if !looksJSON(name, data) {
		return nil
	}
	upper := 0
	for _, m := range methodTokens {
		upper += bytes.Count(data, m)
	}
	if upper <= limit {
		return nil
	}
	count, pathsAt, err := streamCount(data)
	if err != nil || count <= limit {
		return nil // the decoder reports syntax errors with their position
	}
	line, col := lineCol(data, pathsAt)
	return importErr(KindTooManyOperations, name, line, col, "%d operations is over the limit of %d per import: refused", count, limit)
}

// streamCount counts the method keys of the path items directly under the
// top-level "paths" object of a JSON document; pathsAt is the offset of the
// "paths" key.
func streamCount(data []byte) (count, pathsAt int, err error) {
	type frame struct {
		obj     bool
		wantKey bool
		key     string
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []frame
	for {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			return count, pathsAt, nil
		}
		if err != nil {
			return 0, 0, err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				stack = append(stack, frame{obj: d == '{', wantKey: true})
			default:
				stack = stack[:len(stack)-1]
				if n := len(stack); n > 0 && stack[n-1].obj {
					stack[n-1].wantKey = true
				}
			}
			continue
		}
		n := len(stack)
		if n == 0 || !stack[n-1].obj {
			continue
		}
		top := &stack[n-1]
		if !top.wantKey {
			top.wantKey = true // a scalar value ends the member
			continue
		}
		key, _ := tok.(string)
		top.key, top.wantKey = key, false
		switch {
		case n == 1 && key == "paths":
			pathsAt = start + bytes.IndexByte(data[start:], '"')
		case n == 3 && stack[0].key == "paths" && stack[1].obj && operationKeys[key]:
			count++
		}
	}
}
