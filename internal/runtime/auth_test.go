package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/agentauth"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/sampleapi"
	"github.com/toolgate/toolgate/internal/testing/oidctest"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

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
