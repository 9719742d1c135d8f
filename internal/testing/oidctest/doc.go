// Package oidctest runs a real OpenID Provider on loopback for tests: the
// zitadel/oidc `op` package (discovery, JWKS, authorization code with PKCE,
// token, userinfo), the example in-memory storage of that module for auth
// requests, codes and tokens, and on top of it what toolgate's tests need:
//
//   - users with a password, an email (verified or not) and groups, whose
//     groups a test can change while the provider runs (SetGroups);
//   - a plain HTML login form (label "Username", "Password", button
//     "Sign in") that a browser or a Go http.Client with a cookie jar fills;
//   - clients registered at run time with exact redirect URIs;
//   - the ID token carries email, email_verified and a "groups" claim, the
//     way Keycloak or Okta send them once configured;
//   - machine agents of the client-credentials grant (AddAgent,
//     AgentToken) whose access tokens are JWTs for a named audience, with
//     groups and scope claims, and lifetimes or not-before times a test
//     chooses (expired tokens, tokens not valid yet);
//   - knobs that make the provider misbehave in the ways a relying party must
//     refuse: codes that expire at once (SetCodeLifetime) and ID tokens issued
//     for another audience (ForgeAudience).
//
// It is not a stub: tokens are signed with a fresh RSA key and verified by
// the relying party against the provider's JWKS, exactly as in production.
package oidctest
