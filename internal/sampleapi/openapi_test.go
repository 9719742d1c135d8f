package sampleapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"go.yaml.in/yaml/v3"
)

// buildModel parses an OpenAPI document with libopenapi and fails the test on
// any error, including unresolved references.
func buildModel(t *testing.T, spec []byte) *v3.Document {
	t.Helper()
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		t.Fatalf("libopenapi.NewDocument: %v", err)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		t.Fatalf("BuildV3Model: %v", err)
	}
	if errs := m.Index.GetReferenceIndexErrors(); len(errs) > 0 {
		t.Fatalf("reference errors: %v", errs)
	}
	if errs := m.Index.GetOperationParametersIndexErrors(); len(errs) > 0 {
		t.Fatalf("operation parameter errors: %v", errs)
	}
	return &m.Model
}

// documentedRoutes lists the document's operations as net/http patterns.
func documentedRoutes(t *testing.T, m *v3.Document) []string {
	t.Helper()
	var out []string
	for path, item := range m.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			if op.OperationId == "" || op.Summary == "" {
				t.Errorf("%s %s lacks an operationId or summary", method, path)
			}
			out = append(out, strings.ToUpper(method)+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

func TestOpenAPIDocumentIsValidAndMatchesTheRouter(t *testing.T) {
	spec, err := OpenAPIYAML("http://127.0.0.1:9999")
	if err != nil {
		t.Fatal(err)
	}
	m := buildModel(t, spec)
	if m.Version != "3.1.0" {
		t.Errorf("openapi version %q, want 3.1.0", m.Version)
	}
	if len(m.Servers) != 1 || m.Servers[0].URL != "http://127.0.0.1:9999" {
		t.Errorf("servers = %v, want the origin substituted", m.Servers)
	}
	if _, ok := m.Components.SecuritySchemes.Get("bearerAuth"); !ok || len(m.Security) != 1 {
		t.Error("want a global bearerAuth security requirement")
	}

	s := New(Options{})
	var routed []string
	for _, rt := range s.apiRoutes() {
		routed = append(routed, rt.pattern)
	}
	slices.Sort(routed)
	if doc := documentedRoutes(t, m); !slices.Equal(doc, routed) {
		t.Errorf("documented operations %v\n != routed %v", doc, routed)
	}

	// Everything the mux serves is either a documented API route or one of
	// the explicitly undocumented control routes (plus the JSON 404).
	for _, p := range s.patterns {
		_, control := s.controlRoutes()[p]
		if !slices.Contains(routed, p) && !control && p != "/" {
			t.Errorf("pattern %q is registered but neither documented nor a control route", p)
		}
	}
}

func TestOpenAPIIdempotencyKeyParameter(t *testing.T) {
	spec, err := OpenAPIYAML("http://localhost")
	if err != nil {
		t.Fatal(err)
	}
	m := buildModel(t, spec)
	item, _ := m.Paths.PathItems.Get("/orders")
	var found bool
	for _, p := range item.Post.Parameters {
		found = found || (p.Name == idempotencyHeader && p.In == "header")
	}
	if !found {
		t.Error("POST /orders does not declare the Idempotency-Key header parameter")
	}
}

func TestServedOpenAPIUsesTheRequestOrigin(t *testing.T) {
	_, ts := startServer(t, Options{})
	tests := []struct {
		path, contentType string
		servers           func(t *testing.T, body []byte) string
	}{
		{"/openapi.yaml", "application/yaml", func(t *testing.T, b []byte) string {
			var d struct{ Servers []struct{ URL string } }
			if err := yaml.Unmarshal(b, &d); err != nil || len(d.Servers) == 0 {
				t.Fatalf("yaml: %v", err)
			}
			return d.Servers[0].URL
		}},
		{"/openapi.json", "application/json", func(t *testing.T, b []byte) string {
			var d struct{ Servers []struct{ URL string } }
			if err := json.Unmarshal(b, &d); err != nil || len(d.Servers) == 0 {
				t.Fatalf("json: %v", err)
			}
			return d.Servers[0].URL
		}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := callWith(t, ts.Client(), ts.URL, "GET", tt.path, "")
			wantStatus(t, r, http.StatusOK)
			if ct := r.header.Get("Content-Type"); ct != tt.contentType {
				t.Errorf("Content-Type = %q, want %q", ct, tt.contentType)
			}
			if got := tt.servers(t, r.body); got != ts.URL {
				t.Errorf("servers[0].url = %q, want %q", got, ts.URL)
			}
			buildModel(t, r.body) // both forms are importable
		})
	}
}
