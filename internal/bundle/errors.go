package bundle

import "errors"

// Refusals of Verify. Each is a distinct sentinel so that a runtime can
// branch with errors.Is (keep the last good bundle, alert, ...); the error
// returned by Verify wraps one of them and adds the detail.
var (
	// ErrUnsigned: the input is not a JWS compact serialization, or it
	// carries no signature.
	ErrUnsigned = errors.New("bundle is not signed (not a JWS compact serialization with a signature)")
	// ErrTampered: the signature does not verify over the header and
	// payload with the key named by kid.
	ErrTampered = errors.New("bundle signature does not verify (tampered payload or signature)")
	// ErrUnknownKey: the kid of the JWS header is not in the verifier's
	// key set (or the header has no kid).
	ErrUnknownKey = errors.New("bundle is signed by an unknown key")
	// ErrAlgorithm: the JWS alg is not EdDSA ("none", HS256 and every
	// other algorithm are refused before any key is used).
	ErrAlgorithm = errors.New("bundle is signed with an algorithm other than EdDSA")
	// ErrSchema: the payload is not a toolgate bundle of this schema, is
	// not in canonical form, or fails validation; or the JWS header has an
	// unexpected type or parameter.
	ErrSchema = errors.New("bundle payload is not a canonical toolgate bundle of its schema")
	// ErrUnknownSchema: the payload's schema is not one of KnownSchemas,
	// typically a new major from a newer console (doc.go, "Versioning").
	ErrUnknownSchema = errors.New("bundle schema is not one this verifier knows")
	// ErrStaleVersion: the version is not greater than the last version the
	// caller accepted.
	ErrStaleVersion = errors.New("bundle version is not newer than the last accepted one")
	// ErrExpired: the verification time is at or after expires_at.
	ErrExpired = errors.New("bundle has expired")
	// ErrNotYetValid: issued_at lies further in the future than the
	// allowed clock skew.
	ErrNotYetValid = errors.New("bundle is not yet valid (issued in the future)")
)
