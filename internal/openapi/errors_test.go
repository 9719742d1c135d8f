package openapi

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// allKinds lists every ErrorKind; TestBadInput fails when one of them has no
// case, so a new kind cannot be added without a test of its message.
var allKinds = []ErrorKind{KindSyntax, KindNotOpenAPI, KindVersion, KindRefOutside, KindRefMissing, KindRefCycle,
	KindAliasBomb, KindTooLarge, KindBinary, KindFileSet, KindInvalid, KindUnsupported, KindTooManyOperations, KindSchemaBudget}

// warningKinds are $ref problems an import survives (TestUnfollowedRefs):
// the ref is left out with a warning, not the document.
var warningKinds = map[ErrorKind]bool{KindRefOutside: true, KindRefMissing: true, KindUnsupported: true}

// withRef is a small valid 3.0 document whose one parameter is a $ref.
func withRef(ref string) string {
	return "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      parameters: [{$ref: '" + ref + "'}]\n"
}

func one(name, data string) []File { return []File{{Name: name, Data: []byte(data)}} }

// TestBadInput checks the exact one-line message of every kind of refusal:
// the admin sees it as is, so its location (file:line:col when the parser
// gives one) and wording are part of the contract.
func TestBadInput(t *testing.T) {
	const head = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\n"
	cases := []struct {
		name  string
		files []File
		opts  Options
		kind  ErrorKind
		msg   string
	}{
		{"invalid JSON", one("api.json", "{\"openapi\": \"3.0.0\",\n  \"info\": {,}\n}"), Options{}, KindSyntax,
			"api.json:2:12: invalid JSON: invalid character ',' looking for beginning of object key string"},
		{"unterminated JSON", one("api.json", "{\"openapi\": \"3.0.0\",\n \"paths\": {}\n"), Options{}, KindSyntax,
			"api.json:2:13: invalid JSON: unexpected end of JSON input"},
		{"invalid YAML", one("api.yaml", "openapi: 3.0.0\ninfo:\n  title: [\n"), Options{}, KindSyntax,
			"api.yaml:3:11: invalid YAML: did not find expected node content (while parsing a flow node)"},
		{"YAML tab indent", one("api.yaml", "openapi: 3.0.0\n\tinfo: x\n"), Options{}, KindSyntax,
			"api.yaml:2:1: invalid YAML: found a tab character that violates indentation (while scanning a plain scalar)"},
		{"syntax in a referenced file", []File{{"api.yaml", []byte(withRef("p.yaml#/x"))}, {"p.yaml", []byte("x: [\n")}},
			Options{}, KindSyntax, "p.yaml:1:5: invalid YAML: did not find expected node content (while parsing a flow node)"},
		{"syntax in a referenced JSON file", []File{{"api.yaml", []byte(withRef("p.json#/x"))}, {"p.json", []byte("{\"x\": {\n ,}}")}},
			Options{}, KindSyntax, "p.json:2:2: invalid JSON: invalid character ',' looking for beginning of object key string"},
		{"not OpenAPI", one("api.yaml", "title: x\n"), Options{}, KindNotOpenAPI,
			"api.yaml: not an OpenAPI document: no top-level openapi or swagger key"},
		{"a list", one("api.yaml", "- openapi\n- 3.0.0\n"), Options{}, KindNotOpenAPI,
			"api.yaml: not an OpenAPI document: no top-level openapi or swagger key"},
		{"empty input", one("api.yaml", ""), Options{}, KindNotOpenAPI, "api.yaml: empty document: not an OpenAPI document"},
		{"only spaces and a comment", one("api.yaml", "  \n# nothing\n"), Options{}, KindNotOpenAPI,
			"api.yaml: empty document: not an OpenAPI document"},
		{"version 1.2", one("api.yaml", "swagger: '1.2'\n"), Options{}, KindVersion,
			`api.yaml:1:10: unsupported swagger version "1.2" (toolgate reads 2.0, 3.0.x and 3.1.x)`},
		{"version 3.2", one("api.json", `{"openapi": "3.2.0", "info": {"title": "t", "version": "1"}, "paths": {}}`), Options{}, KindVersion,
			`api.json:1:13: unsupported openapi version "3.2.0" (toolgate reads 2.0, 3.0.x and 3.1.x)`},
		{"version 4.0", one("api.yaml", "openapi: 4.0.0\n"), Options{}, KindVersion,
			`api.yaml:1:10: unsupported openapi version "4.0.0" (toolgate reads 2.0, 3.0.x and 3.1.x)`},
		{"path-item self cycle", one("api.yaml", head+"paths:\n  /a: {$ref: '#/paths/~1a'}\n"), Options{}, KindRefCycle,
			`api.yaml:4:14: cyclic $ref never reaches a value: "#/paths/~1a"`},
		{"schema cycle", one("api.yaml", head+"paths: {}\ncomponents: {schemas: {A: {$ref: '#/components/schemas/B'}, B: {$ref: '#/components/schemas/A'}}}\n"),
			Options{}, KindRefCycle, `api.yaml:4:34: cyclic $ref never reaches a value: "#/components/schemas/B"`},
		{"broken referenced file", []File{{"api.yaml", []byte(withRef("p.yaml#/x"))}, {"p.yaml", []byte("x: {name: a, in: query}\ny: [\n")}},
			Options{}, KindSyntax, "p.yaml:2:5: invalid YAML: did not find expected node content (while parsing a flow node)"},
		{"over MaxBytes", one("api.yaml", miniV3), Options{MaxBytes: 100}, KindTooLarge,
			"api.yaml: the file set is over the 100 byte limit"},
		{"NUL byte", one("api.yaml", "openapi: 3.0.0\ninfo:\x00\n"), Options{}, KindBinary,
			"api.yaml:2:6: binary data (NUL byte) is not an OpenAPI document"},
		{"invalid UTF-8", one("api.yaml", "openapi: 3.0.0\ninfo: \xff\n"), Options{}, KindBinary,
			"api.yaml:2:7: invalid UTF-8: not a text document"},
		{"no file", nil, Options{}, KindFileSet, "no OpenAPI file given"},
		{"name leaves the set", one("../api.yaml", head), Options{}, KindFileSet, "../api.yaml: file name leaves the file set"},
		{"paths is a list", one("api.yaml", head+"paths: [1, 2]\n"), Options{}, KindInvalid,
			"api.yaml:3:8: paths must be a mapping, not a list"},
		{"path item is a scalar", one("api.yaml", head+"paths:\n  /a: 5\n"), Options{}, KindInvalid,
			`api.yaml:4:7: path item "/a" must be a mapping, not a scalar`},
	}
	seen := map[ErrorKind]bool{}
	for _, c := range cases {
		seen[c.kind] = true
		t.Run(c.name, func(t *testing.T) {
			doc, err := Load(FileSet{Files: c.files}, c.opts)
			if doc != nil || err == nil {
				t.Fatalf("imported (err %v), want a refusal", err)
			}
			if got := KindOf(err); got != c.kind {
				t.Errorf("kind = %q, want %q (%v)", got, c.kind, err)
			}
			if err.Error() != c.msg {
				t.Errorf("message\n got: %s\nwant: %s", err, c.msg)
			}
		})
	}
	for _, k := range allKinds {
		if !seen[k] && k != KindAliasBomb && !warningKinds[k] && k != KindTooManyOperations && k != KindSchemaBudget { // alias bombs: TestBillionLaughs; caps: TestCaps
			t.Errorf("no bad-input case of kind %q", k)
		}
	}
}

// billionLaughs is the classic YAML alias bomb: ten levels of ten aliases,
// 10^9 strings once expanded, in under 1 KiB of text.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\nx-lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		prev := "*l" + strconv.Itoa(i-1)
		b.WriteString("x-lol" + strconv.Itoa(i) + ": &l" + strconv.Itoa(i) + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	return b.String()
}

// TestBillionLaughs checks an alias bomb is refused quickly and without
// expanding it: well under 2 s and a few MiB of allocation, even under -race.
func TestBillionLaughs(t *testing.T) {
	for _, name := range []string{"bomb.yaml", "bomb.json"} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			doc, err := LoadBytes(name, []byte(billionLaughs()), Options{})
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if doc != nil || KindOf(err) != KindAliasBomb {
				t.Fatalf("got doc=%v err=%v, want an alias bomb refusal", doc != nil, err)
			}
			const want = ": YAML aliases expand to more than"
			if !strings.HasPrefix(err.Error(), name+want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("message %q, want one line starting %q", err, name+want)
			}
			if elapsed > 2*time.Second {
				t.Errorf("took %v, want < 2 s", elapsed)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("allocated %d bytes, want < 16 MiB: the aliases were expanded", alloc)
			}
		})
	}
}
