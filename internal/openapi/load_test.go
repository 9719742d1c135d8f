package openapi

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const miniV3 = `openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: "https://api.example.com/v1"}]
security: [{key: []}]
components:
  securitySchemes: {key: {type: apiKey, in: header, name: X-Key}}
  schemas:
    Node: {type: object, properties: {child: {$ref: "#/components/schemas/Node"}, name: {type: string, nullable: true}}}
paths:
  /users/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}, description: path level}
      - {name: id, in: query, schema: {type: integer}}
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}, description: op level}]
      security: []
    post:
      operationId: "create user#1"
      parameters: [{name: Idempotency-Key, in: header, schema: {type: string}}, {name: body, in: query, schema: {type: string}}]
      requestBody: {required: true, content: {application/json: {schema: {$ref: "#/components/schemas/Node"}}}}
`

func TestLoadMergeSecurityNamesSchema(t *testing.T) {
	doc, err := LoadBytes("mini.yaml", []byte(miniV3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Origin != "https://api.example.com" || doc.BasePath != "/v1" {
		t.Errorf("origin/base = %q %q", doc.Origin, doc.BasePath)
	}
	ops := map[string]Operation{}
	for _, o := range doc.Operations {
		ops[o.Method] = o
	}
	get, post := ops["GET"], ops["POST"]
	t.Run("merge", func(t *testing.T) {
		if len(get.Parameters) != 2 || get.Parameters[0].Description != "op level" {
			t.Errorf("params = %+v", get.Parameters)
		}
		if get.Parameters[0].Arg != "path_id" || get.Parameters[1].Arg != "query_id" {
			t.Errorf("args = %q %q", get.Parameters[0].Arg, get.Parameters[1].Arg)
		}
	})
	t.Run("security", func(t *testing.T) {
		if len(get.Security) != 0 {
			t.Errorf("GET security = %+v, want none (security: [])", get.Security)
		}
		if len(post.Security) != 1 || post.Security[0][0].Scheme != "key" {
			t.Errorf("POST security = %+v, want document-level key", post.Security)
		}
	})
	t.Run("names", func(t *testing.T) {
		if get.Tool != "get_users_id" || !get.OperationIDDerived {
			t.Errorf("GET tool = %q", get.Tool)
		}
		if post.Tool != "create_user_1" {
			t.Errorf("POST tool = %q", post.Tool)
		}
	})
	t.Run("body and idempotency", func(t *testing.T) {
		if post.IdempotencyKeyHeader != "Idempotency-Key" || post.RequestBody.Arg != "request_body" {
			t.Errorf("idem = %q body arg = %q", post.IdempotencyKeyHeader, post.RequestBody.Arg)
		}
		s := string(post.InputSchema)
		for _, want := range []string{`"request_body"`, `"additionalProperties":false`, `recursive reference`, `["string","null"]`} {
			if !strings.Contains(s, want) {
				t.Errorf("input schema lacks %s: %s", want, s)
			}
		}
	})
}

func TestFixtureInputSchemasCompile(t *testing.T) {
	nameRe := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, fx := range fixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			doc := loadFixture(t, fx)
			seen := map[string]bool{}
			for _, o := range doc.Operations {
				if !nameRe.MatchString(o.Tool) || seen[o.Tool] {
					t.Errorf("tool name %q invalid or duplicate", o.Tool)
				}
				seen[o.Tool] = true
				v, err := jsonschema.UnmarshalJSON(bytes.NewReader(o.InputSchema))
				if err != nil {
					t.Fatalf("%s: %v", o.Tool, err)
				}
				c := jsonschema.NewCompiler()
				if err := c.AddResource("mem://"+o.Tool, v); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Compile("mem://" + o.Tool); err != nil {
					t.Errorf("%s: input schema does not compile: %v", o.Tool, err)
				}
			}
		})
	}
}

func TestAssignToolNamesIsOrderIndependent(t *testing.T) {
	mk := func() []Operation {
		return []Operation{
			{OperationID: "put_files_id", Method: "PUT", PathKey: "/files/{id}"},
			{OperationID: "put files id", Method: "PUT", PathKey: "/files/{id}#remove_shared_link"},
			{OperationID: strings.Repeat("x", 80), Method: "GET", PathKey: "/a"},
		}
	}
	a, b := mk(), mk()
	b[0], b[1] = b[1], b[0]
	AssignToolNames(a)
	AssignToolNames(b)
	if a[0].Tool != b[1].Tool || a[1].Tool != b[0].Tool || a[0].Tool == a[1].Tool {
		t.Errorf("names depend on order or collide: %q %q / %q %q", a[0].Tool, a[1].Tool, b[1].Tool, b[0].Tool)
	}
	if len(a[2].Tool) != 64 {
		t.Errorf("long id not cut to 64: %q", a[2].Tool)
	}
}
