package bundle

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	segjson "github.com/segmentio/encoding/json"
)

// The benchmarks run the previous implementation ("jcs": encoding/json +
// github.com/gowebpki/jcs, go-jose's Verify) next to the current one
// ("fast") in one run, on the same 5,000-tool bundle (~8.5 MB signed).

// BenchmarkCanonical5000 is the canonical encoding alone.
func BenchmarkCanonical5000(b *testing.B) {
	bundle := mustBuild(b, largeInput(5000))
	b.Run("jcs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := canonicalViaJCS(bundle); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Canonical(bundle); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBuildCanonicalSign5000 is publishing: build, canonical bytes and
// signature of a 5,000-tool bundle (aim < 200 ms).
func BenchmarkBuildCanonicalSign5000(b *testing.B) {
	in := largeInput(5000)
	k := testKey(b, 1)
	run := func(sign func(*Bundle, SigningKey) ([]byte, error)) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				bundle, err := Build(in)
				if err != nil {
					b.Fatal(err)
				}
				signed, err := sign(bundle, k)
				if err != nil {
					b.Fatal(err)
				}
				size = len(signed)
			}
			b.ReportMetric(float64(size), "bytes/bundle")
		}
	}
	b.Run("jcs", run(signViaJCS))
	b.Run("fast", run(Sign))
}

// BenchmarkVerify5000 is what a runtime does on every new bundle (aim
// < 20 ms), next to the floor: what any verifier of these bytes must do
// at least — the SHA-512 inside Ed25519 over the signing input, the base64
// decoding of the payload and one JSON decoding of it (encoding/json, and
// the segmentio decoder Verify uses). memo/one-tool-changed is a runtime's
// swap: the bundle differs from the last one verified in one tool.
func BenchmarkVerify5000(b *testing.B) {
	k := testKey(b, 1)
	signed := mustSign(b, mustBuild(b, largeInput(5000)), k)
	keys := keySet(k)
	opts := VerifyOptions{Now: issued.Add(time.Hour)}
	parts := bytes.Split(signed, []byte{'.'})
	payload, err := base64.RawURLEncoding.DecodeString(string(parts[1]))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("jcs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := verifyViaJoseJCS(signed, keys, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := Verify(signed, keys, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("memo/one-tool-changed", func(b *testing.B) {
		in := largeInput(5000)
		in.Tools[2500].Description += " (changed)"
		changed := [2][]byte{signed, mustSign(b, mustBuild(b, in), k)}
		memo := &Memo{}
		if _, _, err := Verify(signed, keys, VerifyOptions{Now: opts.Now, Memo: memo}); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i ^= 1
			if _, _, err := Verify(changed[i], keys, VerifyOptions{Now: opts.Now, Memo: memo}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor/sha512", func(b *testing.B) {
		b.ReportAllocs()
		input := signed[:len(parts[0])+1+len(parts[1])]
		for b.Loop() {
			sha512.Sum512(input)
		}
	})
	b.Run("floor/base64", func(b *testing.B) {
		b.ReportAllocs()
		dst := make([]byte, len(payload))
		for b.Loop() {
			if _, err := base64.RawURLEncoding.Decode(dst, parts[1]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor/unmarshal-segmentio", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v wireBundle
			if err := segjson.Unmarshal(payload, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor/unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v wireBundle
			if err := json.Unmarshal(payload, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// signViaJCS is the previous Sign: canonical bytes by encoding/json + jcs.
func signViaJCS(b *Bundle, k SigningKey) ([]byte, error) {
	payload, err := canonicalViaJCS(b)
	if err != nil {
		return nil, err
	}
	return signPayload(payload, k)
}

// verifyViaJoseJCS is the previous Verify: go-jose parses and verifies
// (decoding the payload, then re-encoding it to rebuild the signing input),
// a json.Decoder decodes, encoding/json + jcs re-encode for the comparison.
func verifyViaJoseJCS(signed []byte, keys KeySet, opts VerifyOptions) (*Bundle, []byte, error) {
	compact := string(bytes.TrimSpace(signed))
	hdr, _, err := readEnvelope([]byte(compact))
	if err != nil {
		return nil, nil, err
	}
	key, ok := keys.Lookup(hdr.Kid)
	if !ok {
		return nil, nil, ErrUnknownKey
	}
	jws, err := jose.ParseSignedCompact(compact, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		return nil, nil, err
	}
	payload, err := jws.Verify(key.Key)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	var b Bundle
	if err := dec.Decode(&b); err != nil {
		return nil, nil, err
	}
	again, err := canonicalViaJCS(&b)
	if err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(again, payload) {
		return nil, nil, errors.New("not canonical")
	}
	if err := b.Validate(); err != nil {
		return nil, nil, errors.New(strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return &b, payload, checkFreshness(&b, opts)
}
