package runtime

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
)

// editSigned takes the payload out of a signed bundle, lets edit change it
// as plain JSON and signs the result by hand with k, as a console of
// another release would. The payload is re-encoded canonically: sorted
// members (encoding/json sorts maps), numbers as they were, no HTML
// escaping (the test content has no other character RFC 8785 writes
// differently).
func editSigned(t *testing.T, signed []byte, k bundle.SigningKey, edit func(doc map[string]any)) []byte {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(string(signed), ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA","kid":"` + k.KeyID + `","typ":"` + bundle.JWSType + `"}`))
	input := header + "." + base64.RawURLEncoding.EncodeToString(bytes.TrimSpace(out.Bytes()))
	return []byte(input + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(k.Private, []byte(input))))
}

// laterMembers adds optional members a newer v1 console could send: at the
// top level, in a source, in every tool, its policy, retry and params.
func laterMembers(doc map[string]any) {
	doc["console_build"] = "2.3.0"
	for _, s := range doc["sources"].([]any) {
		s.(map[string]any)["display_name"] = "Shop"
	}
	for _, tv := range doc["tools"].([]any) {
		tool := tv.(map[string]any)
		tool["owner"] = map[string]any{"team": "orders"}
		pol := tool["policy"].(map[string]any)
		pol["cost_hint"] = json.Number("3")
		pol["retry"].(map[string]any)["max_delay_hint_ms"] = json.Number("60000")
		for _, p := range tool["params"].([]any) {
			p.(map[string]any)["example"] = "ord_0001"
		}
	}
}

// TestRuntimeEnforcesALaterRevisionAsV1: two runtimes, one fed a bundle and
// the other the same bundle with a newer console's optional members, serve
// the same tools with the same definitions and policies and answer calls
// the same, refusals included.
func TestRuntimeEnforcesALaterRevisionAsV1(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	plain := signBundle(t, k, 5, clk.Now(), 0, up.URL, getOrderTool(),
		createOrderTool(&policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyGenerated}), deleteOrderTool())
	later := editSigned(t, plain, k, laterMembers)
	start := func(signed []byte) *Runtime {
		con := newFakeConsole(t, keySet(k))
		con.publish(signed)
		r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
		mustSync(t, r)
		return r
	}
	a, b := start(plain), start(later)
	if !reflect.DeepEqual(a.snap.Load().bundle, b.snap.Load().bundle) {
		t.Fatal("the runtimes read the two bundles differently")
	}
	if la, lb := toolList(t, a), toolList(t, b); la != lb || !strings.Contains(la, "createOrder") {
		t.Errorf("tools/list differs:\n%s\n%s", la, lb)
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"getOrder", map[string]any{"order_id": "ord_0001"}},
		{"getOrder", map[string]any{"order_id": "ord_0001", "example": "x"}}, // unknown argument
		{"getOrder", map[string]any{}},
		{"deleteOrder", map[string]any{"order_id": "ord_0404"}},
		{"listOrders", map[string]any{}}, // not in the bundle
	}
	for _, c := range calls {
		ra, rb := a.Call(context.Background(), c.tool, c.args), b.Call(context.Background(), c.tool, c.args)
		ra.Duration, rb.Duration = 0, 0
		if !reflect.DeepEqual(ra, rb) {
			t.Errorf("%s %v: results differ:\n%+v\n%+v", c.tool, c.args, ra, rb)
		}
	}
}

// toolList is a runtime's tools/list as JSON.
func toolList(t *testing.T, r *Runtime) string {
	t.Helper()
	var tools []any
	for tool, err := range connectServer(t, r.Server()).Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	out, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestRuntimeRefusesAnUnknownMajorAndKeepsLastGood: a toolgate.bundle/v3
// bundle is refused with an error naming both schemas, counted under its
// own reason, reported to the console, and the v1 bundle in force keeps
// serving.
func TestRuntimeRefusesAnUnknownMajorAndKeepsLastGood(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	clk := newClock()
	con := newFakeConsole(t, keySet(k))
	con.publish(signBundle(t, k, 5, clk.Now(), 0, up.URL, getOrderTool()))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	con.publish(editSigned(t, signBundle(t, k, 6, clk.Now(), 0, up.URL, getOrderTool()), k, func(doc map[string]any) {
		doc["schema"] = "toolgate.bundle/v3"
	}))
	err := r.Sync(context.Background())
	if !errors.Is(err, bundle.ErrUnknownSchema) {
		t.Fatalf("Sync = %v, want %v", err, bundle.ErrUnknownSchema)
	}
	for _, text := range []string{err.Error(), r.refusalReport()} {
		if !strings.Contains(text, `"toolgate.bundle/v3"`) || !strings.Contains(text, "toolgate.bundle/v1, toolgate.bundle/v2") {
			t.Errorf("refusal %q does not name the schema received and the one known", text)
		}
	}
	if v := r.Status().Version; v != 5 {
		t.Errorf("version in force = %d, want the last good 5", v)
	}
	if res := r.Call(context.Background(), "getOrder", map[string]any{"order_id": "ord_0001"}); res.Attempts != 1 {
		t.Errorf("the last good bundle's tool did not reach the API: %+v", res.Err)
	}
	srv := httptest.NewServer(r.MetricsHandler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, _ := io.ReadAll(resp.Body)
	if !bytes.Contains(metrics, []byte(`toolgate_runtime_bundle_refusals_total{reason="unknown_schema"} 1`)) {
		t.Errorf("metrics do not count the refusal as unknown_schema:\n%s", metrics)
	}
}
