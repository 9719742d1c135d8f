package openapi

import (
	"encoding/json"
	"errors"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
)

// refTarget is where a $ref points inside the set: a file and a JSON pointer.
type refTarget struct {
	file string
	ptr  string
}

// unresolvedKey replaces "$ref" in a reference toolgate does not follow (its
// target is missing, outside the set, or on the network); its value is the
// warning naming the ref and its position. The library then reads a schema
// with no constraints, or a parameter or path item the builder drops with
// its operations.
const unresolvedKey = "x-toolgate-unresolved"

// refChecker enforces the import's one hard rule before libopenapi resolves
// anything: a $ref is followed only inside the file set. It walks the root
// and every file the root reaches, nothing else, so an unreferenced file is
// never decoded. A $ref it cannot follow is rewritten to unresolvedKey and
// reported as a warning with its line and column: one vendor mistake costs
// only what depends on it. The library is configured the same way (no
// remote refs, an in-memory FS holding the reached files).
type refChecker struct {
	src     *fileSource
	root    string
	specKey string
	// order lists the files reached, root first, in the order reached:
	// walking in that order makes which of several problems is reported,
	// and which of two files declaring the same $id wins, the same every run.
	order   []string
	reached map[string]bool
	// dirty names non-root files the checker rewrote: the library gets
	// them re-encoded (the root's tree is the library's own).
	dirty map[string]bool
	// ids maps a JSON Schema $id (3.1) to where it is declared, and
	// anchors maps "$id#anchor" likewise, so $id-based refs such as
	// "/components/schemas/petdetails#pet_details_id" resolve in-document.
	ids      map[string]refTarget
	anchors  map[string]refTarget
	warnings []string
}

func newRefChecker(src *fileSource, root string) *refChecker {
	return &refChecker{src: src, root: root, specKey: src.parsed[root].specKey,
		reached: map[string]bool{}, dirty: map[string]bool{},
		ids: map[string]refTarget{}, anchors: map[string]refTarget{}}
}

// reach adds a decoded file to the walk: duplicate keys are settled and
// $ids collected before any of its refs is read.
func (rc *refChecker) reach(name string) {
	if rc.reached[name] {
		return
	}
	rc.reached[name] = true
	rc.order = append(rc.order, name)
	pf := rc.src.parsed[name]
	if dropDuplicateKeys(name, pf.root, &rc.warnings) && name != rc.root {
		rc.dirty[name] = true
	}
	if standInBackslashes(pf, name == rc.root) && name != rc.root {
		rc.dirty[name] = true
	}
	if pf.separators && name != rc.root {
		rc.dirty[name] = true // its bytes would meet the YAML 1.1 reading
	}
	rc.collectIDs(name, pf.root, nil, "", keywords)
}

// isLiteralKey tells keys whose values are data, not OpenAPI objects: a
// "$ref" under them is a value, never followed. parent is the key the
// enclosing object sits under: "value" is data in an Example Object (under
// "examples"); "examples" is data when it is a list (a 3.1 schema) or in
// 2.0 (a response's media type → example map).
func (rc *refChecker) isLiteralKey(parent, k string, v *yaml.Node) bool {
	switch k {
	case "example", "enum", "const", "default":
		return true
	case "value":
		return parent == "examples"
	case "examples":
		return rc.specKey == "swagger" || (v != nil && v.Kind != yaml.MappingNode)
	}
	return isExtensionKey(k)
}

// nameMaps are keys whose mapping value is keyed by names (of properties,
// components, media types, status codes, examples…), not by keywords: a
// property called "$ref" or "example" is a name there, and every value is
// an object of its own.
var nameMaps = map[string]bool{
	"properties": true, "patternProperties": true, "dependentSchemas": true, "$defs": true,
	"definitions": true, "schemas": true, "responses": true, "parameters": true, "headers": true,
	"content": true, "encoding": true, "examples": true, "links": true, "callbacks": true,
	"requestBodies": true, "securitySchemes": true, "securityDefinitions": true, "pathItems": true,
	"paths": true, "webhooks": true, "variables": true,
}

