package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// canonicalViaJCS is the reference: encoding/json of the wire form, then
// github.com/gowebpki/jcs. The fast encoder must give the same bytes.
func canonicalViaJCS(b *Bundle) ([]byte, error) {
	w, err := toWire(normalize(b))
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(raw)
}

func sameAsJCS(t *testing.T, b *Bundle) {
	t.Helper()
	want, wantErr := canonicalViaJCS(b)
	got, err := Canonical(b)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("Canonical error %v, reference error %v", err, wantErr)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("Canonical differs from encoding/json + jcs at byte %d:\n got: …%s\nwant: …%s",
			i, got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
}

// TestCanonicalMatchesJCS: the golden bundle, the 5,000-tool bundle and the
// RFC 8785 examples give exactly the reference bytes.
func TestCanonicalMatchesJCS(t *testing.T) {
	t.Run("golden", func(t *testing.T) {
		b := mustBuild(t, smallInput())
		sameAsJCS(t, b)
		golden, err := os.ReadFile(filepath.Join("testdata", "small.canonical.json"))
		if err != nil {
			t.Fatal(err)
		}
		if ref, _ := canonicalViaJCS(b); !bytes.Equal(ref, golden) {
			t.Errorf("the reference path no longer gives the golden bytes")
		}
	})
	t.Run("5000 tools", func(t *testing.T) { sameAsJCS(t, mustBuild(t, largeInput(5000))) })
	for name, schema := range map[string]string{
		"RFC 8785 3.2.2 values":  rfc8785Values,
		"RFC 8785 3.2.3 sorting": rfc8785Sorting,
	} {
		t.Run(name, func(t *testing.T) {
			in := smallInput()
			in.Tools[1].InputSchema = json.RawMessage(schema)
			sameAsJCS(t, mustBuild(t, in))
		})
	}
}

const (
	rfc8785Values = `{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
		"string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`
	rfc8785Sorting = `{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
		"1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
		"\u00f6": "Latin Small Letter O With Diaeresis"}`
)

// transformSeeds are JSON texts that exercise every branch of the transform.
var transformSeeds = []string{
	rfc8785Values, rfc8785Sorting,
	`{"b":1, "a":{"d":[1, 2.50, -0, -0.0, 1e-7, 1e21, 1e20, 5e-324, 1.7976931348623157e308, 123456789012345678901]}}`,
	`{"\uffff":1,"\ud800\udc00":2,"\ue000":3,"a\"b":4,"a#":5,"a\u0001":6,"a":7}`,
	`["\u2028<>&\/", "\u001f\u007f\b\f\n\r\t", "\uDBFF\uDFFF", "é", ""]`,
	`  [ { } , [ ] , null , true , false , 0 , -1 , 1E+2 , 0.000001 ] `,
	`{"a":1,"a":2}`, `"\ud800"`, `"\ud800x"`, `1e400`, `[1,]`, `{"a" 1}`, `01`, `1.`, `-`, `"\x"`,
}

// TestTransformMatchesJCS compares the transform with jcs.Transform on the
// seeds: same bytes when both succeed, and both refuse the same inputs.
func TestTransformMatchesJCS(t *testing.T) {
	for _, in := range transformSeeds {
		t.Run(in, func(t *testing.T) { compareTransform(t, []byte(in)) })
	}
}

func compareTransform(t *testing.T, in []byte) {
	t.Helper()
	if !json.Valid(in) || !utf8.Valid(in) {
		// jcs accepts some non-JSON and passes invalid UTF-8 through;
		// RFC 8785 input is I-JSON, so the transform refuses both.
		if _, err := appendCanonicalJSON(nil, in); err == nil && !json.Valid(in) {
			t.Fatalf("transform accepted invalid JSON %q", in)
		}
		return
	}
	// jcs refuses whitespace after a top-level scalar ("0 "), which is
	// valid JSON; it gets the trimmed text.
	want, wantErr := jcs.Transform(bytes.TrimSpace(in))
	got, err := appendCanonicalJSON(nil, in)
	if errors.Is(err, errLoneSurrogate) && (wantErr != nil || bytes.ContainsRune(want, utf8.RuneError)) {
		// jcs replaces a high surrogate and the escape after it with
		// U+FFFD (losing that character); the transform refuses instead.
		return
	}
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: transform error %v, jcs error %v", in, err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q:\n got %q\nwant %q", in, got, want)
	}
}

// FuzzTransformMatchesJCS: for any valid JSON, the transform and jcs agree
// byte for byte, or both refuse it.
func FuzzTransformMatchesJCS(f *testing.F) {
	for _, s := range transformSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { compareTransform(t, in) })
}

// TestEncoderMatchesJCSOnRandomBundles fills every field of a bundle by
// reflection (so a field added to any bundle or policy type is covered
// without touching this test) with random values, and compares the direct
// encoder with encoding/json + jcs.
func TestEncoderMatchesJCSOnRandomBundles(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	n := 300
	if testing.Short() {
		n = 50
	}
	encoded := 0
	for i := range n {
		var b Bundle
		fillRandom(rnd, &b)
		want, wantErr := canonicalViaJCS(&b)
		got, err := Canonical(&b)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("bundle %d: Canonical error %v, reference error %v", i, err, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("bundle %d differs:\n got %s\nwant %s", i, got, want)
		}
		if err == nil {
			encoded++
		}
	}
	// Most bundles must encode, or the comparison proves little.
	if encoded < n*2/3 {
		t.Fatalf("only %d of %d random bundles encoded", encoded, n)
	}
}

// TestDecodeCanonicalReadsBackRandomBundles: whatever a random bundle holds,
// its canonical bytes decode and re-encode to the same bytes, so Verify
// never refuses a bundle Sign produced.
func TestDecodeCanonicalReadsBackRandomBundles(t *testing.T) {
	f := randomFiller{rnd: rand.New(rand.NewPCG(3, 4)), validUTF8: true}
	read := 0
	for i := range 200 {
		var b Bundle
		f.fillValue(reflect.ValueOf(&b).Elem(), 0)
		b.Schema = Schema
		payload, err := Canonical(&b)
		if err != nil {
			continue
		}
		read++
		if _, err := decodeCanonical(payload); err != nil {
			t.Fatalf("bundle %d: %v\n%s", i, err, payload)
		}
	}
	if read < 150 {
		t.Fatalf("only %d of 200 random bundles encoded", read)
	}
}

func TestDecodeCanonicalRefusesTrailingData(t *testing.T) {
	payload, err := Canonical(mustBuild(t, smallInput()))
	if err != nil {
		t.Fatal(err)
	}
	for _, extra := range []string{" ", "{}", " null", "\n[1]"} {
		if _, err := decodeCanonical(append(bytes.Clone(payload), extra...)); err == nil {
			t.Errorf("payload followed by %q was accepted", extra)
		}
	}
}
