package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/views"
)

// doneNotices are the confirmations a redirect can ask for (?done=...);
// fixed texts, so the query string cannot inject words into the page.
var doneNotices = map[string]string{
	"added":    "User added.",
	"roles":    "Roles saved.",
	"password": "Password changed. Other sessions of this user have been ended.",
	"enabled":  "User enabled.",
	"disabled": "User disabled and signed out everywhere.",
}

func (s *Server) usersEdit(c echo.Context) error {
	return s.renderUserEdit(c, http.StatusOK, nil)
}

// renderUserEdit shows the user of :id, with form errors if any.
func (s *Server) renderUserEdit(c echo.Context, status int, errs []views.FormError) error {
	id, err := pathID(c, "The user")
	if err != nil {
		return err
	}
	u, err := s.deps.Store.UserByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	m := views.UserEditView{Page: s.page(c, u.Email), User: s.userRow(u, currentUser(c)), Errors: errs}
	if errs == nil {
		m.Notice = doneNotices[c.QueryParam("done")]
	}
	return render(c, status, views.UserEditPage(m))
}
