package sampleapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Error codes of the API's JSON error body. They are part of the documented
// Error schema in openapi.yaml.
const (
	codeBadRequest       = "bad_request"
	codeInvalid          = "invalid"
	codeUnauthorized     = "unauthorized"
	codeNotFound         = "not_found"
	codeMethodNotAllowed = "method_not_allowed"
	codeConflict         = "conflict"
	codeIdempotencyReuse = "idempotency_key_reused"
	codeRateLimited      = "rate_limited"
	codeInjected         = "injected_failure"
	codeInternal         = "internal"
)

// maxBodyBytes bounds request bodies; the sample API has no large payloads.
const maxBodyBytes = 1 << 20

// apiError is an error with the HTTP status and code it is rendered as.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func errf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// errorBody is the JSON shape of every error response.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// render writes err as the JSON error body; a nil err means the handler has
// already written its response. Errors that are not apiErrors are internal:
// they are logged and their text is not shown.
func (s *Server) render(w http.ResponseWriter, r *http.Request, err error) {
	if err == nil {
		return
	}
	var ae *apiError
	if !errors.As(err, &ae) {
		s.log.ErrorContext(r.Context(), "sample-api internal error", "error", err, "path", r.URL.Path)
		ae = errf(http.StatusInternalServerError, codeInternal, "internal error")
	}
	var body errorBody
	body.Error.Code, body.Error.Message = ae.Code, ae.Message
	writeJSON(w, ae.Status, body)
}

// writeJSON writes v as the response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Only our own types are encoded here; failing is a programming error.
		http.Error(w, "encoding response", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// decodeJSON reads one JSON object from the request body into dst, refusing
// unknown fields and trailing data, as a strict real API would.
func decodeJSON(r *http.Request, dst any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return errf(http.StatusBadRequest, codeBadRequest, "invalid JSON body: %v", err)
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		return errf(http.StatusBadRequest, codeBadRequest, "invalid JSON body: trailing data")
	}
	return nil
}

// discardWriter swallows a response: drop_after_apply runs the handler for
// its effect only.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}
