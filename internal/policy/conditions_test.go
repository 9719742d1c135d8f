package policy

import (
	"errors"
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/risk"
)

// TestScopeChangesOnRiskyTools: on an exposed DESTRUCTIVE/PRIVILEGED tool,
// widening the groups or changing/removing a condition needs an approver
// (R15 through R10's ExposeRisky); narrowing and adding apply at once, and
// on a WRITE tool nothing of it needs approval.
func TestScopeChangesOnRiskyTools(t *testing.T) {
	deny := Condition{Effect: ConditionDeny, Expr: "args.amount > 100", Message: "too much"}
	only := Condition{Effect: ConditionAllowOnly, Expr: "args.account in principal.groups", Message: "yours only"}
	base := Policy{Exposed: true, Groups: []string{"ops", "billing"}, Conditions: []Condition{deny}}
	with := func(f func(p *Policy)) Policy {
		p := base
		p.Groups, p.Conditions = slices.Clone(base.Groups), slices.Clone(base.Conditions)
		f(&p)
		return p
	}
	cases := []struct {
		name  string
		after Policy
		needs bool
	}{
		{"remove a group", with(func(p *Policy) { p.Groups = []string{"ops"} }), false},
		{"add a group", with(func(p *Policy) { p.Groups = append(p.Groups, "support") }), true},
		{"groups to any", with(func(p *Policy) { p.Groups = nil }), true},
		{"replace a group", with(func(p *Policy) { p.Groups = []string{"ops", "support"} }), true},
		{"reorder groups", with(func(p *Policy) { p.Groups = []string{"billing", "ops"} }), false},
		{"add a deny condition", with(func(p *Policy) {
			p.Conditions = append(p.Conditions, Condition{Effect: ConditionDeny, Expr: "true", Message: "m"})
		}), false},
		{"add an allow_only condition", with(func(p *Policy) { p.Conditions = append([]Condition{only}, p.Conditions...) }), false},
		{"remove a condition", with(func(p *Policy) { p.Conditions = nil }), true},
		{"change an expression", with(func(p *Policy) { p.Conditions[0].Expr = "args.amount > 1000" }), true},
		{"change an effect", with(func(p *Policy) { p.Conditions[0].Effect = ConditionAllowOnly }), true},
		{"change a message", with(func(p *Policy) { p.Conditions[0].Message = "no" }), true},
		{"unexpose and loosen", with(func(p *Policy) { p.Exposed, p.Groups, p.Conditions = false, nil, nil }), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ApprovalNeeded("DELETE", risk.Destructive, base, c.after)
			if want := c.needs; (len(got) == 1 && got[0] == ExposeRisky) != want || (!want && len(got) > 0) {
				t.Fatalf("DESTRUCTIVE: ApprovalNeeded = %v, want approval %v", got, want)
			}
			if got := ApprovalNeeded("POST", risk.Write, base, c.after); len(got) > 0 {
				t.Fatalf("WRITE: ApprovalNeeded = %v, want none", got)
			}
		})
	}
}

func TestValidateScope(t *testing.T) {
	p := NewToolPolicy("GET", risk.Read, BuiltinDefaults())
	p.Groups = []string{"ops", "two words"}
	p.Conditions = []Condition{{Effect: "maybe", Expr: "true", Message: "m"}, {Effect: ConditionDeny, Expr: "true"}}
	var ve *ValidationError
	if err := p.Validate(); !errors.As(err, &ve) || ve.Fields[FieldGroups] == "" || ve.Fields["conditions[0]"] == "" || ve.Fields["conditions[1]"] == "" {
		t.Fatalf("Validate = %v, want groups, conditions[0] and conditions[1] refused", err)
	}
}
