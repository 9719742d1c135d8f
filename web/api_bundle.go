package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/store"
)

// joseType is the media type of a JWS compact serialization (RFC 7515 §9.2).
const joseType = "application/jose"

// apiCacheControl lets an HTTP cache in front of the console store the
// bundle but never hand it out unchecked: no-cache makes every reuse a
// conditional request to the console, where the bearer token is checked
// (so a revoked token is refused at once), and must-revalidate is what RFC
// 9111 §3.5 requires before a shared cache may store a response to a
// request with Authorization at all. The body is the same for every token,
// so sharing it is safe; a 304 then saves the transfer.
const apiCacheControl = "no-cache, must-revalidate"

// apiBundle is GET /api/v1/bundle: the current signed bundle, or 304 when
// the runtime already has it. This is the path a fleet polls, so it costs
// one SELECT (token + current ETag) and, at most every fleetWriteEvery per
// instance, one write.
func (s *Server) apiBundle(c echo.Context) error {
	ra, err := s.runtimeAuth(c)
	if err != nil {
		return err
	}
	if ra.CurrentVersion == 0 {
		return apperr.NotFoundf("No bundle has been published yet.")
	}
	return s.serveBundle(c, ra.CurrentVersion, ra.CurrentETag)
}

// apiBundleVersion is GET /api/v1/bundles/{version}: any published version.
func (s *Server) apiBundleVersion(c echo.Context) error {
	ra, err := s.runtimeAuth(c)
	if err != nil {
		return err
	}
	v, err := strconv.ParseInt(c.Param("version"), 10, 64)
	if err != nil || v <= 0 {
		return apperr.NotFoundf("Bundle versions are positive integers.")
	}
	if v == ra.CurrentVersion {
		return s.serveBundle(c, v, ra.CurrentETag)
	}
	rec, err := s.pub.cache.get(c.Request().Context(), s.deps.Store, v)
	if err != nil {
		return err
	}
	return s.serveBundle(c, v, rec.ETag)
}

// serveBundle answers 304 when If-None-Match names etag, else the JWS.
func (s *Server) serveBundle(c echo.Context, version int64, etag string) error {
	h := c.Response().Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", apiCacheControl)
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	rec, err := s.pub.cache.get(c.Request().Context(), s.deps.Store, version)
	if err != nil {
		return err
	}
	h.Set("X-Toolgate-Bundle-Version", strconv.FormatInt(version, 10))
	return c.Blob(http.StatusOK, joseType, []byte(rec.Signed))
}

// runtimeAuth checks the bearer token and notes the fetch for the fleet.
func (s *Server) runtimeAuth(c echo.Context) (*store.RuntimeAuth, error) {
	scheme, token, ok := strings.Cut(c.Request().Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, apperr.Unauthorizedf("Send the runtime token as Authorization: Bearer <token>.")
	}
	ra, err := s.deps.Store.AuthenticateRuntime(c.Request().Context(), strings.TrimSpace(token))
	if err != nil {
		return nil, err
	}
	s.pub.fleet.record(c, ra.TokenID)
	return ra, nil
}

// etagMatches applies If-None-Match's weak comparison (RFC 9110 §13.1.2):
// any listed tag equal to etag once W/ is stripped, or "*".
func etagMatches(header, etag string) bool {
	if header == "" || etag == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// bundleCache keeps the most recently served bundle in memory. Published
// bundles never change, so a version's bytes can be kept without any
// invalidation; only one is kept because runtimes nearly always fetch the
// current one.
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
	rec, err := db.BundleByVersion(ctx, version)
	if err != nil {
		return nil, err
	}
	bc.mu.Lock()
	if bc.rec == nil || rec.Version >= bc.rec.Version {
		bc.rec = rec
	}
	bc.mu.Unlock()
	return rec, nil
}
