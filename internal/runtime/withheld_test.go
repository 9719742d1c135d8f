package runtime

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/testing/syncbuf"
)

// idempotentCreateWithKeyParam is R6's and R13's case: a tool that declares an
// Idempotency-Key header parameter while its policy sends the executor's
// own key in that header. The bundle verifies; the executor cannot run it.
func idempotentCreateWithKeyParam() bundle.ToolInput {
	t := createOrderTool(&policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyGenerated})
	t.Name = "createOrderKeyed"
	t.Params = []bundle.Param{{Name: "Idempotency-Key", In: "header", Arg: "key"}}
	t.InputSchema = json.RawMessage(`{"type":"object","required":["body"],"properties":{"body":{"type":"object"},"key":{"type":"string"}}}`)
	return t
}

// TestWithheldToolOthersServed: a signed bundle with one tool the executor
// cannot compile is accepted; over MCP (streamable HTTP) the other tools
// are listed and called, the bad one is neither listed nor callable, and
// the refusal is logged, counted and reported on the next fetch.
func TestWithheldToolOthersServed(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	var logs syncbuf.Buffer
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL, logs: &logs})
	mustSync(t, r)
	con.publish(signBundle(t, k, 2, clk.Now(), 0, up.URL, getOrderTool(), createOrderTool(nil), idempotentCreateWithKeyParam()))
	if err := r.Sync(context.Background()); err != nil {
		t.Fatalf("Sync of a bundle with one bad tool = %v, want it accepted", err)
	}
	if v := r.Status().Version; v != 2 {
		t.Fatalf("version in force = %d, want 2", v)
	}

	srv := httptest.NewServer(r.MCPHandler())
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "http-agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if got := names(listTools(t, cs)); !slices.Equal(got, []string{"createOrder", "getOrder"}) {
		t.Errorf("tools/list = %v, want the two good tools", got)
	}
	// Both good tools reach the upstream (one attempt each), whatever it answers.
	if _, body := callTool(t, cs, "getOrder", map[string]any{"order_id": "ord_0404"}); body["attempts"] != 1.0 {
		t.Errorf("getOrder did not reach the upstream: %v", body)
	}
	if _, body := callTool(t, cs, "createOrder", map[string]any{"body": map[string]any{"sku": "x"}}); body["attempts"] != 1.0 {
		t.Errorf("createOrder did not reach the upstream: %v", body)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createOrderKeyed",
		Arguments: map[string]any{"body": map[string]any{}}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("tools/call of the withheld tool over MCP = %v, want unknown tool", err)
	}
	direct := r.Call(context.Background(), "createOrderKeyed", map[string]any{"body": map[string]any{}})
	if direct.Err == nil || direct.Err.Class != "TOOL_NOT_EXPOSED" || !strings.Contains(direct.Err.Message, "withheld") ||
		!strings.Contains(direct.Err.Message, "reserved") {
		t.Errorf("Runtime.Call of the withheld tool = %+v, want TOOL_NOT_EXPOSED saying it is withheld and why", direct.Err)
	}
	if !strings.Contains(logs.String(), `"tool":"createOrderKeyed"`) || !strings.Contains(logs.String(), "tool withheld") {
		t.Errorf("no log line names the withheld tool:\n%s", logs.String())
	}
	wantMetrics(t, scrape(t, r), "toolgate_runtime_tools_withheld 1", "toolgate_runtime_bundle_version 2")

	mustSync(t, r) // a 304: the report rides on every fetch
	fetches := con.requests()
	got := fetches[len(fetches)-1].Get(HeaderRefused)
	if !strings.HasPrefix(got, "bundle v2: withheld 1 tool(s): createOrderKeyed: ") || !strings.Contains(got, "reserved") {
		t.Errorf("%s = %q, want the withheld tool and its reason", HeaderRefused, got)
	}
	if h := fetches[0].Get(HeaderRefused); h != "" {
		t.Errorf("first fetch carried %s = %q, want none", HeaderRefused, h)
	}

	con.publish(signBundle(t, k, 3, clk.Now(), 0, up.URL, getOrderTool()))
	mustSync(t, r)
	mustSync(t, r)
	fetches = con.requests()
	if h := fetches[len(fetches)-1].Get(HeaderRefused); h != "" {
		t.Errorf("after a clean bundle %s = %q, want none", HeaderRefused, h)
	}
	wantMetrics(t, scrape(t, r), "toolgate_runtime_tools_withheld 0")
}

// TestRefusedBundleReported: a refused bundle is reported on the following
// fetches until a bundle is accepted; the header stays printable and
// bounded.
func TestRefusedBundleReported(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	con.publish(signBundle(t, k, 7, clk.Now().Add(-2*time.Hour), time.Hour, up.URL, getOrderTool()))
	if err := r.Sync(context.Background()); err == nil {
		t.Fatal("an expired bundle was accepted")
	}
	_ = r.Sync(context.Background())
	fetches := con.requests()
	got := fetches[len(fetches)-1].Get(HeaderRefused)
	if !strings.HasPrefix(got, "bundle refused (serving v1): bundle has expired") {
		t.Errorf("%s = %q, want the expiry refusal", HeaderRefused, got)
	}
	con.publish(signBundle(t, k, 8, clk.Now(), 0, up.URL, getOrderTool()))
	mustSync(t, r)
	mustSync(t, r)
	fetches = con.requests()
	if h := fetches[len(fetches)-1].Get(HeaderRefused); h != "" {
		t.Errorf("after an accepted bundle %s = %q, want none", HeaderRefused, h)
	}

	long := headerSafe(strings.Repeat("é\r\n", 400), MaxRefusedBytes)
	if len(long) != MaxRefusedBytes || strings.ContainsFunc(long, func(c rune) bool { return c < 0x20 || c > 0x7e }) ||
		!strings.HasSuffix(long, "...") {
		t.Errorf("headerSafe gave %d bytes %q", len(long), long[:40])
	}
}

// TestToolMCPRefusesIsWithheld: a tool the executor compiles but the MCP
// SDK would refuse to register (an input schema that is not an object
// schema) is withheld with the SDK's reason instead of crashing the
// runtime; the others are listed.
func TestToolMCPRefusesIsWithheld(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	odd := getOrderTool()
	odd.Name = "getOrderOdd"
	odd.InputSchema = json.RawMessage(`{"type":"array"}`)
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), odd))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	cs, _ := connect(t, r)
	if got := names(listTools(t, cs)); !slices.Equal(got, []string{"getOrder"}) {
		t.Errorf("tools/list = %v, want getOrder only", got)
	}
	res := r.Call(context.Background(), "getOrderOdd", map[string]any{"order_id": "ord_0001"})
	if res.Err == nil || res.Err.Class != "TOOL_NOT_EXPOSED" || !strings.Contains(res.Err.Message, "MCP definition refused") {
		t.Errorf("call of the withheld tool = %+v", res.Err)
	}
	if got := r.refusalReport(); !strings.HasPrefix(got, "bundle v1: withheld 1 tool(s): getOrderOdd: MCP definition refused") {
		t.Errorf("refusal report = %q", got)
	}
}
