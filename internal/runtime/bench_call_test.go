package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/testing/mcpref"
)

// itemJSON is what the benchmark upstream answers.
var itemJSON = mcpref.ItemJSON

const itemSchema = `{"type":"object","additionalProperties":false,"required":["item_id"],"properties":{"item_id":{"type":"string","minLength":1,"maxLength":64}}}`

// BenchmarkMCPToolCall measures MCP tools/call latency over streamable HTTP
// on loopback: the runtime (schema validation, executor, staleness rule,
// metrics, log line) against the reference go-sdk server whose handler
// makes the same GET to the same upstream with the same transport settings
// and returns the body. Calls alternate between the two in the same loop,
// one pair per iteration (the order alternating), sequentially (c=1) and
// from 8 concurrent pairs of sessions (c=8):
//
//	runtime-us, gosdk-us   mean latency of one tools/call
//	ratio                  runtime-us / gosdk-us
func BenchmarkMCPToolCall(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(itemJSON)
	}))
	b.Cleanup(up.Close)
	rtURL, refURL := runtimeEndpoint(b, up.URL), referenceEndpoint(b, up.URL)
	for _, c := range []int{1, 8} {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			pairs := make([][2]*mcp.ClientSession, c)
			for i := range pairs {
				pairs[i] = [2]*mcp.ClientSession{dialMCP(b, rtURL), dialMCP(b, refURL)}
			}
			var mu sync.Mutex
			var rt, ref time.Duration
			calls := 0
			for b.Loop() {
				var wg sync.WaitGroup
				for i, p := range pairs {
					// Half the pairs call the reference first, and the order
					// flips every iteration: whichever goes first meets the
					// burst of concurrent calls.
					first := (i + calls) % 2
					wg.Go(func() {
						var d [2]time.Duration
						d[first] = timedCall(b, p[first])
						d[1-first] = timedCall(b, p[1-first])
						d0, d1 := d[0], d[1]
						mu.Lock()
						rt, ref = rt+d0, ref+d1
						mu.Unlock()
					})
				}
				wg.Wait()
				calls += c
			}
			b.ReportMetric(float64(rt.Microseconds())/float64(calls), "runtime-us")
			b.ReportMetric(float64(ref.Microseconds())/float64(calls), "gosdk-us")
			b.ReportMetric(float64(rt)/float64(ref), "ratio")
		})
	}
}

func timedCall(b *testing.B, cs *mcp.ClientSession) time.Duration {
	t0 := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "getItem", Arguments: map[string]any{"item_id": "42"}})
	d := time.Since(t0)
	if err != nil || res.IsError {
		b.Errorf("tools/call: %v %+v", err, res)
	}
	return d
}

// runtimeEndpoint serves a runtime with one getItem tool on upstream.
func runtimeEndpoint(b *testing.B, upstream string) string {
	srv := httptest.NewServer(benchRuntime(b, upstream).MCPHandler())
	b.Cleanup(srv.Close)
	return srv.URL
}

// benchRuntime is a runtime serving one getItem tool on upstream.
func benchRuntime(b *testing.B, upstream string) *Runtime {
	return benchRuntimeWith(b, upstream, getItemTool(nil))
}

// benchRuntimeWith is benchRuntime serving tool instead.
func benchRuntimeWith(b *testing.B, upstream string, tool bundle.ToolInput) *Runtime {
	k := testKey(b, 1)
	con := newFakeConsole(b, keySet(k))
	con.publish(signBundle(b, k, 1, time.Now(), 0, upstream, tool))
	r, err := New(Options{ConsoleURL: con.URL, Token: testToken, DataDir: b.TempDir(), TrustedKeys: keySet(k)})
	if err != nil {
		b.Fatal(err)
	}
	mustSync(b, r)
	return r
}

// referenceEndpoint serves the reference go-sdk server with the same tool,
// whose handler GETs upstream/items/{item_id} and returns the body.
func referenceEndpoint(b *testing.B, upstream string) string {
	client := &http.Client{Transport: executor.NewTransport(), Timeout: 8 * time.Second}
	s := newReferenceServer()
	s.AddTool(&mcp.Tool{Name: "getItem", Description: "Get an item by id.", InputSchema: json.RawMessage(itemSchema)},
		mcpref.GetItem(client, upstream))
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute}))
	b.Cleanup(srv.Close)
	return srv.URL
}

func dialMCP(b *testing.B, endpoint string) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}
