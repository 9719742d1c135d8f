package runtime

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/agentauth"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/sampleapi"
	"github.com/toolgate/toolgate/internal/testing/oidctest"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// testResource is the runtime's resource URI in these tests: the audience
// the provider puts in agents' tokens.
const testResource = "https://runtime.example/mcp"

const wantMetadataURL = "https://runtime.example/.well-known/oauth-protected-resource/mcp"

// authFixture is a runtime with getOrder on a recording upstream, served
// over streamable HTTP behind an agentauth.Endpoint.
type authFixture struct {
	url      string // the /mcp endpoint
	rt       *Runtime
	logs     *syncbuf.Buffer
	mu       sync.Mutex
	upstream []http.Header // headers of every upstream request
}

func (f *authFixture) upstreamHeaders() []http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.upstream)
}

// newAuthFixture serves a runtime behind the endpoint cfg describes.
func newAuthFixture(t *testing.T, cfg agentauth.Config) *authFixture {
	t.Helper()
	return newAuthFixtureWith(t, cfg, getOrderTool())
}

// newAuthFixtureWith is newAuthFixture with the bundle's tools.
func newAuthFixtureWith(t *testing.T, cfg agentauth.Config, tools ...bundle.ToolInput) *authFixture {
	t.Helper()
	f := &authFixture{logs: &syncbuf.Buffer{}}
	api := sampleapi.New(sampleapi.Options{Seed: true})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.upstream = append(f.upstream, r.Header.Clone())
		f.mu.Unlock()
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	k := testKey(t, 1)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, tools...))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL, logs: f.logs})
	mustSync(t, r)
	ep, err := agentauth.NewEndpoint(cfg)
	if err != nil {
		t.Fatalf("NewEndpoint: %v", err)
	}
	mux := http.NewServeMux()
	ep.Handle(mux, "/mcp", r.MCPHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.url, f.rt = srv.URL+"/mcp", r
	return f
}

// agents registers the test's agents at p, all for testResource unless
// named otherwise.
func addAgents(p *oidctest.Provider) {
	p.AddAgent(oidctest.Agent{ID: "agent-good", Secret: "s1", Audience: []string{testResource}, Groups: []string{"ops", "billing"}})
	p.AddAgent(oidctest.Agent{ID: "agent-other-aud", Secret: "s2", Audience: []string{"https://other.example/mcp"}})
	p.AddAgent(oidctest.Agent{ID: "agent-expired", Secret: "s3", Audience: []string{testResource}, Lifetime: -2 * time.Minute})
	p.AddAgent(oidctest.Agent{ID: "agent-early", Secret: "s4", Audience: []string{testResource}, NotBefore: 10 * time.Minute})
}

func agentToken(t *testing.T, p *oidctest.Provider, id, secret string, scopes ...string) string {
	t.Helper()
	tok, err := p.AgentToken(t.Context(), id, secret, scopes...)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func oidcEndpoint(t *testing.T, p *oidctest.Provider, scopes ...string) agentauth.Config {
	t.Helper()
	o, err := agentauth.NewOIDC(agentauth.OIDCSettings{Issuer: p.Issuer, Audience: testResource})
	if err != nil {
		t.Fatal(err)
	}
	return agentauth.Config{OIDC: o, Scopes: scopes}
}

// initialize posts an MCP initialize request with token ("" sends none).
func initialize(t *testing.T, url, token string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// bearer adds an Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// dialAs connects a go-sdk MCP client that sends token.
func dialAs(t *testing.T, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// tokenFileWith is an agent-token file holding one token for name and
// groups, and that token.
func tokenFileWith(tb testing.TB, name string, groups ...string) (string, *agentauth.TokenFile) {
	tb.Helper()
	file := filepath.Join(tb.TempDir(), "agents.jsonl")
	token, err := agentauth.AddToken(file, name, groups, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	tf, err := agentauth.OpenTokenFile(file, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return token, tf
}

// callLogLine is the one "tool call" line of JSON logs.
func callLogLine(t *testing.T, logs string) map[string]any {
	t.Helper()
	var found []map[string]any
	for l := range strings.Lines(logs) {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "tool call" {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d tool call lines, want 1; logs:\n%s", len(found), logs)
	}
	return found[0]
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
