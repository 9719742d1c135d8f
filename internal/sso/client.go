package sso

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Settings configure the relying party.
type Settings struct {
	// Name is the provider's name for people ("Sign in with Name").
	Name string
	// Issuer is the provider's issuer URL; discovery reads
	// Issuer/.well-known/openid-configuration.
	Issuer       string
	ClientID     string
	ClientSecret string
	// RedirectURL is this console's callback, registered at the provider.
	RedirectURL string
	// Scopes requested; "openid" is added when missing.
	Scopes               []string
	Roles                RoleMapping
	RequireVerifiedEmail bool
	// HTTPClient talks to the provider; nil means one with a 10 s timeout.
	HTTPClient *http.Client
}

// Client is the relying party of one provider. Discovery happens on first
// use and is kept once it succeeds, so the console starts while the
// provider is down and recovers when it is back.
type Client struct {
	s   Settings
	now func() time.Time

	mu       sync.Mutex
	provider *oidc.Provider
}

// New checks s and returns its Client.
func New(s Settings) (*Client, error) {
	var missing []string
	for _, f := range []struct{ name, v string }{{"issuer", s.Issuer}, {"client id", s.ClientID},
		{"client secret", s.ClientSecret}, {"redirect URL", s.RedirectURL}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("sso.New: %s missing", strings.Join(missing, ", "))
	}
	if s.Roles.Empty() {
		return nil, errors.New("sso.New: no group gives any role; nobody could sign in")
	}
	if !slices.Contains(s.Scopes, oidc.ScopeOpenID) {
		s.Scopes = append([]string{oidc.ScopeOpenID}, s.Scopes...)
	}
	if s.HTTPClient == nil {
		s.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if s.Name == "" {
		if u, err := url.Parse(s.Issuer); err == nil && u.Host != "" {
			s.Name = u.Host
		} else {
			s.Name = s.Issuer
		}
	}
	return &Client{s: s, now: time.Now}, nil
}

// Name is the provider's name for people.
func (c *Client) Name() string { return c.s.Name }

// Issuer is the provider's issuer URL, which the store records as the
// provider of the accounts it manages.
func (c *Client) Issuer() string { return c.s.Issuer }

func (c *Client) ctx(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, c.s.HTTPClient)
}

// discover returns the provider's metadata, fetching it on first use.
func (c *Client) discover(ctx context.Context) (*oidc.Provider, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.provider != nil {
		return c.provider, nil
	}
	p, err := oidc.NewProvider(c.ctx(ctx), c.s.Issuer)
	if err != nil {
		return nil, &Failure{Reason: "provider discovery failed", Code: CodeUnavailable,
			Message: fmt.Sprintf("%s cannot be reached right now. Try again in a moment.", c.s.Name), cause: err}
	}
	c.provider = p
	return p, nil
}

func (c *Client) oauth(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{ClientID: c.s.ClientID, ClientSecret: c.s.ClientSecret, RedirectURL: c.s.RedirectURL,
		Endpoint: p.Endpoint(), Scopes: c.s.Scopes}
}

// Begin starts a sign-in that returns to next: the Flow to keep in the
// browser, and the provider URL to send the browser to.
func (c *Client) Begin(ctx context.Context, next string) (Flow, string, error) {
	p, err := c.discover(ctx)
	if err != nil {
		return Flow{}, "", err
	}
	f, err := newFlow(next, c.now())
	if err != nil {
		return Flow{}, "", err
	}
	u := c.oauth(p).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
	return f, u, nil
}
