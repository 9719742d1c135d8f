package openapi

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// v3Head starts a small 3.0 document with a server, so the only warnings
// are the ones a test is about.
const v3Head = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://api.example.com'}]\n"

// opsByKey indexes a document's operations by "METHOD path".
func opsByKey(doc *Document) map[string]Operation {
	out := map[string]Operation{}
	for _, o := range doc.Operations {
		out[o.Method+" "+o.PathKey] = o
	}
	return out
}

func mustLoad(t *testing.T, name, src string) *Document {
	t.Helper()
	doc, err := LoadBytes(name, []byte(src), Options{})
	if err != nil {
		t.Fatalf("import refused: %v", err)
	}
	return doc
}

// TestRefsInLiteralDataAreData checks item 1: a $ref written inside
// example, examples (a schema's list, a media type's Example Objects,
// components.examples values), default, enum, const or an x- value is data
// and is never followed, by toolgate or by libopenapi; a property called
// "$ref" is a property. Every ref below points nowhere, to the network or
// outside the set: following any of them would refuse the document.
func TestRefsInLiteralDataAreData(t *testing.T) {
	src := "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://api.example.com'}]\n" + `paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              example: {$ref: 'https://evil.example/x#/y'}
              examples: [{$ref: '#/nope'}]
              x-sample: {$ref: '../../etc/passwd'}
              properties:
                $ref: {type: string, default: {$ref: '#/gone'}}
                kind: {enum: [{$ref: '#/nope'}, b]}
                fixed: {const: {$ref: '#/nope'}}
            example: {$ref: '#/nope'}
            examples:
              inline: {value: {$ref: 'https://evil.example/'}}
              shared: {$ref: '#/components/examples/E'}
      responses: {'200': {description: ok}}
components:
  examples:
    E: {summary: s, value: {nested: {$ref: '/etc/passwd'}}}
`
	doc := mustLoad(t, "api.yaml", src)
	if len(doc.Warnings) != 0 {
		t.Errorf("warnings %q, want none: nothing here is a reference", doc.Warnings)
	}
	var in struct {
		Properties struct {
			Body struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"body"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc.Operations[0].InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	props := in.Properties.Body.Properties
	for name, want := range map[string]string{
		"$ref":  `{"default":{"$ref":"#/gone"},"type":"string"}`,
		"kind":  `{"enum":[{"$ref":"#/nope"},"b"]}`,
		"fixed": `{"const":{"$ref":"#/nope"}}`,
	} {
		if got := string(props[name]); got != want {
			t.Errorf("property %q = %s, want %s (the literal kept as written)", name, got, want)
		}
	}
}

// TestUnfollowedRefs checks item 5 for whole objects: a parameter that is a
// $ref toolgate cannot or will not follow costs only its operation, with a
// warning naming the ref and its position; the document's other operation
// imports.
func TestUnfollowedRefs(t *testing.T) {
	withRefAndMore := func(ref string) string {
		return withRef(ref) + "  /b:\n    get: {operationId: fine, responses: {'200': {description: ok}}}\n"
	}
	cases := []struct {
		name  string
		files []File
		msg   string
	}{
		{"http $ref", one("api.yaml", withRefAndMore("http://evil.example/x.json#/p")),
			`api.yaml:6:27: $ref to the network is not allowed: "http://evil.example/x.json#/p"`},
		{"file URL $ref", one("api.yaml", withRefAndMore("file:///etc/passwd")),
			`api.yaml:6:27: $ref outside the file set is not allowed: "file:///etc/passwd"`},
		{"absolute $ref", one("api.yaml", withRefAndMore("/etc/passwd")),
			`api.yaml:6:27: $ref to an absolute path is not allowed: "/etc/passwd"`},
		{"../ outside the set", []File{{"spec/api.yaml", []byte(withRefAndMore("../../secret.yaml#/p"))}, {"common/p.yaml", []byte("p: {}\n")}},
			`spec/api.yaml:6:27: $ref outside the file set is not allowed: "../../secret.yaml#/p"`},
		{"missing file", one("api.yaml", withRefAndMore("params.yaml#/limit")),
			`api.yaml:6:27: $ref to a file not in the set: "params.yaml#/limit"`},
		{"missing pointer", one("api.yaml", withRefAndMore("#/components/parameters/nope")),
			`api.yaml:6:27: unresolvable $ref: "#/components/parameters/nope"`},
		{"plain-name anchor", one("api.yaml", withRefAndMore("#limit")),
			`api.yaml:6:27: $ref to a plain-name anchor is not supported: "#limit"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Load(FileSet{Files: c.files}, Options{})
			if err != nil {
				t.Fatalf("refused the whole document: %v", err)
			}
			ops := opsByKey(doc)
			if _, ok := ops["GET /a"]; ok || len(ops) != 1 {
				t.Errorf("operations %v, want only GET /b: GET /a's parameter is not resolvable", slices.Sorted(maps.Keys(ops)))
			}
			for _, w := range []string{c.msg + ": not followed; what it names is left out (see the operations that use it)",
				"GET /a: not imported: its parameter is " + c.msg} {
				if !slices.Contains(doc.Warnings, w) {
					t.Errorf("warnings %q\nlack %q", doc.Warnings, w)
				}
			}
		})
	}
}

// TestUnresolvedSchemaRef checks item 5 for schemas and path items: the
// operation using a dangling schema imports with that part unconstrained
// and flagged (SchemaGaps, a warning), others import unchanged, and a path
// item that is a dangling $ref fails only its own operations.
func TestUnresolvedSchemaRef(t *testing.T) {
	src := v3Head + `paths:
  /items:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                toggle: {$ref: '#/components/schemas/RenamedType'}
                name: {type: string}
      responses: {'200': {description: ok}}
    get:
      responses: {'200': {description: ok}}
  /gone: {$ref: '#/components/pathItems/Gone'}
  /other:
    get:
      parameters: [{name: q, in: query, schema: {$ref: '#/components/schemas/Q'}}]
      responses: {'200': {description: ok}}
components:
  schemas:
    Q: {type: string, maxLength: 5}
`
	doc := mustLoad(t, "api.yaml", src)
	ops := opsByKey(doc)
	if len(ops) != 3 {
		t.Fatalf("operations %v, want POST /items, GET /items, GET /other", slices.Sorted(maps.Keys(ops)))
	}
	const msg = `api.yaml:13:32: unresolvable $ref: "#/components/schemas/RenamedType"`
	post := ops["POST /items"]
	if !slices.Equal(post.SchemaGaps, []string{msg}) {
		t.Errorf("POST /items schema gaps %q, want [%q]", post.SchemaGaps, msg)
	}
	if s := string(post.InputSchema); !strings.Contains(s, `"toggle":{"description":"unconstrained: unresolvable $ref: \"#/components/schemas/RenamedType\""}`) ||
		!strings.Contains(s, `"name":{"type":"string"}`) {
		t.Errorf("POST /items input schema %s: want toggle unconstrained and name kept", s)
	}
	for _, k := range []string{"GET /items", "GET /other"} {
		if len(ops[k].SchemaGaps) != 0 {
			t.Errorf("%s flagged %q, want nothing", k, ops[k].SchemaGaps)
		}
	}
	if !strings.Contains(string(ops["GET /other"].InputSchema), `"maxLength":5`) {
		t.Errorf("GET /other lost its resolved schema: %s", ops["GET /other"].InputSchema)
	}
	for _, w := range []string{
		"POST /items: input schema incomplete, flagged: " + msg,
		`path /gone: not imported: its path item is api.yaml:18:17: unresolvable $ref: "#/components/pathItems/Gone"`,
	} {
		if !slices.Contains(doc.Warnings, w) {
			t.Errorf("warnings %q\nlack %q", doc.Warnings, w)
		}
	}
}

// TestDuplicateKeys checks item 3: a key written twice is never dropped
// silently. The later entry is used (as JSON.parse does) and a warning
// names both positions, in YAML and in JSON.
func TestDuplicateKeys(t *testing.T) {
	yamlSrc := v3Head + `paths:
  /a:
    get: {operationId: first, responses: {'200': {description: ok}}}
    get: {operationId: second, responses: {'200': {description: ok}}}
  /b:
    get: {operationId: lostB, responses: {'200': {description: ok}}}
  /b:
    post: {operationId: keptB, responses: {'200': {description: ok}}}
`
	jsonSrc := `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "servers": [{"url": "https://api.example.com"}],
 "paths": {
  "/a": {"get": {"operationId": "first", "responses": {"200": {"description": "ok"}}},
         "get": {"operationId": "second", "responses": {"200": {"description": "ok"}}}},
  "/b": {"get": {"operationId": "lostB", "responses": {"200": {"description": "ok"}}}},
  "/b": {"post": {"operationId": "keptB", "responses": {"200": {"description": "ok"}}}}
 }}`
	cases := []struct {
		name, file, src string
		warnings        []string
	}{
		{"YAML", "api.yaml", yamlSrc, []string{
			`api.yaml:6:5: duplicate key "get" (again at 7:5): the later one is used, this one is ignored`,
			`api.yaml:8:3: duplicate key "/b" (again at 10:3): the later one is used, this one is ignored`}},
		{"JSON", "api.json", jsonSrc, []string{
			`api.json:3:10: duplicate key "get" (again at 4:10): the later one is used, this one is ignored`,
			`api.json:5:3: duplicate key "/b" (again at 6:3): the later one is used, this one is ignored`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := mustLoad(t, c.file, c.src)
			var ids []string
			for _, o := range doc.Operations {
				ids = append(ids, o.OperationID)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, []string{"keptB", "second"}) {
				t.Errorf("operations %v, want the later entries: keptB, second", ids)
			}
			if !slices.Equal(doc.Warnings, c.warnings) {
				t.Errorf("warnings\n got %q\nwant %q", doc.Warnings, c.warnings)
			}
		})
	}
}

// writeTree writes files under dir.
func writeTree(t *testing.T, dir string, files []File) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRootFileLoadsItsSet checks item 2: given the root file's path, the
// set is read from the root's directory tree, following relative refs to
// siblings and sub-directories; files nothing references are never read,
// even when broken; a broken file that is referenced is an error at its
// own line and column; nothing outside the tree is read.
func TestRootFileLoadsItsSet(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, []File{
		{"secret.yaml", []byte("p: {name: leaked, in: query}\n")},
		{"api/openapi.yaml", []byte(v3Head + `paths:
  /users: {$ref: 'paths/users.yaml'}
  /other:
    get:
      parameters: [{$ref: '../secret.yaml#/p'}]
      responses: {'200': {description: ok}}
`)},
		{"api/paths/users.yaml", []byte("get:\n  parameters: [{$ref: '../common/params.yaml#/limit'}]\n  responses: {'200': {description: ok}}\n")},
		{"api/common/params.yaml", []byte("limit: {name: limit, in: query, schema: {type: integer, maximum: 100}}\n")},
		{"api/unused/broken.yaml", []byte("this: [is not: yaml\n")},
		{"api/unused/binary.json", []byte("\x00\x01")},
	})
	doc, err := LoadPath(filepath.Join(dir, "api", "openapi.yaml"), Options{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	ops := opsByKey(doc)
	if len(ops) != 1 || !strings.Contains(string(ops["GET /users"].InputSchema), `"maximum":100`) {
		t.Fatalf("operations %v, want GET /users with the sibling directory's parameter", ops)
	}
	if !slices.Equal(doc.Files, []string{"openapi.yaml", "paths/users.yaml", "common/params.yaml"}) {
		t.Errorf("files read %q, want the root and the two files it reaches", doc.Files)
	}
	want := `openapi.yaml:8:27: $ref outside the file set is not allowed: "../secret.yaml#/p"`
	if !slices.Contains(doc.Warnings, "GET /other: not imported: its parameter is "+want) {
		t.Errorf("warnings %q lack the refusal to leave the tree: %s", doc.Warnings, want)
	}

	// The same tree as a directory: unreferenced broken files are still ignored.
	if doc, err := LoadPath(filepath.Join(dir, "api"), Options{}); err != nil || len(doc.Operations) != 1 {
		t.Fatalf("directory import: %v", err)
	}

	// A referenced file that is broken is reported where it is broken.
	writeTree(t, dir, []File{{"api/common/params.yaml", []byte("limit: {name: limit,\n  in: [query\n")}})
	for _, p := range []string{filepath.Join(dir, "api", "openapi.yaml"), filepath.Join(dir, "api")} {
		_, err := LoadPath(p, Options{})
		const want = "common/params.yaml:2:13: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence)"
		if err == nil || err.Error() != want {
			t.Errorf("LoadPath(%s) = %v, want %s", p, err, want)
		}
	}
}

// TestRootFileRefTheQuickScanMisses loads a root file whose only file $ref
// is a folded block scalar, which the quick scan for external refs does not
// see: the import starts again with a file system and still resolves it.
func TestRootFileRefTheQuickScanMisses(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, []File{
		{"openapi.yaml", []byte(v3Head + "paths:\n  /a:\n    $ref: >-\n      paths/a.yaml\n")},
		{"paths/a.yaml", []byte("get: {operationId: fromSibling, responses: {'200': {description: ok}}}\n")},
	})
	doc, err := LoadPath(filepath.Join(dir, "openapi.yaml"), Options{})
	if err != nil || len(doc.Operations) != 1 || doc.Operations[0].OperationID != "fromSibling" {
		t.Fatalf("got %v, %v; want the sibling's operation", doc, err)
	}
}

// TestLibraryPositionsMoveToTheFront checks that a position libopenapi
// writes inside its message, in any of its forms, becomes file:line:col.
func TestLibraryPositionsMoveToTheFront(t *testing.T) {
	for in, want := range map[string]string{
		"reference '#/x' at line 3, column 7 was not found":                  "api.yaml:3:7: reference '#/x' was not found",
		"path item build failed: cannot find reference: x at line 12, col 4": "api.yaml:12:4: path item build failed: cannot find reference: x",
		"cannot resolve reference `#/y` [40:11]":                             "api.yaml:40:11: cannot resolve reference `#/y`",
		"no position here":                                                   "api.yaml: no position here",
	} {
		if got := modelError("api.yaml", errors.New(in)).Error(); got != want {
			t.Errorf("%q\n got %s\nwant %s", in, got, want)
		}
	}
}

// TestUploadIgnoresUnreferencedBrokenFiles checks item 2 for the console's
// uploads: several files or a zip holding files nothing references, broken
// or binary, import; the same file referenced is an error at its position.
func TestUploadIgnoresUnreferencedBrokenFiles(t *testing.T) {
	files := append(multiFileSet(), File{"spec/old/draft.yaml", []byte("paths: [unclosed\n")}, File{"spec/blob.json", []byte("\x00\xff")})
	doc, err := LoadFiles(files, Options{})
	checkMultiFileSet(t, doc, err)
	doc, err = LoadZip(makeZip(t, files), Options{})
	checkMultiFileSet(t, doc, err)

	broken := append(multiFileSet()[:3:3], File{"common/schemas.yaml", []byte("User: {type: [object\n")})
	_, err = LoadFiles(broken, Options{})
	const want = "common/schemas.yaml:1:21: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence)"
	if err == nil || err.Error() != want {
		t.Errorf("referenced broken file: %v, want %s", err, want)
	}
}

// TestRootFileSymlinkOutOfTheTree checks that a symlink inside the root's
// directory that points outside it is not followed: the ref is reported and
// the secret never read.
func TestRootFileSymlinkOutOfTheTree(t *testing.T) {
	outside, dir := t.TempDir(), t.TempDir()
	writeTree(t, outside, []File{{"secret.yaml", []byte("p: {name: leaked, in: query}\n")}})
	writeTree(t, dir, []File{{"openapi.yaml", []byte(v3Head + "paths:\n  /a:\n    get:\n      parameters: [{$ref: 'link/secret.yaml#/p'}]\n      responses: {'200': {description: ok}}\n")}})
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	doc, err := LoadPath(filepath.Join(dir, "openapi.yaml"), Options{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if len(doc.Operations) != 0 || slices.Contains(doc.Files, "link/secret.yaml") {
		t.Errorf("operations %d, files %q: the symlink out of the tree was followed", len(doc.Operations), doc.Files)
	}
}
