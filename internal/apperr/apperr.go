// Package apperr is toolgate's error vocabulary: a handful of codes that every
// layer uses, mapped to HTTP statuses in one place (HTTPStatus) for the
// console and the runtime API alike.
//
// An *Error carries a code and a message that is safe to show to a person.
// Any other error is "internal": its text is logged, never shown.
package apperr

import (
	"errors"
	"fmt"
)

// Error codes. They say what went wrong from the caller's point of view.
const (
	Invalid      = "invalid"      // the input is wrong; the message says how
	Unauthorized = "unauthorized" // not signed in, or credentials refused
	Forbidden    = "forbidden"    // signed in, but the role does not allow it
	NotFound     = "not_found"    // the thing does not exist (or is not visible)
	Conflict     = "conflict"     // the change clashes with the current state
	Unavailable  = "unavailable"  // busy for now; the same request may succeed shortly
	TooLarge     = "too_large"    // the request body is over the route's limit
	TooMany      = "too_many"     // a bound on how many may wait at once is reached; retry later
	Gone         = "gone"         // it existed but can no longer be used (expired, spent elsewhere)
	Internal     = "internal"     // anything else; details only in the log
)

// Error is an error whose Message may be shown to the person who caused it.
type Error struct {
	Code    string
	Message string
}

// Error implements error.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with code and a formatted, user-safe message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalidf returns an Invalid error.
func Invalidf(format string, args ...any) *Error { return Errorf(Invalid, format, args...) }

// Unauthorizedf returns an Unauthorized error.
func Unauthorizedf(format string, args ...any) *Error { return Errorf(Unauthorized, format, args...) }

// Forbiddenf returns a Forbidden error.
func Forbiddenf(format string, args ...any) *Error { return Errorf(Forbidden, format, args...) }

// NotFoundf returns a NotFound error.
func NotFoundf(format string, args ...any) *Error { return Errorf(NotFound, format, args...) }

// Conflictf returns a Conflict error.
func Conflictf(format string, args ...any) *Error { return Errorf(Conflict, format, args...) }

// Unavailablef returns an Unavailable error.
func Unavailablef(format string, args ...any) *Error { return Errorf(Unavailable, format, args...) }

// CodeOf returns the code of the first *Error in err's chain, Internal for any
// other error and "" for nil.
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// MessageOf returns the user-safe message of the first *Error in err's chain,
// or a generic sentence for internal errors so their text never leaks.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong on our side. The problem has been logged."
}
