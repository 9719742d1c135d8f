package openapi

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestIdempotencyKeyHeader(t *testing.T) {
	doc := load(t, `openapi: 3.0.0
info: {title: t, version: "1"}
components:
  parameters:
    Idem: {name: Idempotency-Key, in: header, schema: {type: string}}
paths:
  /standard: {post: {parameters: [{name: Idempotency-Key, in: header, schema: {type: string}}]}}
  /prefixed: {post: {parameters: [{name: x-idempotency-key, in: header}]}}
  /snake: {post: {parameters: [{name: IDEMPOTENCY_KEY, in: header}]}}
  /by-ref: {post: {parameters: [{$ref: "#/components/parameters/Idem"}]}}
  /path-level:
    parameters: [{name: Idempotency-Key, in: header}]
    put: {}
  /in-query: {post: {parameters: [{name: Idempotency-Key, in: query}]}}
  /other-header: {post: {parameters: [{name: X-Request-Id, in: header}]}}
  /none: {post: {}}
`, Options{})
	ops := byRoute(doc)
	for route, want := range map[string]string{
		"POST /standard":     "Idempotency-Key",
		"POST /prefixed":     "x-idempotency-key",
		"POST /snake":        "IDEMPOTENCY_KEY",
		"POST /by-ref":       "Idempotency-Key",
		"PUT /path-level":    "Idempotency-Key",
		"POST /in-query":     "",
		"POST /other-header": "",
		"POST /none":         "",
	} {
		if got := ops[route].IdempotencyKeyHeader; got != want {
			t.Errorf("%s idempotency key header = %q, want %q", route, got, want)
		}
	}
}

// TestAdyenIdempotencyKeys checks a real document: Adyen declares the header
// through a components $ref on 22 of its 28 operations (INDEX.tsv notes).
func TestAdyenIdempotencyKeys(t *testing.T) {
	doc := loadFixture(t, fixtureByName(t, "adyen-checkout-v71.json"))
	n := 0
	for _, o := range doc.Operations {
		if o.IdempotencyKeyHeader != "" {
			n++
			if o.IdempotencyKeyHeader != "Idempotency-Key" {
				t.Errorf("%s: header %q", o.Tool, o.IdempotencyKeyHeader)
			}
		}
	}
	if n != 22 {
		t.Errorf("%d operations declare an idempotency key, want 22", n)
	}
}

// bigSchemaDoc has one operation whose body schema alone is about 4 KB and
// whose parameter schemas are about 1 KB.
func bigSchemaDoc() string {
	var props, params strings.Builder
	for i := range 40 {
		props.WriteString("        f" + strconv.Itoa(i) + ": {type: string, description: " + strings.Repeat("d", 60) + "}\n")
	}
	for i := range 8 {
		params.WriteString("        - {name: q" + strconv.Itoa(i) + ", in: query, schema: {type: string, pattern: '^" + strings.Repeat("a", 80) + "$'}}\n")
	}
	return "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    post:\n      parameters:\n" + params.String() +
		"      requestBody:\n        content:\n          application/json:\n            schema:\n              type: object\n              properties:\n" +
		strings.ReplaceAll(props.String(), "        f", "                f")
}

func TestMaxSchemaBytes(t *testing.T) {
	const bodyCut = `{"description":"not expanded: request body schema too large"}`
	cases := []struct {
		name        string
		max         int
		bodyCut     bool
		paramsCut   bool
		wantWarning bool
	}{
		{"default keeps everything", 0, false, false, false},
		{"body cut", 2000, true, false, true},
		{"body and parameters cut", 400, true, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := load(t, bigSchemaDoc(), Options{MaxSchemaBytes: c.max})
			o := doc.Operations[0]
			var in struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(o.InputSchema, &in); err != nil {
				t.Fatal(err)
			}
			if got := string(in.Properties["body"]) == bodyCut; got != c.bodyCut {
				t.Errorf("body cut = %v, want %v: %s", got, c.bodyCut, in.Properties["body"])
			}
			if got := !strings.Contains(string(in.Properties["q0"]), "pattern"); got != c.paramsCut {
				t.Errorf("parameters cut = %v, want %v: %s", got, c.paramsCut, in.Properties["q0"])
			}
			if len(in.Properties) != 9 {
				t.Errorf("%d properties, want 8 parameters and the body even when cut", len(in.Properties))
			}
			gap := "input schema over " + strconv.Itoa(c.max) + " bytes: request body schema not expanded"
			warning := "POST /a: input schema incomplete, flagged: " + gap
			if slices.Contains(doc.Warnings, warning) != c.wantWarning {
				t.Errorf("warnings = %q, want %q: %v", doc.Warnings, warning, c.wantWarning)
			}
			// The tool itself carries the flag the console shows and the
			// exposure gate reads.
			if slices.Contains(o.SchemaGaps, gap) != c.wantWarning {
				t.Errorf("schema gaps = %q, want %q: %v", o.SchemaGaps, gap, c.wantWarning)
			}
			if c.max > 0 && !c.paramsCut && len(o.InputSchema) > c.max {
				t.Errorf("input schema is %d bytes, over the %d bound", len(o.InputSchema), c.max)
			}
		})
	}
}
