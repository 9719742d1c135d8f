package bundle

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/policy"
)

// conditionEffects are the condition effects a v2 runtime acts on: a
// closed set, so an effect this runtime does not know is refused rather
// than read as another one.
var conditionEffects = policy.ConditionEffects

// validateV2Members checks a policy's groups and conditions (doc.go): only
// under toolgate.bundle/v2, since a v1 runtime would ignore them and serve
// the tool to anyone; groups sorted, unique and not empty names, so the
// set has one byte form; every condition with a known effect and an
// expression. What the expressions mean is the runtime's to check (it
// compiles them when it loads the bundle).
func validateV2Members(schema string, p *policy.Policy) error {
	if schema != SchemaV2 && UsesV2(p) {
		return fmt.Errorf("policy has groups, conditions or a per-call mode, which only %s carries (a %s runtime would not enforce them)",
			SchemaV2, schema)
	}
	var errs []error
	for i, g := range p.Groups {
		switch {
		case g == "":
			errs = append(errs, errors.New("policy.groups: a group name is empty"))
		case i > 0 && strings.Compare(p.Groups[i-1], g) >= 0:
			errs = append(errs, fmt.Errorf("policy.groups: %q follows %q: groups are sorted (byte order) and unique", g, p.Groups[i-1]))
		}
	}
	for i, c := range p.Conditions {
		if !slices.Contains(conditionEffects, c.Effect) {
			errs = append(errs, fmt.Errorf("policy.conditions[%d]: effect %q: want %s", i, c.Effect, strings.Join(conditionEffects, " or ")))
		}
		if strings.TrimSpace(c.Expr) == "" {
			errs = append(errs, fmt.Errorf("policy.conditions[%d]: the expression is empty", i))
		}
	}
	if policy.PerCallRank(p.PerCall) < 0 {
		errs = append(errs, fmt.Errorf("policy.per_call: %q: want %q or %q", p.PerCall, policy.PerCallConfirm, policy.PerCallApprove))
	}
	return errors.Join(errs...)
}

// canonicalGroups is a policy's group list as a bundle carries it: sorted,
// without repeats, nil when empty. The caller's slice is not modified.
func canonicalGroups(groups []string) []string {
	if len(groups) == 0 {
		return nil
	}
	g := slices.Clone(groups)
	slices.Sort(g)
	return slices.Compact(g)
}
