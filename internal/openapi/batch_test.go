package openapi

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// batchedDoc is a 3.1 document of n operations with what a batch boundary
// could split: path-level parameters and extensions, the same operationId
// twice, callbacks, webhooks, shared response schemas, an unresolved $ref.
func batchedDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.1.0","info":{"title":"b","version":"1"},"servers":[{"url":"https://api.example.com"}],"security":[{"key":[]}],"paths":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/r%d/{id}":{"x-tier":"t%d","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],`+
			`"post":{"operationId":"op%d","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/In"}}}},`+
			`"callbacks":{"done":{"{$request.body#/url}":{"post":{"responses":{"200":{"description":"ok"}}}}}},`+
			`"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Out%d"}}}}}}}`, i, i%3, i%7, i%2)
	}
	b.WriteString(`,"/broken":{"get":{"parameters":[{"$ref":"#/components/parameters/Missing"}],"responses":{"200":{"description":"ok"}}}}`)
	b.WriteString(`},"webhooks":{"ping":{"post":{"responses":{"200":{"description":"ok"}}}}},"components":{"securitySchemes":{"key":{"type":"apiKey","in":"header","name":"X-Key"}},"schemas":{` +
		`"In":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"child":{"$ref":"#/components/schemas/In"}}},` +
		`"Out0":{"type":"object","properties":{"id":{"type":"string"},"items":{"type":"array","items":{"$ref":"#/components/schemas/Out1"}}}},` +
		`"Out1":{"type":"object","properties":{"status":{"type":"string","enum":["a","b"]}}}}}}`)
	return []byte(b.String())
}

// TestBatchedBuildMatchesWhole: a model built batch by batch of path items
// gives the Document a model built whole gives, for 3.1, 2.0 and YAML.
func TestBatchedBuildMatchesWhole(t *testing.T) {
	v2 := `{"swagger":"2.0","info":{"title":"s","version":"1"},"host":"api.example.com","paths":{` +
		`"/a":{"parameters":[{"name":"q","in":"query","type":"string"}],"get":{"responses":{"200":{"description":"ok","schema":{"$ref":"#/definitions/D"}}}},"post":{"parameters":[{"name":"body","in":"body","schema":{"$ref":"#/definitions/D"}}],"responses":{"200":{"description":"ok"}}}},` +
		`"/b":{"get":{"operationId":"same","responses":{"200":{"description":"ok"}}}},"/c":{"get":{"operationId":"same","responses":{"200":{"description":"ok"}}}},` +
		`"/d":{"delete":{"responses":{"204":{"description":"gone"}}}}},"definitions":{"D":{"type":"object","properties":{"x":{"type":"integer"}}}}}`
	yamlDoc := "openapi: 3.0.3\ninfo: {title: y, version: '1'}\npaths:\n" +
		"  /a:\n    get: &op\n      responses: {'200': {description: ok}}\n" +
		"  /b:\n    get: *op\n  /c:\n    put: {responses: {'200': {description: ok}}}\n  /d:\n    get: *op\n"
	cases := []struct {
		name string
		data []byte
	}{
		{"api.json", batchedDoc(40)},
		{"swagger.json", []byte(v2)},
		{"api.yaml", []byte(yamlDoc)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			whole, err := LoadBytes(c.name, c.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{1, 2, 3, 7} {
				batched, err := LoadBytes(c.name, c.data, Options{batchSize: size})
				if err != nil {
					t.Fatalf("batches of %d: %v", size, err)
				}
				if !reflect.DeepEqual(whole, batched) {
					t.Errorf("batches of %d: the Document differs from the one built whole\nwhole   %+v\nbatched %+v", size, whole, batched)
				}
			}
		})
	}
}

// TestPathBatches: batches cover every path item once, in order, and a
// document with a $ref into #/paths is built whole.
func TestPathBatches(t *testing.T) {
	data := batchedDoc(10)
	doc, _, err := newLibDocument(data, "api.json", false)
	if err != nil {
		t.Fatal(err)
	}
	paths := valueOf(mapGet(doc.GetSpecInfo().RootNode.Content[0], "paths"))
	got := pathBatches(paths, data, 4)
	want := [][2]int{{0, 8}, {8, 16}, {16, 22}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("batches %v, want %v", got, want)
	}
	if b := pathBatches(paths, append(data, `"#/paths/~1r1"`...), 4); b != nil {
		t.Errorf("a $ref into #/paths: batches %v, want the document whole", b)
	}
	if b := pathBatches(paths, data, 100); b != nil {
		t.Errorf("under one batch: %v, want the document whole", b)
	}
}

// TestFixturesBatchedMatchWhole builds every single-file fixture batch by
// batch (a few operations each) and compares it with the same fixture
// built whole: batching changes no Document the corpus produces.
func TestFixturesBatchedMatchWhole(t *testing.T) {
	fixturesMatchDefault(t, Options{batchSize: 5}, "batched")
}

// The node-tree response walk gives every fixture the Document the model
// walk gives.
func TestFixturesNodeWalkMatchesModelWalk(t *testing.T) {
	fixturesMatchDefault(t, Options{modelWalk: true}, "model-walk")
}

// fixturesMatchDefault loads every single-file fixture with opts and
// requires the Document the default load gives. Sets of several files are
// always built whole and walk the model, so they are not compared.
func fixturesMatchDefault(t *testing.T, opts Options, what string) {
	for _, fx := range fixtures(t) {
		if fx.root != "" {
			continue
		}
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(fx.path)
			if err != nil {
				t.Fatal(err)
			}
			want := loadFixture(t, fx)
			got, err := LoadBytes(fx.path, data, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(want, got) {
				t.Errorf("%s Document differs from the default one", what)
			}
		})
	}
}
