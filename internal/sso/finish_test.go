package sso

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/testing/oidctest"
)

const redirect = "http://127.0.0.1:1/login/oidc/callback"

// newPair starts a real provider with two users and a client for it.
func newPair(t *testing.T, require bool) (*oidctest.Provider, *Client) {
	t.Helper()
	p := oidctest.Start(t,
		oidctest.User{ID: "u-ann", Username: "ann", Password: "ann-pw", Email: "ann@example.com", EmailVerified: true,
			Groups: []string{"tg-approvers", "staff"}},
		oidctest.User{ID: "u-bob", Username: "bob", Password: "bob-pw", Email: "bob@example.com", EmailVerified: false,
			Groups: []string{"tg-admins"}})
	p.AddClient("toolgate", "s3cret", redirect)
	p.AddClient("other-app", "other", "http://127.0.0.1:2/cb")
	c, err := New(Settings{Name: "Test IdP", Issuer: p.Issuer, ClientID: "toolgate", ClientSecret: "s3cret",
		RedirectURL: redirect, Scopes: []string{"email", "profile"}, RequireVerifiedEmail: require,
		Roles: RoleMapping{Admin: []string{"tg-admins"}, Approver: []string{"tg-approvers"}, Viewer: []string{"staff"}}})
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

// begin starts a sign-in and returns its flow and provider URL.
func begin(t *testing.T, c *Client) (Flow, string) {
	t.Helper()
	f, u, err := c.Begin(context.Background(), "/tools")
	if err != nil {
		t.Fatal(err)
	}
	return f, u
}

func signIn(t *testing.T, p *oidctest.Provider, authURL, user, pw string) url.Values {
	t.Helper()
	cb, err := p.SignIn(authURL, user, pw)
	if err != nil {
		t.Fatal(err)
	}
	return cb.Query()
}

func wantFailure(t *testing.T, err error, reason, code string) {
	t.Helper()
	var f *Failure
	if !errors.As(err, &f) || f.Reason != reason || f.Code != code {
		t.Fatalf("error %v, want failure %q (%s)", err, reason, code)
	}
}

// TestCodeFlowWithPKCE is the whole sign-in against the real provider.
func TestCodeFlowWithPKCE(t *testing.T) {
	p, c := newPair(t, true)
	f, u := begin(t, c)
	q, _ := url.Parse(u)
	if q.Query().Get("code_challenge_method") != "S256" || q.Query().Get("nonce") != f.Nonce || q.Query().Get("state") != f.State {
		t.Fatalf("authorization URL lacks PKCE, nonce or state: %s", u)
	}
	cb := signIn(t, p, u, "ann", "ann-pw")
	if p.LastCodeChallengeMethod() != "S256" {
		t.Fatalf("provider saw code_challenge_method %q", p.LastCodeChallengeMethod())
	}
	id, err := c.Finish(context.Background(), &f, cb)
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "u-ann" || id.Email != "ann@example.com" || !id.EmailVerified ||
		!slices.Equal(id.Roles, []auth.Role{auth.RoleApprover, auth.RoleViewer}) {
		t.Fatalf("identity %+v", id)
	}
	// The groups are read at every sign-in.
	p.SetGroups("u-ann", "staff")
	f, u = begin(t, c)
	id, err = c.Finish(context.Background(), &f, signIn(t, p, u, "ann", "ann-pw"))
	if err != nil || !slices.Equal(id.Roles, []auth.Role{auth.RoleViewer}) {
		t.Fatalf("after group removal: %+v, %v", id, err)
	}
}

// TestFinishRefuses covers every refusal with the real provider.
func TestFinishRefuses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, reason, code string
		user               string
		require            bool
		run                func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values)
	}{
		{name: "state missing", reason: "state missing", code: CodeInvalid,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				return nil, signIn(t, p, u, "ann", "ann-pw")
			}},
		{name: "state mismatch", reason: "state mismatch", code: CodeInvalid,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				other, _ := begin(t, c) // a second sign-in in the same browser replaced the first
				return &other, signIn(t, p, u, "ann", "ann-pw")
			}},
		{name: "expired flow", reason: "sign-in expired", code: CodeInvalid,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				f.Expires = time.Now().Add(-time.Second)
				return f, signIn(t, p, u, "ann", "ann-pw")
			}},
		{name: "nonce mismatch", reason: "nonce mismatch", code: CodeInvalid,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				pu, _ := url.Parse(u)
				q := pu.Query()
				q.Set("nonce", "injected-by-someone-else")
				pu.RawQuery = q.Encode()
				return f, signIn(t, p, pu.String(), "ann", "ann-pw")
			}},
		{name: "wrong audience", reason: "wrong audience", code: CodeInvalid,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				p.ForgeAudience("other-app")
				return f, signIn(t, p, u, "ann", "ann-pw")
			}},
		{name: "expired code", reason: "code exchange failed: invalid_grant", code: CodeInvalid,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				p.SetCodeLifetime(time.Nanosecond)
				return f, signIn(t, p, u, "ann", "ann-pw")
			}},
		{name: "reused code", reason: "code exchange failed: invalid_grant", code: CodeInvalid,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				cb := signIn(t, p, u, "ann", "ann-pw")
				if _, err := c.Finish(context.Background(), f, cb); err != nil {
					t.Fatalf("first use: %v", err)
				}
				return f, cb
			}},
		{name: "wrong PKCE verifier", reason: "code exchange failed: invalid_grant", code: CodeInvalid,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				f.Verifier = "a-verifier-the-attacker-does-not-know-0123456789abcdef"
				return f, signIn(t, p, u, "ann", "ann-pw")
			}},
		{name: "provider error", reason: "provider error: access_denied", code: CodeInvalid,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				return f, url.Values{"error": {"access_denied"}, "state": {f.State}}
			}},
		{name: "unverified email when required", reason: "email not verified", code: CodeForbidden, require: true,
			run: func(t *testing.T, p *oidctest.Provider, c *Client, f *Flow, u string) (*Flow, url.Values) {
				return f, signIn(t, p, u, "bob", "bob-pw")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, c := newPair(t, tc.require)
			f, u := begin(t, c)
			flow, q := tc.run(t, p, c, &f, u)
			_, err := c.Finish(ctx, flow, q)
			wantFailure(t, err, tc.reason, tc.code)
		})
	}
}

// TestUnverifiedEmailAllowedWhenNotRequired: bob's unverified address is
// accepted when the console does not require verification.
func TestUnverifiedEmailAllowedWhenNotRequired(t *testing.T) {
	p, c := newPair(t, false)
	f, u := begin(t, c)
	id, err := c.Finish(context.Background(), &f, signIn(t, p, u, "bob", "bob-pw"))
	if err != nil || id.EmailVerified || !slices.Equal(id.Roles, []auth.Role{auth.RoleAdmin}) {
		t.Fatalf("%+v, %v", id, err)
	}
}

// TestProviderDown: discovery failure is "unavailable", and the client
// recovers once the provider answers (nothing is cached on failure).
func TestProviderDown(t *testing.T) {
	c, err := New(Settings{Issuer: "http://127.0.0.1:1", ClientID: "x", ClientSecret: "y", RedirectURL: redirect,
		Roles: RoleMapping{Admin: []string{"a"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Begin(context.Background(), "/")
	wantFailure(t, err, "provider discovery failed", CodeUnavailable)
	if c.Name() != "127.0.0.1:1" {
		t.Fatalf("default name %q", c.Name())
	}
}
