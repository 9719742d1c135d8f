package executor

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
)

// paymentTool is POST /payments with a typed amount and account, under
// conds.
func paymentTool(conds ...policy.Condition) bundle.Tool {
	t := testTool("pay", "POST", "/payments", policy.Policy{Conditions: conds},
		bundle.Param{Name: "amount", In: "query", Arg: "amount"},
		bundle.Param{Name: "account", In: "query", Arg: "account"})
	t.InputSchema = json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number"},"account":{"type":"string"}}}`)
	return t
}

// TestConditionDeniesBeforeAnyRequest: a refused call is POLICY_DENIED
// with the rule's own message and sends nothing; the same tool with
// compliant arguments reaches the upstream.
func TestConditionDeniesBeforeAnyRequest(t *testing.T) {
	up := newUpstream(t, jsonBody(200, `{}`))
	e := newExecutor(t, testBundle(up.URL, paymentTool(
		policy.Condition{Effect: policy.ConditionDeny, Expr: "args.amount > 100", Message: "payments above 100 need a person"},
		policy.Condition{Effect: policy.ConditionAllowOnly, Expr: "args.account in principal.groups", Message: "not your account"},
	)), Options{})
	ctx := principal.NewContext(context.Background(), principal.New(principal.OIDC, "alice", "", []string{"acct-1"}))

	r := e.Call(ctx, "pay", map[string]any{"amount": json.Number("150"), "account": "acct-1"})
	wantClass(t, r, ClassPolicyDenied)
	if r.Err.Message != "payments above 100 need a person" || r.Err.MayHaveApplied {
		t.Fatalf("error = %+v, want the rule's message and may_have_applied false", r.Err)
	}
	r = e.Call(ctx, "pay", map[string]any{"amount": json.Number("50"), "account": "acct-2"})
	if wantClass(t, r, ClassPolicyDenied); r.Err.Message != "not your account" {
		t.Fatalf("error = %+v, want the allow_only rule's message", r.Err)
	}
	if n := len(up.Requests()); n != 0 {
		t.Fatalf("upstream received %d requests for refused calls, want 0", n)
	}
	wantClass(t, e.Call(ctx, "pay", map[string]any{"amount": json.Number("50"), "account": "acct-1"}), "")
	if n := len(up.Requests()); n != 1 {
		t.Fatalf("upstream received %d requests, want the compliant call's 1", n)
	}
}

// TestConditionThatDoesNotCompileWithholdsTheTool: the compile step
// refuses a condition that does not type-check against the input schema,
// CompileTool and New alike.
func TestConditionThatDoesNotCompileWithholdsTheTool(t *testing.T) {
	bt := paymentTool(policy.Condition{Effect: policy.ConditionDeny, Expr: "args.amount > 'a lot'", Message: "m"})
	err := CompileTool(bundle.Source{Name: "api", Origin: "https://api.example.com"}, bt)
	if err == nil || !strings.Contains(err.Error(), "condition 1, line 1, column 13") {
		t.Fatalf("CompileTool = %v, want the condition's position", err)
	}
	e := newExecutor(t, testBundle("https://api.example.com", bt), Options{})
	w := e.Withheld()
	if len(w) != 1 || !strings.Contains(w[0].Reason, "condition 1") {
		t.Fatalf("Withheld = %+v, want pay withheld for its condition", w)
	}
	wantClass(t, e.Call(context.Background(), "pay", map[string]any{"amount": 1}), ClassToolNotExposed)
}
