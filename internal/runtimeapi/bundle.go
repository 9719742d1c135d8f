package runtimeapi

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/bundle"
	"github.com/toolgate/toolgate/internal/store"
)

// apiCacheControl lets an HTTP cache in front of the console store the
// bundle but never hand it out unchecked: no-cache makes every reuse a
// conditional request to the console, where the bearer token is checked
// (so a revoked token is refused at once), and must-revalidate is what RFC
// 9111 §3.5 requires before a shared cache may store a response to a
// request with Authorization at all. The body is the same for every token,
// so sharing it is safe; a 304 then saves the transfer.
const apiCacheControl = "no-cache, must-revalidate"

// errBadRuntimeToken is the one answer for an unknown, malformed or revoked
// token: telling them apart would help only someone guessing tokens.
var errBadRuntimeToken = apperr.Unauthorizedf("The runtime token is missing, unknown or revoked.")

// apiBundle is GET /api/v1/bundle: the current signed bundle, or 304 when
// the runtime already has it. This is the path a fleet polls; it is
// answered from memory (apiState) and records the fetch in memory
// (fleetRecorder), so it reads and writes nothing in the database.
func (s *Service) apiBundle(c echo.Context) error {
	if _, err := s.runtimeAuth(c); err != nil {
		return err
	}
	cur, err := s.state.current(c.Request().Context())
	if err != nil {
		return err
	}
	if cur.version == 0 {
		s.metrics.bundleResults.WithLabelValues(resultNone).Inc()
		return apperr.NotFoundf("No bundle has been published yet.")
	}
	form, err := s.holdBundle(c, cur.formFor(c.Request().Header.Get(headerBundleSchemas)))
	if err != nil {
		return err
	}
	return s.serveBundle(c, form.versionText, form.etag, form.signed)
}

// apiBundleVersion is GET /api/v1/bundles/{version}: any published version.
func (s *Service) apiBundleVersion(c echo.Context) error {
	if _, err := s.runtimeAuth(c); err != nil {
		return err
	}
	v, err := strconv.ParseInt(c.Param("version"), 10, 64)
	if err != nil || v <= 0 {
		s.metrics.bundleResults.WithLabelValues(resultNone).Inc()
		return apperr.NotFoundf("Bundle versions are positive integers.")
	}
	ctx := c.Request().Context()
	if cur, err := s.state.current(ctx); err != nil {
		return err
	} else if cur.version == v {
		form := cur.formFor(c.Request().Header.Get(headerBundleSchemas))
		return s.serveBundle(c, form.versionText, form.etag, form.signed)
	}
	rec, err := s.cache.get(ctx, s.db, v)
	if err != nil {
		if apperr.CodeOf(err) == apperr.NotFound {
			s.metrics.bundleResults.WithLabelValues(resultNone).Inc()
		}
		return err
	}
	etag, signed := recordForm(rec, c.Request().Header.Get(headerBundleSchemas))
	return s.serveBundle(c, strconv.FormatInt(v, 10), etag, signed)
}

// serveBundle answers 304 when If-None-Match names etag, else the JWS.
func (s *Service) serveBundle(c echo.Context, version, etag string, signed []byte) error {
	h := c.Response().Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", apiCacheControl)
	h.Set("Vary", varyBundle)
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		s.metrics.notModified.Inc()
		return c.NoContent(http.StatusNotModified)
	}
	h.Set("X-Toolgate-Bundle-Version", version)
	s.metrics.bundleResults.WithLabelValues(resultSent).Inc()
	return c.Blob(http.StatusOK, bundle.MediaTypeJOSE, signed)
}

// runtimeAuth checks the bearer token and notes the fetch for the fleet.
func (s *Service) runtimeAuth(c echo.Context) (store.ActiveRuntimeToken, error) {
	tok, err := s.runtimeToken(c)
	if err != nil {
		if apperr.CodeOf(err) == apperr.Unauthorized {
			s.metrics.bundleResults.WithLabelValues(resultRefused).Inc()
		}
		return tok, err
	}
	s.fleet.record(tok.ID, reportOf(c.Request()))
	return tok, nil
}

// runtimeToken checks the bearer token against the in-memory index.
func (s *Service) runtimeToken(c echo.Context) (store.ActiveRuntimeToken, error) {
	scheme, token, ok := strings.Cut(c.Request().Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return store.ActiveRuntimeToken{}, apperr.Unauthorizedf("Send the runtime token as Authorization: Bearer <token>.")
	}
	token = strings.TrimSpace(token)
	if !store.RuntimeTokenShapeOK(token) {
		return store.ActiveRuntimeToken{}, errBadRuntimeToken
	}
	t, ok, err := s.state.token(c.Request().Context(), sha256.Sum256([]byte(token)))
	if err != nil {
		return t, err
	}
	if !ok {
		return t, errBadRuntimeToken
	}
	return t, nil
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110 §13.1.2):
// any listed tag equal to etag once W/ is stripped, or "*".
func etagMatches(header, etag string) bool {
	if header == "" || etag == "" {
		return false
	}
	for header != "" {
		var t string
		t, header, _ = strings.Cut(header, ",")
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// bundleCache keeps the most recently served older version in memory (a
// runtime catching up, or pinned to a version). Published bundles never
// change, so a version's bytes are kept without any invalidation.
type bundleCache struct {
	mu  sync.RWMutex
	rec *store.BundleRecord
}

func (bc *bundleCache) get(ctx context.Context, db *store.DB, version int64) (*store.BundleRecord, error) {
	bc.mu.RLock()
	rec := bc.rec
	bc.mu.RUnlock()
	if rec != nil && rec.Version == version {
		return rec, nil
	}
	rec, err := db.ServedBundle(ctx, version)
	if err != nil {
		return nil, err
	}
	bc.mu.Lock()
	bc.rec = rec
	bc.mu.Unlock()
	return rec, nil
}
