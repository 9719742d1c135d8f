package importer

import (
	"testing"

	"github.com/toolgate/toolgate/internal/openapi"
)

func TestParametersText(t *testing.T) {
	param := func(schema string) []openapi.Parameter {
		return []openapi.Parameter{{Name: "ids", In: "query", Schema: []byte(schema)}}
	}
	cases := []struct {
		name   string
		params []openapi.Parameter
		body   *openapi.RequestBody
		want   string
	}{
		{"nothing", nil, nil, "none"},
		{"scalar", param(`{"type":"integer"}`), nil, "query:ids(integer)"},
		// encoding/json sorts keys, so "items" comes before the top-level
		// "type": the array's own type must win over its items' type.
		{"array of strings", param(`{"items":{"type":"string"},"type":"array"}`), nil, "query:ids(array)"},
		{"object whose properties have types", param(`{"properties":{"a":{"type":"string"}},"type":"object"}`), nil, "query:ids(object)"},
		{"type list", param(`{"type":["string","null"]}`), nil, "query:ids(string|null)"},
		{"no type", param(`{"description":"a \"type\":\"x\" in prose"}`), nil, "query:ids"},
		{"no schema", []openapi.Parameter{{Name: "id", In: "path", Required: true}}, nil, "path:id*"},
		{"sorted, with a body", []openapi.Parameter{{Name: "b", In: "query"}, {Name: "a", In: "query"}},
			&openapi.RequestBody{MediaTypes: []string{"application/json"}, Required: true},
			"query:a query:b body(application/json)*"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ParametersText(c.params, c.body); got != c.want {
				t.Errorf("ParametersText = %q, want %q", got, c.want)
			}
		})
	}
}
