package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// The same words for every refused sign-in, so they reveal nothing about
// which accounts exist.
const (
	msgBadLogin  = "Email or password is incorrect."
	msgThrottled = "Too many failed sign-ins. Wait a minute, then try again."
	msgBusy      = "The server is busy checking other sign-ins. Try again in a moment."
)

// notAnEmail is the account recorded for a sign-in whose email field does
// not hold an email address. People type their password there by mistake,
// and the audit log is readable by every role; it also keeps an anonymous
// request from writing an arbitrarily long string into the audit log and
// into the throttle's memory.
const notAnEmail = "(not an email address)"

// maxEmailLen is the longest address SMTP allows (RFC 5321 §4.5.3.1.3).
const maxEmailLen = 254

// signInAccount is the account a sign-in attempt is throttled and audited
// under: the typed address, normalised, or notAnEmail. No stored user has
// notAnEmail as address, so looking it up finds nobody.
func signInAccount(typed string) string {
	if len(typed) > maxEmailLen {
		return notAnEmail
	}
	email, err := store.NormalizeEmail(typed)
	if err != nil {
		return notAnEmail
	}
	return email
}

func (s *Server) loginForm(c echo.Context) error {
	if currentUser(c) != nil {
		return seeOther(c, "/")
	}
	return render(c, http.StatusOK, views.LoginPage(s.loginView(c, safeNext(c.QueryParam("next")))))
}

// loginView is the sign-in page's model, with single sign-on if configured.
func (s *Server) loginView(c echo.Context, next string) views.LoginView {
	m := views.LoginView{Page: s.page(c, "Sign in"), Next: next, LocalOff: s.deps.Config.LocalLoginOff()}
	if s.deps.SSO != nil {
		m.SSOName = s.deps.SSO.Name()
	}
	return m
}

func (s *Server) loginSubmit(c echo.Context) error {
	ctx := c.Request().Context()
	email, password := strings.TrimSpace(c.FormValue("email")), c.FormValue("password")
	next := safeNext(c.FormValue("next"))
	account, addr := signInAccount(email), c.RealIP()
	refuse := func(status int, msg string) error {
		m := s.loginView(c, next)
		m.Email, m.Errors = email, []views.FormError{{Message: msg}}
		return render(c, status, views.LoginPage(m))
	}
	// The throttle's tokens are taken before anything is looked up or
	// hashed, so concurrent guesses cannot all pass it.
	check, refused, wait, err := s.throttle.Begin(ctx, account, addr, time.Now())
	if err != nil {
		return err
	}
	if refused != auth.NotRefused {
		reason, msg := "throttled", msgThrottled
		if refused == auth.Busy {
			reason, msg = "server busy", msgBusy
		}
		s.refused.tally.Add(account, addr, reason, time.Now())
		setRetryAfter(c, wait)
		return refuse(http.StatusTooManyRequests, msg)
	}
	defer check.Failed() // ends the check on every path but success
	u, reason, err := s.checkCredentials(ctx, account, password)
	if err != nil {
		return err
	}
	if reason != "" {
		check.Failed() // free the hashing slot before writing the audit entry
		if err := s.deps.Store.RecordLoginFailure(ctx, account, addr, reason); err != nil {
			return err
		}
		return refuse(http.StatusUnauthorized, msgBadLogin)
	}
	s.checkSucceeded(ctx, check)
	if u.BreakGlass {
		s.deps.Logger.Warn("break-glass sign-in", "user", u.Email, "remote", addr)
	}
	err = s.startSession(c, u, next)
	if errors.Is(err, store.ErrInitialPasswordUsed) {
		if err := s.deps.Store.RecordLoginFailure(ctx, account, addr, "admin-set password used already"); err != nil {
			return err
		}
		return refuse(http.StatusUnauthorized, msgInitialPasswordUsed)
	}
	return err
}

// checkSucceeded ends a right-password check. Failing to give its tokens
// back (the shared throttle's database) costs the person a token, not the
// sign-in, so it is logged rather than refused.
func (s *Server) checkSucceeded(ctx context.Context, check *auth.Check) {
	if err := check.Succeeded(ctx, time.Now()); err != nil {
		s.deps.Logger.Warn("sign-in throttle: giving back a right password's tokens", "err", err)
	}
}

// setRetryAfter tells a refused client how many whole seconds to wait.
func setRetryAfter(c echo.Context, wait time.Duration) {
	c.Response().Header().Set("Retry-After", strconv.FormatInt(max(1, int64((wait+time.Second-1)/time.Second)), 10))
}

// checkCredentials returns the user when email and password match an
// enabled account, else a reason for the audit log. An unknown email still
// costs one password hash, so response time does not tell accounts apart.
func (s *Server) checkCredentials(ctx context.Context, email, password string) (*store.User, string, error) {
	if len(password) > auth.MaxPasswordLen {
		return nil, "password too long", nil
	}
	u, err := s.deps.Store.UserByEmail(ctx, email)
	if apperr.CodeOf(err) == apperr.NotFound {
		if dummy, err := s.dummyHash(); err == nil {
			_ = s.checkPassword(dummy, password)
		}
		return nil, "unknown email", nil
	}
	if err != nil {
		return nil, "", err
	}
	if u.Managed() || (s.deps.Config.LocalLoginOff() && !u.BreakGlass) {
		// No password to check (managed) or none allowed: the same cost
		// and the same answer as a wrong password.
		if dummy, err := s.dummyHash(); err == nil {
			_ = s.checkPassword(dummy, password)
		}
		if u.Managed() {
			return nil, "managed by identity provider", nil
		}
		return nil, "local sign-in off (not break-glass)", nil
	}
	switch err := s.checkPassword(u.PasswordHash, password); {
	case errors.Is(err, auth.ErrMismatch):
		return nil, "wrong password", nil
	case err != nil:
		return nil, "", err
	case u.Disabled:
		return nil, "disabled", nil
	}
	return u, "", nil
}

// startSession signs u in with a brand-new session (ending any session the
// browser had, so a planted id is never promoted) and redirects to next.
func (s *Server) startSession(c echo.Context, u *store.User, next string) error {
	ctx := c.Request().Context()
	if old := sessionToken(c); old != "" {
		if err := s.deps.Store.Logout(ctx, old, currentUser(c)); err != nil {
			return err
		}
	}
	token, err := s.deps.Store.Login(ctx, u, c.RealIP(), s.sessionPolicy())
	if err != nil {
		return err
	}
	if err := s.writeSessionCookie(c, token); err != nil {
		return err
	}
	return seeOther(c, next)
}

func (s *Server) logout(c echo.Context) error {
	if err := s.deps.Store.Logout(c.Request().Context(), sessionToken(c), currentUser(c)); err != nil {
		return err
	}
	s.clearSessionCookie(c)
	return seeOther(c, "/login")
}
