package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/views"
)

// statusOf maps error codes to HTTP statuses. It is the only place that does.
var statusOf = map[string]int{
	apperr.Invalid:      http.StatusBadRequest,
	apperr.Unauthorized: http.StatusUnauthorized,
	apperr.Forbidden:    http.StatusForbidden,
	apperr.NotFound:     http.StatusNotFound,
	apperr.Conflict:     http.StatusConflict,
	apperr.Unavailable:  http.StatusServiceUnavailable,
	apperr.TooLarge:     http.StatusRequestEntityTooLarge,
	apperr.Internal:     http.StatusInternalServerError,
}

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
	if c.Response().Committed || answeredClientGone(c, err) {
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

// statusClientClosed is the status recorded for a request whose client
// closed the connection before the answer (nginx's 499): nothing is sent,
// and it is no server error.
const statusClientClosed = 499

// answeredClientGone records statusClientClosed and reports true when err
// is the request's own context ending because its client went away: a
// database call cut short by it is not an internal error, and the access
// log says what happened (status 499, error client_closed, at info).
func answeredClientGone(c echo.Context, err error) bool {
	if !errors.Is(err, context.Canceled) || !errors.Is(c.Request().Context().Err(), context.Canceled) {
		return false
	}
	c.Response().WriteHeader(statusClientClosed)
	return true
}

// classify returns the status and the message to show for err.
func (s *Server) classify(err error, c echo.Context) (int, string) {
	var he *echo.HTTPError
	if errors.As(err, &he) && apperr.CodeOf(err) == apperr.Internal {
		// echo's own errors (no route, wrong method, bad body): a client
		// problem with a fixed text, never internal details.
		if he.Code >= 500 {
			s.logInternal(c, err)
			return he.Code, apperr.MessageOf(errors.New("internal"))
		}
		return he.Code, http.StatusText(he.Code) + "."
	}
	code := apperr.CodeOf(err)
	if code == apperr.Internal {
		s.logInternal(c, err)
	}
	return statusOf[code], apperr.MessageOf(err)
}

func (s *Server) logInternal(c echo.Context, err error) {
	s.deps.Logger.LogAttrs(c.Request().Context(), slog.LevelError, "internal error",
		slog.String("method", c.Request().Method), slog.String("path", c.Request().URL.Path), slog.String("err", err.Error()))
}