// keySet tells what the keys of a mapping are, which decides whether a
// "$ref" or an x- key under it is read as one.
type keySet uint8

const (
	// keywords: an OpenAPI or JSON Schema object; an x- key is an extension.
	keywords keySet = iota
	// names: a map of names (properties, components, media types…), where
	// "x-rate" is as good a name as any and its value an object of its own.
	names
	// namesAndExtensions: the Paths and Responses objects, maps of names
	// (paths, status codes) that may also carry extensions.
	namesAndExtensions
)

// keysOf is the keySet of v, the value of key k in an object that sits
// under the key parent: the Responses object is the one of an operation
// (under a method key); "responses" anywhere else (components, 2.0's
// top level) is a map of names only.
func keysOf(parent, k string, v *yaml.Node) keySet {
	switch {
	case v == nil || v.Kind != yaml.MappingNode || !nameMaps[k]:
		return keywords
	case k == "paths", k == "responses" && operationKeys[parent]:
		return namesAndExtensions
	}
	return names
}

// isExtension is true for an extension key of a map of keySet keys: its
// value is data.
func (ks keySet) isExtension(k string) bool {
	return ks == namesAndExtensions && isExtensionKey(k)
}

func pointerOf(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func (rc *refChecker) collectIDs(file string, n *yaml.Node, toks []string, id string, keys keySet) {
	parent := ""
	if len(toks) > 0 {
		parent = toks[len(toks)-1]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		if n != nil && n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				rc.collectIDs(file, c, append(toks, strconv.Itoa(i)), id, keywords)
			}
		}
		return
	}
	if keys == keywords {
		if v := mapGet(n, "$id"); v != nil && v.Kind == yaml.ScalarNode && v.Value != "" {
			id = v.Value
			rc.ids[id] = refTarget{file, pointerOf(toks)}
			// Once $id refs are rewritten to pointers, the $id would only
			// make libopenapi resolve "#/..." refs below it against the $id
			// instead of the document, which is not what these documents mean.
			v.Tag, v.Value = "!!null", ""
		}
		if v := mapGet(n, "$anchor"); v != nil && v.Kind == yaml.ScalarNode && id != "" {
			rc.anchors[id+"#"+v.Value] = refTarget{file, pointerOf(toks)}
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		switch {
		case keys.isExtension(k):
		case keys != keywords:
			rc.collectIDs(file, v, append(toks, k), id, keywords)
		case !rc.isLiteralKey(parent, k, v):
			rc.collectIDs(file, v, append(toks, k), id, keysOf(parent, k, v))
		}
	}
}

// check walks the root and every file it reaches and settles each $ref:
// followed when its target is in the set, else rewritten to unresolvedKey
// with a warning. In the root file it rewrites $id-based refs to plain
// JSON pointers the library can follow.
func (rc *refChecker) check() error {
	rc.reach(rc.root)
	for i := 0; i < len(rc.order); i++ {
		name := rc.order[i]
		if err := rc.walk(name, "", keywords, rc.src.parsed[name].root); err != nil {
			return err
		}
	}
	return nil
}

