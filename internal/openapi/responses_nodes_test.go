package openapi

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// A $ref with siblings is read as its target by the node walk, as the
// library reads it, in 3.0 and 3.1, JSON and YAML, whatever the siblings
// and wherever the $ref sits (the media type's schema, a property, items,
// additionalProperties, an allOf member); an empty $ref (an unquoted "#" in
// YAML starts a comment) makes the library refuse the schema, and the
// node walk leaves it to the model walk. Every case gives the Document the
// model walk gives.
func TestNodeWalkReadsSiblingRefsAsTheLibrary(t *testing.T) {
	siblings := []string{`"description":"d"`, `"nullable":true`, `"readOnly":true,"description":"r"`,
		`"x-release-status":"BETA","description":"b"`, `"type":"object"`, `"required":["id"]`}
	places := []string{
		`{"$ref":"#/components/schemas/Pet",%s}`,
		`{"type":"object","properties":{"pet":{"$ref":"#/components/schemas/Pet",%s}}}`,
		`{"type":"array","items":{"$ref":"#/components/schemas/Pet",%s}}`,
		`{"type":"object","additionalProperties":{"$ref":"#/components/schemas/Pet",%s}}`,
		`{"allOf":[{"$ref":"#/components/schemas/Pet",%s},{"type":"object","properties":{"extra":{"type":"string"}}}]}`,
	}
	for _, version := range []string{"3.0.3", "3.1.0"} {
		for i, sib := range siblings {
			for j, place := range places {
				schema := fmt.Sprintf(place, sib)
				doc := fmt.Sprintf(`{"openapi":%q,"info":{"title":"s","version":"1"},"paths":{"/p":{"get":{"responses":{"200":{"description":"ok",`+
					`"content":{"application/json":{"schema":%s}}}}}}},"components":{"schemas":{"Pet":{"type":"object","properties":{`+
					`"id":{"type":"string"},"owner":{"$ref":"#/components/schemas/Owner","description":"who"},"api_key":{"type":"string"}}},`+
					`"Owner":{"type":"object","properties":{"name":{"type":"string"},"pet":{"$ref":"#/components/schemas/Pet"}}}}}}`, version, schema)
				t.Run(fmt.Sprintf("%s/sibling%d/place%d", version, i, j), func(t *testing.T) {
					parity(t, "api.json", doc)
				})
			}
		}
	}
	// YAML: an unquoted "#" makes the $ref empty; the library then refuses
	// the whole Pet, and so the node walk does not read it either.
	yamlDoc := "openapi: 3.1.0\ninfo: {title: y, version: '1'}\npaths:\n  /p:\n    get:\n      responses:\n        '200':\n" +
		"          description: ok\n          content:\n            application/json:\n              schema:\n" +
		"                $ref: '#/components/schemas/Pet'\n                description: a pet\n" +
		"components:\n  schemas:\n    Pet:\n      type: object\n      properties:\n        id: {type: string}\n" +
		"        details:\n          $ref: #/components/schemas/Details\n    Details:\n      type: object\n"
	parity(t, "api.yaml", yamlDoc)
}

func parity(t *testing.T, name, doc string) {
	t.Helper()
	nodes, err := LoadBytes(name, []byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	model, err := LoadBytes(name, []byte(doc), Options{modelWalk: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nodes, model) {
		t.Errorf("node walk %v, model walk %v", fieldsOf(nodes), fieldsOf(model))
	}
}

func fieldsOf(d *Document) string {
	var b strings.Builder
	for _, op := range d.Operations {
		fmt.Fprintf(&b, "%s %s %v; ", op.Method, op.PathKey, op.ResponseFields)
	}
	return b.String()
}

// Swagger 2.0's security definitions come out in the order of the
// document on every import: the library builds them concurrently, and a
// Document that changes between two imports of the same bytes would read
// as a changed source.
func TestSecurityDefinitionsKeepDocumentOrder(t *testing.T) {
	names := []string{"user_jwt", "client_registration_token", "oauth_code", "oauth_implicit", "client_secret",
		"basic", "api_key", "partner"}
	var defs []string
	for i, n := range names {
		switch i % 3 {
		case 0:
			defs = append(defs, fmt.Sprintf(`%q:{"type":"oauth2","flow":"implicit","authorizationUrl":"https://a.example/%d","scopes":{}}`, n, i))
		case 1:
			defs = append(defs, fmt.Sprintf(`%q:{"type":"apiKey","in":"header","name":"X-%d"}`, n, i))
		default:
			defs = append(defs, fmt.Sprintf(`%q:{"type":"basic"}`, n))
		}
	}
	doc := `{"swagger":"2.0","info":{"title":"s","version":"1"},"host":"api.example.com","securityDefinitions":{` +
		strings.Join(defs, ",") + `},"paths":{"/p":{"get":{"responses":{"200":{"description":"ok"}}}}}}`
	for i := range 40 {
		d, err := LoadBytes("swagger.json", []byte(doc), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range d.SecuritySchemes {
			got = append(got, s.Name)
		}
		if !reflect.DeepEqual(got, names) {
			t.Fatalf("import %d: security schemes %v, want the document's order %v", i, got, names)
		}
	}
}
