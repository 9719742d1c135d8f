package openapi

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Generated cases for the resolver's rules (STYLE.md: a parser or resolver rule is tested as a rule): each test
// enumerates or draws documents that vary ordering, depth and file layout
// and checks the rule on every one, not the shape that was reported.

// layoutFiles places the components text in the root, in a sibling file
// or in a sub-directory file, and rewrites the root's refs to reach it.
func layoutFiles(layout, root, comps string) []File {
	switch layout {
	case "sibling", "subdir":
		name := "common.yaml"
		if layout == "subdir" {
			name = "lib/defs/common.yaml"
		}
		root = strings.ReplaceAll(root, "'#/components/", "'"+name+"#/components/")
		root = strings.ReplaceAll(root, "'#/definitions/", "'"+name+"#/definitions/")
		return []File{{"api.yaml", []byte(root)}, {name, []byte(comps)}}
	}
	return []File{{"api.yaml", []byte(root + comps)}}
}

var layouts = []string{"one file", "sibling", "subdir"}

// TestGeneratedHeaderRefsResolveInTheirFile: a response component whose
// headers $ref a header component, referenced from operations, imports
// whatever the header's name (one that starts with x- is a name too), the
// order of the components, the length of the ref chains on either side
// and the file the components live in: a fragment-only $ref is resolved
// against the file that contains it.
func TestGeneratedHeaderRefsResolveInTheirFile(t *testing.T) {
	rnd := rand.New(rand.NewPCG(24, 1))
	for _, layout := range layouts {
		for _, header := range []string{"X-Rate", "x-rate", "x-request-id"} {
			for chain := range 3 {
				parts := []string{
					"  responses:\n    R0:\n      description: ok\n      headers:\n        " + header + ": {$ref: '#/components/headers/H0'}\n",
					"  schemas:\n    S: {type: integer}\n",
				}
				for i := range chain {
					parts[0] += fmt.Sprintf("    R%d: {$ref: '#/components/responses/R%d'}\n", i+1, i)
				}
				h := "  headers:\n"
				for i := range chain {
					h += fmt.Sprintf("    H%d: {$ref: '#/components/headers/H%d'}\n", i, i+1)
				}
				parts = append(parts, h+fmt.Sprintf("    H%d: {schema: {$ref: '#/components/schemas/S'}}\n", chain))
				rnd.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
				top := fmt.Sprintf("R%d", chain)
				paths := "paths:\n  /a:\n    get:\n      responses: {'200': {$ref: '#/components/responses/" + top + "'}}\n" +
					"    post:\n      responses: {'204': {$ref: '#/components/responses/R0'}, default: {$ref: '#/components/responses/" + top + "'}}\n"
				comps := "components:\n" + strings.Join(parts, "")
				name := fmt.Sprintf("%s/%s/chain %d", layout, header, chain)
				t.Run(name, func(t *testing.T) {
					doc, err := LoadFiles(layoutFiles(layout, v3Head+paths, comps), Options{})
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					if len(doc.Operations) != 2 || len(doc.Warnings) != 0 {
						t.Errorf("%d operations, warnings %q; want 2 and none", len(doc.Operations), doc.Warnings)
					}
				})
			}
		}
	}
}

// TestGeneratedRecursionIsFinite: a schema whose required property holds
// itself (directly or as array items), reached through a chain of 0–3
// other schemas written in any order, imports in 2.0, 3.0 and 3.1, in a
// body, a response or a parameter, in one file or beside it; the input
// schema cuts the recursion where it closes.
func TestGeneratedRecursionIsFinite(t *testing.T) {
	rnd := rand.New(rand.NewPCG(24, 2))
	for _, ver := range []string{"2.0", "3.0.3", "3.1.0"} {
		for _, layout := range layouts {
			for depth := range 4 {
				for _, array := range []bool{true, false} {
					for _, where := range []string{"body", "response", "parameter"} {
						root, comps := recursiveDoc(rnd, ver, where, depth, array)
						t.Run(fmt.Sprintf("%s/%s/depth %d/array %v/%s", ver, layout, depth, array, where), func(t *testing.T) {
							doc, err := LoadFiles(layoutFiles(layout, root, comps), Options{})
							if err != nil {
								t.Fatalf("refused: %v", err)
							}
							if len(doc.Operations) != 1 {
								t.Fatalf("%d operations", len(doc.Operations))
							}
							cut := fmt.Sprintf("recursive reference to S%d", depth)
							if where == "body" && !strings.Contains(string(doc.Operations[0].InputSchema), cut) {
								t.Errorf("input schema %s is not cut at S%d", doc.Operations[0].InputSchema, depth)
							}
						})
					}
				}
			}
		}
	}
}

// recursiveDoc writes the root (without its schemas) and the schemas text
// of one TestGeneratedRecursionIsFinite case.
func recursiveDoc(rnd *rand.Rand, ver, where string, depth int, array bool) (root, comps string) {
	prefix, indent := "#/components/schemas/", "    "
	if ver == "2.0" {
		prefix, indent = "#/definitions/", "  "
	}
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf("S%d: {type: object, required: [n], properties: {n: {$ref: '%sS%d'}}}", i, prefix, i+1))
	}
	self := fmt.Sprintf("{$ref: '%sS%d'}", prefix, depth)
	if array {
		self = "{type: array, items: " + self + "}"
	}
	defs = append(defs, fmt.Sprintf("S%d: {type: object, required: [kid], properties: {kid: %s}}", depth, self))
	rnd.Shuffle(len(defs), func(i, j int) { defs[i], defs[j] = defs[j], defs[i] })
	body := indent + strings.Join(defs, "\n"+indent) + "\n"
	ref := "{$ref: '" + prefix + "S0'}"
	ok := "{'200': {description: ok}}"
	if ver == "2.0" {
		root = "swagger: '2.0'\ninfo: {title: t, version: '1'}\nhost: api.example.com\npaths:\n  /a:\n    post:\n"
		switch where {
		case "body":
			root += "      parameters: [{in: body, name: body, schema: " + ref + "}]\n      responses: " + ok + "\n"
		case "response":
			root += "      responses: {'200': {description: ok, schema: " + ref + "}}\n"
		default:
			root += "      parameters: [{in: body, name: body, schema: {type: object, properties: {x: " + ref + "}}}]\n      responses: " + ok + "\n"
		}
		return root, "definitions:\n" + body
	}
	root = "openapi: " + ver + "\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://api.example.com'}]\npaths:\n  /a:\n    post:\n"
	media := "{application/json: {schema: " + ref + "}}"
	switch where {
	case "body":
		root += "      requestBody: {content: " + media + "}\n      responses: " + ok + "\n"
	case "response":
		root += "      responses: {'200': {description: ok, content: " + media + "}}\n"
	default:
		root += "      parameters: [{in: query, name: q, content: " + media + "}]\n      responses: " + ok + "\n"
	}
	return root, "components:\n  schemas:\n" + body
}
