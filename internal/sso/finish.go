package sso

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/toolgate/toolgate/internal/auth"
)

// Identity is who a verified sign-in is, and the roles their groups give.
type Identity struct {
	Subject       string
	Email         string
	EmailVerified bool
	Groups        []string
	// Roles may be empty: the store then takes every role away.
	Roles []auth.Role
}

const startAgain = " Go back to the sign-in page and start again."

// errorCode keeps only a well-formed OAuth error code from the provider's
// answer (RFC 6749 §4.1.2.1), so nothing else it sent reaches the page.
var errorCode = regexp.MustCompile(`^[a-z_]{1,64}$`)

// Finish completes the sign-in f (nil when the browser had none) with the
// callback's query: it checks state, exchanges the code with the PKCE
// verifier, verifies the ID token and its nonce, and reads email and
// groups. Every refusal is a *Failure.
func (c *Client) Finish(ctx context.Context, f *Flow, q url.Values) (*Identity, error) {
	if e := q.Get("error"); e != "" {
		if !errorCode.MatchString(e) {
			e = "malformed"
		}
		return nil, invalid("provider error: "+e, fmt.Sprintf("%s did not sign you in (%s).", c.s.Name, e)+startAgain, nil)
	}
	switch {
	case f == nil:
		return nil, invalid("state missing", "This sign-in was not started in this browser, or its cookie was lost."+startAgain, nil)
	case c.now().After(f.Expires):
		return nil, invalid("sign-in expired", "This sign-in took longer than 10 minutes."+startAgain, nil)
	case !same(q.Get("state"), f.State):
		return nil, invalid("state mismatch", "The answer from the identity provider does not belong to the sign-in "+
			"this browser started (state mismatch)."+startAgain, nil)
	case q.Get("code") == "":
		return nil, invalid("code missing", "The identity provider's answer has no sign-in code."+startAgain, nil)
	}
	p, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	tok, err := c.oauth(p).Exchange(c.ctx(ctx), q.Get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return nil, exchangeFailure(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, invalid("no id token", "The identity provider answered without an ID token."+startAgain, nil)
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: c.s.ClientID}).Verify(c.ctx(ctx), raw)
	if err != nil {
		return nil, verifyFailure(err)
	}
	if !same(idt.Nonce, f.Nonce) {
		return nil, invalid("nonce mismatch", "The identity provider's ID token was not issued for this sign-in "+
			"(nonce mismatch)."+startAgain, nil)
	}
	return c.identity(ctx, p, tok, idt)
}

func exchangeFailure(err error) *Failure {
	reason := "code exchange failed"
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && errorCode.MatchString(re.ErrorCode) {
		reason += ": " + re.ErrorCode
	}
	return invalid(reason, "The identity provider refused the sign-in code: it has expired or was used already."+
		startAgain, err)
}

func verifyFailure(err error) *Failure {
	var expired *oidc.TokenExpiredError
	msg := "The identity provider's ID token did not verify"
	switch s := err.Error(); {
	case errors.As(err, &expired):
		return invalid("id token expired", msg+": it has expired."+startAgain, err)
	case strings.Contains(s, "expected audience"):
		return invalid("wrong audience", msg+": it was issued for another application, not this console."+startAgain, err)
	case strings.Contains(s, "issuer"):
		return invalid("wrong issuer", msg+": it names another issuer."+startAgain, err)
	}
	return invalid("id token invalid", msg+"."+startAgain, err)
}
