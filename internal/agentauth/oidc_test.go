package agentauth

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/testing/oidctest"
)

const res = "https://rt.example/mcp"

// TestOIDCClaims: subject, client id, groups from the configured claim (a
// list, or one space-separated string) and scopes reach the principal;
// nbf is held to our skew, not to go-oidc's five minutes.
func TestOIDCClaims(t *testing.T) {
	p := oidctest.Start(t)
	p.AddAgent(oidctest.Agent{ID: "bot", Secret: "s", Audience: []string{res}, Groups: []string{"ops", "billing"}})
	p.AddAgent(oidctest.Agent{ID: "soon", Secret: "s", Audience: []string{res}, NotBefore: 2 * time.Minute, Lifetime: 10 * time.Minute})
	tok := func(id string, scopes ...string) string {
		t.Helper()
		s, err := p.AgentToken(t.Context(), id, "s", scopes...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	verifier := func(claim string) *OIDC {
		o, err := NewOIDC(OIDCSettings{Issuer: p.Issuer, Audience: res, GroupsClaim: claim})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	info, err := verifier("").verify(t.Context(), tok("bot", "tools.read", "tools.call"))
	if err != nil {
		t.Fatal(err)
	}
	pr := principal.FromTokenInfo(info)
	if pr.Kind != principal.OIDC || pr.Subject != "bot" || pr.ClientID != "bot" || strings.Join(pr.Groups, ",") != "billing,ops" ||
		strings.Join(info.Scopes, " ") != "tools.read tools.call" || info.Expiration.IsZero() || info.UserID != "oidc:bot" {
		t.Errorf("principal %+v, info %+v", pr, info)
	}
	// Another claim, holding a space-separated string.
	info, err = verifier("scope").verify(t.Context(), tok("bot", "b", "a"))
	if err != nil || strings.Join(principal.FromTokenInfo(info).Groups, ",") != "a,b" {
		t.Errorf("groups from the scope claim: %v %+v", err, info)
	}
	if _, err := verifier("").verify(t.Context(), tok("soon")); !errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), "not valid before") {
		t.Errorf("a token valid in 2 minutes: %v, want refused as not valid yet", err)
	}
}

func TestNewOIDCRefusals(t *testing.T) {
	for _, s := range []OIDCSettings{
		{Issuer: "http://idp.example", Audience: res},
		{Issuer: "idp.example", Audience: res},
		{Issuer: "https://idp.example"},
		{Issuer: "https://idp.example", Audience: res, ClockSkew: time.Hour},
	} {
		if _, err := NewOIDC(s); err == nil {
			t.Errorf("NewOIDC(%+v) accepted", s)
		}
	}
}
