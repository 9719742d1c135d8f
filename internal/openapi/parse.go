package openapi

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel"
)

// parsedFile is one file of the set as a YAML node tree (JSON is YAML), in
// the same node type libopenapi uses, so refs can be checked and rewritten
// before the library resolves anything.
type parsedFile struct {
	name    string
	root    *yaml.Node // the top-level value (a mapping for any OpenAPI file)
	specKey string     // "openapi" or "swagger" when the file is a root candidate
	version string
	// fixed is the text after the tabAfterIndent pre-pass, when it was
	// needed: what libopenapi must read instead of the original bytes.
	fixed []byte
	// separators is true when the text holds a line separator
	// (standInSeparators): the library must not read its bytes as they are.
	separators bool
}

// maxExpansionFactor bounds how many nodes a document may have once YAML aliases
// are expanded, relative to its written size; a "billion laughs" document
// passes it after a few levels and is refused before anything expands it.
const maxExpansionFactor = 64

var yamlLineRe = regexp.MustCompile(`line (\d+)(?:, column (\d+))?`)

// parseFile decodes one file into nodes and checks its alias expansion.
// Line separators are read as YAML 1.2 reads them (standInSeparators).
func parseFile(name string, data []byte) (*parsedFile, error) {
	data, back := standInSeparators(data)
	pf, err := decodeFile(name, data)
	if err != nil {
		var ie *ImportError
		if back != nil && errors.As(err, &ie) {
			ie.Msg = back.Replace(ie.Msg)
		}
		return nil, err
	}
	if back != nil {
		restoreSeparators(pf.root, back)
		pf.separators = true
		if pf.fixed != nil {
			pf.fixed = []byte(back.Replace(string(pf.fixed)))
		}
	}
	return pf, nil
}

// decodeFile is parseFile on text whose line separators stand in.
func decodeFile(name string, data []byte) (*parsedFile, error) {
	if doc := decodeJSON(data); doc != nil {
		return fileFromNode(name, doc)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		if fixed, ok := tabAfterIndent(data, err); ok {
			var again yaml.Node
			if yaml.Unmarshal(fixed, &again) == nil {
				pf, err := fileFromNode(name, &again)
				if pf != nil {
					pf.fixed = fixed
				}
				return pf, err
			}
		}
		return nil, syntaxError(name, data, err)
	}
	return fileFromNode(name, &doc)
}

// decodeJSON decodes a JSON object into the node tree yaml.Unmarshal would
// build, with libopenapi's JSON decoder: yaml's scanner buffers a whole JSON
// flow mapping before parsing it, which made the files of a multi-file set
// the slowest part of an import. It returns nil for anything else (YAML,
// invalid JSON), which yaml.Unmarshal then decodes or explains.
func decodeJSON(data []byte) *yaml.Node {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' || trimmed[len(trimmed)-1] != '}' {
		return nil
	}
	// BypassDocumentCheck accepts fragments (a file of schemas has no
	// openapi key); on a decode error the library returns a stand-in
	// scalar node instead of an error, hence the mapping check.
	info, err := datamodel.ExtractSpecInfoWithConfig(data, &datamodel.DocumentConfiguration{
		BypassDocumentCheck: true, SkipJSONConversion: true,
	})
	if err != nil || info.RootNode == nil || len(info.RootNode.Content) != 1 || info.RootNode.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return info.RootNode
}

// fileFromNode checks an already decoded document node (ours, or the one
// libopenapi decoded, which is the same tree) and finds its spec key.
func fileFromNode(name string, doc *yaml.Node) (*parsedFile, error) {
	pf := &parsedFile{name: name}
	if len(doc.Content) == 0 {
		return pf, nil
	}
	pf.root = doc.Content[0]
	if err := checkAliases(name, pf.root); err != nil {
		return nil, err
	}
	if pf.root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(pf.root.Content); i += 2 {
			switch k := pf.root.Content[i].Value; k {
			case "openapi", "swagger":
				pf.specKey, pf.version = k, pf.root.Content[i+1].Value
			}
		}
	}
	return pf, nil
}

