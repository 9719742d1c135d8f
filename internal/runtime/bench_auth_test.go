package runtime

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/agentauth"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/testing/oidctest"
)

// BenchmarkMCPToolCallAuthenticated measures what authenticating agents
// costs a tools/call over streamable HTTP on loopback: one runtime served
// twice, behind an agentauth.Endpoint and without one, calls alternating
// between the two in one loop as in BenchmarkMCPToolCall. The agent's
// token is a JWT of the real test provider (verified once, then cached)
// or an entry of an agent-token file (one SHA-256 per call):
//
//	auth-us, open-us   mean latency of one tools/call
//	ratio              auth-us / open-us
func BenchmarkMCPToolCallAuthenticated(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(itemJSON)
	}))
	b.Cleanup(up.Close)
	r := benchRuntime(b, up.URL)
	open := httptest.NewServer(r.MCPHandler())
	b.Cleanup(open.Close)
	p := oidctest.Start(b)
	p.AddAgent(oidctest.Agent{ID: "bench-agent", Secret: "s", Audience: []string{testResource}, Groups: []string{"ops"},
		Lifetime: time.Hour})
	jwt, err := p.AgentToken(context.Background(), "bench-agent", "s")
	if err != nil {
		b.Fatal(err)
	}
	o, err := agentauth.NewOIDC(agentauth.OIDCSettings{Issuer: p.Issuer, Audience: testResource})
	if err != nil {
		b.Fatal(err)
	}
	tok, tf := tokenFileWith(b, "bench-agent", "ops")
	modes := []struct {
		name, token string
		cfg         agentauth.Config
	}{{"oidc", jwt, agentauth.Config{OIDC: o}}, {"agent-token", tok, agentauth.Config{Tokens: tf}}}
	for _, m := range modes {
		authURL := authenticatedURL(b, r, m.cfg)
		for _, c := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/c=%d", m.name, c), func(b *testing.B) {
				pairs := make([][2]*mcp.ClientSession, c)
				for i := range pairs {
					pairs[i] = [2]*mcp.ClientSession{dialBearer(b, authURL, m.token), dialMCP(b, open.URL)}
				}
				auth, plain := alternateCalls(b, pairs)
				b.ReportMetric(float64(auth.Microseconds())/float64(b.N*c), "auth-us")
				b.ReportMetric(float64(plain.Microseconds())/float64(b.N*c), "open-us")
				b.ReportMetric(float64(auth)/float64(plain), "ratio")
			})
		}
	}
}

// BenchmarkMCPToolCallGuarded is a tools/call under both new guards at
// once — an OIDC JWT verified (then cached) and the tool's two CEL
// conditions evaluated — against the same call as before them (no
// authentication, no condition), interleaved in one loop: the ratio the
// README reports for agent identity with argument conditions.
func BenchmarkMCPToolCallGuarded(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(itemJSON)
	}))
	b.Cleanup(up.Close)
	p := oidctest.Start(b)
	p.AddAgent(oidctest.Agent{ID: "bench-agent", Secret: "s", Audience: []string{testResource}, Groups: []string{"ops"},
		Lifetime: time.Hour})
	jwt, err := p.AgentToken(context.Background(), "bench-agent", "s")
	if err != nil {
		b.Fatal(err)
	}
	o, err := agentauth.NewOIDC(agentauth.OIDCSettings{Issuer: p.Issuer, Audience: testResource})
	if err != nil {
		b.Fatal(err)
	}
	// Both conditions let the agent's call through (it must reach the
	// upstream like the call it is compared with).
	conds := []policy.Condition{benchConditions[0], {Effect: policy.ConditionAllowOnly,
		Expr: "size(args.item_id) <= 64 && 'ops' in principal.groups", Message: "ops only"}}
	guarded := authenticatedURL(b, benchRuntimeWith(b, up.URL, getItemTool(conds)), agentauth.Config{OIDC: o})
	before := httptest.NewServer(benchRuntime(b, up.URL).MCPHandler())
	b.Cleanup(before.Close)
	for _, c := range []int{1, 8} {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			pairs := make([][2]*mcp.ClientSession, c)
			for i := range pairs {
				pairs[i] = [2]*mcp.ClientSession{dialBearer(b, guarded, jwt), dialMCP(b, before.URL)}
			}
			g, plain := alternateCalls(b, pairs)
			if res, err := pairs[0][0].CallTool(context.Background(), &mcp.CallToolParams{Name: "getItem",
				Arguments: map[string]any{"item_id": "42"}}); err != nil || res.IsError {
				b.Fatalf("the guarded call was refused: %v %+v", err, res)
			}
			b.ReportMetric(float64(g.Microseconds())/float64(b.N*c), "guarded-us")
			b.ReportMetric(float64(plain.Microseconds())/float64(b.N*c), "before-us")
			b.ReportMetric(float64(g)/float64(plain), "ratio")
		})
	}
}

// authenticatedURL serves r's MCP handler behind the endpoint cfg makes.
func authenticatedURL(b *testing.B, r *Runtime, cfg agentauth.Config) string {
	ep, err := agentauth.NewEndpoint(cfg)
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	ep.Handle(mux, "/mcp", r.MCPHandler())
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// alternateCalls runs b.N iterations of one call on each session of every
// pair (the order alternating, pairs concurrent) and returns the summed
// latencies of the first and of the second sessions.
func alternateCalls(b *testing.B, pairs [][2]*mcp.ClientSession) (first, second time.Duration) {
	type sums struct{ d [2]time.Duration }
	results := make(chan sums, len(pairs))
	calls := 0
	for b.Loop() {
		for i, p := range pairs {
			lead := (i + calls) % 2
			go func() {
				var s sums
				s.d[lead] = timedCall(b, p[lead])
				s.d[1-lead] = timedCall(b, p[1-lead])
				results <- s
			}()
		}
		for range pairs {
			s := <-results
			first, second = first+s.d[0], second+s.d[1]
		}
		calls++
	}
	return first, second
}

func dialBearer(b *testing.B, endpoint, token string) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}
