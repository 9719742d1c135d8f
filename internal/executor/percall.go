package executor

import (
	"context"
	"fmt"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/policy"
)

// Ask is the human decision a call needs before it may run (R16): the
// tool's per-call mode, or a confirm/approve condition that held, the
// stronger of the two.
type Ask struct {
	// Mode is policy.PerCallConfirm or policy.PerCallApprove.
	Mode string
	// Reason is the asking condition's message; "" when the tool's own
	// per-call mode asked.
	Reason string
}

type grantKey struct{}

// WithGrant returns ctx carrying a grant the caller verified, checked
// against this exact call (bundle.Grant.Binds) and consumed at the
// console: under it, Call runs a call its tool's policy asks a person
// about, when the grant names the tool and decides at least the mode
// asked. The executor cannot consume grants itself; without one such a
// call is refused (the runtime asks the person, README "Per-call
// decisions").
func WithGrant(ctx context.Context, g *bundle.Grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// granted reports whether ctx carries a grant for tool that decides mode.
func granted(ctx context.Context, tool, mode string) bool {
	g, _ := ctx.Value(grantKey{}).(*bundle.Grant)
	return g != nil && g.Tool == tool && policy.PerCallRank(g.Mode) >= policy.PerCallRank(mode)
}

// askError is the refusal of a call that needs a person and has no grant:
// POLICY_DENIED, nothing sent. A runtime connected to a console replaces
// it by asking (Result.Ask says for what).
func askError(tool string, a *Ask) *Error {
	who := "the principal to confirm it"
	if a.Mode == policy.PerCallApprove {
		who = "a security approver to approve it"
	}
	msg := fmt.Sprintf("tool %q asks %s before each call", tool, who)
	if a.Reason != "" {
		msg = fmt.Sprintf("tool %q asks %s before this call: %s", tool, who, a.Reason)
	}
	return &Error{Class: ClassPolicyDenied, Message: msg + "; this runtime cannot ask anyone (it is not connected to a toolgate console)",
		Instruction: "Nothing was sent. Call this tool through a toolgate runtime connected to the console, which asks the person, or use another tool."}
}
