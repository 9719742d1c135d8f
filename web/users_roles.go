package web

import (
	"fmt"

	"github.com/labstack/echo/v4"
)

func (s *Server) usersRoles(c echo.Context) error {
	id, err := pathID(c, "The user")
	if err != nil {
		return err
	}
	roles, err := formRoles(c)
	if err == nil {
		err = s.deps.Store.SetUserRoles(c.Request().Context(), currentUser(c).Email, id, roles)
	}
	if status, errs, ok := refusalProblem(err); ok {
		return s.renderUserEdit(c, status, errs)
	}
	if err != nil {
		return err
	}
	return seeOther(c, fmt.Sprintf("/users/%d?done=roles", id))
}
