package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// TimestampSchema is the schema of a timestamp payload (doc.go, "Timestamp").
const TimestampSchema = "toolgate.timestamp/v1"

// TimestampJWSType is the "typ" of a timestamp's protected header. It
// differs from JWSType, so neither document verifies as the other.
const TimestampJWSType = "toolgate-timestamp+jws"

// Refusals of VerifyTimestamp besides the envelope's (ErrUnsigned,
// ErrAlgorithm, ErrUnknownKey, ErrTampered, which it shares with Verify).
var (
	// ErrTimestampSchema: the payload is not a canonical timestamp of
	// TimestampSchema, or the JWS header is not a timestamp's (a bundle
	// presented as a timestamp, or the reverse).
	ErrTimestampSchema = errors.New("not a canonical " + TimestampSchema + " timestamp")
	// ErrTimestampExpired: the verification time is at or after the
	// timestamp's expires_at.
	ErrTimestampExpired = errors.New("timestamp has expired")
	// ErrTimestampNotYetValid: issued_at lies further in the future than
	// ClockSkew.
	ErrTimestampNotYetValid = errors.New("timestamp is not yet valid (issued in the future)")
)

// Timestamp is the console's short-lived signed statement "the newest
// bundle is Version, whose signed bytes have BundleDigest" (R14): what
// lets a runtime that pulls from a registry tell an up-to-date registry
// from one that keeps serving an old bundle. Fields are in canonical
// (sorted) order, so encoding/json writes the canonical form.
type Timestamp struct {
	BundleDigest string    `json:"bundle_digest"`
	ExpiresAt    time.Time `json:"expires_at"`
	IssuedAt     time.Time `json:"issued_at"`
	Schema       string    `json:"schema"`
	Version      int64     `json:"version"`
}

// digestPattern is a bundle digest: "sha256:" and 64 lower-case hex digits.
var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// BundleDigest is the digest a timestamp names a signed bundle by:
// "sha256:" and the lower-case hex SHA-256 of the JWS compact
// serialization, surrounding whitespace removed. It is the digest of the
// registry layer that carries the bundle, and the console's ETag value.
func BundleDigest(signed []byte) string {
	sum := sha256.Sum256(bytes.TrimSpace(signed))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Names reports whether t vouches for exactly this bundle.
func (t *Timestamp) Names(version int64, digest string) bool {
	return t.Version == version && t.BundleDigest == digest
}

// SignTimestamp signs a timestamp for the bundle version with the given
// digest, issued at issued (whole seconds, UTC) and valid for lifetime.
func SignTimestamp(version int64, digest string, issued time.Time, lifetime time.Duration, k SigningKey) ([]byte, error) {
	issued = wholeSecondUTC(issued)
	t := Timestamp{BundleDigest: digest, ExpiresAt: wholeSecondUTC(issued.Add(lifetime)), IssuedAt: issued,
		Schema: TimestampSchema, Version: version}
	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("sign timestamp: %w", err)
	}
	payload, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("sign timestamp: %w", err)
	}
	out, err := signJWS(payload, k, TimestampJWSType)
	if err != nil {
		return nil, fmt.Errorf("sign timestamp: %w", err)
	}
	return out, nil
}

func (t *Timestamp) validate() error {
	switch {
	case t.Schema != TimestampSchema:
		return fmt.Errorf("schema %q, want %q", t.Schema, TimestampSchema)
	case t.Version < 1:
		return fmt.Errorf("version %d, want 1 or more", t.Version)
	case !digestPattern.MatchString(t.BundleDigest):
		return fmt.Errorf("bundle_digest %q, want sha256: and 64 lower-case hex digits", t.BundleDigest)
	case !t.ExpiresAt.After(t.IssuedAt):
		return fmt.Errorf("expires_at %s is not after issued_at %s", t.ExpiresAt.Format(time.RFC3339), t.IssuedAt.Format(time.RFC3339))
	}
	return nil
}

// VerifyTimestamp checks a signed timestamp as Verify checks a bundle, in
// this order: the envelope (ErrUnsigned, ErrAlgorithm; a typ other than
// TimestampJWSType is ErrTimestampSchema), the key (ErrUnknownKey), the
// signature (ErrTampered), the payload, which must be its own canonical
// form with exactly the members of TimestampSchema (ErrTimestampSchema),
// then the time: now before expires_at (ErrTimestampExpired) and issued_at
// at most ClockSkew ahead (ErrTimestampNotYetValid). Which bundle it
// names is for the caller to compare (Names).
func VerifyTimestamp(signed []byte, keys KeySet, now time.Time) (*Timestamp, error) {
	if now.IsZero() {
		return nil, errors.New("verify timestamp: the verification time is required")
	}
	payload, err := verifiedPayload(signed, keys, TimestampJWSType, ErrTimestampSchema)
	if err != nil {
		return nil, fmt.Errorf("verify timestamp: %w", err)
	}
	var t Timestamp
	if err := readCanonical(payload, &t); err != nil {
		return nil, fmt.Errorf("verify timestamp: %w: %v", ErrTimestampSchema, err)
	}
	now = now.UTC()
	if !now.Before(t.ExpiresAt) {
		return nil, fmt.Errorf("verify timestamp: %w: expired at %s (now %s)", ErrTimestampExpired,
			t.ExpiresAt.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	if t.IssuedAt.After(now.Add(ClockSkew)) {
		return nil, fmt.Errorf("verify timestamp: %w: issued at %s (now %s)", ErrTimestampNotYetValid,
			t.IssuedAt.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	return &t, nil
}

// verifiedPayload checks the envelope of a compact JWS of typ (a header
// of another type is schemaErr), its key in keys (ErrUnknownKey) and its
// signature (ErrTampered), and returns the decoded payload: the steps
// timestamps and grants share with bundles.
func verifiedPayload(signed []byte, keys KeySet, typ string, schemaErr error) ([]byte, error) {
	compact := bytes.TrimSpace(signed)
	hdr, parts, err := readEnvelopeOf(compact, typ, schemaErr)
	if err != nil {
		return nil, err
	}
	key, ok := keys.Lookup(hdr.Kid)
	if !ok {
		return nil, fmt.Errorf("%w: kid %q is not in the key set (known: %s)", ErrUnknownKey, hdr.Kid, strings.Join(keys.KeyIDs(), ", "))
	}
	if err := verifySignature(compact, parts, key); err != nil {
		return nil, err
	}
	payload, err := base64.RawURLEncoding.Strict().DecodeString(string(parts[1]))
	if err != nil {
		return nil, fmt.Errorf("%w: payload is not strict base64url: %v", ErrTampered, err)
	}
	return payload, nil
}

// canonicalDoc is a signed document whose JSON encoding is its canonical
// form (fields in sorted order) and that checks its own values.
type canonicalDoc interface{ validate() error }

// readCanonical decodes a payload into v and proves it canonical:
// re-encoded, it must give the same bytes (which also refuses unknown
// members, other time forms and whitespace).
func readCanonical(payload []byte, v canonicalDoc) error {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if err := v.validate(); err != nil {
		return err
	}
	again, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !bytes.Equal(again, payload) {
		return errors.New("payload is not in canonical form")
	}
	return nil
}
