// Package sampleapi is a small, realistic upstream HTTP API (orders plus admin
// user management) that people and the end-to-end tests point toolgate at.
// It serves its own OpenAPI document, keeps its state in memory with
// deterministic ids, and can inject the failures the executor must handle:
// 5xx bursts, slow responses, 429 with Retry-After, and a mutation that is
// applied but whose response is lost because the connection is dropped.
//
// Run it in-process with New and an httptest server, or as
// `toolgate sample-api`.
package sampleapi

import (
	"crypto/subtle"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// DefaultToken is the bearer token the API accepts when Options.Token is empty.
const DefaultToken = "sample-token"

// Options configures a Server. The zero value is usable: default token, no
// logging, no faults, empty state, wall clock.
type Options struct {
	// Token is the bearer token every API route requires ("" → DefaultToken).
	Token string
	// Logger receives one structured line per request (nil → discarded).
	Logger *slog.Logger
	// Faults are the fault switches active from the start.
	Faults Faults
	// Seed starts the API with a few sample orders and one admin user, so a
	// person playing with it sees data at once. Tests usually leave it off so
	// ids start at ord_0001.
	Seed bool
	// Now is the clock for created_at/updated_at (nil → time.Now).
	Now func() time.Time
}

// Server is the sample API. It is an http.Handler and safe for concurrent
// use; its methods let Go tests read the per-route counters and flip fault
// switches without going through HTTP.
type Server struct {
	token  string
	log    *slog.Logger
	now    func() time.Time
	mux    *http.ServeMux
	state  *state
	faults *faultState
	stats  *stats

	// patterns lists every pattern registered on mux, so tests can hold the
	// router and the OpenAPI document against each other.
	patterns []string
}

// handlerFunc is an API handler: it writes a success response itself and
// returns an error for everything else, which serve renders in one place.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route is one documented API operation: a net/http pattern and its handler.
type route struct {
	pattern string
	handle  handlerFunc
}

// New builds a Server from opts.
func New(opts Options) *Server {
	s := &Server{
		token:  opts.Token,
		log:    opts.Logger,
		now:    opts.Now,
		mux:    http.NewServeMux(),
		state:  newState(),
		faults: newFaultState(opts.Faults),
		stats:  newStats(),
	}
	if s.token == "" {
		s.token = DefaultToken
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.now == nil {
		s.now = time.Now
	}
	for _, rt := range s.apiRoutes() {
		s.handle(rt.pattern, s.api(rt))
	}
	for pattern, h := range s.controlRoutes() {
		s.handle(pattern, h)
	}
	s.handle("/", http.HandlerFunc(s.notFound))
	if opts.Seed {
		s.seed()
	}
	return s
}

// ServeHTTP makes Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
	s.patterns = append(s.patterns, pattern)
}

// apiRoutes is the route table of the API proper: exactly the operations of
// the OpenAPI document (a test holds the two against each other).
func (s *Server) apiRoutes() []route {
	return []route{
		{"GET /orders", s.listOrders},
		{"POST /orders", s.createOrder},
		{"GET /orders/{order_id}", s.getOrder},
		{"PATCH /orders/{order_id}", s.updateOrder},
		{"DELETE /orders/{order_id}", s.deleteOrder},
		{"POST /orders/{order_id}/cancel", s.cancelOrder},
		{"GET /admin/users", s.listUsers},
		{"POST /admin/users", s.createUser},
		{"DELETE /admin/users/{user_id}", s.deleteUser},
		{"GET /admin/users/{user_id}/api-keys", s.listAPIKeys},
		{"POST /admin/users/{user_id}/api-keys", s.createAPIKey},
	}
}

// controlRoutes are for the people and tests driving the sample API. They are
// deliberately left out of the OpenAPI document (importing it must not turn
// "inject a fault" into an agent tool), need no token, and are neither
// counted nor subject to faults, so a test can always reconfigure the server.
func (s *Server) controlRoutes() map[string]http.Handler {
	return map[string]http.Handler{
		"GET /openapi.yaml": http.HandlerFunc(s.serveOpenAPIYAML),
		"GET /openapi.json": http.HandlerFunc(s.serveOpenAPIJSON),
		"GET /healthz":      http.HandlerFunc(s.healthz),
		"GET /_faults":      http.HandlerFunc(s.getFaults),
		"POST /_faults":     http.HandlerFunc(s.postFaults),
		"DELETE /_faults":   http.HandlerFunc(s.deleteFaults),
		"GET /_stats":       http.HandlerFunc(s.getStats),
		"DELETE /_stats":    http.HandlerFunc(s.deleteStats),
	}
}

// api wraps an API handler in what every API request goes through, in the
// order a real deployment would see it: the request is counted as having
// reached the upstream, then the network-ish faults (delay, 429, 5xx) act as a
// gateway in front of the service would, then authentication, then the
// handler — possibly followed by a dropped connection.
func (s *Server) api(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.stats.count(rt.pattern)
		sw := &statusWriter{ResponseWriter: w}
		fault := s.serveAPI(sw, r, rt)
		attrs := []slog.Attr{
			slog.String("route", rt.pattern),
			slog.String("path", r.URL.Path),
			slog.Int("status", sw.status),
			slog.Duration("duration", time.Since(start)),
		}
		if fault != "" {
			attrs = append(attrs, slog.String("fault", fault))
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "sample-api request", attrs...)
	})
}

// serveAPI runs one API request and reports the fault it injected, if any.
func (s *Server) serveAPI(w *statusWriter, r *http.Request, rt route) string {
	if d := s.faults.delay(); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return "delay (client gave up)"
		}
	}
	if retryAfter, ok := s.faults.takeRateLimit(); ok {
		w.Header().Set("Retry-After", retryAfter)
		s.render(w, r, errf(http.StatusTooManyRequests, codeRateLimited, "rate limit exceeded; retry after %s s", retryAfter))
		return "rate_limit"
	}
	if status, ok := s.faults.takeFailNext(); ok {
		s.render(w, r, errf(status, codeInjected, "injected failure (fail_next)"))
		return "fail_next"
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sample-api"`)
		s.render(w, r, errf(http.StatusUnauthorized, codeUnauthorized, "missing or invalid bearer token"))
		return ""
	}
	if s.faults.takeDrop(r.Method) {
		// Apply the request for real, throw the response away, then drop the
		// connection: the client cannot tell whether the mutation happened.
		s.render(discardWriter{}, r, rt.handle(discardWriter{}, r))
		dropConnection(w)
		w.status = 0
		return "drop_after_apply"
	}
	s.render(w, r, rt.handle(w, r))
	return ""
}

func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.token)) == 1
}

// notFound answers every path no route matches with a JSON error; it tells
// "no such path" (404) from "path exists, method does not" (405 + Allow) by
// asking the mux which methods would match.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" && pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.render(w, r, errf(http.StatusMethodNotAllowed, codeMethodNotAllowed, "method %s not allowed on %s", r.Method, r.URL.Path))
		return
	}
	s.render(w, r, errf(http.StatusNotFound, codeNotFound, "no route for %s %s", r.Method, r.URL.Path))
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// statusWriter remembers the status written, for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection to hijack it.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
