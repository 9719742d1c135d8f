package web

import (
	"slices"
	"testing"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
)

func TestNavOrderRolesAndActive(t *testing.T) {
	tests := []struct {
		name   string
		roles  []auth.Role
		path   string
		labels []string
		active string
	}{
		{"admin sees the workflow order", []auth.Role{auth.RoleAdmin}, "/tools/orders_list",
			[]string{"Dashboard", "Sources", "Tools", "Approvals", "Bundles", "Runtimes", "Defaults", "Audit", "Users", "Webhooks"}, "Tools"},
		{"viewer has no Users", []auth.Role{auth.RoleViewer}, "/",
			[]string{"Dashboard", "Sources", "Tools", "Approvals", "Bundles", "Runtimes", "Defaults", "Audit"}, "Dashboard"},
		{"keys sit under Bundles", []auth.Role{auth.RoleViewer}, "/keys", nil, "Bundles"},
		{"tokens sit under Runtimes", []auth.Role{auth.RoleAdmin}, "/tokens", nil, "Runtimes"},
		{"call records sit under Runtimes", []auth.Role{auth.RoleViewer}, "/calls", nil, "Runtimes"},
		{"risk rules sit under Tools", []auth.Role{auth.RoleViewer}, "/risk-rules", nil, "Tools"},
		{"a prefix is not a parent", []auth.Role{auth.RoleAdmin}, "/toolsx", nil, ""},
		{"account marks nothing", []auth.Role{auth.RoleApprover}, "/account", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nav := navFor(&store.User{Roles: tt.roles}, tt.path)
			var labels, active []string
			for _, n := range nav {
				labels = append(labels, n.Label)
				if n.Active {
					active = append(active, n.Label)
				}
			}
			if tt.labels != nil && !slices.Equal(labels, tt.labels) {
				t.Errorf("labels %v, want %v", labels, tt.labels)
			}
			want := []string{tt.active}
			if tt.active == "" {
				want = nil
			}
			if !slices.Equal(active, want) {
				t.Errorf("active %v, want %v", active, want)
			}
		})
	}
}
