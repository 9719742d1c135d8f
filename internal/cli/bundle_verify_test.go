package cli

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// verifyFixture writes a signed bundle (version 7, issued at issuedAt), a JWK
// Set and a single JWK of its key, and a JWK Set of another key.
//
// It also writes, signed with the same key, the bundle as a newer console
// of the same major would send it (optional members added at the top
// level, in the tool's policy and in a parameter: later) and the bundle
// under a schema major this verifier does not know (v2).
type verifyFixture struct {
	dir, bundle, jwks, jwk, otherJWKS string
	later, v2, short                  string
}

func newVerifyFixture(t *testing.T, issuedAt time.Time) verifyFixture {
	t.Helper()
	dir := t.TempDir()
	k, err := bundle.GenerateKey(rand.Reader, issuedAt)
	if err != nil {
		t.Fatal(err)
	}
	other, err := bundle.GenerateKey(rand.Reader, issuedAt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Build(bundle.BuildInput{
		Version: 7, Now: issuedAt,
		Sources: []bundle.Source{{Name: "shop", Origin: "https://shop.example.com"}},
		Tools: []bundle.ToolInput{{Name: "getOrder", Source: "shop", Method: "GET", Path: "/orders/{id}",
			Params:      []bundle.Param{{Name: "id", In: "path", Arg: "id", Required: true}},
			InputSchema: json.RawMessage(`{"type":"object"}`), Assessment: risk.Assessment{Class: risk.Read},
			Policy: policy.Policy{Exposed: true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	signed, err := bundle.Sign(b, k)
	if err != nil {
		t.Fatal(err)
	}
	f := verifyFixture{dir: dir, bundle: filepath.Join(dir, "bundle.jws"), jwks: filepath.Join(dir, "keys.json"),
		jwk: filepath.Join(dir, "key.jwk"), otherJWKS: filepath.Join(dir, "other.json"),
		later: filepath.Join(dir, "later.jws"), v2: filepath.Join(dir, "v2.jws"), short: filepath.Join(dir, "short.jws")}
	writeFile(t, f.bundle, signed)
	payload, err := bundle.Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	later := strings.NewReplacer(`"version":7}`, `"version":7,"zz_console":"2.3.0"}`,
		`"policy":{`, `"policy":{"a_hint":1,`, `{"arg":"id",`, `{"arg":"id","example_value":"42",`).Replace(string(payload))
	if strings.Count(later, "a_hint")+strings.Count(later, "zz_console")+strings.Count(later, "example_value") != 3 {
		t.Fatalf("the later members were not added: %s", later)
	}
	writeFile(t, f.later, signByHand(k, []byte(later)))
	writeFile(t, f.v2, signByHand(k, bytes.Replace(payload, []byte(bundle.SchemaV1), []byte("toolgate.bundle/v3"), 1)))
	// A deadline below the 8 s attempt timeout: the console refuses to
	// store such a policy, so the verifier refuses to accept it.
	short := bytes.Replace(payload, []byte(`"deadline_ms":30000`), []byte(`"deadline_ms":1000`), 1)
	if bytes.Equal(short, payload) {
		t.Fatalf("no deadline_ms to shorten in %s", payload)
	}
	writeFile(t, f.short, signByHand(k, short))
	writeJSON(t, f.jwks, bundle.KeySet{Keys: []bundle.PublicKey{k.Public()}})
	writeJSON(t, f.otherJWKS, bundle.KeySet{Keys: []bundle.PublicKey{other.Public()}})
	writeJSON(t, f.jwk, map[string]string{"kty": "OKP", "crv": "Ed25519", "kid": k.KeyID,
		"x": base64.RawURLEncoding.EncodeToString(k.Public().Key)})
	return f
}

func TestBundleVerify(t *testing.T) {
	fresh := newVerifyFixture(t, time.Now().Add(-time.Hour))
	expired := newVerifyFixture(t, time.Now().Add(-31*24*time.Hour))
	flipped := filepath.Join(fresh.dir, "flipped.jws")
	data, err := os.ReadFile(fresh.bundle)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	writeFile(t, flipped, data)

	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string // in stdout for 0, in stderr otherwise
	}{
		{"valid with a JWK Set", []string{"--key", fresh.jwks, fresh.bundle}, 0, "valid: version 7, 1 tools, 1 sources"},
		{"valid with a single JWK", []string{"--key", fresh.jwk, fresh.bundle}, 0, "valid: version 7"},
		{"newer than --last-version", []string{"--key", fresh.jwks, "--last-version", "6", fresh.bundle}, 0, "valid"},
		{"one byte flipped", []string{"--key", fresh.jwks, flipped}, 1, "refused"},
		{"unknown key", []string{"--key", fresh.otherJWKS, fresh.bundle}, 1, "unknown key"},
		{"not newer than --last-version", []string{"--key", fresh.jwks, "--last-version", "7", fresh.bundle}, 1, "not newer"},
		{"expired", []string{"--key", expired.jwks, expired.bundle}, 1, "expired"},
		{"not a bundle", []string{"--key", fresh.jwks, fresh.jwks}, 1, "not signed"},
		{"newer console, same major", []string{"--key", fresh.jwks, fresh.later}, 0, "valid: version 7, 1 tools, 1 sources"},
		{"unknown schema major", []string{"--key", fresh.jwks, fresh.v2}, 1,
			`schema is "toolgate.bundle/v3" and this verifier knows toolgate.bundle/v1, toolgate.bundle/v2`},
		{"a deadline below the timeout", []string{"--key", fresh.jwks, fresh.short}, 1,
			`tool "getOrder": invalid policy: deadline_ms: must be at least the attempt timeout (8000 ms)`},
		{"missing bundle file", []string{"--key", fresh.jwks, filepath.Join(fresh.dir, "nope")}, 2, "reading the bundle"},
		{"key file is not a key", []string{"--key", fresh.bundle, fresh.bundle}, 2, "read public keys"},
		{"missing --key", []string{fresh.bundle}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), append([]string{"bundle", "verify"}, tc.args...), os.Getenv, strings.NewReader(""), &stdout, &stderr)
			code := ExitCode(err, &stderr)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d (stdout %q, stderr %q)", code, tc.wantCode, stdout.String(), stderr.String())
			}
			out := stdout.String()
			if code != 0 {
				out = stderr.String()
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output %q does not contain %q", out, tc.want)
			}
			if code == 1 && strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("refusal is not one line: %q", stderr.String())
			}
		})
	}
}

// signByHand signs a payload as bundle's doc.go specifies, for payloads
// this toolgate would not produce itself.
func signByHand(k bundle.SigningKey, payload []byte) []byte {
	b64 := base64.RawURLEncoding.EncodeToString
	input := b64([]byte(`{"alg":"EdDSA","kid":"`+k.KeyID+`","typ":"`+bundle.JWSType+`"}`)) + "." + b64(payload)
	return []byte(input + "." + b64(ed25519.Sign(k.Private, []byte(input))))
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, data)
}
