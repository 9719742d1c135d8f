package bundle

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Canonical returns the canonical bytes of b: the signing input of a bundle.
//
// The bundle is first normalized on a copy (b is not modified): times in UTC
// truncated to whole seconds, sources and tools sorted by name, absent lists
// written as [] rather than null (except retry_on, see normalizeTool). It is
// then written in RFC 8785 (JCS) form: object members sorted by UTF-16 code
// units, no insignificant whitespace, ES6 number formatting, minimal string
// escaping. The same content therefore always gives the same bytes, whatever
// produced it. The bytes are those of encoding/json followed by an RFC 8785
// transform, written directly (encode.go, jcs.go).
func Canonical(b *Bundle) ([]byte, error) {
	if b == nil {
		return nil, fmt.Errorf("canonical bundle: nil bundle")
	}
	out, err := encodeBundle(normalize(b))
	if err != nil {
		return nil, fmt.Errorf("canonical bundle: %w", err)
	}
	return out, nil
}

// encodeBundle returns the canonical bytes of a normalized bundle: its wire
// form (wire.go), encoded.
func encodeBundle(n *Bundle) ([]byte, error) {
	w, err := toWire(n)
	if err != nil {
		return nil, err
	}
	return encodeCanonical(w, sizeHint(w))
}

// canonicalJSON encodes any value as JSON in RFC 8785 form: encoding/json,
// then the transform of jcs.go. Diffs use it; bundles use encodeCanonical.
func canonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding JSON: %w", err)
	}
	out, err := appendCanonicalJSON(make([]byte, 0, len(raw)), raw)
	if err != nil {
		return nil, fmt.Errorf("RFC 8785 transform: %w", err)
	}
	return out, nil
}

// normalize returns a copy of b in the normal form Canonical encodes. Slices
// that are sorted or filled in are copied so the caller's bundle is untouched.
func normalize(b *Bundle) *Bundle {
	n := *b
	n.IssuedAt = wholeSecondUTC(b.IssuedAt)
	n.ExpiresAt = wholeSecondUTC(b.ExpiresAt)

	n.Sources = make([]Source, len(b.Sources))
	for i, s := range b.Sources {
		s.Auth = nonNil(s.Auth)
		n.Sources[i] = s
	}
	slices.SortFunc(n.Sources, func(x, y Source) int { return strings.Compare(x.Name, y.Name) })

	n.Tools = make([]Tool, len(b.Tools))
	for i, t := range b.Tools {
		n.Tools[i] = normalizeTool(t)
	}
	slices.SortFunc(n.Tools, func(x, y Tool) int { return strings.Compare(x.Name, y.Name) })
	return &n
}

func normalizeTool(t Tool) Tool {
	t.Params = nonNil(t.Params)
	t.Reasons = nonNil(t.Reasons)
	// retry_on is deliberately NOT filled in: in a stored policy nil means
	// "the R3 default set" and [] means "no status is retried", so turning
	// one into the other here would silently change what a runtime retries.
	// A nil list is encoded as null and refused by Validate (and so by Sign
	// and Verify).
	if len(t.Approvals) > 0 {
		approvals := make([]Approval, len(t.Approvals))
		for i, a := range t.Approvals {
			a.ApprovedAt = wholeSecondUTC(a.ApprovedAt)
			approvals[i] = a
		}
		t.Approvals = approvals
	}
	return t
}

// wholeSecondUTC is the only time form a bundle holds: RFC 3339 in UTC with
// no fractional seconds, so that every language formats it the same way.
func wholeSecondUTC(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// decodeCanonical decodes a signed payload and checks that it is exactly the
// canonical encoding of what it decodes to (readPayload, without a memo).
// This refuses payloads with duplicate members, null lists, fractional-
// second times, unsorted tools or non-JCS formatting: a signed bundle has
// exactly one byte form, so two runtimes can never read different content
// from one signature. Members a later revision of the major added are
// ignored (extras.go); a member that is not known and not of the bundle's
// structure (a misspelt one at a known level, say) therefore passes only if
// the payload is still canonical, and changes nothing a runtime reads.
//
// The decoder is github.com/segmentio/encoding/json (already in the module
// graph through the MCP SDK): it decodes a 5,000-tool bundle several times
// faster than encoding/json, which was the largest part of Verify. The
// byte comparison makes the choice fail-safe: a decoder that read anything
// differently would produce different bytes and the bundle would be refused.
func decodeCanonical(payload []byte) (*Bundle, error) {
	res, err := readPayload(payload, nil, nil)
	if err != nil {
		return nil, err
	}
	return res.bundle, nil
}
