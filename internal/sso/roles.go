package sso

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/auth"
)

// RoleMapping says which groups of the provider give which console role.
type RoleMapping struct {
	// Claim is the claim holding the groups ("groups" when empty). Its
	// value is a list of strings, or one string of space-separated names.
	Claim    string
	Admin    []string
	Approver []string
	Viewer   []string
}

// DefaultGroupsClaim is the claim read when RoleMapping.Claim is empty.
const DefaultGroupsClaim = "groups"

func (m RoleMapping) claim() string {
	if m.Claim == "" {
		return DefaultGroupsClaim
	}
	return m.Claim
}

// Empty reports whether no group gives any role.
func (m RoleMapping) Empty() bool {
	return len(m.Admin)+len(m.Approver)+len(m.Viewer) == 0
}

// Groups reads the group names from claims; ok is false when the claim is
// absent, an error when it has another shape.
func (m RoleMapping) Groups(claims map[string]any) (groups []string, ok bool, err error) {
	v, ok := claims[m.claim()]
	if !ok || v == nil {
		return nil, false, nil
	}
	switch v := v.(type) {
	case string:
		return strings.Fields(v), true, nil
	case []any:
		for _, g := range v {
			s, isString := g.(string)
			if !isString {
				return nil, true, fmt.Errorf("claim %q holds a %T, want strings", m.claim(), g)
			}
			groups = append(groups, s)
		}
		return groups, true, nil
	}
	return nil, true, fmt.Errorf("claim %q is a %T, want a list of strings", m.claim(), v)
}

// Roles maps groups to roles, in display order; nil when none maps.
func (m RoleMapping) Roles(groups []string) []auth.Role {
	var out []auth.Role
	for _, r := range []struct {
		role   auth.Role
		groups []string
	}{{auth.RoleAdmin, m.Admin}, {auth.RoleApprover, m.Approver}, {auth.RoleViewer, m.Viewer}} {
		if slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(r.groups, g) }) {
			out = append(out, r.role)
		}
	}
	return out
}
