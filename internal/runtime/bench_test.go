package runtime

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
