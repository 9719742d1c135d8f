package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/config"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/sampleapi"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// runtimeFixture is a minimal console (bundle + JWKS behind a token) with
// one signed bundle of the sample API's getOrder tool, and its key file.
type runtimeFixture struct {
	console        *httptest.Server
	keyFile, token string
	tokenFile, dir string
}

func newRuntimeFixture(t *testing.T) *runtimeFixture {
	t.Helper()
	api := sampleapi.New(sampleapi.Options{Seed: true})
	up := httptest.NewServer(api)
	t.Cleanup(up.Close)
	k, err := bundle.GenerateKey(rand.Reader, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Build(bundle.BuildInput{Version: 4, Now: time.Now(),
		Sources: []bundle.Source{{Name: "shop", Origin: up.URL}},
		Tools: []bundle.ToolInput{{Name: "getOrder", Source: "shop", Method: "GET", Path: "/orders/{order_id}",
			Description: "Get an order",
			Params:      []bundle.Param{{Name: "order_id", In: "path", Arg: "order_id", Required: true}},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`),
			Assessment:  risk.Assessment{Class: risk.Read},
			Policy:      policy.Policy{Exposed: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	signed, err := bundle.Sign(b, k)
	if err != nil {
		t.Fatal(err)
	}
	f := &runtimeFixture{token: "rt-secret-token", dir: t.TempDir()}
	f.console = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/api/v1/bundle":
			w.Header().Set("ETag", `"v4"`)
			if r.Header.Get("If-None-Match") == `"v4"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			_, _ = w.Write(signed)
		case "/api/v1/keys":
			_ = json.NewEncoder(w).Encode(bundle.KeySet{Keys: []bundle.PublicKey{k.Public()}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.console.Close)
	f.keyFile = filepath.Join(f.dir, "keys.json")
	f.tokenFile = filepath.Join(f.dir, "token")
	writeCallFile(t, f.keyFile, mustJSON(t, bundle.KeySet{Keys: []bundle.PublicKey{k.Public()}}))
	writeCallFile(t, f.tokenFile, []byte(f.token+"\n"))
	return f
}

func (f *runtimeFixture) env(extra map[string]string) func(string) string {
	m := map[string]string{"SHOP_TOKEN": sampleapi.DefaultToken,
		"TOOLGATE_CREDENTIALS": `{"sources":{"shop":{"bearer":"env:SHOP_TOKEN"}}}`}
	for k, v := range extra {
		m[k] = v
	}
	return envOf(m)
}

var mcpEndpointRE = regexp.MustCompile(`MCP endpoint: (http://\S+)`)
var metricsRE = regexp.MustCompile(`Metrics: (http://\S+)`)

func TestRuntimeServesMCPOverHTTP(t *testing.T) {
	f := newRuntimeFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"runtime", "--console", f.console.URL, "--token-file", f.tokenFile,
			"--data-dir", filepath.Join(f.dir, "data"), "--key", f.keyFile, "--allow-insecure-credentials",
			"--mcp-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--name", "cli-test"},
			f.env(nil), strings.NewReader(""), &stdout, &stderr)
	}()
	var endpoint, metricsURL string
	for deadline := time.Now().Add(10 * time.Second); endpoint == "" || metricsURL == ""; time.Sleep(10 * time.Millisecond) {
		if m := mcpEndpointRE.FindStringSubmatch(stdout.String()); m != nil {
			endpoint = m[1]
		}
		if m := metricsRE.FindStringSubmatch(stdout.String()); m != nil {
			metricsURL = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no endpoint lines; stdout %q stderr %q", stdout.String(), stderr.String())
		}
	}
	if !strings.Contains(stdout.String(), "serving bundle v4") {
		t.Errorf("stdout does not say which bundle is served: %q", stdout.String())
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "getOrder", Arguments: map[string]any{"order_id": "ord_0001"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call = %v, isError %v", err, res != nil && res.IsError)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"id":"ord_0001"`) {
		t.Errorf("result = %s", text)
	}
	cs.Close()

	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `toolgate_runtime_calls_total{class="OK",tool="getOrder"} 1`) ||
		!strings.Contains(string(body), "toolgate_runtime_bundle_version 4") {
		t.Errorf("metrics = %s", body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runtime returned %v after cancel", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("runtime did not stop after cancel")
	}
	logs := stderr.String()
	// Both servers finished before Run returned: nothing of them outlives it.
	for _, server := range []string{"mcp", "metrics"} {
		if !strings.Contains(logs, "msg=stopped server="+server) {
			t.Errorf("the %s server had not stopped when Run returned; stderr %q", server, logs)
		}
	}
	if !strings.Contains(logs, `msg="tool call" tool=getOrder class=OK status=200 attempts=1`) {
		t.Errorf("no call log line; stderr %q", logs)
	}
	for _, secret := range []string{f.token, sampleapi.DefaultToken} {
		if strings.Contains(logs, secret) {
			t.Errorf("stderr contains the secret %q", secret)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "data", "runtime", "bundle.jws")); err != nil {
		t.Errorf("bundle not persisted: %v", err)
	}
}

func TestRuntimeStdio(t *testing.T) {
	f := newRuntimeFixture(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	var stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"runtime", "--stdio", "--console", f.console.URL, "--data-dir", filepath.Join(f.dir, "data"),
			"--trust-on-first-use", "--allow-insecure-credentials", "--metrics-addr", ""},
			f.env(map[string]string{"TOOLGATE_RUNTIME_TOKEN": f.token}), serverIn, serverOut, &stderr)
		serverOut.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr %q", err, stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "getOrder" || !tools.Tools[0].Annotations.ReadOnlyHint {
		t.Fatalf("tools/list = %+v, %v", tools, err)
	}
	cs.Close() // closes stdin of the runtime: it ends
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runtime returned %v after stdin closed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("runtime did not stop when stdin closed")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "data", "runtime", "trusted-keys.json")); err != nil {
		t.Errorf("trust on first use did not pin the keys: %v", err)
	}
}

