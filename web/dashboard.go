package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/views"
)

func (s *Server) dashboard(c echo.Context) error {
	n, err := s.deps.Store.CountUsers(c.Request().Context())
	if err != nil {
		return err
	}
	m := views.DashboardView{Page: s.page(c, "Dashboard"), UserCount: n, Roles: roleNames(currentUser(c).Roles)}
	return render(c, http.StatusOK, views.DashboardPage(m))
}
