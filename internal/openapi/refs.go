package openapi

import (
	"maps"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/go-yaml"
)

// refTarget is where a $ref points inside the set: a file and a JSON pointer.
type refTarget struct {
	file string
	ptr  string
}

// refChecker enforces the import's one hard rule before libopenapi resolves
// anything: every $ref stays inside the file set and reaches a value. The
// library is configured the same way (no remote refs, an in-memory FS), but
// checking here first gives the admin a precise error with line and column.
type refChecker struct {
	files map[string]*parsedFile
	// names lists files' keys sorted: walking in map order would make
	// which of several bad $refs is reported, and which of two files
	// declaring the same $id wins, change from run to run.
	names []string
	// ids maps a JSON Schema $id (3.1) to where it is declared, and
	// anchors maps "$id#anchor" likewise, so $id-based refs such as
	// "/components/schemas/petdetails#pet_details_id" resolve in-document.
	ids     map[string]refTarget
	anchors map[string]refTarget
}

func newRefChecker(files map[string]*parsedFile) *refChecker {
	rc := &refChecker{files: files, names: slices.Sorted(maps.Keys(files)),
		ids: map[string]refTarget{}, anchors: map[string]refTarget{}}
	for _, name := range rc.names {
		rc.collectIDs(name, files[name].root, nil, "")
	}
	return rc
}

// isLiteralKey tells keys whose values are data, not OpenAPI objects: a
// "$ref" under them is a value. "default" is a response under "responses".
func isLiteralKey(parent, k string) bool {
	switch k {
	case "example", "enum", "const":
		return true
	case "default":
		return parent != "responses"
	}
	return strings.HasPrefix(k, "x-")
}

func pointerOf(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func (rc *refChecker) collectIDs(file string, n *yaml.Node, toks []string, id string) {
	parent := ""
	if len(toks) > 0 {
		parent = toks[len(toks)-1]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		if n != nil && n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				rc.collectIDs(file, c, append(toks, strconv.Itoa(i)), id)
			}
		}
		return
	}
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
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !isLiteralKey(parent, k) {
			rc.collectIDs(file, n.Content[i+1], append(toks, k), id)
		}
	}
}

// check walks every file and validates each $ref. In the root file it
// rewrites $id-based refs to plain JSON pointers the library can follow.
func (rc *refChecker) check(root string) error {
	for _, name := range rc.names {
		if err := rc.walk(name, "", rc.files[name].root, name == root); err != nil {
			return err
		}
	}
	return nil
}

func (rc *refChecker) walk(file, parent string, n *yaml.Node, rewrite bool) error {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if err := rc.walk(file, parent, c, rewrite); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if k == "$ref" && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
				t, err := rc.target(file, v)
				if err != nil {
					return err
				}
				if rewrite {
					v.Value = rootRelative(file, t)
				}
				if err := rc.followChain(file, t, v); err != nil {
					return err
				}
				continue
			}
			if isLiteralKey(parent, k) {
				continue
			}
			if err := rc.walk(file, k, v, rewrite); err != nil {
				return err
			}
		}
	}
	return nil
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
	pf, ok := rc.files[target]
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
		return fail(KindRefMissing, "unresolvable $ref")
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
		n, _ := resolvePointer(rc.files[t.file].root, t.ptr)
		ref := mapGet(n, "$ref")
		if ref == nil || ref.Kind != yaml.ScalarNode || ref.Tag == "!!null" {
			return nil
		}
		next, err := rc.target(t.file, ref)
		if err != nil {
			return err
		}
		t = next
	}
	return importErr(KindRefCycle, file, at.Line, at.Column, "cyclic $ref never reaches a value: %q", at.Value)
}
