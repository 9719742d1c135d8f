package oidctest

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Agent is a machine client of the client-credentials grant, the way an
// organisation registers an MCP agent at its provider: its access tokens
// are JWTs for the resource named by Audience, with a groups claim and a
// scope claim, signed with the provider's key.
type Agent struct {
	// ID and Secret authenticate the client at the token endpoint; ID is
	// also the tokens' subject and client_id.
	ID, Secret string
	// Audience is the tokens' aud: the resource they are meant for.
	Audience []string
	Groups   []string
	// Lifetime of an access token (5 minutes when zero); a negative one
	// issues tokens that have already expired.
	Lifetime time.Duration
	// NotBefore moves the tokens' nbf and iat this far into the future:
	// tokens not valid yet.
	NotBefore time.Duration
}

// AddAgent registers (or replaces) a client-credentials agent.
func (p *Provider) AddAgent(a Agent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a.Audience, a.Groups = slices.Clone(a.Audience), slices.Clone(a.Groups)
	p.agents[a.ID] = &a
}

func (p *Provider) agent(id string) (*Agent, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, ok := p.agents[id]
	return a, ok
}

// AgentToken runs the client-credentials grant at the provider's token
// endpoint for agent id and returns the access token. The answer is read
// here rather than by x/oauth2: for an expired token the op's expires_in
// overflows, which that package refuses.
func (p *Provider) AgentToken(ctx context.Context, id, secret string, scopes ...string) (string, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Issuer+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("oidctest: client credentials for %s: %w", id, err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(body, &out); err != nil || resp.StatusCode != http.StatusOK || out.AccessToken == "" {
		return "", fmt.Errorf("oidctest: client credentials for %s: %s %.300s", id, resp.Status, body)
	}
	return out.AccessToken, nil
}

// agentClient is an Agent as the op sees it.
type agentClient struct{ a *Agent }

var _ op.Client = agentClient{}

func (c agentClient) GetID() string                       { return c.a.ID }
func (c agentClient) RedirectURIs() []string              { return nil }
func (c agentClient) PostLogoutRedirectURIs() []string    { return nil }
func (c agentClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c agentClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodPost }
func (c agentClient) ResponseTypes() []oidc.ResponseType  { return nil }
func (c agentClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeClientCredentials}
}
func (c agentClient) LoginURL(string) string              { return "" }
func (c agentClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (c agentClient) IDTokenLifetime() time.Duration      { return 5 * time.Minute }
func (c agentClient) DevMode() bool                       { return true }
func (c agentClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c agentClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c agentClient) IsScopeAllowed(string) bool           { return true }
func (c agentClient) IDTokenUserinfoClaimsAssertion() bool { return false }

// ClockSkew is how the op is told to date nbf and iat: it subtracts the
// skew from now, so a negative one dates them in the future (NotBefore).
func (c agentClient) ClockSkew() time.Duration { return -c.a.NotBefore }

// ClientCredentials implements op.ClientCredentialsStorage over the
// registered agents.
func (s *opStorage) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	a, ok := s.p.agent(id)
	if !ok || subtle.ConstantTimeCompare([]byte(a.Secret), []byte(secret)) != 1 {
		return nil, errors.New("wrong agent id or secret")
	}
	return agentClient{a}, nil
}

// ClientCredentialsTokenRequest names the agent as subject and its
// Audience as the token's aud.
func (s *opStorage) ClientCredentialsTokenRequest(_ context.Context, id string, scopes []string) (op.TokenRequest, error) {
	a, ok := s.p.agent(id)
	if !ok {
		return nil, errors.New("no such agent")
	}
	return &oidc.JWTTokenRequest{Subject: a.ID, Audience: a.Audience, Scopes: scopes}, nil
}

// CreateAccessToken gives an agent's tokens its Lifetime; other tokens
// are the example storage's.
func (s *opStorage) CreateAccessToken(ctx context.Context, r op.TokenRequest) (string, time.Time, error) {
	if jr, ok := r.(*oidc.JWTTokenRequest); ok {
		if a, ok := s.p.agent(jr.Subject); ok {
			life := a.Lifetime
			if life == 0 {
				life = 5 * time.Minute
			}
			return uuid.NewString(), time.Now().Add(life), nil
		}
	}
	return s.Storage.CreateAccessToken(ctx, r)
}

// GetPrivateClaimsFromScopes adds an agent's groups and the scopes it was
// granted (the op does not put a scope claim in JWT access tokens).
func (s *opStorage) GetPrivateClaimsFromScopes(ctx context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	a, ok := s.p.agent(clientID)
	if !ok {
		return s.Storage.GetPrivateClaimsFromScopes(ctx, userID, clientID, scopes)
	}
	claims := map[string]any{"groups": slices.Clone(a.Groups)}
	if len(scopes) > 0 {
		claims["scope"] = strings.Join(scopes, " ")
	}
	return claims, nil
}
