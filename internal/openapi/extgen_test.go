package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestGeneratedExtensionValuesAreData: a $ref inside an x- value is data
// wherever the value sits (operation, path item, response, Paths object,
// Responses object) and whichever file holds it (the root, a path item
// file one or two directories down): the import neither follows it nor
// warns, and the operation's extensions keep it as written. Every target
// below is missing, on the network, or outside the set, so following one
// would cost a warning or the document.
func TestGeneratedExtensionValuesAreData(t *testing.T) {
	values := map[string]string{
		"ref":          "{$ref: examples/curl/x.yml}",
		"list of refs": "[{$ref: examples/curl/x.yml}, {$ref: '#/nope'}]",
		"nested":       "[{lang: curl, source: {$ref: 'https://example.com/x'}}]",
		"outside":      "{deep: [{$ref: '../../outside.yaml'}]}",
	}
	for _, file := range []string{"", "paths/a.yaml", "paths/v1/a.yaml"} {
		for vname, value := range values {
			for _, at := range []string{"operation", "path item", "response", "responses", "paths"} {
				if at == "paths" && file != "" {
					continue // the Paths object is the root's
				}
				t.Run(fmt.Sprintf("%q/%s/%s", file, vname, at), func(t *testing.T) {
					doc, err := LoadFiles(extensionSet(file, at, value), Options{})
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					if len(doc.Operations) != 1 || len(doc.Warnings) != 0 {
						t.Fatalf("%d operations, warnings %q; want 1 and none", len(doc.Operations), doc.Warnings)
					}
					if at == "operation" || at == "path item" {
						got := string(doc.Operations[0].Extensions["x-codeSamples"])
						if !strings.Contains(got, `"$ref"`) {
							t.Errorf("x-codeSamples = %s, want the $ref kept as data", got)
						}
					}
				})
			}
		}
	}
}

// extensionSet writes a set whose one operation lives in file ("" for the
// root) with value under an x- key at the place at names.
func extensionSet(file, at, value string) []File {
	ext := "x-codeSamples: " + value + "\n"
	item := "get:\n  responses:\n    '200': {description: ok}\n"
	switch at {
	case "operation":
		item = "get:\n  " + ext + "  responses:\n    '200': {description: ok}\n"
	case "path item":
		item = ext + item
	case "response":
		item = "get:\n  responses:\n    '200':\n      description: ok\n      " + ext
	case "responses":
		item += "    " + ext
	}
	paths := "paths:\n"
	if at == "paths" {
		paths += "  " + ext
	}
	if file == "" {
		return []File{{"api.yaml", []byte(v3Head + paths + "  /a:\n" + indent(item, "    "))}}
	}
	return []File{
		{"api.yaml", []byte(v3Head + paths + "  /a: {$ref: '" + file + "'}\n")},
		{file, []byte(item)},
	}
}

func indent(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
}

// TestYAMLLineSeparatorsAndExtensionKeys are YAML 1.2 test-suite style
// cases (input, and the JSON it must decode to, or an error): NEL, U+2028
// and U+2029 are non-break characters in YAML 1.2 (spec 5.4: only LF and
// CR break lines), in every scalar style, as keys, and written as the
// escapes \N, \L and \P (spec example 5.13); x- keys decode as any key.
func TestYAMLLineSeparatorsAndExtensionKeys(t *testing.T) {
	cases := []struct{ id, yaml, json string }{
		{"LS in a literal block", "a: |\n  one\u2028\u2028 two\n  three\n", `{"a":"one\u2028\u2028 two\nthree\n"}`},
		{"PS in a folded block", "a: >\n  one\u2029two\n  three\n", `{"a":"one\u2029two three\n"}`},
		{"NEL in a plain scalar", "a: one\u0085two\n", `{"a":"one\u0085two"}`},
		{"LS in a double-quoted scalar", "a: \"one\u2028 two\"\n", `{"a":"one\u2028 two"}`},
		{"PS in a single-quoted scalar", "a: 'one\u2029 two'\n", `{"a":"one\u2029 two"}`},
		{"separators as escapes", `a: "\N\L\P"` + "\n", `{"a":"\u0085\u2028\u2029"}`},
		{"LS in a key", "k\u2028ey: 1\n", `{"k\u2028ey":1}`},
		{"LS in a flow sequence", "a: [x\u2028 y, z]\n", `{"a":["x\u2028 y","z"]}`},
		{"LS in JSON", "{\"a\": \"one\u2028 two\"}", `{"a":"one\u2028 two"}`},
		{"stand-in already present", "a: |\n  \ue000 and \u2028\n", `{"a":"\ue000 and \u2028\n"}`},
		{"extension keys", "paths:\n  x-root: /apis/v2\n  x-list: [1]\n  /a: {}\n", `{"paths":{"/a":{},"x-list":[1],"x-root":"/apis/v2"}}`},
		{"LF still breaks", "a: |\n  one\n  two\n", `{"a":"one\ntwo\n"}`},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			pf, err := parseFile("t.yaml", []byte(c.yaml))
			if err != nil {
				t.Fatalf("refused %q: %v", c.yaml, err)
			}
			got, _ := json.Marshal(nodeValue(pf.root))
			var a, b any
			_ = json.Unmarshal(got, &a)
			if err := json.Unmarshal([]byte(c.json), &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%q decoded to %s, want %s", c.yaml, got, c.json)
			}
		})
	}
	// And through a whole import, root and referenced file alike, with a
	// position after the separator still right.
	item := "get:\n  description: |\n    one\u2028 two\n  responses: {'200': {description: ok}}\n"
	for _, files := range [][]File{
		{{"api.yaml", []byte(v3Head + "paths:\n  /a:\n" + indent(item, "    "))}},
		{{"api.yaml", []byte(v3Head + "paths:\n  /a: {$ref: 'paths/a.yaml'}\n")}, {"paths/a.yaml", []byte(item)}},
	} {
		doc, err := LoadFiles(files, Options{})
		if err != nil {
			t.Fatalf("%s: refused: %v", files[len(files)-1].Name, err)
		}
		if got := doc.Operations[0].Description; got != "one\u2028 two\n" {
			t.Errorf("%s: description %q", files[len(files)-1].Name, got)
		}
	}
	_, err := LoadBytes("api.yaml", []byte(v3Head+"paths:\n  /a:\n    get:\n      description: \"one\u2028two\"\n      responses: {'200': {description: ok}}\n  bad: [\n"), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "api.yaml:9:") {
		t.Errorf("error %v, want it at line 9", err)
	}
}
