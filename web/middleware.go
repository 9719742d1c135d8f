package web

import (
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
