package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/httperr"
	"github.com/toolgate/toolgate/views"
)

var headingOf = map[int]string{
	http.StatusBadRequest:            "That did not work",
	http.StatusUnauthorized:          "Please sign in",
	http.StatusForbidden:             "Not allowed",
	http.StatusNotFound:              "Not found",
	http.StatusMethodNotAllowed:      "Not allowed",
	http.StatusConflict:              "Conflict",
	http.StatusInternalServerError:   "Something went wrong",
	http.StatusServiceUnavailable:    "Busy, please try again",
	http.StatusRequestEntityTooLarge: "Too large",
}

// handleError is the echo HTTPErrorHandler: every error a handler or
// middleware returns ends here. Internal errors are logged and shown only as
// a generic sentence; the others show their user-safe message. HTMX requests
// get a fragment retargeted to #flash, others a full page. An anonymous GET
// of a protected page is sent to the sign-in page instead.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed || httperr.ClientGone(c, err) {
		return
	}
	if tooLarge := bodyOverLimit(c); tooLarge != nil {
		// Whatever the handler made of a truncated body, the cause is its size.
		err = tooLarge
	}
	status, msg := s.classify(err, c)
	if status == http.StatusUnauthorized && c.Request().Method == http.MethodGet && !isHTMX(c) {
		_ = c.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(c.Request().URL.RequestURI()))
		return
	}
	m := views.ErrorView{Page: s.page(c, headingOf[status]), Status: status, Heading: headingOf[status], Message: msg}
	if m.Heading == "" {
		m.Heading = http.StatusText(status)
	}
	var rerr error
	if isHTMX(c) {
		c.Response().Header().Set("HX-Retarget", "#flash")
		c.Response().Header().Set("HX-Reswap", "innerHTML")
		rerr = render(c, status, views.ErrorFragment(m))
	} else {
		rerr = render(c, status, views.ErrorPage(m))
	}
	if rerr != nil {
		s.deps.Logger.Error("rendering error page", "err", rerr)
	}
}

// classify returns the status and the message to show for err.
func (s *Server) classify(err error, c echo.Context) (int, string) {
	a := httperr.Classify(err)
	if a.Internal {
		s.logInternal(c, err)
	}
	return a.Status, a.Message
}

func (s *Server) logInternal(c echo.Context, err error) { httperr.LogInternal(s.deps.Logger, c, err) }
