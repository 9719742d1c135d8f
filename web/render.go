package web

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/views"
)

// render writes component with status as HTML.
func render(c echo.Context, status int, component templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return component.Render(c.Request().Context(), c.Response())
}

// page returns the layout data for a page titled title.
func (s *Server) page(c echo.Context, title string) views.Page {
	p := views.Page{Title: title, CSRF: csrfToken(c), Assets: s.assets.urls()}
	if u := currentUser(c); u != nil {
		p.User = &views.Viewer{Email: u.Email, Roles: roleNames(u.Roles)}
		p.Nav = s.withPendingCount(c, navFor(u, c.Request().URL.Path))
	}
	return p
}

// isHTMX reports whether the request came from HTMX and wants a fragment
// (boosted requests want whole pages).
func isHTMX(c echo.Context) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Boosted") != "true"
}

// seeOther redirects after a successful POST (PRG), so reloading the result
// page does not resubmit the form.
func seeOther(c echo.Context, to string) error { return c.Redirect(http.StatusSeeOther, to) }
