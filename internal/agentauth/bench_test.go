package agentauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testing/oidctest"
)

// BenchmarkBearerCheck is what the endpoint adds to one request once the
// agent's JWT is cached: the bearer check in front of a handler that does
// nothing, against that handler alone (the MCP call it guards takes ~1 ms
// on loopback, see BenchmarkMCPToolCallAuthenticated in internal/runtime).
func BenchmarkBearerCheck(b *testing.B) {
	p := oidctest.Start(b)
	p.AddAgent(oidctest.Agent{ID: "a", Secret: "s", Audience: []string{"https://rt.example/mcp"}, Groups: []string{"ops"}, Lifetime: time.Hour})
	tok, err := p.AgentToken(context.Background(), "a", "s")
	if err != nil {
		b.Fatal(err)
	}
	o, err := NewOIDC(OIDCSettings{Issuer: p.Issuer, Audience: "https://rt.example/mcp"})
	if err != nil {
		b.Fatal(err)
	}
	ep, err := NewEndpoint(Config{OIDC: o})
	if err != nil {
		b.Fatal(err)
	}
	noop := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"open", noop}, {"jwt-cached", ep.Protect(noop)}} {
		b.Run(h.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusNoContent {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
