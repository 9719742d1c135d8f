package openapi

import (
	"archive/zip"
	"bytes"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// multiFileSet is a small set spread over nested directories: a path item
// in its own file, and parameters and schemas in a sibling directory that
// every file reaches with a relative $ref.
func multiFileSet() []File {
	return []File{
		{"spec/api.yaml", []byte(`openapi: 3.0.3
info: {title: set, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /users:
    $ref: "paths/users.yaml"
  /users/{id}:
    get:
      operationId: getUser
      parameters: [{$ref: "../common/params.yaml#/id"}]
      responses: {"200": {description: ok}}
`)},
		{"spec/paths/users.yaml", []byte(`get:
  operationId: listUsers
  parameters: [{$ref: "../../common/params.yaml#/limit"}]
  responses: {"200": {description: ok}}
post:
  operationId: createUser
  requestBody: {content: {application/json: {schema: {$ref: "../../common/schemas.yaml#/User"}}}}
  responses: {"201": {description: ok}}
`)},
		{"common/params.yaml", []byte("id: {name: id, in: path, required: true, schema: {type: string}}\n" +
			"limit: {name: limit, in: query, schema: {type: integer, maximum: 100}}\n")},
		{"common/schemas.yaml", []byte("User: {type: object, required: [name], properties: {name: {type: string, maxLength: 70}}}\n")},
	}
}

// checkMultiFileSet asserts every cross-file $ref of multiFileSet resolved.
func checkMultiFileSet(t *testing.T, doc *Document, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	tools := map[string]Operation{}
	for _, o := range doc.Operations {
		tools[o.Tool] = o
	}
	if len(tools) != 3 {
		t.Fatalf("tools = %v, want getUser, listUsers, createUser", slices.Sorted(maps.Keys(tools)))
	}
	for tool, want := range map[string]string{
		"getUser":    `"id":{"type":"string"}`,
		"listUsers":  `"maximum":100`,
		"createUser": `"maxLength":70`,
	} {
		if s := string(tools[tool].InputSchema); !strings.Contains(s, want) {
			t.Errorf("%s input schema lacks %s (a $ref did not resolve): %s", tool, want, s)
		}
	}
}

// makeZip writes entries (a name ending in "/" is a directory) with Deflate.
func makeZip(t *testing.T, entries []File) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.Name, Method: zip.Deflate})
		if err != nil {
			t.Fatalf("zip %s: %v", e.Name, err)
		}
		if _, err := w.Write(e.Data); err != nil {
			t.Fatalf("zip %s: %v", e.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatalf("zip: %v", err)
	}
	return buf.Bytes()
}

func TestLoadZipMultiFileSet(t *testing.T) {
	entries := append([]File{{Name: "spec/"}, {Name: "README.md", Data: []byte("# not a spec\x00")}}, multiFileSet()...)
	doc, err := LoadZip(makeZip(t, entries), Options{})
	checkMultiFileSet(t, doc, err)
}

func TestLoadZipRefuses(t *testing.T) {
	const api = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
	// 8 MiB of YAML that deflates to a few KiB: only counting the bytes
	// actually decompressed catches it.
	bomb := api + "x-pad: '" + strings.Repeat(" ", 8<<20) + "'\n"
	cases := []struct {
		name    string
		zip     []byte
		opts    Options
		kind    ErrorKind
		message string
	}{
		{"../ entry", makeZip(t, []File{{"api.yaml", []byte(api)}, {"../evil.yaml", []byte("a: 1\n")}}), Options{}, KindFileSet,
			"../evil.yaml: zip entry name leaves the file set: refused"},
		{"../ inside a name", makeZip(t, []File{{"a/../../evil.txt", nil}}), Options{}, KindFileSet,
			"a/../../evil.txt: zip entry name leaves the file set: refused"},
		{"absolute entry", makeZip(t, []File{{"/etc/api.yaml", []byte(api)}}), Options{}, KindFileSet,
			"/etc/api.yaml: zip entry has an absolute or backslash name: refused"},
		{"windows path", makeZip(t, []File{{`..\evil.yaml`, []byte(api)}}), Options{}, KindFileSet,
			`..\evil.yaml: zip entry has an absolute or backslash name: refused`},
		{"zip bomb", makeZip(t, []File{{"api.yaml", []byte(bomb)}}), Options{MaxBytes: 1 << 20}, KindTooLarge,
			"api.yaml: the file set is over the 1048576 byte limit"},
		{"sum of entries", makeZip(t, []File{{"a.yaml", []byte(api + strings.Repeat("#\n", 300))}, {"b.yaml", []byte(api + strings.Repeat("#\n", 300))}}),
			Options{MaxBytes: 1000}, KindTooLarge, "b.yaml: the file set is over the 1000 byte limit"},
		{"not a zip", []byte(api), Options{}, KindFileSet, "upload.zip: not a readable zip archive: zip: not a valid zip file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "zip bomb" && len(c.zip) > 64<<10 {
				t.Fatalf("the bomb is %d bytes compressed: not a bomb", len(c.zip))
			}
			doc, err := LoadZip(c.zip, c.opts)
			if doc != nil || KindOf(err) != c.kind || err.Error() != c.message {
				t.Errorf("got doc=%v err=%v (kind %q)\nwant kind %q: %s", doc != nil, err, KindOf(err), c.kind, c.message)
			}
		})
	}
}

