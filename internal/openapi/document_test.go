package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// load imports a single YAML document or fails the test.
func load(t *testing.T, src string, opts Options) *Document {
	t.Helper()
	doc, err := LoadBytes("api.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return doc
}

// byRoute indexes operations by "METHOD pathkey".
func byRoute(doc *Document) map[string]Operation {
	m := map[string]Operation{}
	for _, o := range doc.Operations {
		m[o.Method+" "+o.PathKey] = o
	}
	return m
}

func TestServersByLevel(t *testing.T) {
	doc := load(t, `openapi: 3.1.0
info: {title: s, version: "1"}
servers:
  - url: "https://{region}.api.example.com:{port}/v{major}/"
    variables: {region: {default: eu, enum: [eu, us]}, port: {default: "8443"}, major: {default: "2"}}
  - url: https://backup.example.com
paths:
  /a:
    get: {}
  /b:
    servers: [{url: "https://b.example.com/base"}]
    get: {}
    post:
      servers: [{url: "https://{host}/up", variables: {host: {default: upload.example.com}}}]
`, Options{})
	if doc.Origin != "https://eu.api.example.com:8443" || doc.BasePath != "/v2" {
		t.Errorf("origin, base path = %q, %q; want the first server with variable defaults", doc.Origin, doc.BasePath)
	}
	docServers := []Server{
		{URL: "https://{region}.api.example.com:{port}/v{major}/", Variables: map[string]string{"region": "eu", "port": "8443", "major": "2"}},
		{URL: "https://backup.example.com"},
	}
	ops := byRoute(doc)
	for route, want := range map[string][]Server{
		"GET /a":  docServers,
		"GET /b":  {{URL: "https://b.example.com/base"}},
		"POST /b": {{URL: "https://{host}/up", Variables: map[string]string{"host": "upload.example.com"}}},
	} {
		if got := ops[route].Servers; !reflect.DeepEqual(got, want) {
			t.Errorf("%s servers = %+v, want %+v", route, got, want)
		}
	}
	if len(doc.Warnings) != 0 {
		t.Errorf("warnings = %q, want none", doc.Warnings)
	}
}

// TestBoxUploadServer checks the operation-level servers of a real document:
// Box uploads go to upload.box.com, one of them through a server variable.
func TestBoxUploadServer(t *testing.T) {
	doc := loadFixture(t, fixtureByName(t, "box-openapi.json"))
	if doc.Origin != "https://api.box.com" || doc.BasePath != "/2.0" {
		t.Errorf("origin, base path = %q, %q", doc.Origin, doc.BasePath)
	}
	ops := map[string]Operation{}
	for _, o := range doc.Operations {
		ops[o.Tool] = o
	}
	want := map[string]Server{
		"post_files_content":           {URL: "https://upload.box.com/api/2.0", Description: "Server for file uploads."},
		"get_files_upload_sessions_id": {URL: "https://{box-upload-server}/api/2.0", Description: "Server for file uploads.", Variables: map[string]string{"box-upload-server": "upload.box.com"}},
		"get_files_id":                 {URL: "https://api.box.com/2.0", Description: "Box Platform API server."},
	}
	for tool, w := range want {
		o, ok := ops[tool]
		if !ok {
			t.Errorf("no tool %s", tool)
			continue
		}
		if len(o.Servers) != 1 || !reflect.DeepEqual(o.Servers[0], w) {
			t.Errorf("%s servers = %+v, want [%+v]", tool, o.Servers, w)
		}
	}
}

func TestRelativeServerWarns(t *testing.T) {
	cases := []struct{ name, servers, base, warning string }{
		{"relative", "servers: [{url: /api/v31}]\n", "/api/v31",
			`the first server URL "/api/v31" is relative: the origin must be given when the source is imported`},
		{"none", "", "", "the document names no server: the origin must be given when the source is imported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := load(t, "openapi: 3.0.0\ninfo: {title: t, version: '1'}\n"+c.servers+"paths: {/a: {get: {}}}\n", Options{})
			if doc.Origin != "" || doc.BasePath != c.base {
				t.Errorf("origin, base path = %q, %q; want \"\", %q", doc.Origin, doc.BasePath, c.base)
			}
			if !slices.Contains(doc.Warnings, c.warning) {
				t.Errorf("warnings = %q, want %q", doc.Warnings, c.warning)
			}
		})
	}
}

func TestSwagger2Origin(t *testing.T) {
	cases := []struct {
		name, top    string
		origin, base string
		opServers    []string // servers of GET /a
	}{
		{"schemes host basePath", "schemes: [https, http]\nhost: api.example.com:8443\nbasePath: /v1\n",
			"https://api.example.com:8443", "/v1", []string{"https://api.example.com:8443/v1", "http://api.example.com:8443/v1"}},
		{"no schemes means https", "host: api.example.com\n", "https://api.example.com", "", []string{"https://api.example.com"}},
		{"no host is relative", "basePath: /v1\n", "", "/v1", []string{"/v1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := load(t, "swagger: '2.0'\ninfo: {title: t, version: '1'}\n"+c.top+"paths: {/a: {get: {}}}\n", Options{})
			if doc.Origin != c.origin || doc.BasePath != c.base {
				t.Errorf("origin, base path = %q, %q; want %q, %q", doc.Origin, doc.BasePath, c.origin, c.base)
			}
			var urls []string
			for _, s := range doc.Operations[0].Servers {
				urls = append(urls, s.URL)
			}
			if !slices.Equal(urls, c.opServers) {
				t.Errorf("GET /a servers = %q, want %q", urls, c.opServers)
			}
		})
	}
}

