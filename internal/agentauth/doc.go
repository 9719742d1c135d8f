// Package agentauth authenticates the agents that call a runtime's MCP
// endpoint over streamable HTTP. The endpoint is an OAuth 2.1 resource
// server as the MCP authorization specification (protocol 2025-11-25)
// describes; the runtime never issues tokens, it only checks them.
//
// Two kinds of bearer token are accepted, alone or together:
//
//   - JWT access tokens from the organisation's OpenID provider (OIDC):
//     discovery at ISSUER/.well-known/openid-configuration gives the JWKS;
//     the signature, the issuer, the audience (which must be the runtime's
//     resource URI, so a token minted for another service is refused), exp
//     and nbf are checked by coreos/go-oidc, with a clock skew of at most
//     MaxClockSkew. The principal's subject is "sub", its client id
//     "client_id" (or "azp"), its groups the configured claim (a list of
//     strings or one space-separated string, as the console's SSO reads
//     it), its scopes "scope" (space-separated) or "scp" (a list).
//     A token naming a key id the runtime has not cached makes go-oidc
//     fetch the JWKS again; within 10 s of a fetch the last answer is
//     replayed instead, so forged tokens cannot turn the runtime into a
//     flood of requests at the provider. Verified tokens are cached, keyed by the SHA-256 of the token, until
//     min(exp, CacheTTL), so a session's calls do not verify a signature
//     each.
//   - Agent tokens of a file (TokenFile): for small installs without a
//     provider. Each line of the file is one JSON object
//     {"name":…,"groups":[…],"sha256":…,"created":…}; the token itself is
//     shown once when made (AddToken) and only its SHA-256 is kept. A slow
//     password hash (bcrypt, argon2) is not needed: the tokens are 256
//     random bits, which no dictionary or brute force reaches, and a fast
//     hash lets every request be checked without a cache. The file is read
//     at start and again when its modification time or size changes
//     (checked at most once a second); a file that no longer parses keeps
//     the entries read before, and the error is logged.
//
// Endpoint puts either in front of the MCP handler with the go-sdk's
// auth.RequireBearerToken: no token or an invalid one is 401 with
// `WWW-Authenticate: Bearer resource_metadata="…"` (error="invalid_token"
// when a token was sent), a token without a required scope 403 with
// error="insufficient_scope". The Protected Resource Metadata (RFC 9728)
// is served at /.well-known/oauth-protected-resource and at the same path
// followed by the resource URI's path. The verifier stores the principal
// (internal/principal) in the token information, where the runtime reads
// it; the Authorization header never reaches the tools' upstreams, which
// get only the credentials configured for their source.
package agentauth
