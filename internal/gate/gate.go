// Package gate decides which tools a signed bundle may carry (R10, R13,
// R14). Publishing, the next-bundle preview and a rollback all ask Decide,
// one tool at a time, with the approvals valid now: no path signs a risky
// tool that no current approval covers, and all three give the same reason
// for leaving a tool out. The store reads the facts inside its transaction;
// this package holds the rule and its sentences and touches no database.
//
// A tool is risky when signing it needs an approval: it is DESTRUCTIVE or
// PRIVILEGED (policy.ExposeRisky), it is retried although it is not safe by
// method (policy.EnableMutationRetry), or its class in force is below the
// risk engine's verdict (policy.LowerRiskClass). For each of these an
// approval of that kind must cover it:
//   - the definition digest the approval pinned is the digest of the tool's
//     definition, as it would be signed, under the state the approval
//     approved (what agents read and send did not change since);
//   - a mutation-retry approval allows at least the retry the tool would
//     get (no later edit enlarged it);
//   - a lowering approval lowered the class to the class in force.
//
// A tool the runtime's executor would refuse is left out too, with the
// executor's reason, so a bundle never carries what every runtime refuses.
package gate

import (
	"fmt"
	"slices"

	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/executor"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/risk"
)

// Approval is a change request approved and not void now: its kind, the
// digest it pinned and the state it approved.
type Approval struct {
	// Kind is the R10 action the request asked for.
	Kind policy.Action
	// Digest is the definition digest the request pinned; "" for requests
	// recorded before digests were (no digest check).
	Digest string
	// Policy is the approved policy (the policy kinds); Class the approved
	// class (policy.LowerRiskClass).
	Policy policy.Policy
	Class  risk.Class
	// Record is how a bundle names the approval.
	Record bundle.Approval
}

// Tool is one tool a bundle would sign: its definition with the class in
// force and its policy (stored or effective), its source, and the risk
// engine's verdict on it (a class in force below it was lowered).
type Tool struct {
	Input    bundle.ToolInput
	Source   bundle.Source
	Detected risk.Class
}

// Decision is the gate's answer for one tool.
type Decision struct {
	// Reason says why the tool is left out; "" means it may be signed.
	Reason string
	// Approvals are the approvals that cover it, as the bundle records
	// them, in the order given.
	Approvals []bundle.Approval
}

// Publishable reports whether the tool may be signed.
func (d Decision) Publishable() bool { return d.Reason == "" }

// Decide says whether t may be signed under approvals (the tool's own,
// approved and not void now) and which of them cover it.
func Decide(t Tool, approvals []Approval) (Decision, error) {
	var d Decision
	for _, need := range Needs(t) {
		covering, why, err := cover(t, need, approvals)
		if err != nil || why != "" {
			return Decision{Reason: why}, err
		}
		d.Approvals = append(d.Approvals, covering...)
	}
	if why := compileRefusal(t); why != "" {
		return Decision{Reason: why}, nil
	}
	return d, nil
}

// Needs lists the approvals signing t needs, in a fixed order.
func Needs(t Tool) []policy.Action {
	p := t.Input.Policy
	p.Exposed = true
	needs := policy.ApprovalNeeded(t.Input.Method, t.Input.Assessment.Class, policy.Policy{}, p)
	if policy.LowerRisk(t.Detected, t.Input.Assessment.Class) {
		needs = append(needs, policy.LowerRiskClass)
	}
	return needs
}

// cover returns the approvals of kind need that cover t, or why none does.
func cover(t Tool, need policy.Action, approvals []Approval) ([]bundle.Approval, string, error) {
	var out []bundle.Approval
	var why string
	for _, a := range approvals {
		if a.Kind != need {
			continue
		}
		w, err := mismatch(t, a)
		if err != nil {
			return nil, "", err
		}
		if w == "" {
			out = append(out, a.Record)
		} else if why == "" {
			why = w
		}
	}
	if len(out) > 0 {
		return out, "", nil
	}
	if why == "" {
		why = unapproved(t, need)
	}
	return nil, why, nil
}

// unapproved is the reason for a tool that no approval of kind need names.
func unapproved(t Tool, need policy.Action) string {
	in := t.Input
	switch need {
	case policy.ExposeRisky:
		return fmt.Sprintf("%s and exposed without an approved change request", in.Assessment.Class)
	case policy.EnableMutationRetry:
		return "retry enabled on a " + in.Method + " tool without an approved change request"
	default:
		return fmt.Sprintf("class lowered from %s to %s without an approved change request", t.Detected, in.Assessment.Class)
	}
}

// mismatch says why approval a does not cover t, or "".
func mismatch(t Tool, a Approval) (string, error) {
	in := t.Input
	in.Policy.Exposed = true
	approved := in
	if a.Kind == policy.LowerRiskClass {
		if a.Class != in.Assessment.Class {
			return fmt.Sprintf("change request %d lowered the class to %s, not to %s", a.Record.ChangeRequest, a.Class, in.Assessment.Class), nil
		}
	} else {
		approved.Policy = a.Policy
		approved.Policy.Exposed = true
	}
	if a.Digest != "" {
		bt, err := bundle.BuildTool(approved, t.Source)
		if err != nil {
			return "", fmt.Errorf("gate: %w", err)
		}
		if bt.Digest != a.Digest {
			return fmt.Sprintf("change request %d approved another definition of this tool (what agents read or send changed since)",
				a.Record.ChangeRequest), nil
		}
	}
	// Compared as runtimes read them: an old bundle holds effective
	// policies (defaults filled in), the store holds what was typed.
	approvedEff, eff := policy.Effective(in.Method, approved.Policy), policy.Effective(in.Method, in.Policy)
	if a.Kind == policy.EnableMutationRetry &&
		slices.Contains(policy.ApprovalNeeded(in.Method, in.Assessment.Class, approvedEff, eff), policy.EnableMutationRetry) {
		return fmt.Sprintf("retry goes beyond what change request %d approved", a.Record.ChangeRequest), nil
	}
	return "", nil
}

// compileRefusal runs the runtime executor's own compile step on the tool
// as it would be signed and returns its refusal as a sentence, or "". A
// source without an origin is left to the caller, which refuses the whole
// publish for it.
func compileRefusal(t Tool) string {
	if t.Source.Origin == "" {
		return ""
	}
	in := t.Input
	in.Policy.Exposed = true
	bt, err := bundle.BuildTool(in, t.Source)
	if err == nil {
		err = executor.CompileTool(t.Source, bt)
	}
	if err != nil {
		return "The runtime's executor would refuse it: " + err.Error() + "."
	}
	return ""
}
