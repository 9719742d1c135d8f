package runtime

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/sampleapi"
)

// connect opens an MCP client session on r over in-memory transports;
// changed receives one value per notifications/tools/list_changed.
func connect(t testing.TB, r *Runtime) (*mcp.ClientSession, chan struct{}) {
	t.Helper()
	ctx := context.Background()
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := r.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs, changed
}

func listTools(t testing.TB, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		out[tool.Name] = tool
	}
	return out
}

func names(tools map[string]*mcp.Tool) []string {
	var n []string
	for k := range tools {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// callTool calls a tool and decodes the result JSON of its text content.
func callTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("tools/call %s: %d content items, want 1", name, len(res.Content))
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body); err != nil {
		t.Fatalf("tools/call %s: content is not JSON: %v", name, err)
	}
	return res, body
}

func waitChanged(t testing.TB, changed chan struct{}) {
	t.Helper()
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
}

func TestMCPToolsListAnnotationsAndSchemas(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	key := &policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyArgument, Argument: "idempotency_key"}
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), createOrderTool(key), deleteOrderTool()))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	cs, _ := connect(t, r)

	tools := listTools(t, cs)
	if got := names(tools); !slices.Equal(got, []string{"createOrder", "deleteOrder", "getOrder"}) {
		t.Fatalf("tools/list = %v", got)
	}
	tests := []struct {
		tool                              string
		readOnly, destructive, idempotent bool
	}{
		{"getOrder", true, false, true},
		{"createOrder", false, false, true}, // idempotency key → idempotentHint
		{"deleteOrder", false, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			a := tools[tc.tool].Annotations
			if a == nil || a.ReadOnlyHint != tc.readOnly || a.DestructiveHint == nil || *a.DestructiveHint != tc.destructive || a.IdempotentHint != tc.idempotent {
				t.Errorf("annotations = %+v, want readOnly %v destructive %v idempotent %v", a, tc.readOnly, tc.destructive, tc.idempotent)
			}
			if tools[tc.tool].Description == "" {
				t.Error("description is empty")
			}
		})
	}
	schema := tools["createOrder"].InputSchema.(map[string]any)
	props := schema["properties"].(map[string]any)
	if _, ok := props["idempotency_key"]; !ok {
		t.Errorf("createOrder inputSchema lacks the idempotency_key argument: %v", props)
	}
	if _, ok := tools["getOrder"].InputSchema.(map[string]any)["properties"].(map[string]any)["idempotency_key"]; ok {
		t.Error("getOrder got an idempotency_key argument its policy does not take")
	}
}

func TestMCPCallResultsAndErrors(t *testing.T) {
	k := testKey(t, 1)
	api, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	key := &policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyArgument, Argument: "idempotency_key"}
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), createOrderTool(key)))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	cs, _ := connect(t, r)
	order := map[string]any{"customer": "ada", "items": []any{map[string]any{"sku": "A-1", "quantity": 2, "unit_price_cents": 100}}}

	res, body := callTool(t, cs, "createOrder", map[string]any{"body": order, "idempotency_key": "agent-key-1"})
	if res.IsError || body["ok"] != true || body["status"] != float64(201) {
		t.Fatalf("create = isError %v, %v", res.IsError, body)
	}
	id := body["result"].(map[string]any)["id"].(string)

	// The agent repeats the call with its own key: the upstream replays the
	// first order instead of creating a second one.
	_, again := callTool(t, cs, "createOrder", map[string]any{"body": order, "idempotency_key": "agent-key-1"})
	if again["result"].(map[string]any)["id"] != id {
		t.Errorf("repeat with the same key created %v, want the replay of %s", again["result"], id)
	}
	if n := api.Hits("POST /orders"); n != 2 {
		t.Errorf("upstream saw %d creates, want 2 (the second a replay)", n)
	}

	res, body = callTool(t, cs, "getOrder", map[string]any{"order_id": id})
	if res.IsError || body["result"].(map[string]any)["id"] != id {
		t.Errorf("getOrder = %v", body)
	}

	// Lost response after the POST was applied: OUTCOME_UNKNOWN, one request.
	api.ResetStats()
	api.SetFaults(sampleapi.Faults{DropAfterApply: &sampleapi.DropAfterApply{Count: 1, Method: "POST"}})
	res, body = callTool(t, cs, "createOrder", map[string]any{"body": order})
	errObj, _ := body["error"].(map[string]any)
	if !res.IsError || errObj["class"] != "OUTCOME_UNKNOWN" || errObj["may_have_applied"] != true || errObj["instruction"] == "" {
		t.Errorf("dropped response = isError %v, error %v", res.IsError, errObj)
	}
	if n := api.Hits("POST /orders"); n != 1 {
		t.Errorf("upstream saw %d POSTs, want exactly 1", n)
	}

	res, body = callTool(t, cs, "getOrder", map[string]any{"order_id": "ord_9999"})
	if errObj, _ := body["error"].(map[string]any); !res.IsError || errObj["class"] != "REJECTED" || errObj["may_have_applied"] != false {
		t.Errorf("404 = isError %v, %v", res.IsError, body)
	}
	res, body = callTool(t, cs, "getOrder", map[string]any{"order_id": "x", "surprise": 1})
	if errObj, _ := body["error"].(map[string]any); !res.IsError || errObj["class"] != "INVALID_ARGUMENTS" {
		t.Errorf("unknown argument = %v", body)
	}
}

