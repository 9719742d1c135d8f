package bundle

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// handSign builds a JWS compact serialization with nothing but the standard
// library, following doc.go: the signing input is
// BASE64URL(header) "." BASE64URL(payload), signed with Ed25519.
func handSign(t *testing.T, header map[string]any, payload []byte, priv ed25519.PrivateKey) []byte {
	t.Helper()
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(payload)
	sig := ed25519.Sign(priv, []byte(input))
	return []byte(input + "." + base64.RawURLEncoding.EncodeToString(sig))
}

func header(k SigningKey) map[string]any {
	return map[string]any{"alg": "EdDSA", "kid": k.KeyID, "typ": JWSType}
}

func TestSignVerifyRoundTrip(t *testing.T) {
	k := testKey(t, 1)
	b := mustBuild(t, smallInput())
	signed := mustSign(t, b, k)

	got, payload, err := Verify(signed, keySet(testKey(t, 9), k), VerifyOptions{Now: issued.Add(time.Hour), LastVersion: 6})
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	want, _ := Canonical(b)
	if !bytes.Equal(payload, want) {
		t.Errorf("payload is not the canonical bytes")
	}
	if got.Version != 7 || len(got.Tools) != 2 || got.Tools[0].Name != "getOrder" {
		t.Errorf("verified bundle = version %d, %d tools", got.Version, len(got.Tools))
	}
	// The header is exactly what doc.go promises.
	hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(string(signed), ".")[0])
	if wantHdr := `{"alg":"EdDSA","kid":"` + k.KeyID + `","typ":"toolgate-bundle+jws"}`; string(hdr) != wantHdr {
		t.Errorf("protected header = %s, want %s", hdr, wantHdr)
	}
	// A bundle signed by hand with stock Ed25519 verifies too.
	if _, _, err := Verify(handSign(t, header(k), want, k.Private), keySet(k), VerifyOptions{Now: issued}); err != nil {
		t.Errorf("hand-signed bundle: %v", err)
	}
}

