package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
)

// newAPI builds the runtime API: its own echo instance so that none of the
// console's middleware (sessions, CSRF cookie, HTML errors, CSP) runs on
// it. Runtimes authenticate with a bearer token on every request; the API
// sets no cookie and answers errors as JSON, never HTML.
func (s *Server) newAPI() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.apiError
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(s.recoverPanics, s.logRequests, apiHeaders)
	e.GET("/api/v1/bundle", s.apiBundle)
	e.GET("/api/v1/bundles/:version", s.apiBundleVersion)
	e.GET("/api/v1/keys", s.apiKeys)
	e.GET("/api/v1/metrics", s.apiMetricsPage)
	return e
}

// apiCSP: an API answer is never a document to render or frame.
const apiCSP = "default-src 'none'; frame-ancestors 'none'"

// apiHeaders: no sniffing a JWS into something else, and no framing.
func apiHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", apiCSP)
		return next(c)
	}
}

// apiErrorBody is every API error: a stable code and a sentence.
type apiErrorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// apiError is the API's HTTPErrorHandler: the statuses of statusOf, a JSON
// body, internal details only in the log.
func (s *Server) apiError(err error, c echo.Context) {
	if c.Response().Committed || answeredClientGone(c, err) {
		return
	}
	var he *echo.HTTPError
	status, body := 0, apiErrorBody{}
	if errors.As(err, &he) && apperr.CodeOf(err) == apperr.Internal {
		status, body = he.Code, apiErrorBody{Error: codeForStatus(he.Code), Message: http.StatusText(he.Code) + "."}
		if he.Code >= 500 {
			s.logInternal(c, err)
			body.Message = apperr.MessageOf(errors.New("internal"))
		}
	} else {
		code := apperr.CodeOf(err)
		if code == apperr.Internal {
			s.logInternal(c, err)
		}
		status, body = statusOf[code], apiErrorBody{Error: code, Message: apperr.MessageOf(err)}
	}
	if status == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
	}
	if refusesClient(status) {
		// A client without a valid token gets no idle connection to hold
		// on to: a flood of them would otherwise keep one file descriptor
		// each for the idle timeout.
		c.Response().Header().Set("Connection", "close")
	}
	if rerr := c.JSON(status, body); rerr != nil {
		s.deps.Logger.Error("writing API error", "err", rerr)
	}
}

// refusesClient reports whether status refuses the client itself (no or
// a wrong token, or a token without the right): the API closes such a
// connection after answering.
func refusesClient(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// codeForStatus names echo's own errors (no route, wrong method) in the
// apperr vocabulary where one fits.
func codeForStatus(status int) string {
	for code, st := range statusOf {
		if st == status {
			return code
		}
	}
	switch status {
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case statusClientClosed:
		return "client_closed"
	}
	return "error"
}