func TestMCPListChangedOnNewBundle(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool(), createOrderTool(nil)))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	cs, changed := connect(t, r)
	if got := names(listTools(t, cs)); !slices.Equal(got, []string{"createOrder", "getOrder"}) {
		t.Fatalf("tools/list = %v", got)
	}

	con.publish(signBundle(t, k, 2, clk.Now(), 0, up.URL, getOrderTool(), deleteOrderTool()))
	mustSync(t, r)
	waitChanged(t, changed)
	if got := names(listTools(t, cs)); !slices.Equal(got, []string{"deleteOrder", "getOrder"}) {
		t.Fatalf("tools/list after v2 = %v", got)
	}
	res, body := callTool(t, cs, "getOrder", map[string]any{"order_id": "nope"})
	if errObj, _ := body["error"].(map[string]any); errObj["class"] != "REJECTED" {
		t.Errorf("getOrder after swap = isError %v, %v", res.IsError, body)
	}
	// createOrder is gone: a client holding an old list gets a protocol
	// error from the SDK, never a call.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "createOrder", Arguments: map[string]any{}}); err == nil {
		t.Error("calling a removed tool succeeded")
	}
}

func TestMCPOverStreamableHTTP(t *testing.T) {
	k := testKey(t, 1)
	_, up := upstream(t)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, getOrderTool()))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	mustSync(t, r)
	srv := httptest.NewServer(r.MCPHandler())
	t.Cleanup(srv.Close)

	changed := make(chan struct{}, 4)
	client := mcp.NewClient(&mcp.Implementation{Name: "http-agent", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	_, body := callTool(t, cs, "getOrder", map[string]any{"order_id": "ord_0404"})
	if errObj, _ := body["error"].(map[string]any); errObj["class"] != "REJECTED" {
		t.Errorf("call over HTTP = %v", body)
	}
	con.publish(signBundle(t, k, 2, clk.Now(), 0, up.URL, getOrderTool(), createOrderTool(nil)))
	mustSync(t, r)
	waitChanged(t, changed)
	if got := names(listTools(t, cs)); !slices.Equal(got, []string{"createOrder", "getOrder"}) {
		t.Errorf("tools/list over HTTP after v2 = %v", got)
	}
}

func TestInputSchemaKeyArgument(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		key    *policy.IdempotencyKey
		want   []string
	}{
		{"no key", `{"type":"object","properties":{"a":{}}}`, nil, []string{"a"}},
		{"generated key", `{"type":"object","properties":{"a":{}}}`, &policy.IdempotencyKey{Header: "Idempotency-Key", Source: policy.KeyGenerated}, []string{"a"}},
		{"argument key added", `{"type":"object","properties":{"a":{}}}`, &policy.IdempotencyKey{Header: "X-Key", Source: policy.KeyArgument, Argument: "k"}, []string{"a", "k"}},
		{"default argument name", `{"type":"object"}`, &policy.IdempotencyKey{Header: "X-Key", Source: policy.KeyArgument}, []string{"idempotency_key"}},
		{"already declared", `{"type":"object","properties":{"k":{"type":"string","description":"own"}}}`, &policy.IdempotencyKey{Source: policy.KeyArgument, Argument: "k"}, []string{"k"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &bundle.Tool{Name: "t", InputSchema: json.RawMessage(tc.schema), Policy: policy.Policy{IdempotencyKey: tc.key}}
			var got struct {
				Properties map[string]map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(inputSchema(b), &got); err != nil {
				t.Fatal(err)
			}
			if keys := slices.Sorted(maps.Keys(got.Properties)); !slices.Equal(keys, tc.want) {
				t.Errorf("properties = %v, want %v", keys, tc.want)
			}
			if tc.name == "already declared" && !strings.Contains(got.Properties["k"]["description"].(string), "own") {
				t.Error("an argument the schema declares was overwritten")
			}
		})
	}
}
