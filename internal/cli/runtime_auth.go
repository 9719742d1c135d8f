package cli

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os/user"
	"strings"

	"github.com/toolgate/toolgate/internal/agentauth"
	"github.com/toolgate/toolgate/internal/listen"
	"github.com/toolgate/toolgate/internal/principal"
)

// runtimeAuthFlags are the runtime's flags for who may call its tools: the
// agents of the HTTP endpoint (OIDC tokens, an agent-token file) and the
// local user of --stdio.
type runtimeAuthFlags struct {
	AuthIssuer      string   `name:"auth-issuer" env:"TOOLGATE_AUTH_ISSUER" placeholder:"URL" help:"OpenID provider whose JWT access tokens agents must send (discovery at URL/.well-known/openid-configuration). Needs --auth-audience."`
	AuthAudience    string   `name:"auth-audience" env:"TOOLGATE_AUTH_AUDIENCE" placeholder:"URI" help:"The runtime's resource URI as agents reach it, e.g. https://mcp.example.com/mcp: the aud tokens must name, and the resource in the protected resource metadata and 401s."`
	AuthScopes      []string `name:"auth-scope" env:"TOOLGATE_AUTH_SCOPES" placeholder:"SCOPE" help:"Scope every access token must carry (403 insufficient_scope otherwise); repeat or separate with commas."`
	AuthGroupsClaim string   `name:"auth-groups-claim" env:"TOOLGATE_AUTH_GROUPS_CLAIM" default:"groups" help:"Access-token claim holding the agent's groups (a list, or one space-separated string)."`
	AgentTokens     string   `name:"agent-tokens" env:"TOOLGATE_AGENT_TOKENS_FILE" placeholder:"FILE" help:"Agent-token file ('toolgate agent-token add'): agents send one of its tokens as bearer token. Re-read when it changes."`
	TLSCert         string   `name:"tls-cert" env:"TOOLGATE_RUNTIME_TLS_CERT" placeholder:"FILE" help:"PEM certificate (chain) of the MCP endpoint; with --tls-key it serves HTTPS. Required to listen beyond loopback."`
	TLSKey          string   `name:"tls-key" env:"TOOLGATE_RUNTIME_TLS_KEY" placeholder:"FILE" help:"PEM private key for --tls-cert."`
	StdioPrincipal  string   `name:"stdio-principal" env:"TOOLGATE_STDIO_PRINCIPAL" placeholder:"NAME" help:"With --stdio: the local user tool calls are made for (default: the OS user name)."`
	StdioGroups     []string `name:"stdio-groups" env:"TOOLGATE_STDIO_GROUPS" placeholder:"GROUP" help:"With --stdio: the local user's groups; repeat or separate with commas."`
}

// authenticates reports whether the HTTP endpoint authenticates agents.
func (f *runtimeAuthFlags) authenticates() bool { return f.AuthIssuer != "" || f.AgentTokens != "" }

// check refuses flag combinations that would not do what they say.
func (f *runtimeAuthFlags) check(stdio bool) error {
	switch {
	case stdio && (f.authenticates() || f.TLSCert != "" || f.TLSKey != ""):
		return errors.New("--auth-issuer, --agent-tokens and --tls-* secure the HTTP endpoint; with --stdio the caller is --stdio-principal")
	case f.AuthIssuer != "" && f.AuthAudience == "":
		return errors.New("--auth-issuer needs --auth-audience: the runtime's resource URI, which tokens must name as their audience")
	case f.AuthAudience != "" && !f.authenticates():
		return errors.New("--auth-audience needs --auth-issuer or --agent-tokens")
	case len(f.AuthScopes) > 0 && f.AuthIssuer == "":
		return errors.New("--auth-scope applies to the provider's tokens: it needs --auth-issuer")
	case (f.TLSCert == "") != (f.TLSKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	}
	return nil
}

// endpoint builds the HTTP endpoint's authentication; nil when it
// authenticates nobody (loopback only).
func (f *runtimeAuthFlags) endpoint(logger *slog.Logger) (*agentauth.Endpoint, error) {
	if !f.authenticates() {
		return nil, nil
	}
	c := agentauth.Config{Resource: f.AuthAudience, Scopes: f.AuthScopes, Logger: logger}
	if f.AuthIssuer != "" {
		o, err := agentauth.NewOIDC(agentauth.OIDCSettings{Issuer: f.AuthIssuer, Audience: f.AuthAudience,
			GroupsClaim: f.AuthGroupsClaim})
		if err != nil {
			return nil, fmt.Errorf("--auth-issuer: %w", err)
		}
		c.OIDC = o
	}
	if f.AgentTokens != "" {
		tf, err := agentauth.OpenTokenFile(f.AgentTokens, logger, nil)
		if err != nil {
			return nil, fmt.Errorf("--agent-tokens: %w", err)
		}
		c.Tokens = tf
	}
	ep, err := agentauth.NewEndpoint(c)
	if err != nil {
		return nil, fmt.Errorf("--auth-audience: %w", err)
	}
	return ep, nil
}

// listenMCP listens on the MCP address: loopback only unless the endpoint
// authenticates agents, and then beyond loopback only over TLS. With
// --tls-cert the listener speaks TLS (HTTP/2 offered).
func (f *runtimeAuthFlags) listenMCP(logger *slog.Logger, addr string) (net.Listener, error) {
	if err := checkLoopback("--mcp-addr", addr); err != nil {
		switch {
		case !f.authenticates():
			return nil, fmt.Errorf("runtime: %w; an endpoint beyond loopback needs --auth-issuer or --agent-tokens, and --tls-cert/--tls-key", err)
		case f.TLSCert == "":
			return nil, fmt.Errorf("runtime: --mcp-addr %q is beyond loopback: plain HTTP there would expose the agents' tokens; give --tls-cert and --tls-key", addr)
		}
	}
	var cfg *tls.Config
	if f.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(f.TLSCert, f.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("runtime: --tls-cert/--tls-key: %w", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("runtime: --mcp-addr: %w", err)
	}
	ln = listen.Patient(ln, logger, "mcp-addr")
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	return ln, nil
}

// authLine names the resource and its metadata as the runtime starts.
func authLine(ep *agentauth.Endpoint) string {
	if ep.Resource() == "" {
		return "(agent-token file; no resource URI)"
	}
	return ep.Resource() + ", metadata " + ep.MetadataURL()
}

// scheme is the MCP endpoint's URL scheme.
func (f *runtimeAuthFlags) scheme() string {
	if f.TLSCert != "" {
		return "https"
	}
	return "http"
}

// stdioPrincipal is the local user of --stdio: --stdio-principal, or the
// OS user name.
func (f *runtimeAuthFlags) stdioPrincipal(getenv func(string) string) principal.Principal {
	name := strings.TrimSpace(f.StdioPrincipal)
	if name == "" {
		if u, err := user.Current(); err == nil && u.Username != "" {
			name = u.Username
		} else if name = getenv("USER"); name == "" {
			name = "local"
		}
	}
	return principal.New(principal.Local, name, "", f.StdioGroups)
}
