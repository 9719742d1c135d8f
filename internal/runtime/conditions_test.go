package runtime

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
	"github.com/toolgate/toolgate/internal/risk"
)

// refundTool is POST /refunds with an amount and an account, under conds.
func refundTool(conds ...policy.Condition) bundle.ToolInput {
	p := policy.NewToolPolicy("POST", risk.Write, policy.BuiltinDefaults())
	p.Exposed, p.Conditions = true, conds
	return bundle.ToolInput{Name: "refund", Source: "shop", Method: "POST", Path: "/refunds",
		Params:      []bundle.Param{{Name: "amount", In: "query", Arg: "amount"}, {Name: "account", In: "query", Arg: "account"}},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number"},"account":{"type":"string"}}}`),
		Assessment:  risk.Assessment{Class: risk.Write, Reasons: []risk.Reason{{Code: "method:POST", Class: risk.Write, Text: "POST"}}},
		Policy:      p}
}

// TestConditionRefusesThroughMCPBeforeUpstream: through a signed bundle and
// a real MCP client, a
// call a condition denies is POLICY_DENIED with the rule's message and no
// request reaches the upstream; the same call with compliant arguments
// does.
func TestConditionRefusesThroughMCPBeforeUpstream(t *testing.T) {
	var hits atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(up.Close)
	k := testKey(t, 1)
	con := newFakeConsole(t, keySet(k))
	clk := newClock()
	// A signed bundle from the console, as a runtime receives it.
	con.publish(signBundle(t, k, 1, clk.Now(), 0, up.URL, refundTool(
		policy.Condition{Effect: policy.ConditionDeny, Expr: "args.amount > 100", Message: "refunds above 100 need a person"},
		policy.Condition{Effect: policy.ConditionAllowOnly, Expr: "args.account in principal.groups", Message: "only your own accounts"})))
	r := newRuntime(t, rtOpts{keys: keySet(k), clock: clk, console: con.URL})
	var who atomic.Pointer[principal.Principal]
	alice := principal.New(principal.OIDC, "alice", "", []string{"acct-7"})
	who.Store(&alice)
	r.server.AddReceivingMiddleware(asPrincipal(&who))
	mustSync(t, r)
	if s := r.snap.Load().bundle.Schema; s != bundle.SchemaV2 {
		t.Fatalf("bundle schema %q, want %s: conditions travel in v2", s, bundle.SchemaV2)
	}
	cs, _ := connect(t, r)

	for _, c := range []struct {
		args map[string]any
		msg  string
	}{
		{map[string]any{"amount": 150, "account": "acct-7"}, "refunds above 100 need a person"},
		{map[string]any{"amount": 10, "account": "acct-8"}, "only your own accounts"},
	} {
		res, out := callTool(t, cs, "refund", c.args)
		e, _ := out["error"].(map[string]any)
		if !res.IsError || e["class"] != string(executor.ClassPolicyDenied) || e["message"] != c.msg || e["may_have_applied"] != false {
			t.Fatalf("call %v = %v, want POLICY_DENIED %q", c.args, out, c.msg)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("upstream received %d requests for denied calls, want 0", n)
	}
	if res, out := callTool(t, cs, "refund", map[string]any{"amount": 10, "account": "acct-7"}); res.IsError {
		t.Fatalf("compliant call = %v", out)
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("upstream received %d requests, want the compliant call's 1", n)
	}
}
