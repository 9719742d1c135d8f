package executor

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCredentials(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRefreshAfter401: the upstream refuses the old token; the provider
// re-reads the file once and the request is resent once, for any method.
func TestRefreshAfter401(t *testing.T) {
	tests := []struct {
		name      string
		method    string
		rotate    bool // the file changes between the 401 and the refresh
		wantClass Class
		wantCount int64
	}{
		{"GET with rotated token", "GET", true, "", 2},
		{"POST with rotated token", "POST", true, "", 2},
		{"token unchanged: no resend", "GET", false, ClassAuthRejected, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "credentials.json")
			writeCredentials(t, path, `{"sources":{"api":{"bearer":"old"}}}`)
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") == "Bearer new" {
					w.WriteHeader(200)
					return
				}
				if tc.rotate {
					writeCredentials(t, path, `{"sources":{"api":{"bearer":"new"}}}`)
				}
				w.WriteHeader(401)
			}))
			defer srv.Close()
			counting := &countingTransport{next: srv.Client().Transport}
			creds, err := LoadCredentials(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			e := newExecutor(t, testBundle(srv.URL, testTool("t", tc.method, "/x", retrying(1))),
				Options{Credentials: creds, Transport: counting})
			r := e.Call(context.Background(), "t", nil)
			wantClass(t, r, tc.wantClass)
			if counting.n != tc.wantCount || r.Attempts != int(tc.wantCount) {
				t.Errorf("requests = %d attempts = %d, want %d", counting.n, r.Attempts, tc.wantCount)
			}
		})
	}
}

type countingTransport struct {
	next http.RoundTripper
	n    int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n++
	return c.next.RoundTrip(r)
}

// TestCredentialsOnlyOverHTTPS: an http:// origin gets no credentials
// unless the local-development switch is on (R8).
func TestCredentialsOnlyOverHTTPS(t *testing.T) {
	up := newUpstream(t, status(200))
	creds, err := ParseCredentials([]byte(`{"sources":{"api":{"bearer":"secret"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := testBundle(up.URL, testTool("t", "GET", "/x", retrying(1)))
	r := newExecutor(t, b, Options{Credentials: creds}).Call(context.Background(), "t", nil)
	wantClass(t, r, ClassAuthRejected)
	if up.count.Load() != 0 {
		t.Fatal("credentials were sent over http")
	}
	if r.Attempts != 0 {
		t.Errorf("Attempts = %d for a call refused before sending, want 0", r.Attempts)
	}
	r = newExecutor(t, b, Options{Credentials: creds, AllowInsecureCredentials: true}).Call(context.Background(), "t", nil)
	wantClass(t, r, "")
	if got := up.Requests()[0].Header.Get("Authorization"); got != "Bearer secret" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestCredentialKinds(t *testing.T) {
	env := map[string]string{"TOKEN": "from-env"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name  string
		file  string
		check func(r *http.Request) bool
	}{
		{"bearer from env", `{"sources":{"api":{"bearer":"env:TOKEN"}}}`,
			func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer from-env" }},
		{"api key in header", `{"sources":{"api":{"api_key":{"in":"header","name":"X-Key","value":"k1"}}}}`,
			func(r *http.Request) bool { return r.Header.Get("X-Key") == "k1" }},
		{"api key in query", `{"sources":{"api":{"api_key":{"in":"query","name":"key","value":"k2"}}}}`,
			func(r *http.Request) bool { return r.URL.Query().Get("key") == "k2" }},
		{"api key in cookie", `{"sources":{"api":{"api_key":{"in":"cookie","name":"sid","value":"k3"}}}}`,
			func(r *http.Request) bool { c, err := r.Cookie("sid"); return err == nil && c.Value == "k3" }},
		{"basic", `{"sources":{"api":{"basic":{"username":"u","password":"env:TOKEN"}}}}`,
			func(r *http.Request) bool { u, p, ok := r.BasicAuth(); return ok && u == "u" && p == "from-env" }},
		{"headers", `{"sources":{"api":{"headers":{"x-tenant":"acme","X-Token":"env:TOKEN"}}}}`,
			func(r *http.Request) bool {
				return r.Header.Get("X-Tenant") == "acme" && r.Header.Get("X-Token") == "from-env"
			}},
		{"other source only", `{"sources":{"billing":{"bearer":"x"}}}`,
			func(r *http.Request) bool { return r.Header.Get("Authorization") == "" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			creds, err := ParseCredentials([]byte(tc.file), getenv)
			if err != nil {
				t.Fatal(err)
			}
			up := newUpstream(t, status(200))
			e := newExecutor(t, testBundle(up.URL, testTool("t", "GET", "/x", retrying(1))),
				Options{Credentials: creds, AllowInsecureCredentials: true})
			wantClass(t, e.Call(context.Background(), "t", nil), "")
			if !tc.check(up.Requests()[0]) {
				t.Errorf("credentials not applied as configured: %v %v", up.Requests()[0].Header, up.Requests()[0].URL)
			}
		})
	}
}

func TestBadCredentialFiles(t *testing.T) {
	for name, file := range map[string]string{
		"unset env":       `{"sources":{"api":{"bearer":"env:NOPE"}}}`,
		"two kinds":       `{"sources":{"api":{"bearer":"a","basic":{"username":"u","password":"p"}}}}`,
		"no kind":         `{"sources":{"api":{}}}`,
		"unknown field":   `{"sources":{"api":{"token":"a"}}}`,
		"bad api_key.in":  `{"sources":{"api":{"api_key":{"in":"body","name":"k","value":"v"}}}}`,
		"empty key name":  `{"sources":{"api":{"api_key":{"in":"header","name":"","value":"v"}}}}`,
		"not JSON at all": `sources: {}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseCredentials([]byte(file), func(string) string { return "" })
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error quotes a value: %v", err)
			}
		})
	}
}