// walk visits n, whose key in its parent object is parent; keys tells
// what n's keys are.
func (rc *refChecker) walk(file, parent string, keys keySet, n *yaml.Node) error {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if err := rc.walk(file, parent, keywords, c); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := rc.walkEntry(file, parent, keys, n, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkEntry visits the entry at n.Content[i] of a mapping walk visits.
func (rc *refChecker) walkEntry(file, parent string, keys keySet, n *yaml.Node, i int) error {
	k, v := n.Content[i].Value, n.Content[i+1]
	switch {
	case k == "$ref" && (keys == keywords || v.Tag == "!!str"):
		// In a map of names, "$ref" with a string value is still a
		// reference to the whole map (SendGrid's securitySchemes); a
		// property called "$ref" has a schema as its value.
		return rc.ref(file, n, i)
	case keys.isExtension(k) || (keys == keywords && rc.isLiteralKey(parent, k, v)):
		if neutralize(v) && file != rc.root {
			rc.dirty[file] = true
		}
	case keys != keywords:
		if err := rc.walk(file, parent, keywords, v); err != nil {
			return err
		}
		return rc.ref(file, n, i)
	default:
		return rc.walk(file, k, keysOf(parent, k, v), v)
	}
	return nil
}

// ref settles the $ref at n.Content[i]: a target in the set is followed
// (and its file reached); one toolgate does not follow is rewritten and
// reported. A referenced file that does not decode stops the import.
func (rc *refChecker) ref(file string, n *yaml.Node, i int) error {
	v := n.Content[i+1]
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return nil
	}
	if s := standInRef(v.Value); s != v.Value {
		v.Value = s
		if file != rc.root {
			rc.dirty[file] = true
		}
	}
	t, err := rc.target(file, v)
	if err != nil {
		var ie *ImportError
		if !errors.As(err, &ie) || !ie.notFollowed() {
			return err
		}
		rc.unresolved(file, n, i, ie)
		return nil
	}
	if file == rc.root {
		v.Value = rootRelative(file, t)
	}
	rc.reach(t.file)
	return rc.followChain(file, t, v)
}

// literalRefKey stands in, in the trees libopenapi reads, for a "$ref" key
// inside literal data: the library would otherwise follow a $ref written
// in an example, a default, an enum or a const. nodeValue turns it back
// into "$ref", so the data toolgate reads is unchanged.
const literalRefKey = "x-toolgate-literal-ref"

// neutralize renames every "$ref" key inside literal data n; it reports
// whether it renamed one.
func neutralize(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	changed := false
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "$ref" {
				k.Value = literalRefKey
				changed = true
			}
		}
	}
	for _, c := range n.Content {
		if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
			changed = neutralize(c) || changed
		}
	}
	return changed
}

// notFollowed is true for the $ref problems an import survives: the
// reference is left out, not the document.
func (e *ImportError) notFollowed() bool {
	switch e.Kind {
	case KindRefMissing, KindRefOutside, KindUnsupported:
		return true
	}
	return false
}

// unresolved rewrites the $ref at n.Content[i] to unresolvedKey.
func (rc *refChecker) unresolved(file string, n *yaml.Node, i int, ie *ImportError) {
	msg := ie.Error()
	n.Content[i].Value = unresolvedKey
	v := n.Content[i+1]
	v.Value, v.Tag, v.Style = msg, "!!str", yaml.DoubleQuotedStyle
	rc.warnings = append(rc.warnings, msg+": not followed; what it names is left out (see the operations that use it)")
	if file != rc.root {
		rc.dirty[file] = true
	}
}

// libraryFiles returns the files other than the root the library may read:
// the ones reached, rewritten ones re-encoded as JSON with their literal
// data still neutralized.
func (rc *refChecker) libraryFiles() map[string][]byte {
	out := map[string][]byte{}
	for _, name := range rc.order {
		if name == rc.root {
			continue
		}
		data := rc.src.raw[name]
		if rc.dirty[name] {
			if b, err := json.Marshal(libraryValue(rc.src.parsed[name].root)); err == nil {
				data = escapeNEL(b)
			}
		}
		out[name] = data
	}
	return out
}

// rootRelative rewrites a $ref of the root document so it no longer depends
// on where the root sits in the set: libopenapi resolves the root's file
// refs against its base path (the set's top), and $id-based refs become
// plain JSON pointers.
func rootRelative(root string, t refTarget) string {
	ptr := ""
	if t.ptr != "" {
		ptr = "#" + t.ptr
	}
	if t.file == root {
		if ptr == "" {
			return "#"
		}
		return ptr
	}
	return t.file + ptr
}

