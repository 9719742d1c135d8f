package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/toolgate/toolgate/internal/policy"
)

// GrantSchema is the schema of a call grant's payload (doc.go, "Call
// grants").
const GrantSchema = "toolgate.call-grant/v1"

// GrantJWSType is the "typ" of a grant's protected header: neither a
// bundle nor a timestamp verifies as a grant, nor the reverse.
const GrantJWSType = "toolgate-grant+jws"

// DefaultGrantLifetime is how long a grant is valid when the console is
// not told otherwise (R16).
const DefaultGrantLifetime = 15 * time.Minute

// Refusals of VerifyGrant and Grant.Binds besides the envelope's
// (ErrUnsigned, ErrAlgorithm, ErrUnknownKey, ErrTampered).
var (
	// ErrGrantSchema: the payload is not a canonical GrantSchema grant,
	// or the JWS header is not a grant's.
	ErrGrantSchema = errors.New("not a canonical " + GrantSchema + " grant")
	// ErrGrantExpired: now is at or after the grant's not_after.
	ErrGrantExpired = errors.New("the grant has expired")
	// ErrGrantNotYetValid: issued_at lies further ahead than ClockSkew.
	ErrGrantNotYetValid = errors.New("the grant is not yet valid (issued in the future)")
	// ErrGrantMismatch: the grant is for another call (principal, tool,
	// definition, arguments or bundle version differ).
	ErrGrantMismatch = errors.New("the grant is for another call")
)

// GrantPrincipal is who a grant lets call: the principal's kind, subject
// and client id (groups are the identity provider's and not bound).
type GrantPrincipal struct {
	ClientID string `json:"client_id"`
	Kind     string `json:"kind"`
	Subject  string `json:"subject"`
}

// Grant is the console's signed permission for one exact call (R16): the
// call request it decides, who may make the call, the tool and its pinned
// definition digest (R13), the digest of the canonical arguments, the
// bundle version it was asked under, and a validity window. A runtime
// verifies it offline and then consumes its nonce at the console once,
// fleet-wide, before the call runs. Fields are in canonical (sorted)
// order, so encoding/json writes the canonical form.
type Grant struct {
	ArgumentsDigest  string         `json:"arguments_digest"`
	BundleVersion    int64          `json:"bundle_version"`
	CallRequest      string         `json:"call_request"`
	DecidedBy        string         `json:"decided_by"`
	DefinitionDigest string         `json:"definition_digest"`
	IssuedAt         time.Time      `json:"issued_at"`
	Mode             string         `json:"mode"`
	Nonce            string         `json:"nonce"`
	NotAfter         time.Time      `json:"not_after"`
	Principal        GrantPrincipal `json:"principal"`
	Schema           string         `json:"schema"`
	Tool             string         `json:"tool"`
}

// GrantedCall is the call a runtime is about to make, for Binds.
type GrantedCall struct {
	Principal        GrantPrincipal
	Tool             string
	DefinitionDigest string
	ArgumentsDigest  string
	BundleVersion    int64
}

// noncePattern is a grant nonce: 32 lower-case hex digits or more.
var noncePattern = regexp.MustCompile(`^[0-9a-f]{32,128}$`)

// SignGrant signs g (Schema is set, times truncated to whole seconds UTC).
// A grant Verify would refuse is not signed.
func SignGrant(g Grant, k SigningKey) ([]byte, error) {
	g.Schema = GrantSchema
	g.IssuedAt, g.NotAfter = wholeSecondUTC(g.IssuedAt), wholeSecondUTC(g.NotAfter)
	if err := g.validate(); err != nil {
		return nil, fmt.Errorf("sign grant: %w", err)
	}
	payload, err := json.Marshal(g)
	if err != nil {
		return nil, fmt.Errorf("sign grant: %w", err)
	}
	out, err := signJWS(payload, k, GrantJWSType)
	if err != nil {
		return nil, fmt.Errorf("sign grant: %w", err)
	}
	return out, nil
}

func (g *Grant) validate() error {
	switch {
	case g.Schema != GrantSchema:
		return fmt.Errorf("schema %q, want %q", g.Schema, GrantSchema)
	case g.CallRequest == "" || g.Tool == "" || g.DecidedBy == "":
		return errors.New("call_request, tool and decided_by are required")
	case g.Mode != policy.PerCallConfirm && g.Mode != policy.PerCallApprove:
		return fmt.Errorf("mode %q, want %q or %q", g.Mode, policy.PerCallConfirm, policy.PerCallApprove)
	case !digestPattern.MatchString(g.ArgumentsDigest):
		return fmt.Errorf("arguments_digest %q, want sha256: and 64 lower-case hex digits", g.ArgumentsDigest)
	case !digestPattern.MatchString(g.DefinitionDigest):
		return fmt.Errorf("definition_digest %q, want sha256: and 64 lower-case hex digits", g.DefinitionDigest)
	case g.BundleVersion < 1:
		return fmt.Errorf("bundle_version %d, want 1 or more", g.BundleVersion)
	case g.Principal.Kind == "":
		return errors.New("principal.kind is required")
	case !noncePattern.MatchString(g.Nonce):
		return errors.New("nonce: want 32 to 128 lower-case hex digits")
	case !g.NotAfter.After(g.IssuedAt):
		return fmt.Errorf("not_after %s is not after issued_at %s", g.NotAfter.Format(time.RFC3339), g.IssuedAt.Format(time.RFC3339))
	}
	return nil
}

// VerifyGrant checks a signed grant as VerifyTimestamp checks a
// timestamp: envelope (a typ other than GrantJWSType is ErrGrantSchema),
// key, signature, a canonical payload with exactly GrantSchema's members,
// then time (ErrGrantExpired, ErrGrantNotYetValid). Which call it is for
// is the caller's to compare (Binds), and using it once is the console's
// (the consume call).
func VerifyGrant(signed []byte, keys KeySet, now time.Time) (*Grant, error) {
	if now.IsZero() {
		return nil, errors.New("verify grant: the verification time is required")
	}
	payload, err := verifiedPayload(signed, keys, GrantJWSType, ErrGrantSchema)
	if err != nil {
		return nil, fmt.Errorf("verify grant: %w", err)
	}
	var g Grant
	if err := readCanonical(payload, &g); err != nil {
		return nil, fmt.Errorf("verify grant: %w: %v", ErrGrantSchema, err)
	}
	now = now.UTC()
	if !now.Before(g.NotAfter) {
		return nil, fmt.Errorf("verify grant: %w: not after %s (now %s)", ErrGrantExpired,
			g.NotAfter.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	if g.IssuedAt.After(now.Add(ClockSkew)) {
		return nil, fmt.Errorf("verify grant: %w: issued at %s (now %s)", ErrGrantNotYetValid,
			g.IssuedAt.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	return &g, nil
}

// Binds reports, as nil or ErrGrantMismatch naming the first field that
// differs, whether the grant is for exactly this call: the same
// principal, tool, definition digest, arguments digest and bundle version.
func (g *Grant) Binds(c GrantedCall) error {
	var field string
	switch {
	case g.Principal != c.Principal:
		field = "principal"
	case g.Tool != c.Tool:
		field = "tool"
	case g.DefinitionDigest != c.DefinitionDigest:
		field = "definition digest"
	case g.ArgumentsDigest != c.ArgumentsDigest:
		field = "arguments"
	case g.BundleVersion != c.BundleVersion:
		field = "bundle version"
	default:
		return nil
	}
	return fmt.Errorf("%w: its %s differs from this call's", ErrGrantMismatch, field)
}
