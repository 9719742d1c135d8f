package agentauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/sso"
)

// Clock skew bounds of OIDCSettings.ClockSkew.
const (
	DefaultClockSkew = 30 * time.Second
	MaxClockSkew     = 5 * time.Minute
)

// OIDCSettings configure the verification of JWT access tokens.
type OIDCSettings struct {
	// Issuer is the provider's issuer URL (https, or http on loopback).
	Issuer string
	// Audience is the runtime's resource URI; a token's aud must name it.
	Audience string
	// GroupsClaim holds the principal's groups (sso.DefaultGroupsClaim
	// when empty).
	GroupsClaim string
	// ClockSkew is how far exp and nbf may be off (DefaultClockSkew when
	// zero, at most MaxClockSkew).
	ClockSkew time.Duration
	// HTTPClient fetches discovery and the JWKS (nil: 10 s timeout).
	HTTPClient *http.Client
	// Now replaces the wall clock in tests.
	Now func() time.Time
}

// OIDC verifies JWT access tokens of one provider. Discovery happens on
// first use and is kept once it succeeds, so the runtime starts while the
// provider is down and authenticates once it is back.
type OIDC struct {
	s OIDCSettings

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
}

// NewOIDC checks s and returns its verifier.
func NewOIDC(s OIDCSettings) (*OIDC, error) {
	if err := checkIssuer(s.Issuer); err != nil {
		return nil, err
	}
	if strings.TrimSpace(s.Audience) == "" {
		return nil, errors.New("no audience: name the runtime's resource URI the provider puts in the tokens' aud")
	}
	if s.ClockSkew < 0 || s.ClockSkew > MaxClockSkew {
		return nil, fmt.Errorf("clock skew %v is outside [0, %v]", s.ClockSkew, MaxClockSkew)
	}
	if s.ClockSkew == 0 {
		s.ClockSkew = DefaultClockSkew
	}
	if s.GroupsClaim == "" {
		s.GroupsClaim = sso.DefaultGroupsClaim
	}
	if s.HTTPClient == nil {
		s.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	return &OIDC{s: s}, nil
}

// checkIssuer accepts an https URL, or http on a loopback host (a provider
// in development).
func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("issuer %q is not an http(s) URL", issuer)
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return fmt.Errorf("issuer %q: an authorization server is reached over https (http only on loopback)", issuer)
	}
	return nil
}

// discover returns the provider's verifier, running discovery on first use.
func (o *OIDC) discover(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.verifier != nil {
		return o.verifier, nil
	}
	// The key set outlives this request: its context only carries the client.
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, o.s.HTTPClient), o.s.Issuer)
	if err != nil {
		return nil, fmt.Errorf("discovery at %s: %w", o.s.Issuer, err)
	}
	keyCtx := oidc.ClientContext(context.Background(), keysClient(o.s.HTTPClient, o.s.Now))
	// go-oidc checks exp strictly against Now: shifting Now back by the
	// skew is the tolerance. Its own nbf leeway (5 min) is wider than ours,
	// so claimsPrincipal checks nbf again.
	o.verifier = p.VerifierContext(keyCtx, &oidc.Config{ClientID: o.s.Audience,
		Now: func() time.Time { return o.s.Now().Add(-o.s.ClockSkew) }})
	return o.verifier, nil
}

// errUnavailable: the provider could not be asked; the agent's token may
// well be good, so this is not a 401. The agent sees only this sentence;
// unavailableError carries the cause to the log.
var errUnavailable = errors.New("the authorization server cannot be reached to verify the token; try again shortly")

type unavailableError struct{ cause error }

func (e unavailableError) Error() string { return errUnavailable.Error() + ": " + e.cause.Error() }
func (e unavailableError) Unwrap() error { return errUnavailable }

// verify checks a JWT access token and returns its token information
// carrying the principal.
func (o *OIDC) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	v, err := o.discover(ctx)
	if err != nil {
		return nil, unavailableError{err}
	}
	idt, err := v.Verify(ctx, token)
	if err != nil {
		// go-oidc formats the key set's error with %v: its text is all
		// that tells a JWKS outage from a bad signature.
		if strings.Contains(err.Error(), "fetching keys") {
			return nil, unavailableError{err}
		}
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return nil, fmt.Errorf("%w: claims unreadable: %v", auth.ErrInvalidToken, err)
	}
	if nbf, ok := claims["nbf"].(float64); ok && o.s.Now().Add(o.s.ClockSkew).Before(time.Unix(int64(nbf), 0)) {
		return nil, fmt.Errorf("%w: not valid before %s", auth.ErrInvalidToken, time.Unix(int64(nbf), 0).UTC().Format(time.RFC3339))
	}
	groups, _, err := sso.RoleMapping{Claim: o.s.GroupsClaim}.Groups(claims)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	clientID, _ := claims["client_id"].(string)
	if clientID == "" {
		clientID, _ = claims["azp"].(string)
	}
	p := principal.New(principal.OIDC, idt.Subject, clientID, groups)
	return p.TokenInfo(&auth.TokenInfo{Scopes: scopes(claims), Expiration: idt.Expiry}), nil
}

// scopes reads "scope" (RFC 9068: space-separated) or "scp" (a list, as
// Entra and Okta send it).
func scopes(claims map[string]any) []string {
	if s, ok := claims["scope"].(string); ok {
		return strings.Fields(s)
	}
	list, _ := claims["scp"].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
