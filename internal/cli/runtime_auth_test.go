package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/testing/oidctest"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// TestRuntimeRefusesUnsafeAuthConfiguration: the endpoint leaves loopback
// only authenticated and over TLS, and auth flags that cannot do what they
// say are refused, each with a sentence naming the fix.
func TestRuntimeRefusesUnsafeAuthConfiguration(t *testing.T) {
	f := newRuntimeFixture(t)
	tokens := filepath.Join(f.dir, "agents.jsonl")
	if err := os.WriteFile(tokens, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"runtime", "--console", f.console.URL, "--data-dir", filepath.Join(f.dir, "data"),
		"--token-file", f.tokenFile, "--key", f.keyFile, "--metrics-addr", ""}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"beyond loopback, nobody authenticated", []string{"--mcp-addr", "0.0.0.0:0"}, "needs --auth-issuer or --agent-tokens, and --tls-cert/--tls-key"},
		{"beyond loopback, plain HTTP", []string{"--mcp-addr", "0.0.0.0:0", "--agent-tokens", tokens}, "plain HTTP there would expose the agents' tokens; give --tls-cert and --tls-key"},
		{"issuer without audience", []string{"--auth-issuer", "https://idp.example"}, "--auth-issuer needs --auth-audience"},
		{"http resource beyond loopback", []string{"--auth-issuer", "https://idp.example", "--auth-audience", "http://mcp.example/mcp"}, "agents reach the runtime over https"},
		{"http issuer beyond loopback", []string{"--auth-issuer", "http://idp.example", "--auth-audience", "https://mcp.example/mcp"}, "reached over https"},
		{"scope without issuer", []string{"--agent-tokens", tokens, "--auth-scope", "x"}, "--auth-scope applies to the provider's tokens"},
		{"cert without key", []string{"--agent-tokens", tokens, "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{"auth over stdio", []string{"--stdio", "--agent-tokens", tokens}, "with --stdio the caller is --stdio-principal"},
		{"missing token file", []string{"--agent-tokens", filepath.Join(f.dir, "nope")}, "--agent-tokens: agent tokens:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr syncbuf.Buffer
			err := Run(t.Context(), append(append([]string{}, base...), tc.args...), f.env(nil), strings.NewReader(""), &stdout, &stderr)
			if code := ExitCode(err, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 mentioning %q", code, stderr.String(), tc.want)
			}
		})
	}
}

var httpsEndpointRE = regexp.MustCompile(`MCP endpoint: https://\S+:(\d+)/mcp`)

