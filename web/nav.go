package web

import (
	"slices"
	"strings"

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
	// Also lists sub-pages reached from this entry's page (not from the
	// navigation) that mark it active, so the reader knows where they are.
	Also []string
}

// navEntries is the main navigation in the order of the work: bring in
// sources, review tools, decide change requests, publish bundles, watch
// runtimes; then the project-wide pages. Only link pages that exist, with
// the same roles as the page's route in routes.go.
func navEntries() []navEntry {
	everyone := []auth.Role{auth.RoleViewer, auth.RoleApprover, auth.RoleAdmin}
	return []navEntry{
		{Label: "Dashboard", Href: "/", Roles: everyone},
		{Label: "Sources", Href: "/sources", Roles: everyone},
		{Label: "Tools", Href: "/tools", Roles: everyone, Also: []string{"/risk-rules"}},
		{Label: "Approvals", Href: "/approvals", Roles: everyone},
		{Label: "Bundles", Href: "/bundles", Roles: everyone, Also: []string{"/keys"}},
		{Label: "Runtimes", Href: "/runtimes", Roles: everyone, Also: []string{"/tokens", "/calls"}},
		{Label: "Defaults", Href: "/defaults", Roles: everyone},
		{Label: "Audit", Href: "/audit", Roles: everyone},
		{Label: "Users", Href: "/users", Roles: []auth.Role{auth.RoleAdmin}},
		{Label: "Webhooks", Href: "/webhooks", Roles: []auth.Role{auth.RoleAdmin}},
	}
}

// navFor returns the entries u may open, marking the one for path active.
func navFor(u *store.User, path string) []views.NavItem {
	var out []views.NavItem
	for _, n := range navEntries() {
		if !slices.ContainsFunc(n.Roles, u.Has) {
			continue
		}
		active := underPath(path, n.Href) || slices.ContainsFunc(n.Also, func(p string) bool { return underPath(path, p) })
		out = append(out, views.NavItem{Label: n.Label, Href: n.Href, Active: active})
	}
	return out
}

// underPath reports whether path is href or a page below it; "/" matches
// only itself, or every page would mark the dashboard active.
func underPath(path, href string) bool {
	return path == href || (href != "/" && strings.HasPrefix(path, href+"/"))
}