// TestLoadZipLyingHeader copies a real 2 MiB entry into a new archive
// whose header claims 100 bytes: the read must stop, whatever the header says.
func TestLoadZipLyingHeader(t *testing.T) {
	honest := makeZip(t, []File{{"api.yaml", []byte("openapi: 3.0.0\n" + strings.Repeat(" ", 2<<20))}})
	zr, err := zip.NewReader(bytes.NewReader(honest), int64(len(honest)))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := zr.File[0].OpenRaw()
	if err != nil {
		t.Fatal(err)
	}
	h := zr.File[0].FileHeader
	h.UncompressedSize64 = 100
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	w, err := zw.CreateRaw(&h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	doc, err := LoadZip(out.Bytes(), Options{MaxBytes: 1 << 20})
	if doc != nil || err == nil {
		t.Fatalf("imported an entry whose header lies about its size")
	}
	if k := KindOf(err); k != KindFileSet && k != KindTooLarge {
		t.Errorf("err = %v (kind %q), want file_set or too_large", err, k)
	}
	t.Logf("refused: %v", err)
}

func TestLoadFilesMultiFileSet(t *testing.T) {
	doc, err := LoadFiles(multiFileSet(), Options{})
	checkMultiFileSet(t, doc, err)
}

// TestLoadPathDirectory loads the same set from disk, as the CLI does.
func TestLoadPathDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, f := range multiFileSet() {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := LoadPath(dir, Options{})
	checkMultiFileSet(t, doc, err)
}

// TestReadDirStopsAtTheLimit reads a directory whose one file is far larger
// than the limit (and whose size claim is a lie, as on a pipe or a file that
// grows): the read must stop one byte past the limit instead of pulling the
// whole file into memory first.
func TestReadDirStopsAtTheLimit(t *testing.T) {
	const limit = 4 << 10
	fsys := &endlessFileFS{dir: fstest.MapFS{"big.json": {Data: []byte("{}")}}, name: "big.json", size: 64 << 20}
	_, err := readDir(fsys, limit)
	if k := KindOf(err); k != KindTooLarge {
		t.Fatalf("err = %v (kind %q), want too_large", err, k)
	}
	if fsys.served > limit+1 {
		t.Errorf("read %d bytes of the file for a %d byte limit", fsys.served, limit)
	}
}

// endlessFileFS serves dir, except that the file called name yields size
// bytes of '{' whatever its stat says, counting what was read. It has only
// Open, so fs.ReadFile and fs.WalkDir cannot bypass it.
type endlessFileFS struct {
	dir    fstest.MapFS
	name   string
	size   int64
	served int64
}

func (e *endlessFileFS) Open(name string) (fs.File, error) {
	f, err := e.dir.Open(name)
	if err != nil || name != e.name {
		return f, err
	}
	return &endlessFile{File: f, fs: e}, nil
}

type endlessFile struct {
	fs.File
	fs *endlessFileFS
}

func (f *endlessFile) Read(p []byte) (int, error) {
	n := int(min(int64(len(p)), f.fs.size-f.fs.served))
	if n <= 0 {
		return 0, io.EOF
	}
	for i := range p[:n] {
		p[i] = '{'
	}
	f.fs.served += int64(n)
	return n, nil
}

func TestLoadFilesRoots(t *testing.T) {
	api := func(title string) []byte {
		return []byte("openapi: 3.0.0\ninfo: {title: " + title + ", version: '1'}\npaths: {/" + title + ": {get: {}}}\n")
	}
	two := []File{{"b.yaml", api("b")}, {"a.yaml", api("a")}}
	cases := []struct {
		name    string
		files   []File
		root    string
		title   string // of the document imported; "" when refused
		kind    ErrorKind
		message string
	}{
		{"several roots", two, "", "", KindFileSet, "several root documents (a.yaml, b.yaml): choose one"},
		{"root chosen", two, "b.yaml", "b", "", ""},
		{"root chosen with ./", two, "./a.yaml", "a", "", ""},
		{"root not in the set", two, "c.yaml", "", KindFileSet, "c.yaml: root file is not in the file set"},
		{"root not OpenAPI", append(two, File{"s.yaml", []byte("S: {type: string}\n")}), "s.yaml", "", KindNotOpenAPI,
			"s.yaml: not an OpenAPI document: no top-level openapi or swagger key"},
		{"no root", []File{{"s.yaml", []byte("S: {}\n")}, {"t.yaml", []byte("T: {}\n")}}, "", "", KindNotOpenAPI,
			"no file in the set has a top-level openapi or swagger key"},
		{"duplicate name", []File{{"a.yaml", api("a")}, {"a.yaml", api("b")}}, "", "", KindFileSet, "a.yaml: file given twice"},
		{"duplicate after cleaning", []File{{"spec/a.yaml", api("a")}, {"spec//x/../a.yaml", api("b")}}, "", "", KindFileSet,
			"spec/a.yaml: file given twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := LoadFiles(c.files, Options{Root: c.root})
			if c.title != "" {
				if err != nil || doc.Title != c.title {
					t.Fatalf("got err %v, want the %q document", err, c.title)
				}
				return
			}
			if doc != nil || KindOf(err) != c.kind || err.Error() != c.message {
				t.Errorf("got doc=%v err=%v (kind %q)\nwant kind %q: %s", doc != nil, err, KindOf(err), c.kind, c.message)
			}
		})
	}
}