func TestRuntimeRefusesBadConfiguration(t *testing.T) {
	f := newRuntimeFixture(t)
	base := []string{"runtime", "--console", f.console.URL, "--data-dir", filepath.Join(f.dir, "data")}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no token", []string{"--key", f.keyFile}, nil, "no runtime token"},
		{"no keys", []string{"--token-file", f.tokenFile}, nil, "no trusted keys"},
		{"both key and tofu", []string{"--token-file", f.tokenFile, "--key", f.keyFile, "--trust-on-first-use"}, nil, "exclude each other"},
		{"public MCP address", []string{"--token-file", f.tokenFile, "--key", f.keyFile, "--mcp-addr", "0.0.0.0:0", "--metrics-addr", ""}, nil, "not a loopback address"},
		{"bad credentials", []string{"--token-file", f.tokenFile, "--key", f.keyFile}, map[string]string{"TOOLGATE_CREDENTIALS": `{"sources":{"shop":{"bearer":"env:MISSING"}}}`}, "TOOLGATE_CREDENTIALS"},
		{"bad bundle source", []string{"--token-file", f.tokenFile, "--key", f.keyFile, "--bundle-source", "https://reg/x"}, nil, "want oci://"},
		{"decision wait too short", []string{"--token-file", f.tokenFile, "--key", f.keyFile, "--decision-wait", "100ms"}, nil, "--decision-wait 100ms: want at least 1s"},
		{"registry user without password", []string{"--token-file", f.tokenFile, "--key", f.keyFile, "--bundle-source", "oci://127.0.0.1:1/x"}, map[string]string{"TOOLGATE_REGISTRY_USERNAME": "u"}, "both a username and a password"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr syncbuf.Buffer
			env := envOf(tc.env)
			err := Run(t.Context(), append(append([]string{}, base...), tc.args...), env, strings.NewReader(""), &stdout, &stderr)
			if code := ExitCode(err, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 mentioning %q", code, stderr.String(), tc.want)
			}
		})
	}
}

// TestRuntimeStdioAnswersEverythingReadBeforeEOF: piped input (`printf
// '...' | toolgate runtime --stdio`) ends right after the last request; the
// runtime must still write the response of every request before exiting.
func TestRuntimeStdioAnswersEverythingReadBeforeEOF(t *testing.T) {
	f := newRuntimeFixture(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"call-3","method":"tools/call","params":{"name":"getOrder","arguments":{"order_id":"ord_0001"}}}`,
	}, "\n") + "\n"
	var stdout, stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(t.Context(), []string{"runtime", "--stdio", "--console", f.console.URL, "--data-dir", filepath.Join(f.dir, "data"),
			"--key", f.keyFile, "--allow-insecure-credentials", "--metrics-addr", ""},
			f.env(map[string]string{"TOOLGATE_RUNTIME_TOKEN": f.token}), strings.NewReader(in), &stdout, &stderr)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runtime returned %v; stderr %q", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("runtime did not exit after stdin ended")
	}
	responses := map[string]json.RawMessage{}
	for line := range strings.Lines(stdout.String()) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		if msg.Error != nil {
			t.Errorf("request %s failed: %s", msg.ID, msg.Error)
		}
		responses[string(msg.ID)] = msg.Result
	}
	for id, want := range map[string]string{
		`1`:        `"serverInfo":{"name":"toolgate"`,
		`2`:        `"name":"getOrder"`,
		`"call-3"`: `\"id\":\"ord_0001\"`,
	} {
		got, ok := responses[id]
		if !ok {
			t.Errorf("no response to request %s on stdout:\n%s", id, stdout.String())
			continue
		}
		if !strings.Contains(string(got), want) {
			t.Errorf("response to %s = %s, want it to contain %s", id, got, want)
		}
	}
	if strings.Contains(string(responses[`"call-3"`]), `"isError":true`) {
		t.Errorf("tools/call failed: %s", responses[`"call-3"`])
	}
}

// TestRuntimeDataDirIsNotTheConsoles: a runtime started beside a console
// with the defaults (or with TOOLGATE_DATA_DIR set for the console) must not
// write into the console's data directory.
func TestRuntimeDataDirIsNotTheConsoles(t *testing.T) {
	rf, _ := reflect.TypeFor[runtimeCmd]().FieldByName("DataDir")
	cf, _ := reflect.TypeFor[config.Config]().FieldByName("DataDir")
	for _, tag := range []string{"default", "env"} {
		if rf.Tag.Get(tag) == cf.Tag.Get(tag) {
			t.Errorf("runtime and console share the data directory's %s %q", tag, rf.Tag.Get(tag))
		}
	}
}
