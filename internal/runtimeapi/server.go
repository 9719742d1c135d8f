package runtimeapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/callgate"
	"github.com/toolgate/toolgate/internal/httperr"
)

// newAPI builds the runtime API: its own echo instance so that none of the
// console's middleware (sessions, CSRF cookie, HTML errors, CSP) runs on
// it. Runtimes authenticate with a bearer token on every request; the API
// sets no cookie and answers errors as JSON, never HTML.
func (s *Service) newAPI() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.apiError
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(httperr.Recover, httperr.AccessLog(s.log, nil), apiHeaders)
	e.GET("/api/v1/bundle", s.apiBundle)
	e.GET("/api/v1/bundles/:version", s.apiBundleVersion)
	e.GET("/api/v1/keys", s.apiKeys)
	e.GET("/api/v1/metrics", s.apiMetricsPage)
	e.POST("/api/v1/call-records", s.apiCallRecords)
	e.POST("/api/v1/call-summaries", s.apiCallSummaries)
	e.POST(callgate.PathRequests, s.apiFileCall)
	e.GET(callgate.PathRequests+"/:id", s.apiCallStatus)
	e.POST(callgate.PathConsume, s.apiConsumeGrant)
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

// apiError is the API's HTTPErrorHandler: the answer httperr.Classify
// gives (the console's classification and status mapping), written as
// JSON by writeError, internal details only in the log.
func (s *Service) apiError(err error, c echo.Context) {
	if c.Response().Committed || httperr.ClientGone(c, err) {
		return
	}
	a := httperr.Classify(err)
	if a.Internal {
		httperr.LogInternal(s.log, c, err)
	}
	if werr := writeError(echoErrors{c}, a); werr != nil {
		s.log.Error("writing API error", "err", werr)
	}
}

// errorWriter is a listener's response, as writeError needs it.
type errorWriter interface {
	setHeader(key, value string)
	send(status int, body []byte) error
}

// writeError is the one writer of an API error, for both listeners: a
// JSON body with the answer's code and sentence, a bearer challenge on
// 401, and no idle connection kept for a client refused.
func writeError(w errorWriter, a httperr.Answer) error {
	body, err := json.Marshal(apiErrorBody{Error: a.Code, Message: a.Message})
	if err != nil {
		return fmt.Errorf("api error: %w", err)
	}
	if a.Status == http.StatusUnauthorized {
		w.setHeader("WWW-Authenticate", `Bearer realm="toolgate"`)
	}
	if refusesClient(a.Status) {
		// A client without a valid token gets no idle connection to hold
		// on to: a flood of them would otherwise keep one file descriptor
		// each for the idle timeout.
		w.setHeader("Connection", "close")
	}
	return w.send(a.Status, body)
}

// echoErrors is the echo listener's errorWriter.
type echoErrors struct{ c echo.Context }

func (e echoErrors) setHeader(key, value string) { e.c.Response().Header().Set(key, value) }

func (e echoErrors) send(status int, body []byte) error {
	return e.c.Blob(status, echo.MIMEApplicationJSON, body)
}

// refusesClient reports whether status refuses the client itself (no or
// a wrong token, or a token without the right): the API closes such a
// connection after answering.
func refusesClient(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}
