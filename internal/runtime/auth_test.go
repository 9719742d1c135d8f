package runtime

import (
	"context"
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
	"github.com/toolgate/toolgate/internal/oidctest"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/sampleapi"
	"github.com/toolgate/toolgate/internal/syncbuf"
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
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
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

// TestAuthenticatedEndpointRefusesBadTokens: every token the MCP
// authorization spec says a resource server must refuse gets 401 with the
// challenge naming the metadata, and the go-sdk client cannot connect.
func TestAuthenticatedEndpointRefusesBadTokens(t *testing.T) {
	p := oidctest.Start(t)
	addAgents(p)
	other := oidctest.Start(t) // another issuer, with its own key
	addAgents(other)
	f := newAuthFixture(t, oidcEndpoint(t, p))
	tests := []struct {
		name, token string
	}{
		{"no token", ""},
		{"another issuer", agentToken(t, other, "agent-good", "s1")},
		{"another audience", agentToken(t, p, "agent-other-aud", "s2")},
		{"expired", agentToken(t, p, "agent-expired", "s3")},
		{"not valid yet", agentToken(t, p, "agent-early", "s4")},
		{"not a JWT", "garbage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := initialize(t, f.url, tc.token)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
			ch := resp.Header.Get("WWW-Authenticate")
			if !strings.HasPrefix(ch, "Bearer ") || !strings.Contains(ch, `resource_metadata="`+wantMetadataURL+`"`) {
				t.Errorf("WWW-Authenticate = %q, want a Bearer challenge naming %s", ch, wantMetadataURL)
			}
			if invalid := strings.Contains(ch, `error="invalid_token"`); invalid != (tc.token != "") {
				t.Errorf("WWW-Authenticate = %q: error=invalid_token only when a token was sent", ch)
			}
			if _, err := dialAs(t, f.url, tc.token); err == nil {
				t.Error("the MCP client connected")
			}
		})
	}
	if len(f.upstreamHeaders()) != 0 {
		t.Error("a refused request reached the upstream")
	}
}

// TestAuthenticatedEndpointScope: a required scope the token lacks is 403
// insufficient_scope; with it the agent gets in.
func TestAuthenticatedEndpointScope(t *testing.T) {
	p := oidctest.Start(t)
	addAgents(p)
	f := newAuthFixture(t, oidcEndpoint(t, p, "toolgate.tools"))
	resp := initialize(t, f.url, agentToken(t, p, "agent-good", "s1", "openid"))
	ch := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(ch, `error="insufficient_scope"`) ||
		!strings.Contains(ch, `scope="toolgate.tools"`) || !strings.Contains(ch, wantMetadataURL) {
		t.Errorf("without the scope: %d %q, want 403 insufficient_scope naming the scope and metadata", resp.StatusCode, ch)
	}
	if resp := initialize(t, f.url, agentToken(t, p, "agent-good", "s1", "toolgate.tools")); resp.StatusCode != http.StatusOK {
		t.Errorf("with the scope: status %d, want 200", resp.StatusCode)
	}
}

// TestAuthenticatedEndpointServesPrincipal: a valid token lists and calls
// the tools; the call's log line names the principal and its groups; the
// upstream gets the source's credential, never the agent's token.
func TestAuthenticatedEndpointServesPrincipal(t *testing.T) {
	p := oidctest.Start(t)
	addAgents(p)
	f := newAuthFixture(t, oidcEndpoint(t, p))
	token := agentToken(t, p, "agent-good", "s1")
	cs, err := dialAs(t, f.url, token)
	if err != nil {
		t.Fatalf("connect with a valid token: %v", err)
	}
	if got := names(listTools(t, cs)); !slices.Equal(got, []string{"getOrder"}) {
		t.Errorf("tools/list = %v", got)
	}
	res, body := callTool(t, cs, "getOrder", map[string]any{"order_id": "ord_0001"})
	if res.IsError {
		t.Fatalf("getOrder failed: %v", body)
	}
	line := callLogLine(t, f.logs.String())
	if line["principal"] != "oidc:agent-good" || !slices.Equal(toStrings(line["groups"]), []string{"billing", "ops"}) {
		t.Errorf("call log line = %v, want principal oidc:agent-good with groups billing, ops", line)
	}
	hs := f.upstreamHeaders()
	if len(hs) != 1 {
		t.Fatalf("upstream got %d requests, want 1", len(hs))
	}
	for name, vals := range hs[0] {
		for _, v := range vals {
			if strings.Contains(v, token) {
				t.Errorf("upstream header %s carries the agent's token", name)
			}
		}
	}
	if got := hs[0].Get("Authorization"); got != "Bearer "+sampleapi.DefaultToken {
		t.Errorf("upstream Authorization = %q, want the source's credential", got)
	}
	rec := httptest.NewRecorder()
	f.rt.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if m := rec.Body.String(); !strings.Contains(m, `toolgate_runtime_calls_total{class="OK",tool="getOrder"} 1`) || strings.Contains(m, "agent-good") {
		t.Errorf("metrics should count the call by tool and never name the subject:\n%s", m)
	}
}