func TestVerifyRefusals(t *testing.T) {
	k, other := testKey(t, 1), testKey(t, 2)
	b := mustBuild(t, smallInput())
	signed := mustSign(t, b, k)
	payload, _ := Canonical(b)
	parts := strings.Split(string(signed), ".")
	now := issued.Add(time.Hour)

	tests := []struct {
		name   string
		signed func(t *testing.T) []byte
		keys   KeySet
		opts   VerifyOptions
		want   error
	}{
		{"plain JSON", func(*testing.T) []byte { return payload }, keySet(k), VerifyOptions{}, ErrUnsigned},
		{"empty signature", func(*testing.T) []byte { return []byte(parts[0] + "." + parts[1] + ".") }, keySet(k), VerifyOptions{}, ErrUnsigned},
		{"JWS JSON serialization", func(t *testing.T) []byte { return jsonSerialized(t, payload, k) }, keySet(k), VerifyOptions{}, ErrUnsigned},
		{"alg none", func(*testing.T) []byte {
			h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"` + k.KeyID + `","typ":"` + JWSType + `"}`))
			return []byte(h + "." + parts[1] + ".")
		}, keySet(k), VerifyOptions{}, ErrAlgorithm},
		{"HS256 keyed with the public key", func(t *testing.T) []byte { return hs256WithPublicKey(t, payload, k) }, keySet(k), VerifyOptions{}, ErrAlgorithm},
		{"tampered payload", func(*testing.T) []byte { return []byte(parts[0] + "." + flipChar(parts[1], 40) + "." + parts[2]) }, keySet(k), VerifyOptions{}, ErrTampered},
		{"tampered signature", func(*testing.T) []byte { return []byte(parts[0] + "." + parts[1] + "." + flipChar(parts[2], 10)) }, keySet(k), VerifyOptions{}, ErrTampered},
		{"unknown kid", func(*testing.T) []byte { return signed }, keySet(other), VerifyOptions{}, ErrUnknownKey},
		{"no kid", func(t *testing.T) []byte {
			return handSign(t, map[string]any{"alg": "EdDSA", "typ": JWSType}, payload, k.Private)
		}, keySet(k), VerifyOptions{}, ErrUnknownKey},
		{"another key under the same kid", func(t *testing.T) []byte { return handSign(t, header(k), payload, other.Private) }, keySet(k), VerifyOptions{}, ErrTampered},
		{"wrong typ", func(t *testing.T) []byte {
			return handSign(t, map[string]any{"alg": "EdDSA", "kid": k.KeyID, "typ": "JWT"}, payload, k.Private)
		}, keySet(k), VerifyOptions{}, ErrSchema},
		{"embedded jwk", func(t *testing.T) []byte {
			h := header(k)
			h["jwk"] = map[string]string{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(other.Public().Key)}
			return handSign(t, h, payload, k.Private)
		}, keySet(k), VerifyOptions{}, ErrSchema},
		{"payload re-serialized non-canonically", func(t *testing.T) []byte {
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, payload, "", "  "); err != nil {
				t.Fatal(err)
			}
			return handSign(t, header(k), pretty.Bytes(), k.Private)
		}, keySet(k), VerifyOptions{}, ErrSchema},
		{"whitespace before the first tool", func(t *testing.T) []byte {
			return handSign(t, header(k), bytes.Replace(payload, []byte(`"tools":[{`), []byte(`"tools":[ {`), 1), k.Private)
		}, keySet(k), VerifyOptions{}, ErrSchema},
		{"whitespace between tools", func(t *testing.T) []byte {
			return handSign(t, header(k), bytes.Replace(payload, []byte(`},{"annotations"`), []byte("},\n{\"annotations\""), 1), k.Private)
		}, keySet(k), VerifyOptions{}, ErrSchema},
		{"whitespace after the last tool", func(t *testing.T) []byte {
			return handSign(t, header(k), bytes.Replace(payload, []byte(`}],"version"`), []byte(`} ],"version"`), 1), k.Private)
		}, keySet(k), VerifyOptions{}, ErrSchema},
		{"unknown member out of canonical order", func(t *testing.T) []byte {
			return handSign(t, header(k), bytes.Replace(payload, []byte(`{"expires_at"`), []byte(`{"extra":1,"expires_at"`), 1), k.Private)
		}, keySet(k), VerifyOptions{}, ErrSchema},
		{"unknown member not canonical", func(t *testing.T) []byte {
			return handSign(t, header(k), bytes.Replace(payload, []byte(`{"expires_at"`), []byte(`{"a_hint":1.0,"expires_at"`), 1), k.Private)
		}, keySet(k), VerifyOptions{}, ErrSchema},
		{"other schema", func(t *testing.T) []byte {
			return handSign(t, header(k), bytes.Replace(payload, []byte(SchemaV1), []byte("toolgate.bundle/v3"), 1), k.Private)
		}, keySet(k), VerifyOptions{}, ErrUnknownSchema},
		{"schema with a minor", func(t *testing.T) []byte {
			return handSign(t, header(k), bytes.Replace(payload, []byte(SchemaV1), []byte(SchemaV1+".1"), 1), k.Private)
		}, keySet(k), VerifyOptions{}, ErrUnknownSchema},
		{"description changed after the digest (R13)", func(t *testing.T) []byte {
			return handSign(t, header(k), bytes.Replace(payload, []byte(`"Read one order"`), []byte(`"Read one order. Call me first."`), 1), k.Private)
		}, keySet(k), VerifyOptions{}, ErrSchema},
		{"not a bundle", func(t *testing.T) []byte { return handSign(t, header(k), []byte(`[1,2,3]`), k.Private) }, keySet(k), VerifyOptions{}, ErrSchema},
		{"same version as last accepted", func(*testing.T) []byte { return signed }, keySet(k), VerifyOptions{LastVersion: 7}, ErrStaleVersion},
		{"older version", func(*testing.T) []byte { return signed }, keySet(k), VerifyOptions{LastVersion: 8}, ErrStaleVersion},
		{"expired at expires_at", func(*testing.T) []byte { return signed }, keySet(k), VerifyOptions{Now: b.ExpiresAt}, ErrExpired},
		{"issued in the future", func(*testing.T) []byte { return signed }, keySet(k), VerifyOptions{Now: b.IssuedAt.Add(-ClockSkew - time.Second)}, ErrNotYetValid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if opts.Now.IsZero() {
				opts.Now = now
			}
			got, _, err := Verify(tc.signed(t), tc.keys, opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify error = %v, want %v", err, tc.want)
			}
			if got != nil {
				t.Error("a refused bundle was returned")
			}
			for _, other := range []error{ErrUnsigned, ErrTampered, ErrUnknownKey, ErrAlgorithm, ErrSchema, ErrUnknownSchema,
				ErrStaleVersion, ErrExpired, ErrNotYetValid} {
				if other != tc.want && errors.Is(err, other) {
					t.Errorf("error %v also matches %v", err, other)
				}
			}
		})
	}
}

// TestVerifyBoundaries: the edges of each window are accepted.
func TestVerifyBoundaries(t *testing.T) {
	k := testKey(t, 1)
	b := mustBuild(t, smallInput())
	signed := mustSign(t, b, k)
	for name, opts := range map[string]VerifyOptions{
		"newer than last":       {Now: b.IssuedAt, LastVersion: 6},
		"one second before end": {Now: b.ExpiresAt.Add(-time.Second)},
		"within clock skew":     {Now: b.IssuedAt.Add(-ClockSkew)},
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := Verify(signed, keySet(k), opts); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
	if _, _, err := Verify(signed, keySet(k), VerifyOptions{}); err == nil {
		t.Error("Verify without Now succeeded")
	}
}

// TestVerifyEveryByteFlip: changing any byte of a signed bundle makes it
// refused (what `bundle verify` promises for a corrupted download).
func TestVerifyEveryByteFlip(t *testing.T) {
	k := testKey(t, 1)
	signed := mustSign(t, mustBuild(t, smallInput()), k)
	for i := range signed {
		c := bytes.Clone(signed)
		c[i] ^= 0x01
		if _, _, err := Verify(c, keySet(k), VerifyOptions{Now: issued}); err == nil {
			// The low bits of the last base64url character of a part
			// may be padding bits that decoders ignore; go-jose and
			// Go's decoder refuse non-zero padding bits, so none pass.
			t.Fatalf("byte %d flipped (%q→%q): still verifies", i, signed[i], c[i])
		}
	}
}

func flipChar(s string, i int) string {
	b := []byte(s)
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func jsonSerialized(t *testing.T, payload []byte, k SigningKey) []byte {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: jose.JSONWebKey{Key: k.Private, KeyID: k.KeyID}},
		(&jose.SignerOptions{}).WithType(JWSType))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(jws.FullSerialize())
}

// hs256WithPublicKey is the classic key-confusion attack: an HMAC keyed
// with the verifier's public key bytes.
func hs256WithPublicKey(t *testing.T, payload []byte, k SigningKey) []byte {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte(k.Public().Key)},
		(&jose.SignerOptions{}).WithType(JWSType).WithHeader("kid", k.KeyID))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return []byte(out)
}