func TestSwagger2FormDataBody(t *testing.T) {
	doc := load(t, `swagger: "2.0"
info: {title: t, version: "1"}
host: api.example.com
paths:
  /pets/{id}/photo:
    parameters: [{name: id, in: path, required: true, type: integer}]
    post:
      consumes: [multipart/form-data, application/json]
      parameters:
        - {name: file, in: formData, type: file, required: true, description: the photo}
        - {name: caption, in: formData, type: string, maxLength: 80}
  /pets/{id}/name:
    post:
      parameters:
        - {name: id, in: path, required: true, type: integer}
        - {name: name, in: formData, type: string}
  /pets:
    post:
      parameters: [{name: pet, in: body, required: true, schema: {type: object, properties: {name: {type: string}}}}]
`, Options{})
	ops := byRoute(doc)
	cases := []struct {
		route, media, schema string
		required             bool
	}{
		{"POST /pets/{id}/photo", "multipart/form-data",
			`{"properties":{"caption":{"maxLength":80,"type":"string"},"file":{"description":"the photo","format":"binary","type":"string"}},"required":["file"],"type":"object"}`, true},
		{"POST /pets/{id}/name", "application/x-www-form-urlencoded", `{"properties":{"name":{"type":"string"}},"type":"object"}`, false},
		{"POST /pets", "application/json", `{"properties":{"name":{"type":"string"}},"type":"object"}`, true},
	}
	for _, c := range cases {
		t.Run(c.route, func(t *testing.T) {
			rb := ops[c.route].RequestBody
			if rb == nil {
				t.Fatalf("no request body")
			}
			if !slices.Equal(rb.MediaTypes, []string{c.media}) || rb.Required != c.required || rb.Arg != "body" {
				t.Errorf("body = media %q required %v arg %q; want [%s] %v body", rb.MediaTypes, rb.Required, rb.Arg, c.media, c.required)
			}
			if string(rb.Schema) != c.schema {
				t.Errorf("schema\n got %s\nwant %s", rb.Schema, c.schema)
			}
			var in struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(ops[c.route].InputSchema, &in); err != nil {
				t.Fatal(err)
			}
			if string(in.Properties["body"]) != c.schema || slices.Contains(in.Required, "body") != c.required {
				t.Errorf("input schema body = %s required %q", in.Properties["body"], in.Required)
			}
		})
	}
}

func TestPathLevelExtensions(t *testing.T) {
	for _, head := range []string{"openapi: 3.0.0\n", "swagger: '2.0'\n"} {
		t.Run(strings.Fields(head)[0], func(t *testing.T) {
			doc := load(t, head+`info: {title: t, version: "1"}
paths:
  /admin:
    x-requires-admin: true
    x-audience: internal
    get: {x-audience: public}
    delete: {}
  /plain:
    get: {}
`, Options{})
			ops := byRoute(doc)
			for route, want := range map[string]map[string]json.RawMessage{
				"GET /admin":    {"x-requires-admin": json.RawMessage(`true`), "x-audience": json.RawMessage(`"public"`)},
				"DELETE /admin": {"x-requires-admin": json.RawMessage(`true`), "x-audience": json.RawMessage(`"internal"`)},
				"GET /plain":    nil,
			} {
				if got := ops[route].Extensions; !reflect.DeepEqual(got, want) {
					t.Errorf("%s extensions = %s, want %s", route, fmtExt(got), fmtExt(want))
				}
			}
		})
	}
}

func fmtExt(m map[string]json.RawMessage) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// TestJSONEscapesYAMLRefuses checks valid JSON that yaml's scanner rejects
// (an escaped slash, a surrogate pair) imports, single-file and in a set.
func TestJSONEscapesYAMLRefuses(t *testing.T) {
	api := `{"openapi": "3.0.0", "info": {"title": "a\/b \ud83d\ude00", "version": "1"},
 "paths": {"/a": {"get": {"parameters": [{"$ref": "p.json#/limit"}]}}}}`
	params := `{"limit": {"name": "limit", "in": "query", "description": "up to 10\/page", "schema": {"type": "integer"}}}`
	for name, files := range map[string][]File{
		"single file": {{"api.json", []byte(strings.Replace(api, "p.json#/limit", "#/info", 1))}},
		"file set":    {{"api.json", []byte(api)}, {"p.json", []byte(params)}},
	} {
		t.Run(name, func(t *testing.T) {
			doc, err := LoadFiles(files, Options{})
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			if doc.Title != "a/b \U0001F600" {
				t.Errorf("title = %q", doc.Title)
			}
		})
	}
}
