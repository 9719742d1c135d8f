package approval

import (
	"testing"

	"github.com/toolgate/toolgate/internal/policy"
)

// TestMayDecideCall has one case per refusal and the decisions allowed.
func TestMayDecideCall(t *testing.T) {
	alice := CallDecider{Account: Account{ID: 1, Email: "alice@example.com"}, Approver: true, Subject: "sub-a"}
	bob := CallDecider{Account: Account{ID: 2, Email: "bob@example.com"}, Approver: true}
	viewer := CallDecider{Account: Account{ID: 3, Email: "vera@example.com"}}
	disabled := bob
	disabled.Disabled = true
	forAlice := CallPrincipal{Kind: "token", Subject: "Alice@Example.com"}
	forAliceSSO := CallPrincipal{Kind: "oidc", Subject: "sub-a"}
	forVera := CallPrincipal{Kind: "local", Subject: "vera@example.com"}
	anonymous := CallPrincipal{Kind: "anonymous"}
	for _, tc := range []struct {
		name string
		d    CallDecider
		mode string
		p    CallPrincipal
		want Code
	}{
		{"another approver approves", bob, policy.PerCallApprove, forAlice, ""},
		{"the principal by email", alice, policy.PerCallApprove, forAlice, OwnCall},
		{"the principal by provider subject", alice, policy.PerCallApprove, forAliceSSO, OwnCall},
		{"a subject that is another kind's is not the provider's", alice, policy.PerCallApprove, CallPrincipal{Kind: "token", Subject: "sub-a"}, ""},
		{"a viewer cannot approve", viewer, policy.PerCallApprove, forAlice, NotAnApprover},
		{"a disabled approver cannot", disabled, policy.PerCallApprove, forAlice, NotAnApprover},
		{"the principal confirms, whatever their roles", viewer, policy.PerCallConfirm, forVera, ""},
		{"an approver cannot confirm for someone", bob, policy.PerCallConfirm, forVera, NotThePrincipal},
		{"nobody confirms for an anonymous caller", bob, policy.PerCallConfirm, anonymous, NotThePrincipal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := MayDecideCall(tc.d, tc.mode, tc.p)
			if got := Code(""); r != nil {
				got = r.Code
				if got != tc.want {
					t.Fatalf("refused with %s (%q), want %q", got, r.Message, tc.want)
				}
			} else if tc.want != "" {
				t.Fatalf("allowed, want %s", tc.want)
			}
		})
	}
}

// TestCallModeAsked: a runtime asks for the tool's mode or a condition's
// effect, never less than the tool's mode.
func TestCallModeAsked(t *testing.T) {
	cond := func(effect string) []policy.Condition {
		return []policy.Condition{{Effect: effect, Expr: "true", Message: "m"}}
	}
	for _, tc := range []struct {
		name string
		p    policy.Policy
		mode string
		ok   bool
	}{
		{"the tool's mode", policy.Policy{PerCall: "approve"}, "approve", true},
		{"a condition's effect", policy.Policy{Conditions: cond("approve")}, "approve", true},
		{"a condition asks more than the tool", policy.Policy{PerCall: "confirm", Conditions: cond("approve")}, "approve", true},
		{"less than the tool's mode", policy.Policy{PerCall: "approve", Conditions: cond("confirm")}, "confirm", false},
		{"nothing asks", policy.Policy{}, "confirm", false},
		{"a deny condition does not ask", policy.Policy{Conditions: cond("deny")}, "approve", false},
		{"not a mode", policy.Policy{PerCall: "approve"}, "maybe", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := CallModeAsked(tc.p, tc.mode); (err == nil) != tc.ok {
				t.Fatalf("CallModeAsked = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// TestCallTransition: the moves the flow makes, and no others.
func TestCallTransition(t *testing.T) {
	states := []string{"pending", "approved", "denied", "expired", "consumed"}
	allowed := map[[2]string]bool{{"pending", "approved"}: true, {"pending", "denied"}: true, {"pending", "expired"}: true,
		{"approved", "consumed"}: true, {"approved", "expired"}: true}
	for _, from := range states {
		for _, to := range states {
			if got := CallTransition(from, to) == nil; got != allowed[[2]string{from, to}] {
				t.Errorf("%s → %s allowed = %v", from, to, got)
			}
		}
	}
}
