package web

import (
	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/views"
)

// withPendingCount puts the number of pending change requests the
// signed-in approver could decide on the Approvals navigation entry. A
// failure to count only loses the badge (logged): the page still renders.
func (s *Server) withPendingCount(c echo.Context, nav []views.NavItem) []views.NavItem {
	u := currentUser(c)
	if u == nil || !u.Has(auth.RoleApprover) {
		return nav
	}
	n, err := s.deps.Store.CountPendingFor(c.Request().Context(), u.ID)
	if err != nil {
		s.logInternal(c, err)
		return nav
	}
	for i := range nav {
		if nav[i].Href == "/approvals" {
			nav[i].Count = n
		}
	}
	return nav
}
