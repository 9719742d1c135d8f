package callrecord

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// pieces of strings and keys: ASCII, what JSON escapes, what json.Marshal
// escapes and RFC 8785 does not, characters on both sides of the UTF-16
// surrogate range, and bytes that are not UTF-8.
var canonPieces = []string{"a", "Z", "order_id", " ", "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f",
	"\x7f", "<", ">", "&", "\u2028", "\u2029", "é", "€", "\ue000", "\uffff", "😀", "𐀀", "\U0010ffff", "\xff", "\xc3"}

var canonNumbers = []string{"0", "-0", "1", "-1", "1.50", "1e3", "1E+3", "2.5e-3", "9007199254740993",
	"123456789012345678901234567890", "1e400", "1e-400", "01", "0x10", "NaN", "-", "1.", ".5", "+1", "1e", ""}

var canonFloats = []float64{0, math.Copysign(0, -1), 1, -1.5, 1e21, 1e-7, 5e-324, math.MaxFloat64, 0.1 + 0.2,
	math.NaN(), math.Inf(1), math.Inf(-1)}

func randString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(5) {
		b.WriteString(canonPieces[r.IntN(len(canonPieces))])
	}
	return b.String()
}

func randValue(r *rand.Rand, depth int) any {
	n := 9
	if depth > 3 {
		n = 6 // leaves only
	}
	switch r.IntN(n) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return randString(r)
	case 3:
		return json.Number(canonNumbers[r.IntN(len(canonNumbers))])
	case 4:
		return canonFloats[r.IntN(len(canonFloats))]
	case 5:
		// Types the fast path leaves to the general one.
		return []any{7, int64(-3), uint8(2), "x", struct{ A int }{1}}[r.IntN(5)]
	case 6:
		if r.IntN(8) == 0 {
			return []any(nil)
		}
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randValue(r, depth+1)
		}
		return a
	default:
		if r.IntN(8) == 0 {
			return map[string]any(nil)
		}
		return randObject(r, depth+1)
	}
}

func randObject(r *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range r.IntN(5) {
		m[randString(r)] = randValue(r, depth)
	}
	return m
}

// The fast path writes exactly what json.Marshal and then jcs.Transform
// write, for every value it accepts, and leaves to them every value they
// refuse; ArgumentsDigest is the same either way.
func TestCanonicalMatchesMarshalThenTransform(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	fast, general := 0, 0
	for i := range 20000 {
		args := randObject(r, 0)
		want, werr := marshalCanonical(args)
		got, ok := appendCanonical(nil, args)
		switch {
		case ok && werr != nil:
			t.Fatalf("case %d: fast path accepted %#v, which the general path refuses (%v): %s", i, args, werr, got)
		case ok && !bytes.Equal(got, want):
			t.Fatalf("case %d: %#v\nfast    %s\ngeneral %s", i, args, got, want)
		case ok:
			fast++
		default:
			general++
		}
		digest, err := ArgumentsDigest(args)
		if (err != nil) != (werr != nil) {
			t.Fatalf("case %d: ArgumentsDigest error %v, general path %v", i, err, werr)
		}
		if err == nil {
			sum := sha256.Sum256(want)
			if digest != "sha256:"+hex.EncodeToString(sum[:]) {
				t.Fatalf("case %d: digest %s differs from the general path's", i, digest)
			}
		}
	}
	// Both paths were exercised in earnest.
	if fast < 5000 || general < 2000 {
		t.Fatalf("fast path took %d cases, the general %d: the generator lost its spread", fast, general)
	}
}

func TestCanonicalOrdersMembersByUTF16(t *testing.T) {
	// U+E000 sorts after U+1F600 in UTF-16 (0xD83D…) though before it in
	// UTF-8 bytes.
	got, ok := appendCanonical(nil, map[string]any{"\ue000": json.Number("1"), "😀": json.Number("2"), "a": true, "": nil})
	want := `{"":null,"a":true,"😀":2,"` + "\ue000" + `":1}`
	if !ok || string(got) != want {
		t.Fatalf("got %s (ok %v), want %s", got, ok, want)
	}
}

// The digest of the arguments every call has: {} for none.
func TestArgumentsDigestOfNoArguments(t *testing.T) {
	sum := sha256.Sum256([]byte("{}"))
	want := "sha256:" + hex.EncodeToString(sum[:])
	for _, args := range []map[string]any{nil, {}} {
		if got, err := ArgumentsDigest(args); err != nil || got != want {
			t.Errorf("ArgumentsDigest(%#v) = %s, %v; want %s", args, got, err, want)
		}
	}
}

func BenchmarkArgumentsDigest(b *testing.B) {
	var args map[string]any
	if err := json.Unmarshal([]byte(`{"item_id":"42","body":{"customer":"ada","items":[{"sku":"BOOK-1","quantity":1,"unit_price_cents":1999}]}}`), &args); err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if _, err := ArgumentsDigest(args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		for b.Loop() {
			if _, err := marshalCanonical(args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
