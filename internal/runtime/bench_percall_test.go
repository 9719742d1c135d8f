package runtime

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/policy"
)

// BenchmarkPerCallConfirmed is the whole confirm path over MCP against the
// test console on loopback — elicitation round trip, filing (approved at
// once), grant verification, the consume call, the upstream request —
// against BenchmarkPerCallPlain, the same tool without a per-call mode:
// their ratio is what asking costs besides the person's own time.
func BenchmarkPerCallConfirmed(b *testing.B) { benchPerCall(b, policy.PerCallConfirm) }

// BenchmarkPerCallPlain is the baseline of BenchmarkPerCallConfirmed.
func BenchmarkPerCallPlain(b *testing.B) { benchPerCall(b, "") }

func benchPerCall(b *testing.B, mode string) {
	f := newGateFixture(b, gateSetup{tool: payoutTool(mode),
		client: &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		}}})
	b.ResetTimer()
	for i := range b.N {
		// New arguments each time: a confirmed call's grant is spent.
		res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "payout",
			Arguments: map[string]any{"amount": i, "account": "acct-7"}})
		if err != nil || res.IsError {
			b.Fatalf("call %d: %v %v", i, res, err)
		}
	}
}
