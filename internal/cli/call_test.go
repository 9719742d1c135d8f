package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// callFixture is a signed bundle of one GET tool pointing at an httptest
// upstream, its key file, a key file of another key, and a credentials file.
type callFixture struct {
	upstream                       *httptest.Server
	requests                       atomic.Int64
	lastAuth                       atomic.Value
	bundle, keys, otherKeys, creds string
}

func newCallFixture(t *testing.T, handler http.HandlerFunc) *callFixture {
	t.Helper()
	f := &callFixture{}
	f.upstream = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		f.lastAuth.Store(r.Header.Get("Authorization"))
		handler(w, r)
	}))
	t.Cleanup(f.upstream.Close)
	now := time.Now()
	k, err := bundle.GenerateKey(rand.Reader, now)
	if err != nil {
		t.Fatal(err)
	}
	other, err := bundle.GenerateKey(rand.Reader, now)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Build(bundle.BuildInput{
		Version: 1, Now: now,
		Sources: []bundle.Source{{Name: "shop", Origin: f.upstream.URL}},
		Tools: []bundle.ToolInput{{Name: "getOrder", Source: "shop", Method: "GET", Path: "/orders/{id}",
			Params:      []bundle.Param{{Name: "id", In: "path", Arg: "id", Required: true}},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
			Assessment:  risk.Assessment{Class: risk.Read},
			Policy:      policy.Policy{Exposed: true, Retry: policy.Retry{Attempts: 2, BackoffMS: 1, Multiplier: 2}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	signed, err := bundle.Sign(b, k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f.bundle, f.keys, f.otherKeys, f.creds = filepath.Join(dir, "bundle.jws"), filepath.Join(dir, "keys.json"),
		filepath.Join(dir, "other.json"), filepath.Join(dir, "credentials.json")
	writeCallFile(t, f.bundle, signed)
	writeCallFile(t, f.keys, mustJSON(t, bundle.KeySet{Keys: []bundle.PublicKey{k.Public()}}))
	writeCallFile(t, f.otherKeys, mustJSON(t, bundle.KeySet{Keys: []bundle.PublicKey{other.Public()}}))
	writeCallFile(t, f.creds, []byte(`{"sources":{"shop":{"bearer":"env:SHOP_TOKEN"}}}`))
	return f
}

func writeCallFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func runCall(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string { return map[string]string{"SHOP_TOKEN": "tok"}[k] }
	err := Run(context.Background(), append([]string{"call"}, args...), getenv, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), ExitCode(err, &errOut)
}

func TestCall(t *testing.T) {
	f := newCallFixture(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/orders/42":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"42","total":9007199254740993}`))
		case "/orders/busy":
			w.WriteHeader(503)
		default:
			w.WriteHeader(404)
		}
	})
	base := []string{"--bundle", f.bundle, "--key", f.keys}
	tests := []struct {
		name      string
		args      []string
		wantCode  int
		wantJSON  string // exact stdout ("" = none)
		wantClass string
		wantSent  int64
	}{
		{"ok", []string{"getOrder", "--args", `{"id":"42"}`}, 0,
			`{"tool":"getOrder","ok":true,"status":200,"attempts":1,"duration_ms":0,"result":{"id":"42","total":9007199254740993},"error":null}`, "", 1},
		{"classified error", []string{"getOrder", "--args", `{"id":"7"}`}, 1, "", "REJECTED", 1},
		{"retried then failed", []string{"getOrder", "--args", `{"id":"busy"}`}, 1, "", "SERVER_ERROR", 2},
		{"invalid arguments", []string{"getOrder", "--args", `{"id":42}`}, 1, "", "INVALID_ARGUMENTS", 0},
		{"unknown tool", []string{"deleteOrder"}, 1, "", "TOOL_NOT_EXPOSED", 0},
		{"credentials over http refused", []string{"getOrder", "--args", `{"id":"42"}`, "--credentials", f.creds}, 1, "", "AUTH_REJECTED", 0},
		{"credentials over http allowed", []string{"getOrder", "--args", `{"id":"42"}`, "--credentials", f.creds, "--allow-insecure-credentials"}, 0, "", "", 1},
		{"args not JSON", []string{"getOrder", "--args", `{id:42}`}, 2, "", "", 0},
		{"args not an object", []string{"getOrder", "--args", `[1]`}, 2, "", "", 0},
		{"missing tool", []string{}, 2, "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := f.requests.Load()
			stdout, stderr, code := runCall(t, append(append([]string{}, base...), tc.args...)...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stdout %s stderr %s", code, tc.wantCode, stdout, stderr)
			}
			if sent := f.requests.Load() - before; sent != tc.wantSent {
				t.Errorf("upstream saw %d requests, want %d", sent, tc.wantSent)
			}
			if tc.wantCode == 2 {
				if stdout != "" {
					t.Errorf("no call was possible but stdout = %q", stdout)
				}
				return
			}
			out := decodeOne(t, stdout)
			if tc.wantJSON != "" {
				got := durationRE.ReplaceAllString(strings.TrimSpace(stdout), `"duration_ms":0`)
				if got != tc.wantJSON {
					t.Errorf("stdout\n got %s\nwant %s", got, tc.wantJSON)
				}
			}
			if tc.wantSent == 0 && out["status"] != nil {
				t.Errorf("status = %v without any response, want null", out["status"])
			}
			if tc.wantClass != "" {
				e, _ := out["error"].(map[string]any)
				if e["class"] != tc.wantClass || e["instruction"] == "" || out["ok"] != false {
					t.Errorf("error = %v, want class %s", out["error"], tc.wantClass)
				}
			}
		})
	}
	if got, _ := f.lastAuth.Load().(string); got != "Bearer tok" {
		t.Errorf("credentials from env were not sent: Authorization %q", got)
	}
}

var durationRE = regexp.MustCompile(`"duration_ms":\d+`)

// decodeOne checks that stdout is exactly one JSON object with the fields
// of the documented shape.
func decodeOne(t *testing.T, stdout string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value: %s", stdout)
	}
	for _, k := range []string{"tool", "ok", "status", "attempts", "duration_ms", "result", "error"} {
		if _, ok := out[k]; !ok {
			t.Errorf("stdout lacks %q: %s", k, stdout)
		}
	}
	return out
}

func TestCallRefusesBundles(t *testing.T) {
	f := newCallFixture(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200) })
	tampered := filepath.Join(t.TempDir(), "tampered.jws")
	signed, _ := os.ReadFile(f.bundle)
	parts := strings.Split(string(signed), ".")
	parts[1] = parts[1][:len(parts[1])-2] + "AA"
	writeCallFile(t, tampered, []byte(strings.Join(parts, ".")))
	for name, args := range map[string][]string{
		"unknown key":    {"--bundle", f.bundle, "--key", f.otherKeys, "getOrder"},
		"tampered":       {"--bundle", tampered, "--key", f.keys, "getOrder"},
		"missing bundle": {"--bundle", filepath.Join(t.TempDir(), "nope"), "--key", f.keys, "getOrder"},
		"missing key":    {"--bundle", f.bundle, "getOrder"},
	} {
		t.Run(name, func(t *testing.T) {
			stdout, _, code := runCall(t, append(args, "--args", `{"id":"42"}`)...)
			if code != 2 || stdout != "" {
				t.Errorf("exit %d stdout %q, want 2 and nothing", code, stdout)
			}
		})
	}
	if f.requests.Load() != 0 {
		t.Errorf("a refused bundle reached the upstream")
	}
}
