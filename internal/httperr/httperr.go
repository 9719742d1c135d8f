// Package httperr is how both of toolgate's echo servers — the console's
// HTML pages (web) and the runtime API's JSON (runtimeapi) — turn an error
// into an answer: one classification over apperr's codes and their one
// HTTP status mapping, the client-gone rule, the access log's error class
// and panic recovery. What the answer looks like (a page, a fragment, a
// JSON body) is each server's own.
package httperr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/toolgate/toolgate/internal/apperr"
)

// Answer is what an error becomes on the wire: a status, a stable code and
// a sentence safe to show. Internal says the error's text must be logged
// (it is never shown).
type Answer struct {
	Status   int
	Code     string
	Message  string
	Internal bool
}

// internalMessage is the sentence every internal error is shown as.
var internalMessage = apperr.MessageOf(errors.New("internal"))

// Classify returns the answer for err. echo's own errors (no route, wrong
// method, bad body) are a client problem with a fixed text, never internal
// details; every other error answers with its apperr code's status.
func Classify(err error) Answer {
	var he *echo.HTTPError
	if errors.As(err, &he) && apperr.CodeOf(err) == apperr.Internal {
		a := Answer{Status: he.Code, Code: apperr.CodeForStatus(he.Code), Message: http.StatusText(he.Code) + "."}
		if he.Code >= 500 {
			a.Internal, a.Message = true, internalMessage
		}
		return a
	}
	code := apperr.CodeOf(err)
	return Answer{Status: apperr.HTTPStatus(code), Code: code, Message: apperr.MessageOf(err), Internal: code == apperr.Internal}
}

// ClientGone records apperr.StatusClientClosed and reports true when err
// is the request's own context ending because its client went away: a
// database call cut short by it is not an internal error, and the access
// log says what happened (status 499, error client_closed, at info).
func ClientGone(c echo.Context, err error) bool {
	if !errors.Is(err, context.Canceled) || !errors.Is(c.Request().Context().Err(), context.Canceled) {
		return false
	}
	c.Response().WriteHeader(apperr.StatusClientClosed)
	return true
}

// LogInternal logs an internal error with the request it failed.
func LogInternal(log *slog.Logger, c echo.Context, err error) {
	log.LogAttrs(c.Request().Context(), slog.LevelError, "internal error",
		slog.String("method", c.Request().Method), slog.String("path", c.Request().URL.Path), slog.String("err", err.Error()))
}

// AccessLog writes one slog line per request, after the error handler has
// written the answer (so the status logged is the status sent). cause, when
// not nil, may name the error that really ended a request (a body over its
// limit, whatever the handler made of it); it returns nil otherwise.
func AccessLog(log *slog.Logger, cause func(echo.Context) error) echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod: true, LogURIPath: true, LogStatus: true, LogLatency: true, LogRemoteIP: true, LogError: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			attrs := []slog.Attr{slog.String("method", v.Method), slog.String("path", v.URIPath), slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency), slog.String("remote", v.RemoteIP)}
			if v.Status >= 400 || v.Error != nil {
				err := v.Error
				if cause != nil {
					if e := cause(c); e != nil {
						err = e
					}
				}
				attrs = append(attrs, slog.String("error", errorClass(err, v.Status)))
			}
			level := slog.LevelInfo
			if v.Status == http.StatusNotModified {
				level = slog.LevelDebug // a fleet polling the bundle API makes mostly these
			}
			log.LogAttrs(c.Request().Context(), level, "request", attrs...)
			return nil
		},
	})
}

// errorClass names the kind of failure for the access log: the apperr code
// ("forbidden", "not_found", "internal", ...) of the error the handler
// returned, else the code the status maps to.
func errorClass(err error, status int) string {
	if status == apperr.StatusClientClosed {
		return apperr.CodeForStatus(status)
	}
	var he *echo.HTTPError
	if err != nil && !(errors.As(err, &he) && apperr.CodeOf(err) == apperr.Internal) {
		return apperr.CodeOf(err)
	}
	return apperr.CodeForStatus(status)
}

// Recover turns a handler panic into an internal error (logged with its
// value by the error handler, answered as a plain 500).
func Recover(next echo.HandlerFunc) echo.HandlerFunc {
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
