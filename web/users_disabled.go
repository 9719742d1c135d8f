package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/views"
)

// usersDisabled disables or enables a user. From HTMX it answers with the
// updated table row; as a plain form it redirects back.
func (s *Server) usersDisabled(c echo.Context) error {
	id, err := pathID(c, "The user")
	if err != nil {
		return err
	}
	disabled, err := strconv.ParseBool(c.FormValue("disabled"))
	if err != nil {
		return apperr.Invalidf("Say whether to disable or enable the user.")
	}
	me := currentUser(c)
	if id == me.ID {
		return apperr.Conflictf("You cannot disable yourself.")
	}
	ctx := c.Request().Context()
	if err := s.deps.Store.SetUserDisabled(ctx, me.Email, id, disabled); err != nil {
		return err
	}
	if isHTMX(c) {
		u, err := s.deps.Store.UserByID(ctx, id)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, views.UserRowFragment(s.userRow(u, me), csrfToken(c)))
	}
	done := "enabled"
	if disabled {
		done = "disabled"
	}
	return seeOther(c, "/users/"+strconv.FormatInt(id, 10)+"?done="+done)
}
