package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// writeDocs writes two versions of an OpenAPI 3.0 document with ops
// operations (GET, POST, PUT and DELETE on ops/4 paths). The second
// version adds a query parameter to every other operation, so importing
// them in turn changes half the tools every time: each import is a real
// write of hundreds of rows, not a no-op.
func writeDocs(dir string, ops int) (a, b string, err error) {
	a, b = dir+"/bench-a.json", dir+"/bench-b.json"
	for i, path := range []string{a, b} {
		raw, err := json.Marshal(benchDoc(ops, i == 1))
		if err != nil {
			return "", "", err
		}
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			return "", "", err
		}
	}
	return a, b, nil
}

func benchDoc(ops int, second bool) map[string]any {
	paths := map[string]any{}
	n := 0
	for p := 0; n < ops; p++ {
		item := map[string]any{
			"parameters": []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}},
		}
		for _, m := range []string{"get", "post", "put", "delete"} {
			if n == ops {
				break
			}
			op := map[string]any{
				"operationId": fmt.Sprintf("%s_item_%d", m, p),
				"summary":     fmt.Sprintf("%s item %d", m, p),
				"tags":        []string{fmt.Sprintf("group%d", p%10)},
				"responses":   map[string]any{"200": map[string]any{"description": "ok"}},
			}
			if second && n%2 == 0 {
				op["parameters"] = []any{map[string]any{"name": "verbose", "in": "query", "schema": map[string]any{"type": "boolean"}}}
			}
			if m == "post" || m == "put" {
				op["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{
					"schema": map[string]any{"type": "object", "required": []string{"name"}, "properties": map[string]any{
						"name": map[string]any{"type": "string", "maxLength": 200},
						"size": map[string]any{"type": "integer", "minimum": 0},
						"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
					}},
				}}}
			}
			item[m] = op
			n++
		}
		paths[fmt.Sprintf("/groups/%d/items/{id}", p)] = item
	}
	return map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]any{"title": "Bench API", "version": "1"},
		"servers": []any{map[string]any{"url": "https://bench.example.com"}},
		"paths":   paths,
	}
}
