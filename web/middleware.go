package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
)

// contentSecurityPolicy allows only same-origin scripts and styles (no
// inline script at all), no framing, no plugins, and forms posting only here.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		return next(c)
	}
}

// csrf checks a token on every state-changing request: forms send the
// hidden _csrf field, HTMX the X-CSRF-Token header (hx-headers on <body>).
// Browsers that send Sec-Fetch-Site: same-origin are let through by echo
// without the token; cross-site ones are refused.
func (s *Server) csrf() echo.MiddlewareFunc {
	return middleware.CSRFWithConfig(middleware.CSRFConfig{
		TokenLookup:           "header:" + echo.HeaderXCSRFToken + ",form:_csrf",
		Skipper:               isUploadRoute, // uploadGuard checks them, after the role check
		CookieName:            csrfCookie,
		CookiePath:            "/",
		CookieHTTPOnly:        true,
		CookieSecure:          s.deps.Config.SecureCookies(),
		CookieSameSite:        http.SameSiteLaxMode,
		ErrorHandler:          func(error, echo.Context) error { return errCSRF },
		AllowSecFetchSiteFunc: func(echo.Context) (bool, error) { return false, errCSRF },
	})
}

// csrfCookie holds the CSRF token the forms and HTMX echo back.
const csrfCookie = "toolgate_csrf"

var errCSRF = apperr.Forbiddenf("This form has expired or did not come from this console. Reload the page and try again.")

func csrfToken(c echo.Context) string {
	t, _ := c.Get("csrf").(string)
	return t
}

// requireSignedIn refuses anonymous requests (the error handler sends a GET
// to the sign-in page).
func requireSignedIn(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if currentUser(c) == nil {
			return apperr.Unauthorizedf("Please sign in.")
		}
		return next(c)
	}
}

// requireRole lets through users holding any of roles.
func requireRole(roles ...auth.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return requireSignedIn(func(c echo.Context) error {
			if !slices.ContainsFunc(roles, currentUser(c).Has) {
				return apperr.Forbiddenf("Your roles do not allow this page.")
			}
			return next(c)
		})
	}
}

// logRequests writes one slog line per request.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod: true, LogURIPath: true, LogStatus: true, LogLatency: true, LogRemoteIP: true, LogError: true,
		// The error handler writes the response before the line is logged,
		// so the status logged is the status sent, not echo's guess.
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			attrs := []slog.Attr{slog.String("method", v.Method), slog.String("path", v.URIPath), slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency), slog.String("remote", v.RemoteIP)}
			if v.Status >= 400 || v.Error != nil {
				attrs = append(attrs, slog.String("error", errorClass(c, v.Error, v.Status)))
			}
			level := slog.LevelInfo
			if v.Status == http.StatusNotModified {
				level = slog.LevelDebug // a fleet polling the bundle API makes mostly these
			}
			s.deps.Logger.LogAttrs(c.Request().Context(), level, "request", attrs...)
			return nil
		},
	})(next)
}

// errorClass names the kind of failure for the access log: the apperr code
// ("forbidden", "not_found", "internal", ...) of the error the handler
// returned, else the code the status maps to.
func errorClass(c echo.Context, err error, status int) string {
	if status == statusClientClosed {
		return codeForStatus(status)
	}
	if tooLarge := bodyOverLimit(c); tooLarge != nil {
		err = tooLarge
	}
	var he *echo.HTTPError
	if err != nil && !(errors.As(err, &he) && apperr.CodeOf(err) == apperr.Internal) {
		return apperr.CodeOf(err)
	}
	return codeForStatus(status)
}

// recoverPanics turns a handler panic into an internal error (logged with
// its value, shown as a plain 500 page).
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = fmt.Errorf("panic serving %s: %v", c.Request().URL.Path, r)
			}
		}()
		return next(c)
	}
}
