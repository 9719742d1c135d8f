package condition

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/principal"
)

// BenchmarkEvaluate is the cost of the two rules the runtime's
// BenchmarkMCPToolCallCondition uses, on one call's arguments.
func BenchmarkEvaluate(b *testing.B) {
	s, err := Compile(json.RawMessage(`{"type":"object","properties":{"item_id":{"type":"string"}}}`), []policy.Condition{
		{Effect: policy.ConditionDeny, Expr: "args.item_id in ['0', 'admin'] || args.item_id.startsWith('internal-')", Message: "m"},
		{Effect: policy.ConditionAllowOnly, Expr: "size(args.item_id) <= 64 && principal.kind != 'oidc'", Message: "m"},
	})
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"item_id": "42"}
	p := principal.Principal{Kind: principal.Anonymous}
	b.ReportAllocs()
	for b.Loop() {
		if d := s.Evaluate(args, p); !d.Allowed() {
			b.Fatal(d.Message)
		}
	}
}
