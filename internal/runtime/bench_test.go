package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/sampleapi"
)

// BenchmarkToolCall compares one getOrder call against the same sample API
// upstream: the executor alone, Runtime.Call (staleness rule, log line,
// metrics), and a full MCP tools/call over streamable HTTP on loopback. The
// difference is the runtime's and MCP's overhead per call.
func BenchmarkToolCall(b *testing.B) {
	k := testKey(b, 1)
	api := sampleapi.New(sampleapi.Options{Seed: true})
	up := httptest.NewServer(api)
	b.Cleanup(up.Close)
	con := newFakeConsole(b, keySet(k))
	con.publish(signBundle(b, k, 1, time.Now(), 0, up.URL, getOrderTool()))
	r, err := New(Options{ConsoleURL: con.URL, Token: testToken, DataDir: b.TempDir(), TrustedKeys: keySet(k),
		Executor: sampleCredentials(b)})
	if err != nil {
		b.Fatal(err)
	}
	mustSync(b, r)
	args := map[string]any{"order_id": "ord_0001"}
	ctx := context.Background()

	b.Run("executor", func(b *testing.B) {
		exec := r.snap.Load().exec
		for b.Loop() {
			if res := exec.Call(ctx, "getOrder", args); !res.OK {
				b.Fatal(res.Err)
			}
		}
	})
	b.Run("runtime", func(b *testing.B) {
		for b.Loop() {
			if res := r.Call(ctx, "getOrder", args); !res.OK {
				b.Fatal(res.Err)
			}
		}
	})
	b.Run("mcp-streamable-http", func(b *testing.B) {
		srv := httptest.NewServer(r.MCPHandler())
		defer srv.Close()
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "getOrder", Arguments: args}
		for b.Loop() {
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}

// manyTools is a bundle input of n GET tools on one source; tag changes
// every description so two inputs with different tags differ in every tool.
func manyTools(n int, tag string) []bundle.ToolInput {
	p := policy.NewToolPolicy("GET", risk.Read, policy.BuiltinDefaults())
	p.Exposed = true
	tools := make([]bundle.ToolInput, n)
	for i := range tools {
		tools[i] = bundle.ToolInput{Name: fmt.Sprintf("getItem%05d", i), Source: "shop", Method: "GET",
			Path: fmt.Sprintf("/items%d/{id}", i), Description: fmt.Sprintf("Get item kind %d (%s)", i, tag),
			Params:      []bundle.Param{{Name: "id", In: "path", Arg: "id", Required: true}, {Name: "expand", In: "query", Arg: "expand"}},
			InputSchema: json.RawMessage(`{"type":"object","required":["id"],"properties":{"id":{"type":"string","maxLength":64},"expand":{"type":"boolean"}}}`),
			Assessment:  risk.Assessment{Class: risk.Read, Reasons: []risk.Reason{{Code: "method:GET", Class: risk.Read, Text: "GET reads"}}},
			Policy:      p}
	}
	return tools
}

// BenchmarkBundleSwap5000 measures taking a 5,000-tool bundle into use:
// verification alone, then verify + compile the executor + atomic swap +
// MCP tool-list reconcile, once with unchanged tool definitions (a
// re-publish) and once with every definition changed (every tool re-added).
func BenchmarkBundleSwap5000(b *testing.B) {
	const n = 5000
	k := testKey(b, 1)
	now := time.Now()
	sign := func(tag string) []byte {
		return signBundle(b, k, 1, now, 0, "https://api.example.com", manyTools(n, tag)...)
	}
	a, c := sign("a"), sign("c")
	b.Logf("signed bundle of %d tools: %d bytes", n, len(a))
	con := newFakeConsole(b, keySet(k))
	r, err := New(Options{ConsoleURL: con.URL, Token: testToken, DataDir: b.TempDir(), TrustedKeys: keySet(k),
		Executor: executor.Options{}})
	if err != nil {
		b.Fatal(err)
	}
	swap := func(b *testing.B, signed []byte) {
		bd, _, err := bundle.Verify(signed, *keySet(k), bundle.VerifyOptions{Now: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.install(bd, signed, "", time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := bundle.Verify(a, *keySet(k), bundle.VerifyOptions{Now: time.Now()}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("swap-same-definitions", func(b *testing.B) {
		swap(b, a)
		for b.Loop() {
			swap(b, a)
		}
	})
	b.Run("swap-all-changed", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if i++; i%2 == 0 {
				swap(b, a)
			} else {
				swap(b, c)
			}
		}
	})
	if got := r.Status().Tools; got != n {
		b.Fatalf("tools in force = %d, want %d", got, n)
	}
}
