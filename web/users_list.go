package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

func (s *Server) userRow(u *store.User, viewer *store.User) views.UserRow {
	return views.UserRow{ID: u.ID, Email: u.Email, Roles: roleNames(u.Roles), Disabled: u.Disabled, IsSelf: u.ID == viewer.ID,
		ManagedBy: s.providerName(u), BreakGlass: u.BreakGlass}
}

func (s *Server) usersList(c echo.Context) error {
	users, err := s.deps.Store.ListUsers(c.Request().Context())
	if err != nil {
		return err
	}
	m := views.UsersView{Page: s.page(c, "Users")}
	for _, u := range users {
		m.Users = append(m.Users, s.userRow(u, currentUser(c)))
	}
	return render(c, http.StatusOK, views.UsersPage(m))
}
