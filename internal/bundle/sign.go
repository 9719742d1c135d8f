package bundle

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// JWSType is the "typ" of the protected header of every signed bundle
// (RFC 7515 §4.1.9; the "application/" prefix is omitted as it recommends).
const JWSType = "toolgate-bundle+jws"

// ClockSkew is how far in the future issued_at may lie before Verify calls a
// bundle not yet valid: console and runtime clocks are never exactly equal.
const ClockSkew = 5 * time.Minute

// Sign encodes b canonically and signs it with k: the result is a JWS compact
// serialization (RFC 7515) with alg EdDSA (RFC 8037), the protected header
// {"alg":"EdDSA","kid":k.KeyID,"typ":JWSType} and the canonical bytes as
// payload. The result is ASCII, exactly what runtimes receive.
//
// A bundle that Verify would refuse (Validate fails) is not signed.
func Sign(b *Bundle, k SigningKey) ([]byte, error) {
	if b == nil {
		return nil, errors.New("sign bundle: nil bundle")
	}
	if err := normalize(b).Validate(); err != nil {
		return nil, fmt.Errorf("sign bundle: %w", err)
	}
	payload, err := Canonical(b)
	if err != nil {
		return nil, fmt.Errorf("sign bundle: %w", err)
	}
	return signPayload(payload, k)
}

// signPayload signs bytes as they are; Sign always passes canonical bytes.
func signPayload(payload []byte, k SigningKey) ([]byte, error) {
	if len(k.Private) != 0 && k.KeyID == "" {
		return nil, errors.New("sign bundle: signing key has no kid")
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.EdDSA, Key: jose.JSONWebKey{Key: k.Private, KeyID: k.KeyID}},
		(&jose.SignerOptions{}).WithType(JWSType),
	)
	if err != nil {
		return nil, fmt.Errorf("sign bundle: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return nil, fmt.Errorf("sign bundle: %w", err)
	}
	compact, err := jws.CompactSerialize()
	if err != nil {
		return nil, fmt.Errorf("sign bundle: %w", err)
	}
	return []byte(compact), nil
}

// VerifyOptions are the caller's context for Verify.
type VerifyOptions struct {
	// Now is the verification time (expiry, not-yet-valid); required.
	Now time.Time
	// LastVersion is the version the caller last accepted; a bundle must be
	// strictly newer. 0 means none (first fetch, or an offline check).
	LastVersion int64
}

// protectedHeader is every parameter a bundle header may carry. Anything
// else (jwk, jku, x5u, crit, b64, ...) is refused: a verifier that ignores an
// embedded key or an unencoded payload is how JWS verifiers get fooled.
type protectedHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
}

// Verify checks a signed bundle and returns it with its payload (the
// canonical bytes). It refuses, in this order and each with its own
// sentinel: ErrUnsigned, ErrAlgorithm, ErrSchema (header), ErrUnknownKey,
// ErrTampered, ErrSchema (payload), ErrStaleVersion, ErrExpired,
// ErrNotYetValid.
func Verify(signed []byte, keys KeySet, opts VerifyOptions) (*Bundle, []byte, error) {
	if opts.Now.IsZero() {
		return nil, nil, errors.New("verify bundle: VerifyOptions.Now is required")
	}
	compact := string(bytes.TrimSpace(signed))
	hdr, err := readProtectedHeader(compact)
	if err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w", err)
	}
	key, ok := keys.Lookup(hdr.Kid)
	if !ok {
		return nil, nil, fmt.Errorf("verify bundle: %w: kid %q is not in the key set (known: %s)",
			ErrUnknownKey, hdr.Kid, strings.Join(keys.KeyIDs(), ", "))
	}
	jws, err := jose.ParseSignedCompact(compact, []jose.SignatureAlgorithm{jose.EdDSA})
	if err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w: %v", ErrTampered, err)
	}
	payload, err := jws.Verify(key.Key)
	if err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w (kid %q)", ErrTampered, hdr.Kid)
	}
	b, err := decodeCanonical(payload)
	if err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w: %v", ErrSchema, err)
	}
	if err := b.Validate(); err != nil {
		// One line: a runtime logs it and the CLI prints it as is.
		return nil, nil, fmt.Errorf("verify bundle: %w: %s", ErrSchema, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if err := checkFreshness(b, opts); err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w", err)
	}
	return b, payload, nil
}

// readProtectedHeader classifies everything that can be said about the
// envelope before a key is touched: its shape, the algorithm and the header.
func readProtectedHeader(compact string) (protectedHeader, error) {
	parts := strings.Split(compact, ".")
	if len(parts) != 3 {
		return protectedHeader{}, fmt.Errorf("%w: want 3 dot-separated parts, got %d", ErrUnsigned, len(parts))
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return protectedHeader{}, fmt.Errorf("%w: protected header is not base64url: %v", ErrUnsigned, err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return protectedHeader{}, fmt.Errorf("%w: protected header is not a JSON object: %v", ErrUnsigned, err)
	}
	var hdr protectedHeader
	_ = json.Unmarshal(raw, &hdr) // fields of the wrong type stay empty and are refused below
	if hdr.Alg != string(jose.EdDSA) {
		return hdr, fmt.Errorf("%w: alg is %q", ErrAlgorithm, hdr.Alg)
	}
	// After the alg check, so that an alg "none" token (empty signature by
	// definition) is reported as the algorithm attack it is.
	if parts[2] == "" {
		return hdr, fmt.Errorf("%w: the signature part is empty", ErrUnsigned)
	}
	for name := range all {
		if !slices.Contains([]string{"alg", "kid", "typ"}, name) {
			return hdr, fmt.Errorf("%w: unexpected JWS header parameter %q", ErrSchema, name)
		}
	}
	if hdr.Typ != JWSType {
		return hdr, fmt.Errorf("%w: JWS typ is %q, want %q", ErrSchema, hdr.Typ, JWSType)
	}
	if hdr.Kid == "" {
		return hdr, fmt.Errorf("%w: the JWS header has no kid", ErrUnknownKey)
	}
	// go-jose recomputes the signing input from the decoded parts, so it
	// would accept a changed last character whose low (padding) bits Go's
	// lenient decoder drops. Insisting on strict base64url makes every byte
	// of a signed bundle count: any flipped byte is refused.
	// Only a final group of 2 or 3 characters has padding bits, so only it
	// is decoded here (the whole payload can be megabytes).
	for i, part := range parts {
		if r := len(part) % 4; r >= 2 {
			if _, err := base64.RawURLEncoding.Strict().DecodeString(part[len(part)-r:]); err != nil {
				return hdr, fmt.Errorf("%w: part %d is not strict base64url: %v", ErrTampered, i+1, err)
			}
		}
	}
	return hdr, nil
}

func checkFreshness(b *Bundle, opts VerifyOptions) error {
	if opts.LastVersion > 0 && b.Version <= opts.LastVersion {
		return fmt.Errorf("%w: version %d, last accepted %d", ErrStaleVersion, b.Version, opts.LastVersion)
	}
	now := opts.Now.UTC()
	if !now.Before(b.ExpiresAt) {
		return fmt.Errorf("%w: expired at %s (now %s)", ErrExpired, b.ExpiresAt.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	if b.IssuedAt.After(now.Add(ClockSkew)) {
		return fmt.Errorf("%w: issued at %s (now %s)", ErrNotYetValid, b.IssuedAt.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	return nil
}
