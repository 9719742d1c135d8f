package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestYAMLTestSuiteTabs runs the YAML test suite's Y79Y cases ("Tabs in
// various contexts") that bear on block scalars and flow collections
// through parseFile: valid ones must decode to the suite's JSON, invalid
// ones must be refused. Y79Y/001 is the tab after a block scalar's
// indentation found in public descriptions (tabAfterIndent).
func TestYAMLTestSuiteTabs(t *testing.T) {
	cases := []struct {
		id, yaml string
		json     string // "" when the suite says the input is an error
	}{
		{"Y79Y/000", "foo: |\n\t\nbar: 1\n", ""},
		{"Y79Y/001", "foo: |\n \t\nbar: 1\n", `{"bar":1,"foo":"\t\n"}`},
		{"Y79Y/002", "- [\n\t\n foo\n ]\n", `[["foo"]]`},
		{"Y79Y/004", "-\t-\n", ""},
		{"Y79Y/005", "- \t-\n", ""},
		{"Y79Y/006", "?\t-\n", ""},
		{"Y79Y/008", "?\tkey:\n", ""},
		// The same rule deeper in a document, as descriptions have it.
		{"nested", "a:\n  description: |\n      \tindented by a tab\n      next\n  b: 1\n", `{"a":{"b":1,"description":"\tindented by a tab\nnext\n"}}`},
		{"sequence item", "- |\n   \tx\n", `["\tx\n"]`},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			pf, err := parseFile("t.yaml", []byte(c.yaml))
			if c.json == "" {
				if err == nil {
					t.Fatalf("accepted %q, which the suite says is an error", c.yaml)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused %q: %v", c.yaml, err)
			}
			got, _ := json.Marshal(nodeValue(pf.root))
			var a, b any
			_ = json.Unmarshal(got, &a)
			_ = json.Unmarshal([]byte(c.json), &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%q decoded to %s, want %s", c.yaml, got, c.json)
			}
		})
	}
	// And through a whole import: one tab in one description no longer
	// loses the document, and positions after the header are unchanged.
	src := v3Head + "paths:\n  /a:\n    get:\n      description: |\n         \tTabbed line\n         more\n      responses: {'200': {description: ok}}\n"
	doc := mustLoad(t, "api.yaml", src)
	if got := doc.Operations[0].Description; got != "\tTabbed line\nmore\n" {
		t.Errorf("description %q", got)
	}
}

// TestLegalInputAccepted covers the other item-7 cases: each was refused
// by a public description.
func TestLegalInputAccepted(t *testing.T) {
	const post = "paths:\n  /a:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {$ref: '%s'}\n      responses: {'200': {description: ok}}\n"
	cases := []struct {
		name, src, want string
	}{
		{"required array of its own schema", v3Head + fmt.Sprintf(post, "#/components/schemas/Node") +
			"components:\n  schemas:\n    Node: {type: object, required: [kids], properties: {kids: {type: array, items: {$ref: '#/components/schemas/Node'}}}}\n",
			`"kids":{"items":{"description":"not expanded: recursive reference to Node"},"type":"array"}`},
		{"required array of its own schema (3.1)", strings.Replace(v3Head, "3.0.3", "3.1.0", 1) + fmt.Sprintf(post, "#/components/schemas/Node") +
			"components:\n  schemas:\n    Node: {type: object, required: [kids], properties: {kids: {type: array, items: {$ref: '#/components/schemas/Node'}}}}\n",
			`"required":["kids"]`},
		{"backslash component name", v3Head + fmt.Sprintf(post, `#/components/schemas/blazemeter\Model\ApiResponse`) +
			"components:\n  schemas:\n    blazemeter\\Model\\ApiResponse: {type: object, properties: {code: {type: integer}}}\n",
			`"code":{"type":"integer"}`},
		{"a\\B", v3Head + fmt.Sprintf(post, `#/components/schemas/a\B`) +
			"components:\n  schemas:\n    a\\B: {type: object, properties: {code: {type: integer}}}\n    aB: {type: string}\n",
			`"code":{"type":"integer"}`},
		{"percent-encoded backslash", v3Head + fmt.Sprintf(post, `#/components/schemas/a%5CB`) +
			"components:\n  schemas:\n    a\\B: {type: object, properties: {code: {type: integer}}}\n",
			`"code":{"type":"integer"}`},
		{"~1 and ~0", v3Head + fmt.Sprintf(post, `#/components/schemas/a~1b~0c`) +
			"components:\n  schemas:\n    a/b~c: {type: object, properties: {code: {type: integer}}}\n",
			`"code":{"type":"integer"}`},
		{"header ref inside a referenced response", v3Head +
			"paths:\n  /a:\n    get:\n      parameters: [{name: q, in: query, schema: {type: integer}}]\n      responses: {'200': {$ref: '#/components/responses/R'}}\n" +
			"components:\n  responses:\n    R:\n      description: ok\n      headers:\n        X-Rate: {$ref: '#/components/headers/Rate'}\n" +
			"  headers:\n    Rate: {schema: {type: integer}}\n",
			`"q":{"type":"integer"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := mustLoad(t, "api.yaml", c.src)
			if len(doc.Operations) != 1 {
				t.Fatalf("%d operations", len(doc.Operations))
			}
			if s := string(doc.Operations[0].InputSchema); !strings.Contains(s, c.want) {
				t.Errorf("input schema %s lacks %s", s, c.want)
			}
			if len(doc.Warnings) != 0 {
				t.Errorf("warnings %q", doc.Warnings)
			}
		})
	}
}

// manyOperations writes a JSON description with n operations, each with a
// body that $refs one shared schema.
func manyOperations(n int, shared string) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"https://api.example.com"}],"paths":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/p%d":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/S0"}}}},"responses":{"200":{"description":"ok"}}}}`, i)
	}
	b.WriteString(`},"components":{"schemas":{` + shared + `}}}`)
	return []byte(b.String())
}

