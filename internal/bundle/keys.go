package bundle

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// SigningKey is an Ed25519 private key with its key id. The kid goes into
// every JWS header the key signs, so a verifier knows which public key to use.
type SigningKey struct {
	KeyID     string
	Private   ed25519.PrivateKey
	CreatedAt time.Time
}

// String names the key by its kid only. A SigningKey printed by mistake —
// with %v or %+v, inside a struct that holds one (store.PublishRequest), in
// a log line or JSON — never shows its private half.
func (k SigningKey) String() string { return "SigningKey(" + k.KeyID + ")" }

// GoString is String for %#v.
func (k SigningKey) GoString() string { return k.String() }

// LogValue is String for log/slog.
func (k SigningKey) LogValue() slog.Value { return slog.StringValue(k.String()) }

// MarshalJSON writes the kid only, for the same reason as String.
func (k SigningKey) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		KeyID string `json:"kid"`
	}{k.KeyID})
}

// Public returns the public half of k under the same kid.
func (k SigningKey) Public() PublicKey {
	return PublicKey{KeyID: k.KeyID, Key: k.Private.Public().(ed25519.PublicKey)}
}

// PublicKey is an Ed25519 public key with its key id.
type PublicKey struct {
	KeyID string
	Key   ed25519.PublicKey
}

// KeyID returns the key id toolgate gives a public key: base64url (no
// padding) of the first 12 bytes of its SHA-256, 16 characters. Deriving the
// kid from the key means two different keys never share a kid by accident.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// GenerateKey creates a new Ed25519 signing key from rand (crypto/rand.Reader
// in production; a fixed reader in tests).
func GenerateKey(rand io.Reader, now time.Time) (SigningKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return SigningKey{}, fmt.Errorf("generate signing key: %w", err)
	}
	return SigningKey{KeyID: KeyID(pub), Private: priv, CreatedAt: wholeSecondUTC(now)}, nil
}

// KeySet is the set of public keys a verifier trusts, looked up by kid. Its
// JSON form is a JWK Set (RFC 7517) of OKP/Ed25519 keys (RFC 8037), the
// format of GET /api/v1/keys, `toolgate keys export` and `bundle verify --key`.
type KeySet struct {
	Keys []PublicKey
}

// Lookup returns the key with the given kid.
func (s KeySet) Lookup(kid string) (PublicKey, bool) {
	for _, k := range s.Keys {
		if k.KeyID == kid {
			return k, true
		}
	}
	return PublicKey{}, false
}

// KeyIDs lists the kids of the set, sorted (for messages and listings).
func (s KeySet) KeyIDs() []string {
	ids := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		ids[i] = k.KeyID
	}
	slices.Sort(ids)
	return ids
}

// MarshalJSON writes the set as a JWK Set: {"keys":[{"kty":"OKP",
// "crv":"Ed25519","x":...,"kid":...,"alg":"EdDSA","use":"sig"}]}.
func (s KeySet) MarshalJSON() ([]byte, error) {
	set := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, len(s.Keys))}
	for i, k := range s.Keys {
		set.Keys[i] = jose.JSONWebKey{Key: k.Key, KeyID: k.KeyID, Algorithm: string(jose.EdDSA), Use: "sig"}
	}
	out, err := json.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("encode JWK set: %w", err)
	}
	return out, nil
}

// UnmarshalJSON reads a JWK Set, or a single JWK (what people paste). Only
// Ed25519 public keys with use "sig" (or no use) and alg EdDSA (or no alg)
// are accepted; a private key is refused so it is never mistaken for a
// public one and left lying around. A key without kid gets KeyID(key).
func (s *KeySet) UnmarshalJSON(data []byte) error {
	var probe struct {
		Keys json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("read public keys: %w", err)
	}
	var jwks []jose.JSONWebKey
	if probe.Keys != nil {
		var set jose.JSONWebKeySet
		if err := json.Unmarshal(data, &set); err != nil {
			return fmt.Errorf("read public keys: JWK set: %w", err)
		}
		jwks = set.Keys
	} else {
		var one jose.JSONWebKey
		if err := json.Unmarshal(data, &one); err != nil {
			return fmt.Errorf("read public keys: JWK: %w", err)
		}
		jwks = []jose.JSONWebKey{one}
	}
	keys, err := publicKeysFromJWKs(jwks)
	if err != nil {
		return fmt.Errorf("read public keys: %w", err)
	}
	s.Keys = keys
	return nil
}

func publicKeysFromJWKs(jwks []jose.JSONWebKey) ([]PublicKey, error) {
	if len(jwks) == 0 {
		return nil, errors.New("no keys")
	}
	keys := make([]PublicKey, 0, len(jwks))
	for i, j := range jwks {
		pub, ok := j.Key.(ed25519.PublicKey)
		if !ok {
			return nil, fmt.Errorf("key %d (kid %q): want an Ed25519 public key (kty OKP, crv Ed25519, no d), got %T", i, j.KeyID, j.Key)
		}
		if j.Algorithm != "" && j.Algorithm != string(jose.EdDSA) {
			return nil, fmt.Errorf("key %d (kid %q): alg %q, want EdDSA", i, j.KeyID, j.Algorithm)
		}
		if j.Use != "" && j.Use != "sig" {
			return nil, fmt.Errorf("key %d (kid %q): use %q, want sig", i, j.KeyID, j.Use)
		}
		kid := strings.TrimSpace(j.KeyID)
		if kid == "" {
			kid = KeyID(pub)
		}
		if slices.ContainsFunc(keys, func(k PublicKey) bool { return k.KeyID == kid }) {
			return nil, fmt.Errorf("key %d: duplicate kid %q", i, kid)
		}
		keys = append(keys, PublicKey{KeyID: kid, Key: pub})
	}
	return keys, nil
}

// ParseKeySet reads a JWK Set or a single JWK (see KeySet.UnmarshalJSON).
func ParseKeySet(data []byte) (KeySet, error) {
	var s KeySet
	if err := s.UnmarshalJSON(data); err != nil {
		return KeySet{}, err
	}
	return s, nil
}
