package executor

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
)

// TestPerCallRunsOnlyUnderAGrant: a tool whose policy asks a person (its
// per-call mode, or a confirm/approve condition that holds) sends nothing
// without a grant and says what it waits for (Result.Ask); a grant for the
// tool that decides at least the mode asked lets it run; a weaker grant,
// or one for another tool, does not (R16).
func TestPerCallRunsOnlyUnderAGrant(t *testing.T) {
	up := newUpstream(t, jsonBody(200, `{}`))
	confirmTool := paymentTool()
	confirmTool.Policy.PerCall = policy.PerCallConfirm
	approveIfBig := paymentTool(policy.Condition{Effect: policy.ConditionApprove, Expr: "args.amount > 100", Message: "big payment"})
	approveIfBig.Name = "pay_big"
	e := newExecutor(t, testBundle(up.URL, confirmTool, approveIfBig), Options{})
	big := map[string]any{"amount": json.Number("150"), "account": "a"}
	grant := func(tool, mode string) context.Context {
		return WithGrant(context.Background(), &bundle.Grant{Tool: tool, Mode: mode})
	}
	tests := []struct {
		name string
		ctx  context.Context
		tool string
		args map[string]any
		ask  *Ask // nil: the call runs
	}{
		{"the tool's mode, no grant", context.Background(), "pay", big, &Ask{Mode: policy.PerCallConfirm}},
		{"a condition's ask, no grant", context.Background(), "pay_big", big, &Ask{Mode: policy.PerCallApprove, Reason: "big payment"}},
		{"a condition that does not hold asks nothing", context.Background(), "pay_big", map[string]any{"amount": json.Number("5"), "account": "a"}, nil},
		{"a confirm grant for confirm", grant("pay", policy.PerCallConfirm), "pay", big, nil},
		{"an approve grant for confirm", grant("pay", policy.PerCallApprove), "pay", big, nil},
		{"a confirm grant for approve", grant("pay_big", policy.PerCallConfirm), "pay_big", big, &Ask{Mode: policy.PerCallApprove, Reason: "big payment"}},
		{"a grant for another tool", grant("pay", policy.PerCallApprove), "pay_big", big, &Ask{Mode: policy.PerCallApprove, Reason: "big payment"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(up.Requests())
			r := e.Call(tt.ctx, tt.tool, tt.args)
			sent := len(up.Requests()) - before
			if tt.ask == nil {
				if wantClass(t, r, ""); sent != 1 || r.Ask != nil {
					t.Fatalf("sent %d, ask %+v; want the call run once", sent, r.Ask)
				}
				return
			}
			wantClass(t, r, ClassPolicyDenied)
			if sent != 0 || r.Ask == nil || *r.Ask != *tt.ask || r.Err.MayHaveApplied {
				t.Fatalf("sent %d, ask %+v, error %+v; want nothing sent and ask %+v", sent, r.Ask, r.Err, *tt.ask)
			}
		})
	}
}
