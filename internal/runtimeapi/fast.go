package runtimeapi

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"strings"

	"github.com/toolgate/toolgate/internal/store"
)

// Header values of the fast path, built once: assigning a prebuilt slice
// to a header allocates nothing.
var (
	fastCacheControl = []string{apiCacheControl}
	fastNoSniff      = []string{"nosniff"}
	fastCSP          = []string{apiCSP}
)

// fastBundle is the check both fast paths (net/http here, fasthttp in
// fasthttp.go) start with: a well-formed bearer token that is active,
// and a published bundle. It returns the bundle and the token's id, or
// false for anything the full API must answer (with its error).
func (s *Service) fastBundle(ctx context.Context, authorization string) (*servedBundle, int64, bool) {
	scheme, token, ok := strings.Cut(authorization, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, 0, false
	}
	token = strings.TrimSpace(token)
	if !store.RuntimeTokenShapeOK(token) {
		return nil, 0, false
	}
	var buf [200]byte // RuntimeTokenShapeOK bounds it: hashing from the stack, not a heap copy
	tok, ok, err := s.state.token(ctx, sha256.Sum256(buf[:copy(buf[:], token)]))
	if err != nil || !ok {
		return nil, 0, false
	}
	cur, err := s.state.current(ctx)
	if err != nil || cur.version == 0 {
		return nil, 0, false
	}
	return cur, tok.ID, true
}

// notModified reports whether an If-None-Match value names b.
func (b *servedBundle) notModified(inm string) bool {
	return inm != "" && (inm == b.etag || etagMatches(inm, b.etag))
}

// notModifiedFast answers the request a fleet makes most — GET
// /api/v1/bundle with a valid token and the current ETag — before echo's
// router and middleware, with what apiBundle would answer: 304 with the
// same headers, the fetch recorded, the metric counted, a debug log line.
// Anything else (no or wrong token, another ETag, another path, a failed
// reload) returns false and goes through the API's echo instance, which
// answers it in full (and logs it). The fast path only ever answers 304.
func (s *Service) notModifiedFast(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/bundle" {
		return false
	}
	inm := headerValue(r.Header, "If-None-Match")
	if inm == "" {
		return false
	}
	ctx := r.Context()
	cur, tokenID, ok := s.fastBundle(ctx, headerValue(r.Header, "Authorization"))
	if !ok {
		return false
	}
	rep := reportOf(r)
	if cur = cur.formFor(rep.schemas); !cur.notModified(inm) {
		return false
	}
	if !s.holdNetHTTP(w, r, inm, rep.schemas) {
		return false
	}
	s.fleet.record(tokenID, rep)
	h := w.Header()
	h["Etag"] = cur.etagHeader
	h["Cache-Control"] = fastCacheControl
	h["Vary"] = fastVary
	h["X-Content-Type-Options"] = fastNoSniff
	h["Content-Security-Policy"] = fastCSP
	w.WriteHeader(http.StatusNotModified)
	s.metrics.notModified.Inc()
	if log := s.log; log.Enabled(ctx, slog.LevelDebug) {
		log.LogAttrs(ctx, slog.LevelDebug, "request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", http.StatusNotModified), slog.String("remote", r.RemoteAddr))
	}
	return true
}

// headerValue is h.Get(key) for a key already in canonical form (every
// caller passes a constant; TestHeaderKeysCanonical checks them): the 304
// path reads six headers per request, and Get canonicalises its key on
// every call, a quarter of the path's own CPU time in a profile.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
