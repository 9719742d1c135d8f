package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/views"
)

func (s *Server) usersNew(c echo.Context) error {
	m := views.UserFormView{Page: s.page(c, "Add user"), Roles: []string{"viewer"}}
	return render(c, http.StatusOK, views.UserNewPage(m))
}
