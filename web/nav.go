package web

import (
	"slices"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// navEntry is one main-navigation link and the roles that see it (any of
// them). A feature that adds a page adds one line to navEntries.
type navEntry struct {
	Label string
	Href  string
	Roles []auth.Role
}

// navEntries is the main navigation, in display order. Only link pages that
// exist, with the same roles as the page's route in routes.go.
func navEntries() []navEntry {
	everyone := []auth.Role{auth.RoleViewer, auth.RoleApprover, auth.RoleAdmin}
	return []navEntry{
		{Label: "Dashboard", Href: "/", Roles: everyone},
		{Label: "Bundles", Href: "/bundles", Roles: everyone},
		{Label: "Runtimes", Href: "/runtimes", Roles: everyone},
		{Label: "Sources", Href: "/sources", Roles: everyone},
		{Label: "Tools", Href: "/tools", Roles: everyone},
		{Label: "Users", Href: "/users", Roles: []auth.Role{auth.RoleAdmin}},
		{Label: "Approvals", Href: "/approvals", Roles: everyone},
		{Label: "Defaults", Href: "/defaults", Roles: everyone},
		{Label: "Audit", Href: "/audit", Roles: everyone},
	}
}

// navFor returns the entries u may open, marking the one for path active.
func navFor(u *store.User, path string) []views.NavItem {
	var out []views.NavItem
	for _, n := range navEntries() {
		if !slices.ContainsFunc(n.Roles, u.Has) {
			continue
		}
		active := path == n.Href || (n.Href != "/" && len(path) > len(n.Href) && path[:len(n.Href)+1] == n.Href+"/")
		out = append(out, views.NavItem{Label: n.Label, Href: n.Href, Active: active})
	}
	return out
}
