package web

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/sso"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/views"
)

// Single sign-on (README "Single sign-on (OpenID Connect)"): GET /login/oidc starts a sign-in at the
// provider, GET /login/oidc/callback finishes it. Both are open to anyone
// (signing in is what they are for) and change nothing but the flow cookie
// until the callback has verified everything (internal/sso); the sign-in
// itself is then one store transaction (store.SignInSSO). A refused
// callback is audited and shown as a page with one sentence, never a token.

var errSSOOff = apperr.NotFoundf("Single sign-on is not configured on this console.")

// ssoBegin sends the browser to the provider.
func (s *Server) ssoBegin(c echo.Context) error {
	if s.deps.SSO == nil {
		return errSSOOff
	}
	f, to, err := s.deps.SSO.Begin(c.Request().Context(), safeNext(c.QueryParam("next")))
	if err != nil {
		return s.ssoRefused(c, err)
	}
	if err := s.writeFlowCookie(c, f); err != nil {
		return err
	}
	return seeOther(c, to)
}

// ssoCallback verifies the provider's answer and signs the person in.
func (s *Server) ssoCallback(c echo.Context) error {
	if s.deps.SSO == nil {
		return errSSOOff
	}
	ctx := c.Request().Context()
	flow := s.takeFlowCookie(c)
	id, err := s.deps.SSO.Finish(ctx, flow, c.QueryParams())
	if err != nil {
		return s.ssoRefused(c, err)
	}
	u, token, err := s.deps.Store.SignInSSO(ctx, store.SSOSignIn{Provider: s.deps.SSO.Issuer(), Subject: id.Subject,
		Email: id.Email, Roles: id.Roles, Address: c.RealIP()}, s.ssoSessionPolicy())
	if err != nil {
		return s.ssoRefused(c, storeRefusal(err, id))
	}
	if old := sessionToken(c); old != "" {
		if err := s.deps.Store.Logout(ctx, old, currentUser(c)); err != nil {
			return err
		}
	}
	if err := s.writeSessionCookie(c, token); err != nil {
		return err
	}
	s.deps.Logger.Info("single sign-on", "user", u.Email, "provider_subject", id.Subject, "roles", roleNames(u.Roles))
	return seeOther(c, flow.Next)
}

// ssoSessionPolicy: a single sign-on session ends after the idle time
// even when in use, so the person signs in at the provider again and the
// roles their groups give now apply. Sessions of someone removed from a
// group therefore end within the idle time (sooner when they sign in
// anywhere: roles are read on every request).
func (s *Server) ssoSessionPolicy() store.SessionPolicy {
	p := s.sessionPolicy()
	p.Absolute = min(p.Absolute, p.Idle)
	return p
}

// storeRefusal turns the store's refusal of a verified identity into a
// Failure for the audit log and the page.
func storeRefusal(err error, id *sso.Identity) error {
	f := &sso.Failure{Subject: id.Subject, Email: id.Email, Message: apperr.MessageOf(err)}
	switch {
	case errors.Is(err, store.ErrNoSSORole):
		f.Reason, f.Code = "no role: groups "+strings.Join(id.Groups, ", "), sso.CodeForbidden
		if len(id.Groups) == 0 {
			f.Reason = "no role: no groups"
		}
	case apperr.CodeOf(err) == apperr.Forbidden:
		f.Reason, f.Code = "account disabled", sso.CodeForbidden
	case apperr.CodeOf(err) == apperr.Conflict:
		f.Reason, f.Code = "email used by another account", sso.CodeForbidden
	case apperr.CodeOf(err) == apperr.Invalid:
		f.Reason, f.Code = "email invalid", sso.CodeInvalid
	default:
		return err
	}
	return f
}

// ssoStatus maps a Failure's code to the status of its page.
var ssoStatus = map[string]int{sso.CodeInvalid: http.StatusBadRequest, sso.CodeForbidden: http.StatusForbidden,
	sso.CodeUnavailable: http.StatusServiceUnavailable}

// ssoRefused audits a refused sign-in and renders its page; errors that
// are not a Failure go to the error handler.
func (s *Server) ssoRefused(c echo.Context, err error) error {
	var f *sso.Failure
	if !errors.As(err, &f) {
		return err
	}
	ctx := c.Request().Context()
	if aerr := s.deps.Store.RecordSSOFailure(ctx, store.SSOFailure{Provider: s.deps.SSO.Issuer(), Subject: f.Subject,
		Email: f.Email, Address: c.RealIP(), Reason: f.Reason}); aerr != nil {
		return aerr
	}
	s.deps.Logger.LogAttrs(ctx, slog.LevelWarn, "single sign-on refused", slog.String("reason", f.Reason),
		slog.String("remote", c.RealIP()), slog.String("err", err.Error()))
	status := ssoStatus[f.Code]
	if status == 0 {
		status = http.StatusBadRequest
	}
	return render(c, status, views.SSOFailurePage(views.SSOFailureView{Page: s.page(c, "Sign-in did not work"),
		Status: status, Provider: s.deps.SSO.Name(), Message: f.Message}))
}

// providerName is how a managed account's provider is shown.
func (s *Server) providerName(u *store.User) string {
	if !u.Managed() {
		return ""
	}
	if s.deps.SSO != nil && u.Provider == s.deps.SSO.Issuer() {
		return s.deps.SSO.Name()
	}
	return u.Provider
}
