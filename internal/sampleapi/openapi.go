package sampleapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"go.yaml.in/yaml/v3"
)

// openAPIYAML is the hand-written OpenAPI 3.1 document of the API routes.
//
//go:embed openapi.yaml
var openAPIYAML []byte

// OpenAPIYAML returns the API's OpenAPI document with its server URL set to
// origin (scheme://host[:port]), so an import points at this very server.
func OpenAPIYAML(origin string) ([]byte, error) {
	doc, err := openAPINode(origin)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding the OpenAPI document: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encoding the OpenAPI document: %w", err)
	}
	return buf.Bytes(), nil
}

// OpenAPIJSON is OpenAPIYAML as JSON (object keys sorted).
func OpenAPIJSON(origin string) ([]byte, error) {
	doc, err := openAPINode(origin)
	if err != nil {
		return nil, err
	}
	var v any
	if err := doc.Decode(&v); err != nil {
		return nil, fmt.Errorf("converting the OpenAPI document to JSON: %w", err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("converting the OpenAPI document to JSON: %w", err)
	}
	return append(b, '\n'), nil
}

// openAPINode parses the embedded document and substitutes the server URL.
// It edits the YAML tree rather than the text so comments, key order and
// quoting survive and nothing but servers[0].url can change.
func openAPINode(origin string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(openAPIYAML, &doc); err != nil {
		return nil, fmt.Errorf("parsing the embedded OpenAPI document: %w", err)
	}
	if len(doc.Content) != 1 {
		return nil, errors.New("parsing the embedded OpenAPI document: not a single YAML document")
	}
	servers := mappingValue(doc.Content[0], "servers")
	if servers == nil || servers.Kind != yaml.SequenceNode || len(servers.Content) == 0 {
		return nil, errors.New("embedded OpenAPI document has no servers list")
	}
	url := mappingValue(servers.Content[0], "url")
	if url == nil {
		return nil, errors.New("embedded OpenAPI document has no servers[0].url")
	}
	url.Value = origin
	return &doc, nil
}

// mappingValue returns the value node of key in a YAML mapping, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// requestOrigin is the origin the client reached us at: the document served
// must name the address the importer can actually call.
func requestOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) serveOpenAPIYAML(w http.ResponseWriter, r *http.Request) {
	s.serveOpenAPI(w, r, OpenAPIYAML, "application/yaml")
}

func (s *Server) serveOpenAPIJSON(w http.ResponseWriter, r *http.Request) {
	s.serveOpenAPI(w, r, OpenAPIJSON, "application/json")
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, render func(string) ([]byte, error), contentType string) {
	b, err := render(requestOrigin(r))
	if err != nil {
		s.render(w, r, fmt.Errorf("serving the OpenAPI document: %w", err))
		return
	}
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(b)
}
