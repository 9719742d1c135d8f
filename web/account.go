package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

func (s *Server) accountForm(c echo.Context) error {
	m := views.AccountView{Page: s.page(c, "Your account"), ManagedBy: s.providerName(currentUser(c))}
	if c.QueryParam("done") == "password" {
		m.Notice = "Password changed. Your other sessions have been ended."
	}
	return render(c, http.StatusOK, views.AccountPage(m))
}

// accountPassword changes the signed-in person's own password. The current
// password is required (and throttled like sign-in), so an unattended
// browser cannot be used to take the account over.
func (s *Server) accountPassword(c echo.Context) error {
	err := s.changeOwnPassword(c)
	if status, errs, ok := formProblem(err); ok {
		return render(c, status, views.AccountPage(views.AccountView{Page: s.page(c, "Your account"), Errors: errs}))
	}
	if err != nil {
		return err
	}
	return seeOther(c, "/account?done=password")
}

func (s *Server) changeOwnPassword(c echo.Context) error {
	u, addr := currentUser(c), c.RealIP()
	if u.Managed() {
		return apperr.Invalidf("Your account is managed by %s: change your password there.", s.providerName(u))
	}
	check, refused, wait, err := s.throttle.Begin(c.Request().Context(), u.Email, addr, time.Now())
	if err != nil {
		return err
	}
	switch refused {
	case auth.Throttled:
		setRetryAfter(c, wait)
		return apperr.Invalidf("%s", msgThrottled)
	case auth.Busy:
		setRetryAfter(c, wait)
		return apperr.Invalidf("%s", msgBusy)
	}
	defer check.Failed()
	switch err := s.checkPassword(u.PasswordHash, c.FormValue("current")); {
	case errors.Is(err, auth.ErrMismatch):
		return apperr.Invalidf("The current password is not right.")
	case err != nil:
		return err
	}
	s.checkSucceeded(c.Request().Context(), check)
	pw, err := newPassword(c, "password")
	if err != nil {
		return err
	}
	hash, err := auth.HashPassword(pw)
	if err != nil {
		return err
	}
	return s.deps.Store.SetUserPassword(c.Request().Context(), store.PasswordChange{
		Actor: u.Email, UserID: u.ID, Hash: hash, KeepSessionToken: sessionToken(c)})
}
