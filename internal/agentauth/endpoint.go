package agentauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// MetadataPath is where the Protected Resource Metadata (RFC 9728) is
// served; the resource URI's path is appended for the RFC's own lookup.
const MetadataPath = "/.well-known/oauth-protected-resource"

// Config configures an Endpoint; at least one of OIDC and Tokens is set.
type Config struct {
	// Resource is the runtime's resource URI as agents reach it, e.g.
	// https://mcp.example.com/mcp (http only on a loopback host). It is
	// named in the metadata and in every 401. Required with OIDC (it is the
	// audience); with Tokens alone, without it no metadata is served.
	Resource string
	OIDC     *OIDC
	Tokens   *TokenFile
	// Scopes are the scopes every token must carry (403 otherwise).
	Scopes []string
	// CacheTTL bounds how long a verified JWT is cached (DefaultCacheTTL).
	CacheTTL time.Duration
	Logger   *slog.Logger
	Now      func() time.Time
}

// Endpoint checks the bearer token of every request to the MCP handler.
type Endpoint struct {
	c       Config
	cache   *cache
	meta    *oauthex.ProtectedResourceMetadata
	metaURL string
	log     *slog.Logger
}

// NewEndpoint checks c and returns its Endpoint.
func NewEndpoint(c Config) (*Endpoint, error) {
	if c.OIDC == nil && c.Tokens == nil {
		return nil, errors.New("agent authentication needs an OpenID provider or an agent-token file")
	}
	if c.OIDC != nil && c.Resource == "" {
		c.Resource = c.OIDC.s.Audience
	}
	if c.OIDC != nil && c.Resource != c.OIDC.s.Audience {
		return nil, fmt.Errorf("resource %q differs from the audience %q tokens must name", c.Resource, c.OIDC.s.Audience)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	e := &Endpoint{c: c, cache: newCache(c.CacheTTL, c.Now), log: c.Logger}
	if c.Resource != "" {
		u, err := checkResource(c.Resource)
		if err != nil {
			return nil, err
		}
		e.metaURL = u.Scheme + "://" + u.Host + MetadataPath + strings.TrimSuffix(u.Path, "/")
		e.meta = &oauthex.ProtectedResourceMetadata{Resource: c.Resource, ScopesSupported: c.Scopes,
			BearerMethodsSupported: []string{"header"}, ResourceName: "toolgate runtime"}
		if c.OIDC != nil {
			e.meta.AuthorizationServers = []string{c.OIDC.s.Issuer}
		}
	}
	return e, nil
}

// checkResource accepts an absolute https URI without fragment, or http on
// a loopback host (development, where the agent connects to loopback).
func checkResource(resource string) (*url.URL, error) {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" || u.Fragment != "" || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("resource URI %q: want https://host[:port]/path, without query, fragment or user", resource)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopbackHost(u.Hostname()):
	default:
		return nil, fmt.Errorf("resource URI %q: agents reach the runtime over https (http only on loopback)", resource)
	}
	return u, nil
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// Resource is the resource URI; MetadataURL where its metadata is ("" for
// both without one).
func (e *Endpoint) Resource() string    { return e.c.Resource }
func (e *Endpoint) MetadataURL() string { return e.metaURL }

// Handle registers h at path on mux behind the bearer check, and the
// metadata documents beside it.
func (e *Endpoint) Handle(mux *http.ServeMux, path string, h http.Handler) {
	mux.Handle(path, e.Protect(h))
	if e.meta == nil {
		return
	}
	meta := auth.ProtectedResourceMetadataHandler(e.meta)
	mux.Handle(MetadataPath, meta)
	if u, err := url.Parse(e.metaURL); err == nil && u.Path != MetadataPath {
		mux.Handle(u.Path, meta)
	}
}

// Protect puts the bearer check in front of h: the go-sdk's
// RequireBearerToken with this endpoint's verifier, whose 401 and 403
// challenges get the RFC 6750 error codes (challenge).
func (e *Endpoint) Protect(h http.Handler) http.Handler {
	opts := &auth.RequireBearerTokenOptions{ResourceMetadataURL: e.metaURL, Scopes: e.c.Scopes,
		// Agent-token entries do not expire; JWTs always carry exp (go-oidc
		// refuses one without).
		AllowMissingExpiration: true, ClockSkew: e.skew()}
	inner := auth.RequireBearerToken(e.Verify, opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Past the check: the MCP handler gets the connection's own writer.
		h.ServeHTTP(w.(*challenge).ResponseWriter, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.ServeHTTP(&challenge{ResponseWriter: w, sent: r.Header.Get("Authorization") != ""}, r)
	})
}

func (e *Endpoint) skew() time.Duration {
	if e.c.OIDC != nil {
		return e.c.OIDC.s.ClockSkew
	}
	return 0
}

// Verify is the endpoint's auth.TokenVerifier: agent tokens (TokenPrefix)
// against the file, anything else as a JWT of the provider, through the
// cache.
func (e *Endpoint) Verify(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
	var info *auth.TokenInfo
	var err error
	switch {
	case e.c.Tokens != nil && strings.HasPrefix(token, TokenPrefix):
		info, err = e.c.Tokens.verify(token, e.c.Scopes)
	case e.c.OIDC != nil:
		info, err = e.cache.get(token, func(t string) (*auth.TokenInfo, error) { return e.c.OIDC.verify(ctx, t) })
	default:
		err = fmt.Errorf("%w: not an agent token", auth.ErrInvalidToken)
	}
	var unavailable unavailableError
	switch {
	case errors.As(err, &unavailable):
		e.log.Error("agent token not verified: authorization server unavailable", "err", unavailable.cause)
		return nil, errUnavailable
	case err != nil:
		e.log.Info("agent token refused", "reason", err.Error(), "remote", r.RemoteAddr)
	}
	return info, err
}

// challenge completes the WWW-Authenticate header the go-sdk writes with
// the error codes of RFC 6750 §3.1: invalid_token when a token was sent
// and refused, insufficient_scope on 403; and sends a bare Bearer
// challenge when there is no metadata to name.
type challenge struct {
	http.ResponseWriter
	sent, done bool
}

// WriteHeader implements http.ResponseWriter.
func (c *challenge) WriteHeader(code int) {
	if !c.done && (code == http.StatusUnauthorized || code == http.StatusForbidden) {
		c.done = true
		h := c.Header()
		var params []string
		switch {
		case code == http.StatusForbidden:
			params = append(params, `error="insufficient_scope"`)
		case c.sent:
			params = append(params, `error="invalid_token"`)
		}
		if rest := strings.TrimSpace(strings.TrimPrefix(h.Get("WWW-Authenticate"), "Bearer")); rest != "" {
			params = append(params, rest)
		}
		if len(params) == 0 {
			params = append(params, `realm="toolgate"`)
		}
		h.Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	}
	c.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (c *challenge) Unwrap() http.ResponseWriter { return c.ResponseWriter }
