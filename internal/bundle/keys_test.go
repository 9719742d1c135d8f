package bundle

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

func TestKeyID(t *testing.T) {
	k := testKey(t, 1)
	if len(k.KeyID) != 16 || strings.ContainsAny(k.KeyID, "+/=") {
		t.Errorf("kid %q: want 16 base64url characters", k.KeyID)
	}
	if again := testKey(t, 1); again.KeyID != k.KeyID {
		t.Error("the same key got two kids")
	}
	if testKey(t, 2).KeyID == k.KeyID {
		t.Error("two keys got the same kid")
	}
}

func TestKeySetJWKS(t *testing.T) {
	k1, k2 := testKey(t, 1), testKey(t, 2)
	data, err := json.Marshal(keySet(k1, k2))
	if err != nil {
		t.Fatal(err)
	}
	// The wire form is a plain RFC 7517/8037 JWK Set.
	var raw struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": k1.KeyID,
		"x": base64.RawURLEncoding.EncodeToString(k1.Public().Key)}
	if len(raw.Keys) != 2 || !mapsEqual(raw.Keys[0], want) {
		t.Errorf("JWKS = %s", data)
	}
	back, err := ParseKeySet(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := back.Lookup(k2.KeyID); !ok || !bytes.Equal(got.Key, k2.Public().Key) {
		t.Errorf("round trip lost %s", k2.KeyID)
	}
}

func TestParseKeySet(t *testing.T) {
	k := testKey(t, 1)
	pub := base64.RawURLEncoding.EncodeToString(k.Public().Key)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecJWK, _ := json.Marshal(jose.JSONWebKey{Key: &ec.PublicKey, KeyID: "ec"})
	privJWK, _ := json.Marshal(jose.JSONWebKey{Key: k.Private, KeyID: k.KeyID})

	tests := []struct {
		name    string
		in      string
		wantKid string // "" means an error is expected
	}{
		{"single JWK", `{"kty":"OKP","crv":"Ed25519","x":"` + pub + `","kid":"mine"}`, "mine"},
		{"JWK without kid gets the fingerprint", `{"kty":"OKP","crv":"Ed25519","x":"` + pub + `"}`, k.KeyID},
		{"JWKS", `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + pub + `","kid":"a"}]}`, "a"},
		{"empty JWKS", `{"keys":[]}`, ""},
		{"private key", string(privJWK), ""},
		{"EC key", string(ecJWK), ""},
		{"wrong alg", `{"kty":"OKP","crv":"Ed25519","x":"` + pub + `","alg":"ES256"}`, ""},
		{"encryption use", `{"kty":"OKP","crv":"Ed25519","x":"` + pub + `","use":"enc"}`, ""},
		{"duplicate kid", `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + pub + `","kid":"a"},{"kty":"OKP","crv":"Ed25519","x":"` + pub + `","kid":"a"}]}`, ""},
		{"not JSON", `-----BEGIN PUBLIC KEY-----`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := ParseKeySet([]byte(tc.in))
			if tc.wantKid == "" {
				if err == nil {
					t.Fatalf("ParseKeySet accepted %s", tc.in)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := set.Lookup(tc.wantKid); !ok {
				t.Errorf("kids %v, want %s", set.KeyIDs(), tc.wantKid)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
