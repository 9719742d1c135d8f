package policy

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on a tool's groups and conditions (R15).
const (
	MaxGroups              = 32
	MaxConditions          = 16
	MaxConditionExprLength = 1024
	MaxConditionMessage    = 300
)

// groupName is the rule for a group a tool may be scoped to: what
// identity providers put in a groups claim, without spaces or commas
// (the console's field separates groups with commas).
var groupName = regexp.MustCompile(`^[^\s,]{1,128}$`)

// ConditionField is the field name of condition i in a ValidationError
// and in Diff: "conditions[i]".
func ConditionField(i int) string { return FieldConditions + "[" + strconv.Itoa(i) + "]" }

// validateScope checks the groups and the shape of the conditions: the
// expressions themselves are checked by internal/condition, which knows
// the tool's input schema.
func validateScope(v validation, p Policy) {
	if len(p.Groups) > MaxGroups {
		v.add(FieldGroups, "may name at most %d groups (got %d)", MaxGroups, len(p.Groups))
	}
	for _, g := range p.Groups {
		if !groupName.MatchString(g) {
			v.add(FieldGroups, "%q is not a group name: 1 to 128 characters without spaces or commas", g)
		}
	}
	if len(p.Conditions) > MaxConditions {
		v.add(FieldConditions, "a tool may carry at most %d conditions (got %d)", MaxConditions, len(p.Conditions))
	}
	for i, c := range p.Conditions {
		f := ConditionField(i)
		switch {
		case !slices.Contains(ConditionEffects, c.Effect):
			v.add(f, "effect must be one of %s (got %q)", strings.Join(ConditionEffects, ", "), c.Effect)
		case strings.TrimSpace(c.Expr) == "":
			v.add(f, "the expression is empty")
		case utf8.RuneCountInString(c.Expr) > MaxConditionExprLength:
			v.add(f, "the expression may be at most %d characters long", MaxConditionExprLength)
		case strings.TrimSpace(c.Message) == "":
			v.add(f, "needs a message: the sentence an agent (or, for confirm and approve, the person asked) reads when this rule applies")
		case utf8.RuneCountInString(c.Message) > MaxConditionMessage:
			v.add(f, "the message may be at most %d characters long", MaxConditionMessage)
		}
	}
	if PerCallRank(p.PerCall) < 0 {
		v.add(FieldPerCall, "must be empty, %q or %q (got %q)", PerCallConfirm, PerCallApprove, p.PerCall)
	}
}

// LoosensScope reports whether after lets some call through that before
// refuses by groups or conditions (R15): a group list that admits a
// principal before's did not (a group added to a non-empty list, or the
// list emptied), or a condition of before that after no longer has
// unchanged. Adding conditions and removing groups from a non-empty list
// only take something away; so does reordering conditions, since every
// condition must let a call through whatever the order. A weaker per-call
// mode (approve to confirm, or either to none) loosens too (R16).
func LoosensScope(before, after Policy) bool {
	if PerCallRank(after.PerCall) < PerCallRank(before.PerCall) {
		return true
	}
	if len(before.Groups) > 0 && (len(after.Groups) == 0 || !subset(after.Groups, before.Groups)) {
		return true
	}
	left := slices.Clone(after.Conditions)
	for _, c := range before.Conditions {
		i := slices.Index(left, c)
		if i < 0 {
			return true
		}
		left = slices.Delete(left, i, i+1)
	}
	return false
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}
