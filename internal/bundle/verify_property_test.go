package bundle

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// The single property Verify's read rests on: a payload it accepts is the
// canonical encoding of what it decoded, byte for byte, and so are the
// bytes of every tool it digested without canonicalizing its schema again
// (digestMatches). The payloads are mutations of a real one, re-signed so
// that only the read decides: whitespace, escapes, number spellings,
// reordered and repeated members, changed digests.

// payloadMutations are edits that keep a payload JSON, most of them not
// canonical; a few (an escaped "/" written plainly, say) can land on
// canonical bytes of another bundle, which must then verify as that one.
var payloadMutations = []func(rnd *rand.Rand, p []byte) []byte{
	// whitespace after a structural byte
	func(rnd *rand.Rand, p []byte) []byte { return insertAfter(rnd, p, ",:{[", " ") },
	// an escape where none is needed
	func(rnd *rand.Rand, p []byte) []byte { return replaceOne(rnd, p, "a", `\u0061`) },
	func(rnd *rand.Rand, p []byte) []byte { return replaceOne(rnd, p, "/", `\/`) },
	// another spelling of a number
	func(rnd *rand.Rand, p []byte) []byte { return replaceOne(rnd, p, ":1", ":1.0") },
	func(rnd *rand.Rand, p []byte) []byte { return replaceOne(rnd, p, ":0", ":-0") },
	func(rnd *rand.Rand, p []byte) []byte { return replaceOne(rnd, p, "00,", "0e0,") },
	// a member repeated, or two members swapped
	func(rnd *rand.Rand, p []byte) []byte {
		return replaceOne(rnd, p, `"name":"`, `"name":"x","name":"`)
	},
	func(rnd *rand.Rand, p []byte) []byte {
		return replaceOne(rnd, p, `"method":"GET","name"`, `"name"`)
	},
	// a digest, a schema byte or a time changed
	func(rnd *rand.Rand, p []byte) []byte { return replaceOne(rnd, p, `sha256:`, `sha256:0`) },
	func(rnd *rand.Rand, p []byte) []byte {
		return replaceOne(rnd, p, `"type":"string"`, `"type":"integer"`)
	},
	func(rnd *rand.Rand, p []byte) []byte { return replaceOne(rnd, p, `Z"`, `.5Z"`) },
	// a list emptied to null, the tools' separator doubled
	func(rnd *rand.Rand, p []byte) []byte { return replaceOne(rnd, p, `"reasons":[]`, `"reasons":null`) },
	func(rnd *rand.Rand, p []byte) []byte {
		return replaceOne(rnd, p, `},{"annotations"`, `},,{"annotations"`)
	},
	// no change at all (the control: it must verify)
	func(_ *rand.Rand, p []byte) []byte { return p },
}

func TestVerifyAcceptsOnlyCanonicalPayloads(t *testing.T) {
	k := testKey(t, 1)
	b := mustBuild(t, largeInput(12))
	payload, err := Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	keys := keySet(k)
	now := issued.Add(time.Hour)
	rnd := rand.New(rand.NewPCG(7, 26))
	accepted, refused := 0, 0
	for i := range 600 {
		mutated := bytes.Clone(payload)
		for range 1 + rnd.IntN(2) {
			mutated = payloadMutations[rnd.IntN(len(payloadMutations))](rnd, mutated)
		}
		if i == 0 {
			mutated = bytes.Clone(payload)
		}
		signed, err := signPayload(mutated, k)
		if err != nil {
			t.Fatal(err)
		}
		got, gotPayload, err := Verify(signed, keys, VerifyOptions{Now: now})
		// The memo path must decide the same, on a memo filled from the
		// original bundle (every unchanged tool taken from it).
		memo := &Memo{}
		if _, _, err := Verify(mustSign(t, b, k), keys, VerifyOptions{Now: now, Memo: memo}); err != nil {
			t.Fatal(err)
		}
		_, _, memoErr := Verify(signed, keys, VerifyOptions{Now: now, Memo: memo})
		if (err == nil) != (memoErr == nil) {
			t.Fatalf("mutation %d: without a memo %v, with one %v\n%s", i, err, memoErr, mutated)
		}
		if err != nil {
			refused++
			continue
		}
		accepted++
		again, cerr := Canonical(got)
		if cerr != nil || !bytes.Equal(again, mutated) || !bytes.Equal(gotPayload, mutated) {
			t.Fatalf("mutation %d: accepted a payload that does not re-encode to itself (%v)\n got %s\nwant %s", i, cerr, again, mutated)
		}
		for j := range got.Tools {
			if err := checkDigest(&got.Tools[j], sourcesByName(got)[got.Tools[j].Source]); err != nil {
				t.Fatalf("mutation %d: accepted tool %q with a wrong digest: %v", i, got.Tools[j].Name, err)
			}
		}
	}
	if accepted == 0 || refused < 300 {
		t.Fatalf("accepted %d, refused %d of 600: the mutations do not exercise both outcomes", accepted, refused)
	}
}

// insertAfter inserts s after one occurrence of any byte of set.
func insertAfter(rnd *rand.Rand, p []byte, set, s string) []byte {
	var at []int
	for i, c := range p {
		if bytes.IndexByte([]byte(set), c) >= 0 {
			at = append(at, i+1)
		}
	}
	if len(at) == 0 {
		return p
	}
	i := at[rnd.IntN(len(at))]
	return append(append(append([]byte{}, p[:i]...), s...), p[i:]...)
}

// replaceOne replaces one occurrence (chosen at random) of old with new.
func replaceOne(rnd *rand.Rand, p []byte, old, new string) []byte {
	n := bytes.Count(p, []byte(old))
	if n == 0 {
		return p
	}
	skip := rnd.IntN(n)
	from := 0
	for range skip {
		from += bytes.Index(p[from:], []byte(old)) + len(old)
	}
	i := from + bytes.Index(p[from:], []byte(old))
	return append(append(append([]byte{}, p[:i]...), new...), p[i+len(old):]...)
}
