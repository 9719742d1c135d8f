// Package principal is who calls a runtime's tools: the subject an agent
// acts for, its groups and its OAuth client. Verifiers of the runtime's MCP
// endpoint make one per request and carry it in the go-sdk's
// auth.TokenInfo; the runtime reads it back with FromTokenInfo and hands
// it to the policy decision, the executor (through the context), the call
// log line and the call records. Never the token itself.
package principal

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Kind says how the runtime learned who the principal is.
type Kind string

const (
	// Anonymous: the endpoint authenticates nobody (loopback only).
	Anonymous Kind = "anonymous"
	// OIDC: a JWT access token from the organisation's provider.
	OIDC Kind = "oidc"
	// Token: an entry of the runtime's agent-token file.
	Token Kind = "token"
	// Local: the stdio transport's user, named by a flag.
	Local Kind = "local"
)

// Principal is one caller. Groups are sorted and unique.
type Principal struct {
	Kind     Kind     `json:"kind"`
	Subject  string   `json:"subject"`
	ClientID string   `json:"client_id,omitempty"`
	Groups   []string `json:"groups,omitempty"`
}

// New returns a principal with its groups sorted and deduplicated.
func New(kind Kind, subject, clientID string, groups []string) Principal {
	g := slices.Clone(groups)
	slices.Sort(g)
	return Principal{Kind: kind, Subject: subject, ClientID: clientID, Groups: slices.Compact(g)}
}

// Authenticated reports whether the runtime verified who this is (or, for
// stdio, was told by its operator).
func (p Principal) Authenticated() bool { return p.Kind != "" && p.Kind != Anonymous }

// InGroup reports whether p belongs to group g.
func (p Principal) InGroup(g string) bool {
	_, ok := slices.BinarySearch(p.Groups, g)
	return ok
}

// InAny reports whether p belongs to at least one of groups.
func (p Principal) InAny(groups []string) bool {
	return slices.ContainsFunc(groups, p.InGroup)
}

// extraKey is the auth.TokenInfo.Extra key verifiers store the principal
// under.
const extraKey = "toolgate.principal"

// TokenInfo is the go-sdk's token information for p, as a verifier
// returns it; UserID binds the MCP session to the subject.
func (p Principal) TokenInfo(info *auth.TokenInfo) *auth.TokenInfo {
	if info == nil {
		info = &auth.TokenInfo{}
	}
	if info.Extra == nil {
		info.Extra = map[string]any{}
	}
	info.Extra[extraKey] = p
	if info.UserID == "" {
		info.UserID = string(p.Kind) + ":" + p.Subject
	}
	return info
}

// FromTokenInfo is the principal a verifier stored in info; the anonymous
// principal when there is none (an unauthenticated endpoint).
func FromTokenInfo(info *auth.TokenInfo) Principal {
	if info != nil {
		if p, ok := info.Extra[extraKey].(Principal); ok {
			return p
		}
	}
	return Principal{Kind: Anonymous}
}

type ctxKey struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext is the principal ctx carries; the anonymous principal when
// it carries none.
func FromContext(ctx context.Context) Principal {
	if p, ok := ctx.Value(ctxKey{}).(Principal); ok {
		return p
	}
	return Principal{Kind: Anonymous}
}
