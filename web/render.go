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

// isHTMX reports whether the request came from HTMX and wants a fragment.
// Boosted requests want whole pages, and so does a history restore: when
// the page is not in htmx's history cache (Back after a sort, a reload of a
// pushed URL), htmx fetches the URL with HX-Request and
// HX-History-Restore-Request and puts the answer in place of the whole body.
func isHTMX(c echo.Context) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Boosted") != "true" &&
		h.Get("HX-History-Restore-Request") != "true"
}

// varyOnHTMX tells caches that a page's answer depends on the htmx request
// headers (a fragment or the full page, see isHTMX), so a cached fragment is
// never what a full-page navigation gets.
func varyOnHTMX(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Add("Vary", "HX-Request")
		h.Add("Vary", "HX-History-Restore-Request")
		return next(c)
	}
}

// seeOther redirects after a successful POST (PRG), so reloading the result
// page does not resubmit the form.
func seeOther(c echo.Context, to string) error { return c.Redirect(http.StatusSeeOther, to) }
