package web

import (
	"fmt"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// usersSave adds a user; problems re-render the form with what was typed.
func (s *Server) usersSave(c echo.Context) error {
	email := c.FormValue("email")
	params, _ := c.FormParams()
	u, err := s.addUser(c, email)
	if status, errs, ok := refusalProblem(err); ok {
		m := views.UserFormView{Page: s.page(c, "Add user"), Email: email, Roles: params["role"],
			RequestedBy: c.FormValue("requested_by"), Errors: errs}
		return render(c, status, views.UserNewPage(m))
	}
	if err != nil {
		return err
	}
	return seeOther(c, fmt.Sprintf("/users/%d?done=added", u.ID))
}

func (s *Server) addUser(c echo.Context, email string) (*store.User, error) {
	roles, err := formRoles(c)
	if err != nil {
		return nil, err
	}
	pw, err := newPassword(c, "password")
	if err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(pw)
	if err != nil {
		return nil, err
	}
	return s.deps.Store.CreateUser(c.Request().Context(), currentUser(c).Email,
		store.NewUser{Email: email, PasswordHash: hash, Roles: roles, RequestedBy: strings.TrimSpace(c.FormValue("requested_by"))})
}