// syntaxError turns a YAML/JSON decoder error into a one-line ImportError
// with the line and column the decoder reported. go-yaml returns a
// *yaml.LoadError carrying the position as data; the text form is only
// parsed for errors of another shape.
func syntaxError(name string, data []byte, err error) *ImportError {
	if looksJSON(name, data) {
		if je := jsonSyntaxError(name, data); je != nil {
			return je
		}
	}
	ie := &ImportError{Kind: KindSyntax, File: name, Err: err}
	var msg string
	var le *yaml.LoadError
	if errors.As(err, &le) {
		ie.Line, ie.Col = le.Mark.Line, le.Mark.Column
		msg = le.Message
		if le.ContextMsg != "" {
			msg += " (" + le.ContextMsg + ")"
		}
	} else {
		msg = err.Error()
		if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
			ie.Line, _ = strconv.Atoi(m[1])
			ie.Col, _ = strconv.Atoi(m[2])
		}
		msg = strings.TrimPrefix(msg, "yaml: ")
		msg = yamlLineRe.ReplaceAllString(msg, "")
		msg = strings.TrimLeft(msg, ":, ")
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	ie.Line, ie.Col = clampToLastLine(data, ie.Line, ie.Col)
	ie.Msg = "invalid YAML: " + msg
	if looksJSON(name, data) {
		ie.Msg = "invalid JSON: " + msg
	}
	if lower := strings.ToLower(msg); strings.Contains(lower, "alias") {
		ie.Kind, ie.Msg = KindAliasBomb, "YAML aliases expand too much: "+msg
	}
	return ie
}

// checkAliases refuses documents whose aliases would expand to far more
// nodes than were written. Sizes are memoised per anchor, so the check is
// linear in the written document however deep the nesting.
func checkAliases(name string, root *yaml.Node) error {
	written := 0
	hasAlias := false
	var count func(n *yaml.Node)
	count = func(n *yaml.Node) {
		written++
		if n.Kind == yaml.AliasNode {
			hasAlias = true
			return
		}
		for _, c := range n.Content {
			count(c)
		}
	}
	count(root)
	if !hasAlias {
		return nil
	}
	limit := written*maxExpansionFactor + 100_000
	memo := map[*yaml.Node]int{}
	var size func(n *yaml.Node, depth int) int
	size = func(n *yaml.Node, depth int) int {
		if depth > 10_000 {
			return limit + 1 // an alias inside its own anchor
		}
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return 1
			}
			return size(n.Alias, depth+1)
		}
		if s, ok := memo[n]; ok {
			return s
		}
		s := 1
		for _, c := range n.Content {
			s += size(c, depth+1)
			if s > limit {
				break
			}
		}
		memo[n] = s
		return s
	}
	if size(root, 0) > limit {
		return importErr(KindAliasBomb, name, 0, 0, "YAML aliases expand to more than %d nodes (written: %d): refused", limit, written)
	}
	return nil
}

// mapGet returns the value of key in a mapping node, or nil.
func mapGet(n *yaml.Node, key string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// resolvePointer follows a JSON pointer ("" or "/a/b~1c/0") from root.
func resolvePointer(root *yaml.Node, ptr string) (*yaml.Node, bool) {
	n := root
	if ptr == "" {
		return n, n != nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil {
			return nil, false
		}
		switch n.Kind {
		case yaml.MappingNode:
			n = mapGet(n, tok)
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, false
			}
			n = n.Content[i]
		default:
			return nil, false
		}
	}
	return n, n != nil
}

// shapeKeys are the top-level objects of a root document that must be
// mappings. libopenapi skips what it cannot read, so `paths: [...]` would
// otherwise import as an API without operations and only a warning.
var shapeKeys = []string{"info", "paths", "components", "definitions", "securityDefinitions", "webhooks"}

// checkShape refuses a root document whose top-level objects or path items
// are not mappings, naming the first one with its line and column.
func checkShape(pf *parsedFile) error {
	for _, key := range shapeKeys {
		if n := valueOf(mapGet(pf.root, key)); n != nil && n.Kind != yaml.MappingNode {
			return importErr(KindInvalid, pf.name, n.Line, n.Column, "%s must be a mapping, not %s", key, nodeKind(n))
		}
	}
	paths := valueOf(mapGet(pf.root, "paths"))
	if paths == nil {
		return nil
	}
	for i := 0; i+1 < len(paths.Content); i += 2 {
		if isExtensionKey(paths.Content[i].Value) {
			continue // an extension of the Paths object: data
		}
		if n := valueOf(paths.Content[i+1]); n != nil && n.Kind != yaml.MappingNode {
			return importErr(KindInvalid, pf.name, n.Line, n.Column, "path item %q must be a mapping, not %s", paths.Content[i].Value, nodeKind(n))
		}
	}
	return nil
}

// isExtensionKey tells a specification extension ("x-…") among the keys of
// an object that allows them.
func isExtensionKey(k string) bool { return strings.HasPrefix(k, "x-") }

// valueOf follows an alias and returns nil for an absent or null value.
func valueOf(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil
	}
	return n
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "a scalar"
}