// TestProtectedResourceMetadata: RFC 9728 metadata at the root well-known
// path and at the path the RFC builds from the resource URI.
func TestProtectedResourceMetadata(t *testing.T) {
	p := oidctest.Start(t)
	f := newAuthFixture(t, oidcEndpoint(t, p, "toolgate.tools"))
	base := strings.TrimSuffix(f.url, "/mcp")
	for _, path := range []string{agentauth.MetadataPath, agentauth.MetadataPath + "/mcp"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			Scopes               []string `json:"scopes_supported"`
			Bearer               []string `json:"bearer_methods_supported"`
		}
		err = json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		if meta.Resource != testResource || !slices.Equal(meta.AuthorizationServers, []string{p.Issuer}) ||
			!slices.Equal(meta.Scopes, []string{"toolgate.tools"}) || !slices.Equal(meta.Bearer, []string{"header"}) {
			t.Errorf("GET %s = %+v", path, meta)
		}
	}
}

// TestAgentTokenFileEndpoint: a token of the file gets in as its entry's
// name and groups; an unknown one is 401.
func TestAgentTokenFileEndpoint(t *testing.T) {
	token, tf := tokenFileWith(t, "ci-bot", "deploy")
	f := newAuthFixture(t, agentauth.Config{Tokens: tf})
	if resp := initialize(t, f.url, agentauth.TokenPrefix+"unknownunknownunknownunknownunknownunknown0"); resp.StatusCode != http.StatusUnauthorized ||
		resp.Header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
		t.Errorf("unknown token: %d %q, want 401 invalid_token", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	cs, err := dialAs(t, f.url, token)
	if err != nil {
		t.Fatalf("connect with the file's token: %v", err)
	}
	if res, body := callTool(t, cs, "getOrder", map[string]any{"order_id": "ord_0001"}); res.IsError {
		t.Fatalf("getOrder failed: %v", body)
	}
	if line := callLogLine(t, f.logs.String()); line["principal"] != "token:ci-bot" || !slices.Equal(toStrings(line["groups"]), []string{"deploy"}) {
		t.Errorf("call log line = %v, want principal token:ci-bot in group deploy", line)
	}
}

// TestStdioPrincipal: over stdio the principal is the local user the
// runtime was given, in the call's log line.
func TestStdioPrincipal(t *testing.T) {
	_, up := upstream(t)
	k := testKey(t, 1)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	var logs syncbuf.Buffer
	r := newRuntime(t, rtOpts{keys: keySet(k), console: con.URL, logs: &logs, clock: clk,
		stdio: principal.New(principal.Local, "alice", "", []string{"ops"})})
	mustSync(t, r)
	var stdout syncbuf.Buffer
	if err := r.ServeStdio(context.Background(), strings.NewReader(pipedSession), &stdout, time.Second); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	if line := callLogLine(t, logs.String()); line["principal"] != "local:alice" || !slices.Equal(toStrings(line["groups"]), []string{"ops"}) {
		t.Errorf("call log line = %v, want principal local:alice in group ops", line)
	}
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
