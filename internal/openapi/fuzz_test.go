package openapi

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// maxFuzzDoc bounds the documents FuzzLoad feeds the importer, and so the
// fixtures it is seeded with: large inputs make each fuzz run slow.
const maxFuzzDoc = 1 << 16

// seedFixtures returns the corpus rows when the shared fixtures are present;
// fuzz targets seed from them and still run on their own seeds without them.
func seedFixtures(f *testing.F) []fixture {
	f.Helper()
	if corpusLeftToPlainRun() {
		return nil
	}
	dir, err := corpusDir()
	if err != nil {
		f.Logf("not seeding from the fixture corpus: %v", err)
		return nil
	}
	return fixturesIn(f, dir)
}

// FuzzToolName is seeded with every operation of Box (path keys with
// #fragment variants, colon paths) and of the multi-file petstore (ids with
// spaces), then checks the name rule and collision handling.
func FuzzToolName(f *testing.F) {
	f.Add("find pet by id", "GET", "/pets/{id}")
	f.Add("", "delete", "/files/{file_id}#remove_shared_link")
	f.Add(strings.Repeat("é#:.", 40), "POST", "/x")
	for _, fx := range seedFixtures(f) {
		if fx.name == "box-openapi.json" || fx.name == "oai-petstore-separate/spec/swagger.json" {
			for _, o := range loadFixture(f, fx).Operations {
				id := o.OperationID
				if o.OperationIDDerived {
					id = ""
				}
				f.Add(id, o.Method, o.PathKey)
			}
		}
	}
	re := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	f.Fuzz(func(t *testing.T, id, method, path string) {
		n := ToolName(id, method, path)
		if !re.MatchString(n) || n != ToolName(id, method, path) {
			t.Fatalf("ToolName(%q,%q,%q) = %q", id, method, path, n)
		}
		ops := []Operation{{OperationID: id, Method: method, PathKey: path}, {OperationID: id, Method: method, PathKey: path + "#b"}}
		AssignToolNames(ops)
		if ops[0].Tool == ops[1].Tool || !re.MatchString(ops[1].Tool) {
			t.Fatalf("collision not resolved: %q %q", ops[0].Tool, ops[1].Tool)
		}
	})
}

// FuzzLoad is seeded with every single-file fixture under 64 KiB (2.0, 3.0,
// 3.1, JSON and YAML, webhooks only) and checks that the importer returns
// exactly one of a document or an error, and valid input schemas.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(miniV3))
	f.Add([]byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{"/a":{"post":{"parameters":[{"name":"f","in":"formData","type":"file"}]}}}}`))
	f.Add([]byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\nwebhooks: {a: {post: {}}}\n"))
	for _, fx := range seedFixtures(f) {
		if fx.root != "" {
			continue
		}
		if data, err := os.ReadFile(fx.path); err == nil && len(data) <= maxFuzzDoc {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := LoadBytes("f.yaml", data, Options{MaxBytes: maxFuzzDoc})
		if (doc == nil) == (err == nil) {
			t.Fatalf("doc and err both %v", doc == nil)
		}
		if err != nil && (KindOf(err) == "" || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("error is not a one-line ImportError: %q", err)
		}
		if doc != nil {
			for _, o := range doc.Operations {
				if !json.Valid(o.InputSchema) {
					t.Fatalf("invalid input schema %s", o.InputSchema)
				}
			}
		}
	})
}
