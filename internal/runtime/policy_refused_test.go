package runtime

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
)

// A signed bundle whose tool has a deadline below its attempt timeout —
// a policy the console refuses to store, and one the executor could never
// start an attempt under — is refused whole: the runtime keeps its last
// good bundle, says why, and reports the refusal to the console.
func TestRuntimeRefusesAPolicyTheConsoleRefuses(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	con.publish(signBundle(t, k, 1, t0, 0, up.URL, getOrderTool()))
	r := newRuntime(t, rtOpts{keys: keySet(k), console: con.URL})
	mustSync(t, r)

	b, err := bundle.Build(bundle.BuildInput{Version: 2, Now: t0,
		Sources: []bundle.Source{{Name: "shop", Origin: up.URL}}, Tools: []bundle.ToolInput{getOrderTool()}})
	if err != nil {
		t.Fatal(err)
	}
	payload, err := bundle.Canonical(b)
	if err != nil {
		t.Fatal(err)
	}
	short := bytes.Replace(payload, []byte(`"deadline_ms":30000`), []byte(`"deadline_ms":1000`), 1)
	if bytes.Equal(short, payload) {
		t.Fatalf("no deadline_ms to shorten in %s", payload)
	}
	con.publish(handSigned(k, short))
	err = r.Sync(t.Context())
	if err == nil || !strings.Contains(err.Error(), "deadline_ms: must be at least the attempt timeout") {
		t.Fatalf("Sync of a bundle with a deadline below the timeout: %v", err)
	}
	if st := r.Status(); st.Version != 1 || st.Tools != 1 {
		t.Errorf("serving v%d with %d tools, want the last good v1", st.Version, st.Tools)
	}
	if refused := r.refusalReport(); !strings.Contains(refused, "deadline_ms") {
		t.Errorf("the report to the console is %q, want the refusal", refused)
	}
}

// handSigned signs payload as bundle's doc.go specifies, for a payload
// bundle.Sign would refuse.
func handSigned(k bundle.SigningKey, payload []byte) []byte {
	b64 := base64.RawURLEncoding.EncodeToString
	input := b64([]byte(`{"alg":"EdDSA","kid":"`+k.KeyID+`","typ":"`+bundle.JWSType+`"}`)) + "." + b64(payload)
	return []byte(input + "." + b64(ed25519.Sign(k.Private, []byte(input))))
}
