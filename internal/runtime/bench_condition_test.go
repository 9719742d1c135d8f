package runtime

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// benchConditions are two typical rules: a deny on an argument, an
// allow_only on argument and principal.
var benchConditions = []policy.Condition{
	{Effect: policy.ConditionDeny, Expr: "args.item_id in ['0', 'admin'] || args.item_id.startsWith('internal-')", Message: "not this item"},
	{Effect: policy.ConditionAllowOnly, Expr: "size(args.item_id) <= 64 && principal.kind != 'oidc'", Message: "anonymous callers only"},
}

// BenchmarkMCPToolCallCondition measures what argument conditions add to
// an MCP tools/call over streamable HTTP on loopback: the same runtime
// tool with the two benchConditions against it without any, calls
// alternating in one loop as in BenchmarkMCPToolCall:
//
//	cel-us, plain-us   mean latency of one tools/call
//	ratio              cel-us / plain-us
func BenchmarkMCPToolCallCondition(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(itemJSON)
	}))
	b.Cleanup(up.Close)
	cel := dialMCP(b, conditionEndpoint(b, up.URL, benchConditions))
	plain := dialMCP(b, conditionEndpoint(b, up.URL, nil))
	var withCEL, without time.Duration
	calls := 0
	for b.Loop() {
		if calls%2 == 0 {
			withCEL += timedCall(b, cel)
			without += timedCall(b, plain)
		} else {
			without += timedCall(b, plain)
			withCEL += timedCall(b, cel)
		}
		calls++
	}
	b.ReportMetric(float64(withCEL.Microseconds())/float64(calls), "cel-us")
	b.ReportMetric(float64(without.Microseconds())/float64(calls), "plain-us")
	b.ReportMetric(float64(withCEL)/float64(without), "ratio")
}

// getItemTool is the benchmarks' GET /items/{item_id} tool under conds.
func getItemTool(conds []policy.Condition) bundle.ToolInput {
	p := policy.NewToolPolicy("GET", risk.Read, policy.BuiltinDefaults())
	p.Exposed, p.Conditions = true, conds
	return bundle.ToolInput{Name: "getItem", Source: "shop", Method: "GET", Path: "/items/{item_id}",
		Description: "Get an item by id.",
		Params:      []bundle.Param{{Name: "item_id", In: "path", Arg: "item_id", Required: true}},
		InputSchema: json.RawMessage(itemSchema),
		Assessment:  risk.Assessment{Class: risk.Read, Reasons: []risk.Reason{{Code: "method:GET", Class: risk.Read, Text: "GET reads"}}},
		Policy:      p}
}

// conditionEndpoint serves a runtime whose getItem tool carries conds,
// installed in memory (the bundle wire format this runtime reads may not
// carry conditions).
func conditionEndpoint(b *testing.B, upstream string, conds []policy.Condition) string {
	tool := getItemTool(conds)
	bnd, err := bundle.Build(bundle.BuildInput{Version: 1, Now: time.Now(), Sources: []bundle.Source{{Name: "shop", Origin: upstream}},
		Tools: []bundle.ToolInput{tool}})
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(Options{ConsoleURL: "http://127.0.0.1:1", Token: testToken, DataDir: b.TempDir(), TrustedKeys: keySet(testKey(b, 1))})
	if err != nil {
		b.Fatal(err)
	}
	if err := r.install(bnd, []byte("in-memory.bundle"), "", time.Now()); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(r.MCPHandler())
	b.Cleanup(srv.Close)
	return srv.URL
}