// fanOut is a chain of schemas, each with width properties referring to
// the next: width^depth nodes once expanded, a few hundred bytes written.
func fanOut(width, depth int) string {
	var b strings.Builder
	for d := range depth {
		if d > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"S%d":{"type":"object","properties":{`, d)
		for w := range width {
			if w > 0 {
				b.WriteByte(',')
			}
			if d == depth-1 {
				fmt.Fprintf(&b, `"f%d":{"type":"string","description":"%s"}`, w, strings.Repeat("x", 40))
			} else {
				fmt.Fprintf(&b, `"f%d":{"$ref":"#/components/schemas/S%d"}`, w, d+1)
			}
		}
		b.WriteString("}}")
	}
	return b.String()
}

// measure runs f and reports its wall time and the peak heap in use, sampled
// every millisecond (the Go runtime's own accounting, no external tool).
func measure(f func()) (time.Duration, uint64) {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var max uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > max {
				max = m.HeapInuse
			}
			select {
			case <-done:
				peak <- max - min(max, base.HeapInuse)
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	f()
	d := time.Since(start)
	close(done)
	return d, <-peak
}

// TestCaps checks item 4: each amplification cap refuses with its own
// one-line error and no document, and a 100,000-operation document or a
// $ref fan-out is refused in seconds with bounded memory (figures logged).
func TestCaps(t *testing.T) {
	small := `"S0":{"type":"object","properties":{"a":{"type":"string"}}}`
	cases := []struct {
		name string
		data []byte
		opts Options
		kind ErrorKind
		msg  string
		// bounds for the refusal, generous because the machine is shared:
		// peak HeapInuse also holds garbage the collector has not reached
		// yet, which grows when other processes starve it of CPU (+17 MiB
		// quiet, 134 MiB seen under a load average of 15). Decoding the
		// whole document instead of counting would take gigabytes.
		maxTime time.Duration
		maxHeap uint64
		long    bool // skipped by -short: the figures for the closing note
	}{
		{"operations over an explicit cap", manyOperations(11, small), Options{MaxOperations: 10}, KindTooManyOperations,
			"api.json:1:101: 11 operations is over the limit of 10 per import: refused", 5 * time.Second, 64 << 20, false},
		{"100,000 operations", manyOperations(100_000, small), Options{MaxBytes: 64 << 20}, KindTooManyOperations,
			"api.json:1:101: 100000 operations is over the limit of 20000 per import: refused", 20 * time.Second, 256 << 20, true},
		{"fan-out over an explicit budget", manyOperations(50, fanOut(8, 4)), Options{MaxTotalSchemaBytes: 1 << 20}, KindSchemaBudget,
			"", 10 * time.Second, 256 << 20, false},
		{"fan-out over the default budget", manyOperations(5000, fanOut(12, 6)), Options{}, KindSchemaBudget,
			"", 60 * time.Second, 1 << 30, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("-short: the 15 MB documents run in the plain go test of make unit")
			}
			var doc *Document
			var err error
			d, heap := measure(func() { doc, err = LoadBytes("api.json", c.data, c.opts) })
			t.Logf("%d bytes refused in %v, peak heap +%d MiB: %v", len(c.data), d, heap>>20, err)
			if doc != nil || KindOf(err) != c.kind {
				t.Fatalf("got doc=%v err=%v, want a %s refusal", doc != nil, err, c.kind)
			}
			if c.msg != "" && err.Error() != c.msg {
				t.Errorf("message\n got %s\nwant %s", err, c.msg)
			}
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "api.json:") {
				t.Errorf("message %q: want one line starting with the file", err)
			}
			if d > c.maxTime || heap > c.maxHeap {
				t.Errorf("took %v and %d MiB, want under %v and %d MiB", d, heap>>20, c.maxTime, c.maxHeap>>20)
			}
		})
	}
	t.Run("method names as property names", func(t *testing.T) {
		// More quoted method names than the cap, but only in a schema:
		// the streaming count, not the quick bound, decides.
		props := `"S0":{"type":"object","properties":{"get":{"type":"string"},"post":{"type":"string"},"delete":{"type":"string"},"put":{"type":"string"}}}`
		doc, err := LoadBytes("api.json", manyOperations(3, props), Options{MaxOperations: 5})
		if err != nil || len(doc.Operations) != 3 {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("under the caps", func(t *testing.T) {
		doc, err := LoadBytes("api.json", manyOperations(200, small), Options{})
		if err != nil || len(doc.Operations) != 200 {
			t.Fatalf("err %v", err)
		}
	})
}
