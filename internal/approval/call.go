package approval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/policy"
)

// Per-call decisions (R16): who may decide a call request, which modes a
// tool's policy lets a runtime ask for, and which state changes a request
// may make. The store loads the facts in the decision's transaction and
// calls these, as it calls MayDecide for change requests.

// Refusal codes of call decisions, besides NotAnApprover and the
// independence codes.
const (
	// OwnCall: the approver is the principal the call is for (approve mode).
	OwnCall Code = "own_call"
	// NotThePrincipal: someone other than the principal tried to confirm
	// a call (confirm mode).
	NotThePrincipal Code = "not_the_principal"
)

// CallPrincipal is who a call is for, as the runtime filed it.
type CallPrincipal struct {
	Kind    string // principal kind: oidc, token, local, anonymous
	Subject string
}

// CallDecider is the console account asking to decide a call request.
type CallDecider struct {
	Account
	Approver bool // holds the approver role
	Disabled bool
	// Subject is the identity provider's subject of a managed account, ""
	// for a local account.
	Subject string
}

// IsPrincipal reports whether the console account d is the person the
// call is for: a managed account whose provider subject is an OIDC
// principal's subject, or an account whose email (user name) is the
// principal's subject, ignoring case. An anonymous principal is nobody.
func IsPrincipal(d CallDecider, p CallPrincipal) bool {
	if p.Subject == "" || p.Kind == "anonymous" {
		return false
	}
	if d.Subject != "" && p.Kind == "oidc" && d.Subject == p.Subject {
		return true
	}
	return strings.EqualFold(d.Email, p.Subject)
}

// MayDecideCall refuses a decision (approve or deny) by d of a call
// request of mode for principal p, or returns nil. Approve mode: an
// enabled approver who is not the principal (four eyes, R10); the caller
// also checks Independence against the principal's account when there is
// one. Confirm mode: the principal themselves, whatever their roles.
func MayDecideCall(d CallDecider, mode string, p CallPrincipal) *Refusal {
	if d.Disabled {
		return &Refusal{Code: NotAnApprover, Message: "A disabled account cannot decide call requests."}
	}
	if mode == policy.PerCallConfirm {
		if !IsPrincipal(d, p) {
			return &Refusal{Code: NotThePrincipal, Message: "Only " + principalName(p) +
				", for whom the call would be made, can confirm it."}
		}
		return nil
	}
	if !d.Approver {
		return &Refusal{Code: NotAnApprover, Message: "Only a security approver can decide call requests."}
	}
	if IsPrincipal(d, p) {
		return &Refusal{Code: OwnCall, Message: "This call would be made for you, so another approver must decide it (R16)."}
	}
	return nil
}

// principalName names a principal in a sentence.
func principalName(p CallPrincipal) string {
	if p.Subject == "" {
		return "the " + p.Kind + " principal"
	}
	return p.Subject
}

// CallModeAsked checks that a runtime may ask for mode on a tool with
// policy p: p's own per-call mode, or the effect of one of its confirm
// or approve conditions. Never weaker than the tool's per-call mode: a
// tool set to approve is never merely confirmed.
func CallModeAsked(p policy.Policy, mode string) error {
	if mode != policy.PerCallConfirm && mode != policy.PerCallApprove {
		return fmt.Errorf("mode %q is not %q or %q", mode, policy.PerCallConfirm, policy.PerCallApprove)
	}
	if policy.PerCallRank(mode) < policy.PerCallRank(p.PerCall) {
		return fmt.Errorf("the tool's per-call mode is %s, so a call cannot be merely %sed", p.PerCall, mode)
	}
	if p.PerCall == mode || slices.ContainsFunc(p.Conditions, func(c policy.Condition) bool { return c.Effect == mode }) {
		return nil
	}
	return fmt.Errorf("neither the tool's per-call mode nor any of its conditions asks for %s", mode)
}

// callMoves are the state changes a call request may make.
var callMoves = map[string][]string{
	"pending":  {"approved", "denied", "expired"},
	"approved": {"consumed", "expired"},
}

// CallTransition refuses a state change of a call request that the flow
// does not allow (a decision on a request no longer pending, a grant
// spent twice), with the sentence to show, or returns nil.
func CallTransition(from, to string) *Refusal {
	if slices.Contains(callMoves[from], to) {
		return nil
	}
	if from == "pending" || to == "consumed" || to == "expired" {
		return &Refusal{Code: "invalid_transition", Message: "A call request cannot go from " + from + " to " + to + "."}
	}
	return &Refusal{Code: "decided", Message: "This call request is no longer waiting for a decision (it is " + from + ")."}
}

// Limits bounds the call requests waiting at once, so that an agent in a
// loop cannot bury approvers (R16).
type Limits struct {
	PerPrincipal int
	PerTool      int
}

// DefaultLimits are the bounds when the console is not told otherwise.
var DefaultLimits = Limits{PerPrincipal: 20, PerTool: 100}

// Over refuses a new request when the principal already has
// pendingPrincipal requests waiting, or the tool pendingTool, at or over
// the limits; nil otherwise.
func (l Limits) Over(pendingPrincipal, pendingTool int, tool string) *Refusal {
	if l.PerPrincipal > 0 && pendingPrincipal >= l.PerPrincipal {
		return &Refusal{Code: "too_many_pending", Message: fmt.Sprintf("%d call requests for this principal are already "+
			"waiting for a decision (at most %d): wait for them to be decided or to expire, then call again.",
			pendingPrincipal, l.PerPrincipal)}
	}
	if l.PerTool > 0 && pendingTool >= l.PerTool {
		return &Refusal{Code: "too_many_pending", Message: fmt.Sprintf("%d call requests for tool %s are already "+
			"waiting for a decision (at most %d): wait for them to be decided or to expire, then call again.",
			pendingTool, tool, l.PerTool)}
	}
	return nil
}

// DenyComment refuses a denial of an approve-mode request without a
// comment: the agent, and the person behind it, read why. A principal
// declining their own call need not say why.
func DenyComment(mode string, approve bool, comment string) *Refusal {
	if approve || mode == policy.PerCallConfirm || strings.TrimSpace(comment) != "" {
		return nil
	}
	return &Refusal{Code: "comment_required", Message: "Say why you deny the call: the agent and the person behind it read it."}
}
