package condition

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
)

func ask(effect, expr string) policy.Condition {
	return policy.Condition{Effect: effect, Expr: expr, Message: effect + ": " + expr}
}

// TestEvaluateAsks: confirm and approve rules ask a person rather than
// refuse; a refusal anywhere wins over an ask, the strongest ask wins,
// and the tool's per-call mode raises the ask, never lowers it (R16).
func TestEvaluateAsks(t *testing.T) {
	big := `{"account_id":"a","amount":500}`
	small := `{"account_id":"a","amount":5}`
	tests := []struct {
		name    string
		conds   []policy.Condition
		perCall string
		args    string
		rule    int    // refusing rule, -1 none
		want    string // the ask
		askRule int
	}{
		{"approve when true", []policy.Condition{ask("approve", "args.amount > 100")}, "", big, -1, "approve", 0},
		{"no ask when false", []policy.Condition{ask("approve", "args.amount > 100")}, "", small, -1, "", -1},
		{"a later refusal wins over an ask", []policy.Condition{ask("confirm", "true"), deny("args.amount > 100")}, "", big, 1, "", -1},
		{"an earlier refusal wins too", []policy.Condition{deny("args.amount > 100"), ask("approve", "true")}, "", big, 0, "", -1},
		{"the strongest ask wins", []policy.Condition{ask("confirm", "true"), ask("approve", "args.amount > 100"), ask("confirm", "true")}, "", big, -1, "approve", 1},
		{"of equal asks the first", []policy.Condition{ask("confirm", "args.amount > 1"), ask("confirm", "true")}, "", big, -1, "confirm", 0},
		{"the tool's mode alone", nil, "confirm", big, -1, "confirm", -1},
		{"the tool's stronger mode wins", []policy.Condition{ask("confirm", "true")}, "approve", big, -1, "approve", -1},
		{"the condition's stronger ask wins", []policy.Condition{ask("approve", "true")}, "confirm", big, -1, "approve", 0},
		{"an equal mode keeps the condition's reason", []policy.Condition{ask("confirm", "true")}, "confirm", big, -1, "confirm", 0},
		{"the tool's mode does not lift a refusal", []policy.Condition{deny("true")}, "approve", big, 0, "", -1},
		{"an ask that cannot be evaluated refuses", []policy.Condition{ask("approve", "args.force")}, "", big, 0, "", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile(json.RawMessage(plainSchema), tt.conds)
			if err != nil {
				t.Fatal(err)
			}
			d := s.Evaluate(decode(t, tt.args), principal.Principal{}).WithPerCall(tt.perCall)
			if d.Rule != tt.rule || d.Ask != tt.want || d.Ask != "" && d.AskRule != tt.askRule {
				t.Fatalf("Evaluate = %+v, want rule %d, ask %q by rule %d", d, tt.rule, tt.want, tt.askRule)
			}
			if d.Ask != "" {
				want := ""
				if tt.askRule >= 0 {
					want = tt.conds[tt.askRule].Message
				}
				if d.AskMessage != want {
					t.Fatalf("ask message %q, want %q", d.AskMessage, want)
				}
			}
		})
	}
}
