package runtime

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"origin-test","version":"1"}}}`

// TestMCPOriginCheck drives the streamable HTTP endpoint over real HTTP:
// no Origin (non-browser clients), loopback origins and configured ones
// reach the MCP server; any other Origin gets 403 before it.
func TestMCPOriginCheck(t *testing.T) {
	k := testKey(t, 1)
	con := newFakeConsole(t, keySet(k))
	r := newRuntime(t, rtOpts{keys: keySet(k), console: con.URL, origins: []string{"https://Agent.Example.com"}})
	srv := httptest.NewServer(r.MCPHandler())
	t.Cleanup(srv.Close)
	tests := []struct {
		method, origin string
		want           int
	}{
		{"POST", "", http.StatusOK},
		{"POST", "http://localhost:5173", http.StatusOK},
		{"POST", "http://LOCALHOST", http.StatusOK},
		{"POST", "http://127.0.0.1:9999", http.StatusOK},
		{"POST", "http://127.3.4.5", http.StatusOK},
		{"POST", "http://[::1]:3000", http.StatusOK},
		{"POST", "https://agent.example.com", http.StatusOK},
		{"POST", "https://agent.example.com/", http.StatusOK},
		{"POST", "https://evil.example", http.StatusForbidden},
		{"POST", "https://agent.example.com:444", http.StatusForbidden},
		{"POST", "http://agent.example.com", http.StatusForbidden},
		{"POST", "null", http.StatusForbidden},
		{"POST", "http://localhost.evil.example", http.StatusForbidden},
		{"POST", "http://127.0.0.1.nip.io", http.StatusForbidden},
		{"POST", "http://user@localhost", http.StatusForbidden},
		{"POST", "file://", http.StatusForbidden},
		{"GET", "https://evil.example", http.StatusForbidden},
		{"DELETE", "https://evil.example", http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.origin, func(t *testing.T) {
			var body io.Reader
			if tc.method == "POST" {
				body = strings.NewReader(initializeRequest)
			}
			req, err := http.NewRequest(tc.method, srv.URL, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d (body %q)", resp.StatusCode, tc.want, got)
			}
			switch tc.want {
			case http.StatusOK:
				if !strings.Contains(string(got), `"serverInfo"`) {
					t.Errorf("allowed request did not reach the MCP server: %q", got)
				}
			case http.StatusForbidden:
				if !strings.Contains(string(got), "Origin") || resp.Header.Get("Mcp-Session-Id") != "" {
					t.Errorf("refused request: body %q, session %q", got, resp.Header.Get("Mcp-Session-Id"))
				}
			}
		})
	}
}

// TestAllowedOriginsValidated: a configured origin must be an origin.
func TestAllowedOriginsValidated(t *testing.T) {
	k := testKey(t, 1)
	con := newFakeConsole(t, keySet(k))
	for _, bad := range []string{"agent.example.com", "https://agent.example.com/app", "ftp://x", "*"} {
		if _, err := tryRuntime(t, rtOpts{keys: keySet(k), console: con.URL, origins: []string{bad}}); err == nil ||
			!strings.Contains(err.Error(), "origin") {
			t.Errorf("AllowedOrigins %q: New = %v, want an origin error", bad, err)
		}
	}
}
