package apperr

import "net/http"

// StatusClientClosed is the status recorded for a request whose client
// closed the connection before the answer (nginx's 499): nothing is sent,
// and it is no server error.
const StatusClientClosed = 499

// statusOf maps error codes to HTTP statuses. It is the only place that
// does: the console's pages and the runtime API's JSON answer alike.
var statusOf = map[string]int{
	Invalid:      http.StatusBadRequest,
	Unauthorized: http.StatusUnauthorized,
	Forbidden:    http.StatusForbidden,
	NotFound:     http.StatusNotFound,
	Conflict:     http.StatusConflict,
	Unavailable:  http.StatusServiceUnavailable,
	TooLarge:     http.StatusRequestEntityTooLarge,
	TooMany:      http.StatusTooManyRequests,
	Gone:         http.StatusGone,
	Internal:     http.StatusInternalServerError,
}

// HTTPStatus is the HTTP status of an error code; 500 for a code it does
// not know.
func HTTPStatus(code string) int {
	if st, ok := statusOf[code]; ok {
		return st
	}
	return http.StatusInternalServerError
}

// CodeForStatus names a status in the vocabulary where one fits (a
// router's own errors: no route, wrong method), for logs and JSON bodies.
func CodeForStatus(status int) string {
	for code, st := range statusOf {
		if st == status {
			return code
		}
	}
	switch status {
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case StatusClientClosed:
		return "client_closed"
	}
	return "error"
}