// target resolves one $ref written in file, refusing anything that would
// leave the set: URLs with a scheme or host, absolute paths, "..".
func (rc *refChecker) target(file string, v *yaml.Node) (refTarget, error) {
	ref := v.Value
	fail := func(kind ErrorKind, msg string) (refTarget, error) {
		return refTarget{}, importErr(kind, file, v.Line, v.Column, "%s: %q", msg, ref)
	}
	base, frag, _ := strings.Cut(ref, "#")
	if base != "" {
		if t, ok := rc.byID(base, frag); ok {
			return t, nil
		}
	}
	u, err := url.Parse(base)
	if err != nil {
		return fail(KindRefMissing, "malformed $ref")
	}
	switch {
	case u.Scheme == "http" || u.Scheme == "https" || u.Host != "":
		return fail(KindRefOutside, "$ref to the network is not allowed")
	case u.Scheme != "":
		return fail(KindRefOutside, "$ref outside the file set is not allowed")
	case strings.HasPrefix(base, "/") || strings.HasPrefix(base, `\`) || (len(base) > 1 && base[1] == ':'):
		return fail(KindRefOutside, "$ref to an absolute path is not allowed")
	}
	target := file
	if base != "" {
		target = path.Join(path.Dir(file), u.Path)
		if target == ".." || strings.HasPrefix(target, "../") {
			return fail(KindRefOutside, "$ref outside the file set is not allowed")
		}
	}
	pf, ok, err := rc.src.file(target)
	if err != nil {
		return refTarget{}, err
	}
	if !ok {
		return fail(KindRefMissing, "$ref to a file not in the set")
	}
	ptr, err := url.PathUnescape(frag)
	if err != nil {
		ptr = frag
	}
	if ptr != "" && !strings.HasPrefix(ptr, "/") {
		return fail(KindUnsupported, "$ref to a plain-name anchor is not supported")
	}
	if _, ok := resolvePointer(pf.root, ptr); !ok {
		// A percent-encoded "\" names a component standInBackslashes
		// renamed.
		alt := strings.ReplaceAll(ptr, `\`, backslashStandIn)
		if _, ok := resolvePointer(pf.root, alt); !ok || alt == ptr {
			return fail(KindRefMissing, "unresolvable $ref")
		}
		ptr = alt
	}
	return refTarget{target, ptr}, nil
}

func (rc *refChecker) byID(base, frag string) (refTarget, bool) {
	if frag != "" && !strings.HasPrefix(frag, "/") {
		t, ok := rc.anchors[base+"#"+frag]
		return t, ok
	}
	t, ok := rc.ids[base]
	if !ok {
		return t, false
	}
	t.ptr += frag
	return t, true
}

// followChain refuses $refs that only lead to other $refs in a loop (a path
// item or schema that is nothing but a reference to itself): no depth bound
// can turn those into a value.
func (rc *refChecker) followChain(file string, t refTarget, at *yaml.Node) error {
	seen := map[refTarget]bool{}
	for !seen[t] {
		seen[t] = true
		n, _ := resolvePointer(rc.src.parsed[t.file].root, t.ptr)
		ref := mapGet(n, "$ref")
		if ref == nil || ref.Kind != yaml.ScalarNode || ref.Tag == "!!null" {
			return nil
		}
		next, err := rc.target(t.file, ref)
		if err != nil {
			// A link the walk will not follow is reported, and
			// rewritten, where it is written.
			var ie *ImportError
			if errors.As(err, &ie) && ie.notFollowed() {
				return nil
			}
			return err
		}
		rc.reach(next.file)
		t = next
	}
	return importErr(KindRefCycle, file, at.Line, at.Column, "cyclic $ref never reaches a value: %q", at.Value)
}

// cutRef splits a $ref into its file part and its JSON pointer, the
// pointer percent-decoded as a URI fragment (RFC 6901 section 6).
func cutRef(ref string) (file, ptr string, hadFrag bool) {
	file, frag, hadFrag := strings.Cut(ref, "#")
	ptr, err := url.PathUnescape(frag)
	if err != nil {
		ptr = frag
	}
	return file, ptr, hadFrag
}
