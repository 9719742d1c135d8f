package web

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
)

// usersPassword is an admin resetting someone's password; it ends all of
// that user's sessions.
func (s *Server) usersPassword(c echo.Context) error {
	id, err := pathID(c, "The user")
	if err != nil {
		return err
	}
	pw, err := newPassword(c, "password")
	var hash string
	if err == nil {
		hash, err = auth.HashPassword(pw)
	}
	if err == nil {
		pc := store.PasswordChange{Actor: currentUser(c).Email, UserID: id, Hash: hash, Reset: true}
		if id == currentUser(c).ID {
			pc.KeepSessionToken = sessionToken(c)
		}
		err = s.deps.Store.SetUserPassword(c.Request().Context(), pc)
	}
	if status, errs, ok := refusalProblem(err); ok {
		return s.renderUserEdit(c, status, errs)
	}
	if err != nil {
		return err
	}
	return seeOther(c, fmt.Sprintf("/users/%d?done=password", id))
}
