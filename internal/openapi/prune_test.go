package openapi

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// scopedDoc generates a 3.x JSON document whose n operations reach their
// components in every way a batch's narrowing must follow: chains of
// schemas of random depth (A → B → C → C), parameters, request bodies,
// responses with headers and examples, a path-level parameter, schemas
// shared across far-apart operations, names that need escaping in a
// pointer ("a/b" as a~1b, a space as %20), a schema only a webhook uses,
// one only an unreferenced component uses, and a deep pointer into a
// schema's property.
func scopedDoc(r *rand.Rand, n int, version string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"openapi":%q,"info":{"title":"s","version":"1"},"servers":[{"url":"https://api.example.com"}],"paths":{`, version)
	var schemas []string
	schema := func(name, body string) { schemas = append(schemas, fmt.Sprintf("%q:%s", name, body)) }
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		// A chain of depth 1–4 that ends in a self-reference or a leaf.
		depth := 1 + r.IntN(4)
		for d := range depth {
			next := `{"type":"string"}`
			if d+1 < depth {
				next = fmt.Sprintf(`{"$ref":"#/components/schemas/C%d_%d"}`, i, d+1)
			} else if r.IntN(2) == 0 {
				next = fmt.Sprintf(`{"type":"array","items":{"$ref":"#/components/schemas/C%d_%d"}}`, i, d)
			}
			schema(fmt.Sprintf("C%d_%d", i, d), fmt.Sprintf(`{"type":"object","required":["v"],"properties":{"v":%s,"n":{"type":"integer"}}}`, next))
		}
		shared := fmt.Sprintf("Shared%d", r.IntN(3))
		fmt.Fprintf(&b, `"/r%d/{id}":{"parameters":[{"$ref":"#/components/parameters/Id"}],`, i)
		fmt.Fprintf(&b, `"post":{"operationId":"op%d","parameters":[{"$ref":"#/components/parameters/P%d"}],`, i, i%4)
		fmt.Fprintf(&b, `"requestBody":{"$ref":"#/components/requestBodies/B%d"},`, i%5)
		fmt.Fprintf(&b, `"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/C%d_0"}}}},`, i)
		fmt.Fprintf(&b, `"201":{"$ref":"#/components/responses/R%d"},`, i%3)
		fmt.Fprintf(&b, `"202":{"description":"s","content":{"application/json":{"schema":{"$ref":"#/components/schemas/%s"}}}}}}`, shared)
		if r.IntN(3) == 0 {
			b.WriteString(`,"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/a~1b%20c"}}}}}}`)
		}
		if r.IntN(4) == 0 {
			b.WriteString(`,"put":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Deep/properties/inner"}}}},"responses":{"204":{"description":"none"}}}`)
		}
		b.WriteString(`}`)
	}
	b.WriteString(`},"webhooks":{"ping":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/HookOnly"}}}},"responses":{"200":{"description":"ok"}}}}},`)
	schema("Shared0", `{"type":"object","properties":{"s":{"$ref":"#/components/schemas/Shared1"}}}`)
	schema("Shared1", `{"type":"object","properties":{"t":{"type":"string","enum":["x","y"]}}}`)
	schema("Shared2", `{"type":"object","properties":{"u":{"type":"boolean"},"w":{"$ref":"#/components/schemas/Shared2"}}}`)
	schema("a/b c", `{"type":"object","properties":{"secret":{"type":"string"}}}`)
	schema("Deep", `{"type":"object","properties":{"inner":{"type":"object","required":["k"],"properties":{"k":{"$ref":"#/components/schemas/DeepLeaf"}}}}}`)
	schema("DeepLeaf", `{"type":"integer","minimum":1}`)
	schema("HookOnly", `{"type":"object","properties":{"h":{"$ref":"#/components/schemas/Shared1"}}}`)
	schema("Orphan", `{"type":"object","properties":{"o":{"$ref":"#/components/schemas/OrphanChild"}}}`)
	schema("OrphanChild", `{"type":"string"}`)
	b.WriteString(`"components":{"schemas":{` + strings.Join(schemas, ",") + `},`)
	b.WriteString(`"parameters":{"Id":{"name":"id","in":"path","required":true,"schema":{"$ref":"#/components/schemas/DeepLeaf"}},` +
		`"P0":{"name":"q","in":"query","schema":{"type":"string"}},"P1":{"name":"page","in":"query","schema":{"$ref":"#/components/schemas/DeepLeaf"}},` +
		`"P2":{"name":"X-Trace","in":"header","schema":{"type":"string"}},"P3":{"name":"sort","in":"query","schema":{"$ref":"#/components/schemas/Shared1"}}},`)
	b.WriteString(`"requestBodies":{`)
	for i := range 5 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"B%d":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Shared%d"}}}}`, i, i%3)
	}
	b.WriteString(`},"responses":{`)
	for i := range 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"R%d":{"description":"r","headers":{"X-Rate":{"$ref":"#/components/headers/Rate"}},`+
			`"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Shared%d"},"examples":{"e":{"$ref":"#/components/examples/Ex"}}}}}`, i, (i+1)%3)
	}
	b.WriteString(`},"headers":{"Rate":{"schema":{"$ref":"#/components/schemas/DeepLeaf"}}},"examples":{"Ex":{"value":{"$ref":"not a reference: data"}}}}}`)
	return []byte(b.String())
}

// TestBatchesSeeOnlyTheComponentsTheyReach: a document built batch by
// batch, each batch seeing only the components its path items reach, gives
// the Document built whole, over random documents, batch sizes, 3.0 and
// 3.1; and the narrowing does narrow.
func TestBatchesSeeOnlyTheComponentsTheyReach(t *testing.T) {
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 7))
		version := []string{"3.0.3", "3.1.0"}[seed%2]
		n := 6 + r.IntN(30)
		data := scopedDoc(r, n, version)
		t.Run(fmt.Sprintf("seed%d-%s-%dops", seed, version, n), func(t *testing.T) {
			whole, err := LoadBytes("api.json", data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(whole.Operations) < n {
				t.Fatalf("%d operations, want at least %d", len(whole.Operations), n)
			}
			for _, size := range []int{1, 2, 3, 5, 8} {
				batched, err := LoadBytes("api.json", data, Options{batchSize: size})
				if err != nil {
					t.Fatalf("batches of %d: %v", size, err)
				}
				if !reflect.DeepEqual(whole, batched) {
					t.Errorf("batches of %d: the Document differs from the one built whole", size)
				}
			}
		})
	}

	data := scopedDoc(rand.New(rand.NewPCG(1, 2)), 10, "3.1.0")
	doc, _, err := newLibDocument(data, "api.json", false)
	if err != nil {
		t.Fatal(err)
	}
	root := doc.GetSpecInfo().RootNode.Content[0]
	scope := newComponentScope(root, data)
	if scope == nil {
		t.Fatal("no scope for a document it can read")
	}
	paths := valueOf(mapGet(root, "paths"))
	schemas := valueOf(mapGet(valueOf(mapGet(root, "components")), "schemas"))
	all := len(schemas.Content)
	if !scope.narrow(paths.Content[:2]) {
		t.Fatal("the first path item could not be narrowed to")
	}
	kept := map[string]bool{}
	for i := 0; i < len(schemas.Content); i += 2 {
		kept[schemas.Content[i].Value] = true
	}
	for _, name := range []string{"C0_0", "DeepLeaf", "HookOnly", "Shared1"} {
		if !kept[name] {
			t.Errorf("%s is reached by the first path item or the webhook but was not kept (kept %v)", name, kept)
		}
	}
	for _, name := range []string{"C1_0", "Orphan", "OrphanChild"} {
		if kept[name] {
			t.Errorf("%s is not reached from the first path item but was kept", name)
		}
	}
	scope.widen()
	if len(schemas.Content) != all {
		t.Errorf("widen left %d of %d schema entries", len(schemas.Content), all)
	}
}

// A document the scope cannot read with certainty keeps every component
// in every batch.
func TestComponentScopeFallsBackToWhole(t *testing.T) {
	base := string(scopedDoc(rand.New(rand.NewPCG(3, 4)), 4, "3.1.0"))
	for name, data := range map[string]string{
		"discriminator":            strings.Replace(base, `"Orphan":{"type":"object",`, `"Orphan":{"discriminator":{"propertyName":"k"},"type":"object",`, 1),
		"$id":                      strings.Replace(base, `"Orphan":{"type":"object",`, `"Orphan":{"$id":"https://x/o","type":"object",`, 1),
		"a ref to a file":          strings.Replace(base, `"#/components/schemas/OrphanChild"`, `"other.json#/Child"`, 1),
		"a missing component":      strings.Replace(base, `"#/components/schemas/OrphanChild"`, `"#/components/schemas/Nowhere"`, 1),
		"a ref outside components": strings.Replace(base, `"#/components/schemas/OrphanChild"`, `"#/info"`, 1),
	} {
		doc, _, err := newLibDocument([]byte(data), "api.json", false)
		if err != nil {
			t.Fatal(err)
		}
		if s := newComponentScope(doc.GetSpecInfo().RootNode.Content[0], []byte(data)); s != nil {
			t.Errorf("%s: a scope was made, want every component kept", name)
		}
	}
}
