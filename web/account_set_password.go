package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// setPasswordPath is where a person signed in with a password an admin set
// is sent before anything else (store.User.MustSetPassword).
const setPasswordPath = "/account/set-password"

// msgInitialPasswordUsed refuses a second sign-in with a password an admin
// set. Only the right password gets here, so it reveals nothing to a guesser.
const msgInitialPasswordUsed = "This password was set by an admin and has been used for a sign-in already. " +
	"Ask an admin to set a new one, then choose your own at the next sign-in."

// ownPasswordFirst sends a person whose password an admin set to the
// set-password page: a page they load is redirected there, anything else
// is refused, until they choose their own (R10: the admin knows the
// password). Signing out, the page itself and static files stay open.
func ownPasswordFirst(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := currentUser(c)
		if u == nil || !u.MustSetPassword {
			return next(c)
		}
		switch c.Path() {
		case setPasswordPath, "/logout", "/static/:name", "/favicon.ico", "/healthz", "/readyz":
			return next(c)
		}
		if c.Request().Method == http.MethodGet && !isHTMX(c) {
			return seeOther(c, setPasswordPath)
		}
		return apperr.Forbiddenf("Choose your own password first: the one an admin gave you worked for this sign-in only (Set your password, %s).", setPasswordPath)
	}
}

func (s *Server) setPasswordForm(c echo.Context) error {
	if !currentUser(c).MustSetPassword {
		return seeOther(c, "/account")
	}
	return render(c, http.StatusOK, views.SetPasswordPage(views.SetPasswordView{Page: s.page(c, "Set your password")}))
}

// setPassword stores the person's own password in place of the one an
// admin set. It asks for no current password: this session was opened
// with it moments ago, and that password opens no other.
func (s *Server) setPassword(c echo.Context) error {
	err := s.chooseOwnPassword(c)
	if status, errs, ok := formProblem(err); ok {
		m := views.SetPasswordView{Page: s.page(c, "Set your password"), Errors: errs}
		return render(c, status, views.SetPasswordPage(m))
	}
	if err != nil {
		return err
	}
	return seeOther(c, "/")
}

func (s *Server) chooseOwnPassword(c echo.Context) error {
	u := currentUser(c)
	if !u.MustSetPassword {
		return apperr.Invalidf("Your password is your own already: change it on Your account.")
	}
	pw, err := newPassword(c, "password")
	if err != nil {
		return err
	}
	if s.checkPassword(u.PasswordHash, pw) == nil {
		return apperr.Invalidf("Choose a password of your own, not the one you were given.")
	}
	hash, err := auth.HashPassword(pw)
	if err != nil {
		return err
	}
	return s.deps.Store.SetUserPassword(c.Request().Context(), store.PasswordChange{
		Actor: u.Email, UserID: u.ID, Hash: hash, KeepSessionToken: sessionToken(c)})
}
