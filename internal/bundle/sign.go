package bundle

import (
	"bytes"
	"crypto/ed25519"
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
	n := normalize(b)
	payload, err := encodeBundle(n)
	if err != nil {
		return nil, fmt.Errorf("sign bundle: canonical bundle: %w", err)
	}
	// Encoding parsed every input schema, so validation need not again.
	if err := n.validate(false); err != nil {
		return nil, fmt.Errorf("sign bundle: %w", err)
	}
	return signPayload(payload, k)
}

// signPayload signs bytes as they are; Sign always passes canonical bytes.
func signPayload(payload []byte, k SigningKey) ([]byte, error) {
	out, err := signJWS(payload, k, JWSType)
	if err != nil {
		return nil, fmt.Errorf("sign bundle: %w", err)
	}
	return out, nil
}

// signJWS makes the compact JWS of payload under k with the given typ: the
// one envelope of bundles and timestamps.
func signJWS(payload []byte, k SigningKey, typ string) ([]byte, error) {
	if len(k.Private) != 0 && k.KeyID == "" {
		return nil, errors.New("signing key has no kid")
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.EdDSA, Key: jose.JSONWebKey{Key: k.Private, KeyID: k.KeyID}},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)),
	)
	if err != nil {
		return nil, err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return nil, err
	}
	compact, err := jws.CompactSerialize()
	if err != nil {
		return nil, err
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
	// Memo, when set, holds the tools of the last bundle accepted with it:
	// identical tools are not decoded and validated again (see Memo). On
	// success it is replaced by the accepted bundle's tools. nil verifies
	// every tool.
	Memo *Memo
	// Schemas are the majors accepted; nil is KnownSchemas. A subset makes
	// Verify refuse the others with ErrUnknownSchema exactly as a verifier
	// of an older release does, which is how a runtime models one
	// (runtime.Options.BundleSchemas).
	Schemas []string
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
// ErrTampered, ErrUnknownSchema, ErrSchema (payload), ErrStaleVersion,
// ErrExpired, ErrNotYetValid.
//
// The signature is checked over the signing input exactly as received,
// before the payload is decoded at all; the payload is then base64-decoded,
// its schema read, and it is JSON-decoded once, a part at a time (the
// bundle without its tools, then each tool), each part re-encoded with the
// canonical encoder to prove it is in canonical form, and each tool's
// definition digest checked right after its bytes are (readPayload). With
// opts.Memo, tools identical to ones of the last bundle accepted with it
// are taken from it instead.
func Verify(signed []byte, keys KeySet, opts VerifyOptions) (*Bundle, []byte, error) {
	if opts.Now.IsZero() {
		return nil, nil, errors.New("verify bundle: VerifyOptions.Now is required")
	}
	compact := bytes.TrimSpace(signed)
	hdr, parts, err := readEnvelope(compact)
	if err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w", err)
	}
	key, ok := keys.Lookup(hdr.Kid)
	if !ok {
		return nil, nil, fmt.Errorf("verify bundle: %w: kid %q is not in the key set (known: %s)",
			ErrUnknownKey, hdr.Kid, strings.Join(keys.KeyIDs(), ", "))
	}
	if err := verifySignature(compact, parts, key); err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w", err)
	}
	payload := make([]byte, base64.RawURLEncoding.DecodedLen(len(parts[1])))
	n, err := base64.RawURLEncoding.Strict().Decode(payload, parts[1])
	if err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w: payload is not strict base64url: %v", ErrTampered, err)
	}
	payload = payload[:n]
	res, err := readPayload(payload, opts.Memo, opts.Schemas)
	if errors.Is(err, ErrUnknownSchema) {
		return nil, nil, fmt.Errorf("verify bundle: %w", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w: %v", ErrSchema, err)
	}
	b := res.bundle
	// readPayload re-encoded every input schema it decoded: they are valid
	// JSON; the tools it took from the memo were validated before.
	if err := b.validateSome(false, res.known, res.digested); err != nil {
		// One line: a runtime logs it and the CLI prints it as is.
		return nil, nil, fmt.Errorf("verify bundle: %w: %s", ErrSchema, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if err := checkFreshness(b, opts); err != nil {
		return nil, nil, fmt.Errorf("verify bundle: %w", err)
	}
	opts.Memo.remember(b, res.keys)
	return b, payload, nil
}

// verifySignature checks the Ed25519 signature (RFC 8037 EdDSA) over the
// JWS signing input, BASE64URL(header) "." BASE64URL(payload), which is the
// received text up to the second dot: nothing is decoded or re-encoded to
// rebuild it. The signature part must be strict base64url, so a changed
// padding bit is tampering too (the other two parts are signed as text).
func verifySignature(compact []byte, parts [3][]byte, key PublicKey) error {
	if len(key.Key) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: key %q is not a %d-byte Ed25519 public key", ErrUnknownKey, key.KeyID, ed25519.PublicKeySize)
	}
	var sig [ed25519.SignatureSize + 3]byte // room for a wrong length to be reported
	n, err := base64.RawURLEncoding.Strict().Decode(sig[:], parts[2])
	if err != nil || n != ed25519.SignatureSize {
		if err == nil {
			err = fmt.Errorf("%d bytes, want %d", n, ed25519.SignatureSize)
		}
		return fmt.Errorf("%w: signature part: %v", ErrTampered, err)
	}
	input := compact[:len(parts[0])+1+len(parts[1])]
	if !ed25519.Verify(key.Key, input, sig[:n]) {
		return fmt.Errorf("%w (kid %q)", ErrTampered, key.KeyID)
	}
	return nil
}

// readEnvelope splits the compact serialization and classifies everything
// that can be said about the envelope before a key is touched: its shape,
// the algorithm and the header (typ JWSType; a wrong one is ErrSchema).
func readEnvelope(compact []byte) (protectedHeader, [3][]byte, error) {
	return readEnvelopeOf(compact, JWSType, ErrSchema)
}

// readEnvelopeOf is readEnvelope for the JWS type typ, reporting a header
// that does not belong to it with schemaErr.
func readEnvelopeOf(compact []byte, typ string, schemaErr error) (protectedHeader, [3][]byte, error) {
	var parts [3][]byte
	// The two dots are found in one pass over the text (the payload part is
	// megabytes; counting the dots first would read it twice more); the
	// parts are counted only to report a wrong shape.
	first := bytes.IndexByte(compact, '.')
	second := -1
	if first >= 0 {
		if j := bytes.IndexByte(compact[first+1:], '.'); j >= 0 {
			second = first + 1 + j
		}
	}
	if second < 0 || bytes.IndexByte(compact[second+1:], '.') >= 0 {
		return protectedHeader{}, parts, fmt.Errorf("%w: want 3 dot-separated parts, got %d", ErrUnsigned, bytes.Count(compact, []byte{'.'})+1)
	}
	parts = [3][]byte{compact[:first], compact[first+1 : second], compact[second+1:]}
	hdr, err := readProtectedHeader(parts, typ, schemaErr)
	return hdr, parts, err
}

// readProtectedHeader decodes and checks the protected header.
func readProtectedHeader(parts [3][]byte, typ string, schemaErr error) (protectedHeader, error) {
	raw := make([]byte, base64.RawURLEncoding.DecodedLen(len(parts[0])))
	n, err := base64.RawURLEncoding.Decode(raw, parts[0])
	if err != nil {
		return protectedHeader{}, fmt.Errorf("%w: protected header is not base64url: %v", ErrUnsigned, err)
	}
	raw = raw[:n]
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
	if len(parts[2]) == 0 {
		return hdr, fmt.Errorf("%w: the signature part is empty", ErrUnsigned)
	}
	for name := range all {
		if !slices.Contains([]string{"alg", "kid", "typ"}, name) {
			return hdr, fmt.Errorf("%w: unexpected JWS header parameter %q", schemaErr, name)
		}
	}
	if hdr.Typ != typ {
		return hdr, fmt.Errorf("%w: JWS typ is %q, want %q", schemaErr, hdr.Typ, typ)
	}
	if hdr.Kid == "" {
		return hdr, fmt.Errorf("%w: the JWS header has no kid", ErrUnknownKey)
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
