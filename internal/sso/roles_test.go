package sso

import (
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/auth"
)

func TestRoleMapping(t *testing.T) {
	m := RoleMapping{Admin: []string{"tg-admins"}, Approver: []string{"tg-approvers", "security"}, Viewer: []string{"staff"}}
	for _, tc := range []struct {
		name   string
		claims map[string]any
		want   []auth.Role
		ok     bool
		bad    bool
	}{
		{"list", map[string]any{"groups": []any{"staff", "security"}}, []auth.Role{auth.RoleApprover, auth.RoleViewer}, true, false},
		{"all three", map[string]any{"groups": []any{"tg-approvers", "tg-admins", "staff"}},
			[]auth.Role{auth.RoleAdmin, auth.RoleApprover, auth.RoleViewer}, true, false},
		{"space-separated string", map[string]any{"groups": "tg-admins other"}, []auth.Role{auth.RoleAdmin}, true, false},
		{"no mapped group", map[string]any{"groups": []any{"sales"}}, nil, true, false},
		{"claim absent", map[string]any{"email": "x"}, nil, false, false},
		{"not strings", map[string]any{"groups": []any{1.0}}, nil, true, true},
		{"an object", map[string]any{"groups": map[string]any{}}, nil, true, true},
		{"case matters", map[string]any{"groups": []any{"TG-ADMINS"}}, nil, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, ok, err := m.Groups(tc.claims)
			if ok != tc.ok || (err != nil) != tc.bad {
				t.Fatalf("Groups: ok %v err %v", ok, err)
			}
			if got := m.Roles(g); !slices.Equal(got, tc.want) {
				t.Fatalf("Roles(%v) = %v, want %v", g, got, tc.want)
			}
		})
	}
	if (RoleMapping{}).claim() != "groups" || (RoleMapping{Claim: "roles"}).claim() != "roles" {
		t.Fatal("claim name")
	}
}
