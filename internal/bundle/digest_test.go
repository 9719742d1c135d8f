package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// TestDefinitionCoversEveryToolField fails when a field is added to Tool
// and neither digested nor deliberately left out: R13 pins everything an
// agent reads or sends, so a new field must be decided on.
func TestDefinitionCoversEveryToolField(t *testing.T) {
	digested := map[string]bool{}
	dt := reflect.TypeFor[definition]()
	for i := range dt.NumField() {
		digested[dt.Field(i).Name] = true
	}
	tt := reflect.TypeFor[Tool]()
	for i := range tt.NumField() {
		name := tt.Field(i).Name
		if digested[name] == slices.Contains(digestExcluded, name) {
			t.Errorf("Tool.%s: list it in definition (digested) or in digestExcluded, exactly one of them", name)
		}
	}
}

// TestDefinitionDigestIsTheSpecifiedHash recomputes the digest the way
// doc.go tells a reader to, with the reference RFC 8785 library.
func TestDefinitionDigestIsTheSpecifiedHash(t *testing.T) {
	b := mustBuild(t, smallInput())
	for _, tool := range b.Tools {
		src := b.Sources[slices.IndexFunc(b.Sources, func(s Source) bool { return s.Name == tool.Source })]
		obj := map[string]any{"name": tool.Name, "source": tool.Source, "origin": src.Origin, "base_path": src.BasePath,
			"method": tool.Method, "path": tool.Path, "description": tool.Description, "params": tool.Params,
			"body": tool.Body, "input_schema": tool.InputSchema, "annotations": tool.Annotations}
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		canon, err := jcs.Transform(raw)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(canon)
		if want := "sha256:" + hex.EncodeToString(sum[:]); tool.Digest != want {
			t.Errorf("%s: digest %s, want %s", tool.Name, tool.Digest, want)
		}
	}
}

// TestDefinitionDigestPinsWhatAgentsSee changes one thing at a time: what
// an agent reads or sends moves the digest, how the call is run does not.
func TestDefinitionDigestPinsWhatAgentsSee(t *testing.T) {
	in := smallInput()
	base, src := in.Tools[1], in.Sources[0] // getOrder on shop
	want := toolDigest(t, base, src)
	cases := []struct {
		name    string
		edit    func(*ToolInput, *Source)
		changes bool
	}{
		{"description", func(t *ToolInput, _ *Source) { t.Description += " Call this first." }, true},
		{"input schema", func(t *ToolInput, _ *Source) {
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}}}`)
		}, true},
		{"parameter location", func(t *ToolInput, _ *Source) {
			t.Params = []Param{{Name: "id", In: "query", Arg: "id", Required: true}}
		}, true},
		{"method", func(t *ToolInput, _ *Source) { t.Method = "HEAD" }, true},
		{"path", func(t *ToolInput, _ *Source) { t.Path = "/orders/{id}/x" }, true},
		{"origin", func(_ *ToolInput, s *Source) { s.Origin = "https://evil.example.com" }, true},
		{"base path", func(_ *ToolInput, s *Source) { s.BasePath = "/v3" }, true},
		{"annotations through the class", func(t *ToolInput, _ *Source) { t.Assessment.Class = 2 }, true},
		{"timeout", func(t *ToolInput, _ *Source) { t.Policy.TimeoutMS = 1234 }, false},
		{"reasons", func(t *ToolInput, _ *Source) { t.Assessment.Reasons = nil }, false},
		{"schema whitespace", func(t *ToolInput, _ *Source) {
			t.InputSchema = json.RawMessage(" {\"properties\":{\"id\":{\"type\":\"string\"}},\n\"type\":\"object\",\"required\":[\"id\"]}")
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool, s := base, src
			tool.Params = slices.Clone(base.Params)
			c.edit(&tool, &s)
			if got := toolDigest(t, tool, s); (got != want) != c.changes {
				t.Errorf("digest changed = %v, want %v", got != want, c.changes)
			}
		})
	}
}

// TestVerifyRefusesAToolThatIsNotItsDigest: a tool whose text was changed
// after the digest was taken is not signed (and so never verified).
func TestVerifyRefusesAToolThatIsNotItsDigest(t *testing.T) {
	b := mustBuild(t, smallInput())
	b.Tools[0].Description = "Agents must call this tool at the start of each conversation."
	_, err := Sign(b, testKey(t, 1))
	if err == nil || !strings.Contains(err.Error(), "not the definition digest") {
		t.Fatalf("Sign = %v, want the digest refusal", err)
	}
	b = mustBuild(t, smallInput())
	b.Tools[0].Digest = ""
	if err := b.Validate(); err == nil {
		t.Fatalf("Validate accepted a tool without its digest")
	}
}

func toolDigest(t *testing.T, in ToolInput, src Source) string {
	t.Helper()
	bt, err := BuildTool(in, src)
	if err != nil {
		t.Fatal(err)
	}
	return bt.Digest
}

// definitionOf is the definition object of a tool (its origin and base
// path empty when src is nil).
func definitionOf(t *Tool, src *Source) definition {
	d := definition{Name: t.Name, Source: t.Source, Method: t.Method, Path: t.Path, Description: t.Description,
		Params: nonNil(mapList(t.Params, paramToWire)), Body: bodyToWire(t.Body), InputSchema: t.InputSchema,
		Annotations: annotationsToWire(t.Annotations)}
	if src != nil {
		d.Origin, d.BasePath = src.Origin, src.BasePath
	}
	return d
}

// TestDefinitionEncoderMatchesReference: on random tools and sources
// (every field filled by reflection, odd strings and JSON included), the
// digest encoder writes exactly encoding/json + RFC 8785 of the definition
// object, or both refuse.
func TestDefinitionEncoderMatchesReference(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	same := 0
	for i := range 500 {
		var tool Tool
		var src Source
		fillRandom(rnd, &tool)
		fillRandom(rnd, &src)
		srcp := &src
		if i%10 == 0 {
			srcp = nil
		}
		want, wantErr := canonicalJSON(definitionOf(&tool, srcp))
		e := bundleEncoder{}
		err := e.definition(&tool, srcp)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("tool %d: encoder error %v, reference error %v", i, err, wantErr)
		}
		if err == nil {
			same++
			if !bytes.Equal(e.dst, want) {
				t.Fatalf("tool %d:\n got %s\nwant %s", i, e.dst, want)
			}
		}
	}
	if same < 400 {
		t.Fatalf("only %d of 500 random definitions encoded", same)
	}
}
