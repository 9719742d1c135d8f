// Package sso is the console's side of OpenID Connect sign-in (README "Single sign-on (OpenID Connect)"):
// the relying party, built on coreos/go-oidc (discovery, JWKS, ID token
// verification) and golang.org/x/oauth2 (authorization code with PKCE).
//
// A sign-in is a Flow: Begin makes a random state, nonce and PKCE verifier,
// which the web side keeps in an encrypted, short-lived cookie, and returns
// the provider's authorization URL. Finish takes the callback's query and
// that Flow and refuses, with a Failure naming the reason for the audit log
// and a sentence for the person, any of:
//
//   - an error answer from the provider (e.g. access_denied);
//   - a missing, expired or mismatched state (not a sign-in this browser
//     started);
//   - a code the provider will not exchange (expired, reused, PKCE verifier
//     wrong);
//   - an ID token that does not verify: signature against the provider's
//     JWKS, issuer, audience (this console's client id), expiry;
//   - a nonce different from the Flow's (a token replayed or injected);
//   - no email, or an unverified one when RequireVerifiedEmail is set (an
//     absent email_verified claim counts as unverified);
//   - groups that map to no role (RoleMapping).
//
// Roles come only from the groups claim (default "groups") of the ID token,
// or of the userinfo answer when the ID token has no such claim. Which
// groups give admin, approver and viewer is configuration (RoleMapping);
// a user in several gets every role they map to.
//
// The package holds no session: the web side signs the person in through
// the store, which applies the roles at every sign-in (see store.SignInSSO).
package sso
