package bundle

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/risk"
)

// TestWireConversionCoversEveryField fills every exported field of a
// domain bundle (policy, reasons, approvals, ... included) by reflection and
// requires the trip to the wire form and back to give it back unchanged;
// then the same from a random wire bundle. A field added to a domain type
// and not mapped in wire_convert.go comes back zero and fails here: decide
// whether it belongs on the wire (doc.go, "Versioning", says when that is
// compatible) and map it.
func TestWireConversionCoversEveryField(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for i := range 200 {
		var b Bundle
		fillRandom(rnd, &b)
		w, err := toWire(&b)
		if err != nil {
			continue // an invalid risk class, which fillRandom sometimes picks
		}
		back, err := fromWire(w)
		if err != nil {
			t.Fatalf("bundle %d: fromWire(toWire(b)): %v", i, err)
		}
		if !reflect.DeepEqual(back, &b) {
			t.Fatalf("bundle %d: domain → wire → domain changed it:\n got %+v\nwant %+v", i, back, &b)
		}
	}
	for i := range 200 {
		var w wireBundle
		fillRandom(rnd, &w)
		nameClasses(rnd, &w)
		b, err := fromWire(&w)
		if err != nil {
			t.Fatalf("wire bundle %d: %v", i, err)
		}
		back, err := toWire(b)
		if err != nil {
			t.Fatalf("wire bundle %d: toWire(fromWire(w)): %v", i, err)
		}
		if !reflect.DeepEqual(back, &w) {
			t.Fatalf("wire bundle %d: wire → domain → wire changed it:\n got %+v\nwant %+v", i, back, &w)
		}
	}
}

// nameClasses replaces the random class names of a wire bundle with real
// ones.
func nameClasses(rnd *rand.Rand, w *wireBundle) {
	name := func() string { return risk.Classes[rnd.IntN(len(risk.Classes))].String() }
	for i := range w.Tools {
		w.Tools[i].Risk = name()
		for j := range w.Tools[i].Reasons {
			w.Tools[i].Reasons[j].Class = name()
		}
	}
}

// TestFromWireRefusesUnknownClass: a class name this runtime does not know
// (a later major's, or a typo) is refused, never read as another class.
func TestFromWireRefusesUnknownClass(t *testing.T) {
	for _, name := range []string{"CRITICAL", "read", ""} {
		w := wireBundle{Tools: []wireTool{{Name: "t", Risk: name}}}
		if _, err := fromWire(&w); err == nil {
			t.Errorf("risk %q was accepted", name)
		}
		w = wireBundle{Tools: []wireTool{{Name: "t", Risk: "READ", Reasons: []wireReason{{Class: name}}}}}
		if _, err := fromWire(&w); err == nil {
			t.Errorf("reason class %q was accepted", name)
		}
	}
}

// signedBeforeWireTypes is a bundle signed by toolgate before the payload
// had wire types of its own (when it encoded the domain types), with
// testKey(1): sources with auth, a body, both kinds of idempotency key,
// approvals, an explicit and an empty retry_on, HTML and U+2028 in an
// input schema.
const signedBeforeWireTypes = "v1-signed-before-wire-types.jws"

// TestBundleSignedBeforeWireTypesStillVerifies: the wire types changed no
// byte. The old bundle verifies, its digests are those DefinitionDigest
// computes now, and signing what it decodes to gives back the very same
// JWS (Ed25519 is deterministic), so the canonical bytes are identical.
func TestBundleSignedBeforeWireTypesStillVerifies(t *testing.T) {
	signed, err := os.ReadFile(filepath.Join("testdata", signedBeforeWireTypes))
	if err != nil {
		t.Fatal(err)
	}
	k := testKey(t, 1)
	b, payload, err := Verify(signed, keySet(k), VerifyOptions{Now: issued.Add(time.Hour)})
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if len(b.Tools) != 14 || len(b.Sources) != 11 {
		t.Fatalf("decoded %d tools and %d sources, want 14 and 11", len(b.Tools), len(b.Sources))
	}
	again, err := Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, payload) {
		t.Fatalf("canonical bytes changed:\n got %s\nwant %s", again, payload)
	}
	resigned := mustSign(t, b, k)
	if !bytes.Equal(resigned, bytes.TrimSpace(signed)) {
		t.Errorf("signing the decoded bundle gives another JWS")
	}
	sources := map[string]*Source{}
	for i := range b.Sources {
		sources[b.Sources[i].Name] = &b.Sources[i]
	}
	for i := range b.Tools {
		tool := &b.Tools[i]
		if d, err := DefinitionDigest(tool, sources[tool.Source]); err != nil || d != tool.Digest {
			t.Errorf("tool %s: digest %s, DefinitionDigest %s (%v)", tool.Name, tool.Digest, d, err)
		}
	}
}
