package sso

import (
	"context"
	"fmt"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// identity reads email and groups from the verified ID token, falling back
// to the userinfo endpoint (same subject) for what the token lacks.
func (c *Client) identity(ctx context.Context, p *oidc.Provider, tok *oauth2.Token, idt *oidc.IDToken) (*Identity, error) {
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return nil, invalid("id token claims unreadable", "The identity provider's ID token could not be read."+startAgain, err)
	}
	groups, ok, err := c.s.Roles.Groups(claims)
	if err == nil && (!ok || claims["email"] == nil) {
		claims, groups, err = c.userinfo(ctx, p, tok, idt.Subject, claims, groups, ok)
	}
	if err != nil {
		f := invalid("groups claim malformed", fmt.Sprintf("The %q claim from %s is not a list of group names.",
			c.s.Roles.claim(), c.s.Name), err)
		f.Subject = idt.Subject
		return nil, f
	}
	id := &Identity{Subject: idt.Subject, Groups: groups, Roles: c.s.Roles.Roles(groups)}
	id.Email, _ = claims["email"].(string)
	switch v := claims["email_verified"].(type) {
	case bool:
		id.EmailVerified = v
	case string: // some providers send "true"
		id.EmailVerified = v == "true"
	}
	fail := func(reason, msg string) error {
		return &Failure{Reason: reason, Message: msg, Code: CodeForbidden, Subject: id.Subject, Email: id.Email}
	}
	switch {
	case id.Email == "":
		return nil, fail("no email", fmt.Sprintf("%s did not share an email address; the console needs one "+
			"(request the email scope).", c.s.Name))
	case c.s.RequireVerifiedEmail && !id.EmailVerified:
		return nil, fail("email not verified", fmt.Sprintf("%s says the email address %s is not verified. Verify it "+
			"there, then sign in again.", c.s.Name, id.Email))
	}
	return id, nil
}

// userinfo merges the userinfo answer into claims (the ID token wins) and
// reads the groups from it when the ID token had none. A provider without
// a userinfo endpoint leaves everything as it was.
func (c *Client) userinfo(ctx context.Context, p *oidc.Provider, tok *oauth2.Token, sub string, claims map[string]any,
	groups []string, ok bool) (map[string]any, []string, error) {
	if p.UserInfoEndpoint() == "" {
		return claims, groups, nil
	}
	ui, err := p.UserInfo(c.ctx(ctx), oauth2.StaticTokenSource(tok))
	if err != nil || ui.Subject != sub {
		return claims, groups, nil // the ID token alone decides
	}
	var more map[string]any
	if err := ui.Claims(&more); err != nil {
		return claims, groups, nil
	}
	for k, v := range more {
		if _, has := claims[k]; !has {
			claims[k] = v
		}
	}
	if ok {
		return claims, groups, nil
	}
	g, _, err := c.s.Roles.Groups(claims)
	return claims, g, err
}