// TestRuntimeServesAgentTokensOverTLS: `agent-token add` prints a token
// once; the runtime listening beyond loopback over TLS admits it and
// refuses a request without it.
func TestRuntimeServesAgentTokensOverTLS(t *testing.T) {
	f := newRuntimeFixture(t)
	tokens := filepath.Join(f.dir, "agents.jsonl")
	var out, errOut syncbuf.Buffer
	if err := Run(t.Context(), []string{"agent-token", "add", "--file", tokens, "--name", "ci-bot", "--groups", "ops,deploy"},
		envOf(nil), strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("agent-token add: %v; %s", err, errOut.String())
	}
	token := strings.TrimSpace(out.String())
	if raw, _ := os.ReadFile(tokens); !strings.HasPrefix(token, "tga_") || strings.Contains(string(raw), token) {
		t.Fatalf("token %q, file %s: want the token printed and only its hash stored", token, raw)
	}
	certFile, keyFile, pool := selfSignedCert(t, f.dir)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"runtime", "--console", f.console.URL, "--token-file", f.tokenFile,
			"--data-dir", filepath.Join(f.dir, "data"), "--key", f.keyFile, "--allow-insecure-credentials",
			"--mcp-addr", "0.0.0.0:0", "--metrics-addr", "", "--agent-tokens", tokens,
			"--tls-cert", certFile, "--tls-key", keyFile}, f.env(nil), strings.NewReader(""), &stdout, &stderr)
	}()
	var port string
	for deadline := time.Now().Add(10 * time.Second); port == ""; time.Sleep(10 * time.Millisecond) {
		if m := httpsEndpointRE.FindStringSubmatch(stdout.String()); m != nil {
			port = m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("runtime ended: %v; stderr %q", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no https endpoint line; stdout %q stderr %q", stdout.String(), stderr.String())
		}
	}
	endpoint := "https://127.0.0.1:" + port + "/mcp"
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(`{}`))
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("no token: %d %q, want 401 with a Bearer challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+token)
		return tr.RoundTrip(r)
	})}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tls-agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client}, nil)
	if err != nil {
		t.Fatalf("connect with the agent token: %v; stderr %q", err, stderr.String())
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "getOrder", Arguments: map[string]any{"order_id": "ord_0001"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call = %v %+v", err, res)
	}
	cs.Close()
	cancel()
	<-done
	if logs := stderr.String(); !strings.Contains(logs, "principal=token:ci-bot") || strings.Contains(logs, token) {
		t.Errorf("the call log line should name token:ci-bot and never the token; stderr %q", logs)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// selfSignedCert writes a certificate for 127.0.0.1 and its key, and
// returns the files and a pool trusting it.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "runtime test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeCallFile(t, certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	writeCallFile(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}))
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// stdioCall is a piped stdio session making one tools/call.
const stdioCall = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"getOrder","arguments":{"order_id":"ord_0001"}}}
`

// TestRuntimeStdioPrincipalFlag: over stdio the call log line names the
// local user of --stdio-principal and --stdio-groups.
func TestRuntimeStdioPrincipalFlag(t *testing.T) {
	f := newRuntimeFixture(t)
	var stdout, stderr syncbuf.Buffer
	err := Run(t.Context(), []string{"runtime", "--stdio", "--console", f.console.URL, "--token-file", f.tokenFile,
		"--data-dir", filepath.Join(f.dir, "data"), "--key", f.keyFile, "--allow-insecure-credentials", "--metrics-addr", "",
		"--stdio-principal", "alice", "--stdio-groups", "ops,billing"}, f.env(nil), strings.NewReader(stdioCall), &stdout, &stderr)
	if err != nil {
		t.Fatalf("runtime --stdio: %v; stderr %q", err, stderr.String())
	}
	if logs := stderr.String(); !strings.Contains(logs, `principal=local:alice groups="[billing ops]"`) {
		t.Errorf("no call log line naming local:alice in billing, ops; stderr %q", logs)
	}
}

// TestRuntimeAuthIssuerFlags: --auth-issuer, --auth-audience and
// --auth-scope put the provider's tokens in front of the endpoint: the
// start says where the metadata is, a token without the scope is 403, one
// with it calls a tool as its subject.
func TestRuntimeAuthIssuerFlags(t *testing.T) {
	f := newRuntimeFixture(t)
	p := oidctest.Start(t)
	const resource = "https://mcp.example/mcp"
	p.AddAgent(oidctest.Agent{ID: "ci-agent", Secret: "s", Audience: []string{resource}, Groups: []string{"ops"}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"runtime", "--console", f.console.URL, "--token-file", f.tokenFile,
			"--data-dir", filepath.Join(f.dir, "data"), "--key", f.keyFile, "--allow-insecure-credentials",
			"--mcp-addr", "127.0.0.1:0", "--metrics-addr", "", "--auth-issuer", p.Issuer, "--auth-audience", resource},
			f.env(map[string]string{"TOOLGATE_AUTH_SCOPES": "toolgate.tools"}), strings.NewReader(""), &stdout, &stderr)
	}()
	var endpoint string
	for deadline := time.Now().Add(10 * time.Second); endpoint == ""; time.Sleep(10 * time.Millisecond) {
		if m := mcpEndpointRE.FindStringSubmatch(stdout.String()); m != nil && strings.Contains(stdout.String(), "Agents authenticate") {
			endpoint = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no endpoint lines; stdout %q stderr %q", stdout.String(), stderr.String())
		}
	}
	if want := "Agents authenticate: resource " + resource + ", metadata https://mcp.example/.well-known/oauth-protected-resource/mcp"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	tokenWith := func(scopes ...string) string {
		tok, err := p.AgentToken(ctx, "ci-agent", "s", scopes...)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	dial := func(token string) (*mcp.ClientSession, error) {
		c := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+token)
			return http.DefaultTransport.RoundTrip(r)
		})}
		return mcp.NewClient(&mcp.Implementation{Name: "oidc-agent", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: c}, nil)
	}
	if _, err := dial(tokenWith("openid")); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("a token without the scope connected (or failed otherwise): %v", err)
	}
	cs, err := dial(tokenWith("toolgate.tools"))
	if err != nil {
		t.Fatalf("connect with the scope: %v; stderr %q", err, stderr.String())
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "getOrder", Arguments: map[string]any{"order_id": "ord_0001"}}); err != nil || res.IsError {
		t.Fatalf("tools/call = %v %+v", err, res)
	}
	cs.Close()
	cancel()
	<-done
	if logs := stderr.String(); !strings.Contains(logs, `principal=oidc:ci-agent groups=[ops]`) {
		t.Errorf("no call log line naming oidc:ci-agent in ops; stderr %q", logs)
	}
}

// TestRuntimeStdioPrincipalDefault: without --stdio-principal the local
// user is the OS user.
func TestRuntimeStdioPrincipalDefault(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	f := newRuntimeFixture(t)
	var stdout, stderr syncbuf.Buffer
	err = Run(t.Context(), []string{"runtime", "--stdio", "--console", f.console.URL, "--token-file", f.tokenFile,
		"--data-dir", filepath.Join(f.dir, "data"), "--key", f.keyFile, "--allow-insecure-credentials", "--metrics-addr", ""},
		f.env(nil), strings.NewReader(stdioCall), &stdout, &stderr)
	if err != nil {
		t.Fatalf("runtime --stdio: %v; stderr %q", err, stderr.String())
	}
	if logs := stderr.String(); !strings.Contains(logs, "principal=local:"+u.Username+" ") {
		t.Errorf("no call log line naming local:%s; stderr %q", u.Username, logs)
	}
}
