package auth

import (
	"fmt"
	"slices"
)

// Role is what a user may do. A user may hold several roles; they do not
// imply each other (an admin is not an approver unless given that role, so
// the person who asks for a risky change is not automatically the one who
// approves it).
type Role string

// The roles of DESIGN.md.
const (
	RoleAdmin    Role = "admin"
	RoleApprover Role = "approver"
	RoleViewer   Role = "viewer"
)

// AllRoles lists every role in display order.
var AllRoles = []Role{RoleAdmin, RoleApprover, RoleViewer}

// ParseRole returns the Role named s or an error naming the valid roles.
func ParseRole(s string) (Role, error) {
	r := Role(s)
	if !slices.Contains(AllRoles, r) {
		return "", fmt.Errorf("unknown role %q (valid: admin, approver, viewer)", s)
	}
	return r, nil
}

// NormalizeRoles parses, de-duplicates and sorts names into display order.
func NormalizeRoles(names []string) ([]Role, error) {
	var out []Role
	for _, n := range names {
		r, err := ParseRole(n)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Role) int { return slices.Index(AllRoles, a) - slices.Index(AllRoles, b) })
	return out, nil
}
